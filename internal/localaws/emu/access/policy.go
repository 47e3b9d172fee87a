package access

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Policy is a parsed IAM policy document.
type Policy struct {
	Version   string
	Statement []Statement
}

// Statement is one statement of a policy.
type Statement struct {
	Sid          string
	Effect       string // "Allow" or "Deny"
	Principal    *Principal
	NotPrincipal *Principal
	Action       []string
	NotAction    []string
	Resource     []string
	NotResource  []string
	Condition    []Condition
	// hasResource/hasNotResource tell an absent element from an empty one.
	hasResource, hasNotResource bool
}

// Principal is a Principal or NotPrincipal element: "*" or a map of
// principal types ("AWS", "Service", ...) to values.
type Principal struct {
	Any    bool
	Values map[string][]string
}

// Condition is one operator/key pair of a Condition block.
type Condition struct {
	Operator string // as written, e.g. "ForAnyValue:StringLikeIfExists"
	Key      string
	Values   []string
	op       operator
}

// Parse parses a policy document (JSON, possibly URL-unescaped already).
func Parse(doc string) (*Policy, error) {
	var raw struct {
		Version   string          `json:"Version"`
		Statement json.RawMessage `json:"Statement"`
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("access: parse policy: %w", err)
	}
	var stmts []json.RawMessage
	s := bytes.TrimSpace(raw.Statement)
	switch {
	case len(s) == 0:
		return nil, fmt.Errorf("access: parse policy: no Statement")
	case s[0] == '[':
		if err := json.Unmarshal(s, &stmts); err != nil {
			return nil, fmt.Errorf("access: parse policy statements: %w", err)
		}
	default:
		stmts = []json.RawMessage{s}
	}
	p := &Policy{Version: raw.Version}
	for i, rs := range stmts {
		st, err := parseStatement(rs)
		if err != nil {
			return nil, fmt.Errorf("access: statement %d: %w", i, err)
		}
		p.Statement = append(p.Statement, st)
	}
	return p, nil
}

// MustParse is Parse for policies known to be valid (tests, built-ins).
func MustParse(doc string) *Policy {
	p, err := Parse(doc)
	if err != nil {
		panic(err)
	}
	return p
}

func parseStatement(raw json.RawMessage) (Statement, error) {
	var r struct {
		Sid          string                                `json:"Sid"`
		Effect       string                                `json:"Effect"`
		Principal    json.RawMessage                       `json:"Principal"`
		NotPrincipal json.RawMessage                       `json:"NotPrincipal"`
		Action       strings1                              `json:"Action"`
		NotAction    strings1                              `json:"NotAction"`
		Resource     *strings1                             `json:"Resource"`
		NotResource  *strings1                             `json:"NotResource"`
		Condition    map[string]map[string]json.RawMessage `json:"Condition"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Statement{}, fmt.Errorf("parse: %w", err)
	}
	st := Statement{Sid: r.Sid, Effect: r.Effect, Action: r.Action, NotAction: r.NotAction}
	if st.Effect != "Allow" && st.Effect != "Deny" {
		return st, fmt.Errorf("effect %q is neither Allow nor Deny", r.Effect)
	}
	if (len(st.Action) == 0) == (len(st.NotAction) == 0) {
		return st, fmt.Errorf("needs exactly one of Action and NotAction")
	}
	if r.Resource != nil {
		st.Resource, st.hasResource = *r.Resource, true
	}
	if r.NotResource != nil {
		st.NotResource, st.hasNotResource = *r.NotResource, true
	}
	if st.hasResource && st.hasNotResource {
		return st, fmt.Errorf("has both Resource and NotResource")
	}
	var err error
	if st.Principal, err = parsePrincipal(r.Principal); err != nil {
		return st, err
	}
	if st.NotPrincipal, err = parsePrincipal(r.NotPrincipal); err != nil {
		return st, err
	}
	ops := make([]string, 0, len(r.Condition))
	for op := range r.Condition {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, opName := range ops {
		op, err := parseOperator(opName)
		if err != nil {
			return st, err
		}
		keys := make([]string, 0, len(r.Condition[opName]))
		for k := range r.Condition[opName] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			vals, err := conditionValues(r.Condition[opName][k])
			if err != nil {
				return st, fmt.Errorf("condition %s %s: %w", opName, k, err)
			}
			st.Condition = append(st.Condition, Condition{Operator: opName, Key: k, Values: vals, op: op})
		}
	}
	return st, nil
}

func parsePrincipal(raw json.RawMessage) (*Principal, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var star string
	if err := json.Unmarshal(raw, &star); err == nil {
		if star != "*" {
			return nil, fmt.Errorf("principal %q: a string principal must be \"*\"", star)
		}
		return &Principal{Any: true}, nil
	}
	var m map[string]strings1
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("parse principal: %w", err)
	}
	p := &Principal{Values: map[string][]string{}}
	for k, v := range m {
		p.Values[k] = v
	}
	return p, nil
}

// conditionValues accepts a string, bool or number, or an array of them.
func conditionValues(raw json.RawMessage) ([]string, error) {
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err != nil {
		arr = []json.RawMessage{raw}
	}
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			out = append(out, s)
			continue
		}
		var b bool
		if err := json.Unmarshal(v, &b); err == nil {
			out = append(out, fmt.Sprint(b))
			continue
		}
		var n json.Number
		if err := json.Unmarshal(v, &n); err == nil {
			out = append(out, n.String())
			continue
		}
		return nil, fmt.Errorf("value %s is not a string, bool or number", v)
	}
	return out, nil
}

// strings1 is a policy element that is a string or an array of strings.
type strings1 []string

func (s *strings1) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*s = many
	return nil
}
