package eventpattern

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// maxOrRules bounds how many sub-rules a pattern may expand to through $or.
// EventBridge rejects patterns whose $or combinations exceed 1000
// (docs/aws-behaviour.md §5.8).
const maxOrRules = 1000

// Pattern is a compiled event pattern. It is immutable and safe for
// concurrent use.
type Pattern struct {
	src   string
	rules []rule    // alternatives produced by $or; one when there is no $or
	root  *stepNode // the field paths as a trie of key segments, to prune the event walk
	paths int       // number of distinct field paths (ids 0..paths-1)

	// pipesUnsupported lists operators EventBridge Pipes rejects, in the
	// order they appear; see ValidateForPipes.
	pipesUnsupported []string
}

// rule is one AND of fields, sorted by path (Ruler visits them in that order).
type rule struct {
	fields []field
}

// field is one pattern leaf: a dot-joined path and its ORed candidates.
type field struct {
	path   string
	id     int       // index of the path in the event's leaves
	ms     []matcher // value candidates (kindAbsent excluded)
	absent bool      // {"exists": false} is among the candidates
}

// String returns the pattern source as given to Compile.
func (p *Pattern) String() string { return p.src }

// Compile parses and validates an event pattern with EventBridge's rules. The
// error for an invalid pattern is an *InvalidPatternError.
//
// Like Ruler's GenericMachine.addRule, a pattern that fails to compile with
// "$or" read as the OR primitive is retried with "$or" read as an ordinary
// field name (Ruler's backward compatibility, docs/aws-behaviour.md §5.8); if that
// fails too, the first error is returned because it explains the $or misuse.
func Compile(pattern []byte) (*Pattern, error) {
	p, sawOr, err := compile(pattern, true)
	if err == nil {
		return p, nil
	}
	if !sawOr {
		return nil, err
	}
	if legacy, _, lerr := compile(pattern, false); lerr == nil {
		return legacy, nil
	}
	return nil, err
}

// MustCompile is Compile for patterns known to be valid; it panics otherwise.
// Use it for constants in code and tests, never for user input.
func MustCompile(pattern string) *Pattern {
	p, err := Compile([]byte(pattern))
	if err != nil {
		panic(fmt.Sprintf("eventpattern: MustCompile(%q): %v", pattern, err))
	}
	return p
}

// compiler holds the state of one compilation: Ruler's list of sub-rules,
// each a map from dot-joined path to candidates, filled while streaming.
type compiler struct {
	dec     *json.Decoder
	orAware bool
	sawOr   bool // a "$or" member was read as the OR primitive
	depth   int  // objects open
	rules   []map[string][]matcher
	pipes   []string
}

// maxDepth bounds object nesting in a pattern. AWS caps patterns at 4096
// characters, so real ones stay far below; the bound keeps hostile input
// from exhausting the stack.
const maxDepth = 256

func compile(src []byte, orAware bool) (p *Pattern, sawOr bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	c := &compiler{dec: dec, orAware: orAware}
	tok, err := c.next()
	if err != nil {
		return nil, false, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, false, invalid("Filter is not an object")
	}
	if err := c.object("", false); err != nil {
		return nil, c.sawOr, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, c.sawOr, invalid("Filter is not valid JSON: unexpected data after the pattern object")
	}
	p, err = c.finish(string(src))
	return p, c.sawOr, err
}

// next reads one token, turning syntax errors into pattern errors.
func (c *compiler) next() (json.Token, error) {
	tok, err := c.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, invalid("Filter is not valid JSON: unexpected end of input")
		}
		return nil, invalid("Filter is not valid JSON: " + err.Error())
	}
	return tok, nil
}

// expectClose consumes the '}' that ends a match expression.
func (c *compiler) expectClose(reason string) error {
	tok, err := c.next()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '}' {
		return invalid(reason)
	}
	return nil
}

// tokenText renders a token the way Jackson's getText() would in messages.
func tokenText(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return string(t)
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		if t {
			return "true"
		}
		return "false"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

func joinPath(path, step string) string {
	if path == "" {
		return step
	}
	return path + "." + step
}

// reservedInOr are the names Ruler refuses as field names inside $or
// (aws/event-ruler Constants.RESERVED_FIELD_NAMES_IN_OR_RELATIONSHIP).
var reservedInOr = map[string]bool{
	"exactly": true, "equals-ignore-case": true, "prefix": true, "suffix": true,
	"anything-but": true, "exists": true, "wildcard": true, "numeric": true, "cidr": true,
	"=": true, "<": true, "<=": true, ">": true, ">=": true,
	"regex": true, "not-wildcard": true, "not-equals-ignore-case": true,
	"date-after": true, "date-on-or-after": true, "date-before": true, "date-on-or-before": true,
	"in-date-range": true, "ip-address-in-range": true, "ip-address-not-in-range": true,
}

// object parses the members of an object whose '{' was consumed
// (JsonRuleCompiler.parseObject / parseObjectInsideOrRelationship).
func (c *compiler) object(path string, inOr bool) error {
	if c.depth++; c.depth > maxDepth {
		return invalid("Filter is nested too deeply")
	}
	defer func() { c.depth-- }()
	fields := 0
	for {
		tok, err := c.next()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			if fields == 0 {
				return invalid("Empty objects are not allowed")
			}
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return invalid("Filter is not valid JSON: expected a field name")
		}
		fields++
		if c.orAware && key == "$or" {
			c.sawOr = true
			if err := c.or(path); err != nil {
				return err
			}
			continue
		}
		if inOr && reservedInOr[key] {
			return invalid(key + " is Ruler reserved fieldName which cannot be used inside $or.")
		}
		tok, err = c.next()
		if err != nil {
			return err
		}
		switch d, _ := tok.(json.Delim); d {
		case '{':
			if err := c.object(joinPath(path, key), inOr); err != nil {
				return err
			}
		case '[':
			if err := c.values(joinPath(path, key)); err != nil {
				return err
			}
		default:
			return invalid(fmt.Sprintf("%q must be an object or an array", key))
		}
	}
}

// or parses "$or": [ {…}, {…}, … ]. Each object forks a copy of the sub-rules
// gathered so far (JsonRuleCompiler.parseIntoOrRelationship).
func (c *compiler) or(path string) error {
	current := copyRules(c.rules)
	tok, err := c.next()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return invalid("It must be an Array followed with $or.")
	}
	var out []map[string][]matcher
	branches := 0
	for {
		tok, err := c.next()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			break
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return invalid("Only JSON object is allowed in array of $or relationship.")
		}
		branches++
		c.rules = copyRules(current)
		if len(c.rules) == 0 {
			c.rules = []map[string][]matcher{{}}
		}
		if err := c.object(path, true); err != nil {
			return err
		}
		out = append(out, c.rules...)
		if len(out) > maxOrRules {
			return invalid(fmt.Sprintf("Rule is too complex - the $or combinations exceed %d", maxOrRules))
		}
	}
	if branches < 2 {
		return invalid("There must have at least 2 Objects in $or relationship.")
	}
	c.rules = out
	return nil
}

func copyRules(rules []map[string][]matcher) []map[string][]matcher {
	out := make([]map[string][]matcher, len(rules))
	for i, r := range rules {
		m := make(map[string][]matcher, len(r))
		for k, v := range r {
			m[k] = v
		}
		out[i] = m
	}
	return out
}

// values parses the candidate array of one field, whose '[' was consumed
// (JsonRuleCompiler.writeRules). The last occurrence of a path wins.
func (c *compiler) values(path string) error {
	var ms []matcher
	for {
		tok, err := c.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case ']':
				if len(ms) == 0 {
					return invalid("Empty arrays are not allowed")
				}
				if len(c.rules) == 0 {
					c.rules = []map[string][]matcher{{}}
				}
				for _, r := range c.rules {
					r[path] = ms
				}
				return nil
			case '{':
				m, err := c.expression()
				if err != nil {
					return err
				}
				ms = append(ms, m)
			default:
				return invalid("Match value must be String, number, true, false, or null")
			}
		case string:
			if a, ok := parseIP(t); ok {
				ms = append(ms, matcher{kind: kindIP, addr: a, str: t})
			} else {
				ms = append(ms, matcher{kind: kindString, str: t})
			}
		case json.Number:
			n, ok := comparable(string(t))
			ms = append(ms, matcher{kind: kindNumber, str: string(t), num: n, numOK: ok})
		case bool:
			lit := vFalse
			if t {
				lit = vTrue
			}
			ms = append(ms, matcher{kind: kindLiteral, lit: lit})
		case nil:
			ms = append(ms, matcher{kind: kindLiteral, lit: vNull})
		}
	}
}

const oneKey = "Only one key allowed in match expression"

// expression parses one operator object whose '{' was consumed
// (JsonRuleCompiler.processMatchExpression).
func (c *compiler) expression() (matcher, error) {
	tok, err := c.next()
	if err != nil {
		return matcher{}, err
	}
	name, ok := tok.(string)
	if !ok {
		return matcher{}, invalid("Match expression name not found")
	}
	switch name {
	case "exactly":
		c.pipes = append(c.pipes, "exactly")
		s, err := c.stringOperand("exact match pattern must be a string")
		if err != nil {
			return matcher{}, err
		}
		return matcher{kind: kindString, str: s}, c.expectClose(oneKey)
	case "prefix", "suffix":
		return c.affix(name)
	case "equals-ignore-case":
		s, err := c.stringOperand("equals-ignore-case match pattern must be a string")
		if err != nil {
			return matcher{}, err
		}
		return matcher{kind: kindEqualsFold, str: s}, c.expectClose(oneKey)
	case "numeric":
		tok, err := c.next()
		if err != nil {
			return matcher{}, err
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return matcher{}, invalid("Value of numeric must be an array.")
		}
		m, err := c.numeric()
		if err != nil {
			return matcher{}, err
		}
		return m, c.expectClose("Too many elements in numeric expression")
	case "anything-but":
		return c.anythingBut()
	case "exists":
		tok, err := c.next()
		if err != nil {
			return matcher{}, err
		}
		b, ok := tok.(bool)
		if !ok {
			return matcher{}, invalid("exists match pattern must be either true or false.")
		}
		k := kindExists
		if !b {
			k = kindAbsent
		}
		return matcher{kind: k}, c.expectClose(oneKey)
	case "cidr":
		// Ruler's message for a non-string cidr really does say "prefix".
		s, err := c.stringOperand("prefix match pattern must be a string")
		if err != nil {
			return matcher{}, err
		}
		p, err := parseCIDR(s)
		if err != nil {
			return matcher{}, err
		}
		return matcher{kind: kindCIDR, prefix: p, str: s}, c.expectClose(oneKey)
	case "wildcard":
		c.pipes = append(c.pipes, "wildcard")
		s, err := c.stringOperand("wildcard match pattern must be a string")
		if err != nil {
			return matcher{}, err
		}
		w, err := parseWildcard(s)
		if err != nil {
			return matcher{}, err
		}
		return matcher{kind: kindWildcard, wild: []wildcard{w}}, c.expectClose(oneKey)
	default:
		return matcher{}, invalid("Unrecognized match type " + name)
	}
}

// stringOperand reads a token that must be a string.
func (c *compiler) stringOperand(reason string) (string, error) {
	tok, err := c.next()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", invalid(reason)
	}
	return s, nil
}

// affix parses prefix/suffix, plain or {"equals-ignore-case": …}.
func (c *compiler) affix(name string) (matcher, error) {
	plain, fold := kindPrefix, kindPrefixFold
	title := "Prefix"
	if name == "suffix" {
		plain, fold, title = kindSuffix, kindSuffixFold, "Suffix"
	}
	tok, err := c.next()
	if err != nil {
		return matcher{}, err
	}
	switch t := tok.(type) {
	case string:
		return matcher{kind: plain, str: t}, c.expectClose(oneKey)
	case json.Delim:
		if t != '{' {
			break
		}
		tok, err := c.next()
		if err != nil {
			return matcher{}, err
		}
		op, ok := tok.(string)
		if !ok {
			return matcher{}, invalid(title + " expression name not found")
		}
		if op != "equals-ignore-case" {
			return matcher{}, invalid(fmt.Sprintf("Unsupported %s pattern: %s", name, op))
		}
		s, err := c.stringOperand("equals-ignore-case match pattern must be a string")
		if err != nil {
			return matcher{}, err
		}
		if err := c.expectClose(oneKey); err != nil {
			return matcher{}, err
		}
		return matcher{kind: fold, str: s}, c.expectClose(oneKey)
	}
	return matcher{}, invalid(name + " match pattern must be a string")
}

// numericBound reads the number after an operator.
func (c *compiler) numericBound(op string) (float64, error) {
	tok, err := c.next()
	if err != nil {
		return 0, err
	}
	n, ok := tok.(json.Number)
	if !ok {
		if op == "=" {
			op = "equals"
		}
		return 0, invalid(fmt.Sprintf("Value of %s must be numeric", op))
	}
	f, ok := comparable(string(n))
	if !ok {
		return 0, invalid("Cannot compare number : " + string(n))
	}
	return f, nil
}

// numeric parses the operator array of {"numeric": […]}, whose '[' was
// consumed (JsonRuleCompiler.processNumericMatchExpression): "=" alone, an
// upper bound alone, or a lower bound optionally followed by an upper one.
func (c *compiler) numeric() (matcher, error) {
	tok, err := c.next()
	if err != nil {
		return matcher{}, err
	}
	op, ok := tok.(string)
	if !ok {
		return matcher{}, invalid("Invalid member in numeric match: " + tokenText(tok))
	}
	closeArray := func(reason string) error {
		tok, err := c.next()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != ']' {
			return invalid(reason)
		}
		return nil
	}
	m := matcher{kind: kindNumeric}
	switch op {
	case "=":
		v, err := c.numericBound(op)
		if err != nil {
			return matcher{}, err
		}
		m.eq, m.lo = true, v
		return m, closeArray("Too many elements in numeric expression")
	case "<", "<=":
		v, err := c.numericBound(op)
		if err != nil {
			return matcher{}, err
		}
		m.hasHi, m.hi, m.hiOpen = true, v, op == "<"
		return m, closeArray("Too many elements in numeric expression")
	case ">", ">=":
		v, err := c.numericBound(op)
		if err != nil {
			return matcher{}, err
		}
		m.hasLo, m.lo, m.loOpen = true, v, op == ">"
	default:
		return matcher{}, invalid("Unrecognized numeric range operator: " + op)
	}
	tok, err = c.next()
	if err != nil {
		return matcher{}, err
	}
	if d, ok := tok.(json.Delim); ok && d == ']' {
		return m, nil
	}
	op2, ok := tok.(string)
	if !ok {
		return matcher{}, invalid("Bad value in numeric range: " + tokenText(tok))
	}
	if op2 != "<" && op2 != "<=" {
		return matcher{}, invalid("Bad numeric range operator: " + op2)
	}
	v, err := c.numericBound(op2)
	if err != nil {
		return matcher{}, err
	}
	if err := closeArray("Too many terms in numeric range expression"); err != nil {
		return matcher{}, err
	}
	if !(m.lo < v) {
		return matcher{}, invalid("Bottom must be less than top")
	}
	m.hasHi, m.hi, m.hiOpen = true, v, op2 == "<"
	return m, nil
}

// anythingBut parses {"anything-but": …} after its name
// (JsonRuleCompiler.processMatchExpression, ANYTHING_BUT branch).
func (c *compiler) anythingBut() (matcher, error) {
	const tooMany = "Too many elements in numeric expression" // sic, Ruler's tooManyElements
	tok, err := c.next()
	if err != nil {
		return matcher{}, err
	}
	sub := ""
	if d, ok := tok.(json.Delim); ok && d == '{' {
		tok, err = c.next()
		if err != nil {
			return matcher{}, err
		}
		name, ok := tok.(string)
		if !ok {
			return matcher{}, invalid("Anything-But expression name not found")
		}
		switch name {
		case "equals-ignore-case", "prefix", "suffix", "wildcard":
			sub = name
		default:
			return matcher{}, invalid("Unsupported anything-but pattern: " + name)
		}
		c.pipes = append(c.pipes, "anything-but/"+sub)
		if tok, err = c.next(); err != nil {
			return matcher{}, err
		}
	}
	var m matcher
	switch t := tok.(type) {
	case json.Delim:
		if t != '[' {
			return matcher{}, invalid("Value of anything-but must be an array or single string/number value.")
		}
		if sub == "" {
			m, err = c.anythingButList()
		} else {
			m, err = c.anythingButSet(sub)
		}
	case string, json.Number:
		if sub == "" {
			m, err = anythingButSingle(tok)
		} else {
			m, err = anythingButSetValue(sub, tok, matcher{kind: setKind(sub)})
		}
	default:
		return matcher{}, invalid("Value of anything-but must be an array or single string/number value.")
	}
	if err != nil {
		return matcher{}, err
	}
	if err := c.expectClose(tooMany); err != nil {
		return matcher{}, err
	}
	if sub != "" {
		if err := c.expectClose(tooMany); err != nil {
			return matcher{}, err
		}
	}
	return m, nil
}

func setKind(sub string) kind {
	switch sub {
	case "prefix":
		return kindAnythingButPrefix
	case "suffix":
		return kindAnythingButSuffix
	case "wildcard":
		return kindAnythingButWildcard
	default:
		return kindAnythingButFold
	}
}

func anythingButSingle(tok json.Token) (matcher, error) {
	switch t := tok.(type) {
	case string:
		return matcher{kind: kindAnythingBut, strs: []string{t}}, nil
	case json.Number:
		n, ok := comparable(string(t))
		if !ok {
			return matcher{}, invalid("Cannot compare number : " + string(t))
		}
		return matcher{kind: kindAnythingBut, numeric: true, nums: []float64{n}}, nil
	}
	return matcher{}, invalid("Inside anything-but list, start|null|boolean is not supported.")
}

// anythingButList parses a plain anything-but list: all strings or all numbers.
func (c *compiler) anythingButList() (matcher, error) {
	m := matcher{kind: kindAnythingBut}
	hasString, hasNumber := false, false
	for {
		tok, err := c.next()
		if err != nil {
			return matcher{}, err
		}
		switch t := tok.(type) {
		case string:
			hasString = true
			m.strs = append(m.strs, t)
			continue
		case json.Number:
			hasNumber = true
			n, ok := comparable(string(t))
			if !ok {
				return matcher{}, invalid("Cannot compare number : " + string(t))
			}
			m.nums = append(m.nums, n)
			continue
		case json.Delim:
			if t == ']' {
				if hasString == hasNumber {
					return matcher{}, invalid("Inside anything but list, either all values are number or string, mixed type is not supported")
				}
				m.numeric = hasNumber
				return m, nil
			}
		}
		return matcher{}, invalid("Inside anything but list, start|null|boolean is not supported.")
	}
}

// anythingButSet parses the list form of anything-but prefix/suffix/
// equals-ignore-case/wildcard: strings only.
func (c *compiler) anythingButSet(sub string) (matcher, error) {
	m := matcher{kind: setKind(sub)}
	for {
		tok, err := c.next()
		if err != nil {
			return matcher{}, err
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			return m, nil
		}
		if m, err = anythingButSetValue(sub, tok, m); err != nil {
			return matcher{}, err
		}
	}
}

// anythingButSetValue adds one operand to an anything-but set matcher.
func anythingButSetValue(sub string, tok json.Token, m matcher) (matcher, error) {
	s, ok := tok.(string)
	if !ok {
		switch sub {
		case "equals-ignore-case":
			return matcher{}, invalid("Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.")
		case "wildcard":
			return matcher{}, invalid("wildcard match pattern must be a string")
		default:
			return matcher{}, invalid("prefix/suffix match pattern must be a string")
		}
	}
	switch sub {
	case "prefix", "suffix":
		if s == "" {
			return matcher{}, invalid("Null prefix/suffix not allowed")
		}
	case "wildcard":
		w, err := parseWildcard(s)
		if err != nil {
			return matcher{}, err
		}
		m.wild = append(m.wild, w)
		return m, nil
	}
	m.strs = append(m.strs, s)
	return m, nil
}

// finish turns the streamed sub-rules into the matching form and applies the
// checks that need the whole pattern (wildcard complexity).
func (c *compiler) finish(src string) (*Pattern, error) {
	p := &Pattern{src: src, root: newStepNode(), pipesUnsupported: c.pipes}
	ids := map[string]int{}
	wildByPath := map[string]map[string]wildcard{}
	for _, r := range c.rules {
		var out rule
		for path, ms := range r {
			id, ok := ids[path]
			if !ok {
				id = len(ids)
				ids[path] = id
				p.root.insert(path, id)
			}
			f := field{path: path, id: id}
			for _, m := range ms {
				if m.kind == kindAbsent {
					f.absent = true
					continue
				}
				f.ms = append(f.ms, m)
				if m.kind == kindWildcard || m.kind == kindAnythingButWildcard {
					if wildByPath[path] == nil {
						wildByPath[path] = map[string]wildcard{}
					}
					for _, w := range m.wild {
						wildByPath[path][w.src] = w
					}
				}
			}
			out.fields = append(out.fields, f)
		}
		sort.Slice(out.fields, func(i, j int) bool { return out.fields[i].path < out.fields[j].path })
		p.rules = append(p.rules, out)
	}
	p.paths = len(ids)
	for _, ws := range wildByPath {
		srcs := make([]string, 0, len(ws))
		for s := range ws {
			srcs = append(srcs, s)
		}
		sort.Strings(srcs)
		toks := make([][]wildcardToken, len(srcs))
		for i, s := range srcs {
			toks[i] = ws[s].tokens()
		}
		if wildcardComplexity(toks, maxWildcardComplexity) > maxWildcardComplexity {
			return nil, invalid(tooComplexReason)
		}
	}
	return p, nil
}

// stepNode is one key segment of the field paths. Ruler joins keys with "."
// on both sides, so an event key "a.b" walks two segments.
type stepNode struct {
	children map[string]*stepNode
	id       int // field path id ending here, or -1
}

func newStepNode() *stepNode { return &stepNode{id: -1} }

func (n *stepNode) insert(path string, id int) {
	for {
		seg, rest, more := strings.Cut(path, ".")
		if n.children == nil {
			n.children = map[string]*stepNode{}
		}
		child := n.children[seg]
		if child == nil {
			child = newStepNode()
			n.children[seg] = child
		}
		n = child
		if !more {
			n.id = id
			return
		}
		path = rest
	}
}

// lookup follows an event key, which may itself contain dots; nil when no
// field path goes that way.
func (n *stepNode) lookup(key string) *stepNode {
	for n != nil {
		seg, rest, more := strings.Cut(key, ".")
		n = n.children[seg]
		if !more {
			return n
		}
		key = rest
	}
	return nil
}
