package access

import (
	"fmt"
	"strconv"
	"strings"
)

// operator is a parsed condition operator
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html).
type operator struct {
	base     string // e.g. "StringLike"
	ifExists bool
	set      string // "", "ForAnyValue" or "ForAllValues"
	negated  bool
	match    func(ctxVal, policyVal string) bool
}

var baseOperators = map[string]struct {
	negated bool
	match   func(c, p string) bool
}{
	"StringEquals":              {false, func(c, p string) bool { return c == p }},
	"StringNotEquals":           {true, func(c, p string) bool { return c == p }},
	"StringEqualsIgnoreCase":    {false, strings.EqualFold},
	"StringNotEqualsIgnoreCase": {true, strings.EqualFold},
	"StringLike":                {false, func(c, p string) bool { return glob(p, c, false) }},
	"StringNotLike":             {true, func(c, p string) bool { return glob(p, c, false) }},
	"ArnEquals":                 {false, func(c, p string) bool { return arnMatches(p, c, false) }},
	"ArnLike":                   {false, func(c, p string) bool { return arnMatches(p, c, false) }},
	"ArnNotEquals":              {true, func(c, p string) bool { return arnMatches(p, c, false) }},
	"ArnNotLike":                {true, func(c, p string) bool { return arnMatches(p, c, false) }},
	"Bool":                      {false, strings.EqualFold},
	"NumericEquals":             {false, numeric(func(c, p float64) bool { return c == p })},
	"NumericNotEquals":          {true, numeric(func(c, p float64) bool { return c == p })},
	"NumericLessThan":           {false, numeric(func(c, p float64) bool { return c < p })},
	"NumericLessThanEquals":     {false, numeric(func(c, p float64) bool { return c <= p })},
	"NumericGreaterThan":        {false, numeric(func(c, p float64) bool { return c > p })},
	"NumericGreaterThanEquals":  {false, numeric(func(c, p float64) bool { return c >= p })},
	"Null":                      {false, nil},
}

func numeric(f func(c, p float64) bool) func(c, p string) bool {
	return func(c, p string) bool {
		cv, err1 := strconv.ParseFloat(c, 64)
		pv, err2 := strconv.ParseFloat(p, 64)
		return err1 == nil && err2 == nil && f(cv, pv)
	}
}

func parseOperator(name string) (operator, error) {
	op := operator{}
	rest := name
	if s, ok := strings.CutPrefix(rest, "ForAnyValue:"); ok {
		op.set, rest = "ForAnyValue", s
	} else if s, ok := strings.CutPrefix(rest, "ForAllValues:"); ok {
		op.set, rest = "ForAllValues", s
	}
	if s, ok := strings.CutSuffix(rest, "IfExists"); ok && rest != "Null" {
		op.ifExists, rest = true, s
	}
	b, ok := baseOperators[rest]
	if !ok {
		return op, fmt.Errorf("condition operator %q is not supported by the local cloud", name)
	}
	if rest == "Null" && (op.ifExists || op.set != "") {
		return op, fmt.Errorf("condition operator %q is not valid", name)
	}
	op.base, op.negated, op.match = rest, b.negated, b.match
	return op, nil
}

// holds evaluates the condition against the request context (keys
// lower-cased).
func (c Condition) holds(ctx map[string][]string) bool {
	vals, present := ctx[strings.ToLower(c.Key)]
	present = present && len(vals) > 0
	op := c.op
	if op.base == "Null" {
		for _, want := range c.Values {
			if strings.EqualFold(want, "true") != present {
				return true
			}
		}
		return false
	}
	if !present {
		switch {
		case op.ifExists:
			return true
		case op.set == "ForAllValues":
			return true // vacuously: no value fails
		case op.set == "ForAnyValue":
			return false
		default:
			// A missing key matches no value, so a negated operator holds.
			return op.negated
		}
	}
	// one reports whether a single context value satisfies the operator.
	one := func(v string) bool {
		hit := false
		for _, p := range c.Values {
			if op.match(v, p) {
				hit = true
				break
			}
		}
		return hit != op.negated
	}
	switch op.set {
	case "ForAllValues":
		for _, v := range vals {
			if !one(v) {
				return false
			}
		}
		return true
	case "ForAnyValue":
		for _, v := range vals {
			if one(v) {
				return true
			}
		}
		return false
	default:
		if op.negated {
			for _, v := range vals {
				if !one(v) {
					return false
				}
			}
			return true
		}
		for _, v := range vals {
			if one(v) {
				return true
			}
		}
		return false
	}
}
