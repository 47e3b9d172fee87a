package awsmodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// TestGeneratedNegatives derives, for every served operation, a minimal
// valid request (which must pass) and from it one request per constraint
// of every shape its input reaches — a missing required member, too short,
// too long, out of range, not matching the pattern, not in the enum, of the
// wrong type — each of which must be rejected with the service's code and
// message.
func TestGeneratedNegatives(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	var total, exact, multi atomic.Int64
	kinds := map[string]*atomic.Int64{}
	for _, k := range []string{"required", "minLength", "maxLength", "minValue", "maxValue", "pattern", "enum", "type"} {
		kinds[k] = new(atomic.Int64)
	}
	t.Cleanup(func() {
		var parts []string
		for _, k := range []string{"required", "minLength", "maxLength", "minValue", "maxValue", "pattern", "enum", "type"} {
			parts = append(parts, fmt.Sprintf("%s=%d", k, kinds[k].Load()))
		}
		t.Logf("generated negative cases: %d (%d with one violation, message compared exactly; %d with more, item compared); %s",
			total.Load(), exact.Load(), multi.Load(), strings.Join(parts, " "))
	})
	for _, svcKey := range m.Services() {
		svc := m.Service(svcKey)
		for _, op := range svc.Operations() {
			op := op
			t.Run(op.String(), func(t *testing.T) {
				t.Parallel()
				cases := negativeCases(t, op)
				opKinds := map[string]bool{}
				for _, c := range cases {
					opKinds[c.kind] = true
					total.Add(1)
					kinds[c.kind].Add(1)
					viol := op.Violations(c.input)
					if len(viol) == 0 && lenientAt(c.steps, c.kind) {
						continue // AWS does not enforce it either (Leniencies)
					}
					if len(viol) == 0 {
						t.Errorf("%s %s: accepted %s", c.kind, short(c.where), mustJSON(c.input))
						continue
					}
					e := op.Validate(c.input)
					want := expectFor(op, c, viol)
					if e.Code != want.code {
						t.Errorf("%s %s: code %s, want %s (message %q)", c.kind, short(c.where), e.Code, want.code, short(e.Message))
						continue
					}
					if e.Status != 400 {
						t.Errorf("%s %s: status %d", c.kind, c.where, e.Status)
					}
					countable := len(viol) == 1 || want.single
					if countable {
						exact.Add(1)
						if e.Message != want.message {
							t.Errorf("%s %s:\n got  %q\n want %q", c.kind, short(c.where), short(e.Message), short(want.message))
						}
					} else {
						multi.Add(1)
						if !strings.Contains(e.Message, want.item) {
							t.Errorf("%s %s: %q does not contain %q", c.kind, short(c.where), short(e.Message), short(want.item))
						}
					}
				}
				if op.Input != nil && len(op.Input.Members) > 0 && len(cases) == 0 {
					t.Errorf("no negative cases for %s", op)
				}
				// Every constraint kind the input has must be covered.
				for k := range inputKinds(op) {
					if !opKinds[k] {
						t.Errorf("constraint kind %s of %s has no negative case", k, op)
					}
				}
			})
		}
	}
}

type tStep struct {
	mem    *Member
	elem   bool
	mapKey bool
	mapVal bool
}

type site struct {
	steps []tStep
	sh    *Shape
}

type negCase struct {
	kind   string
	where  string
	input  map[string]any
	value  any // the offending value (nil: required)
	sh     *Shape
	steps  []tStep
	keys   []string // map keys used along the path, in order
	parent any      // the container value for element/key/value sites
}

// sites lists each shape reachable from the input once, at the first path found.
func sites(in *Shape) []site {
	var out []site
	seen := map[string]bool{}
	var walk func(sh *Shape, steps []tStep)
	walk = func(sh *Shape, steps []tStep) {
		if seen[sh.Name] || len(steps) > 30 {
			return
		}
		seen[sh.Name] = true
		out = append(out, site{steps: steps, sh: sh})
		add := func(s tStep) []tStep { return append(append([]tStep(nil), steps...), s) }
		switch sh.Type {
		case "structure", "union":
			for _, m := range sh.Members {
				walk(m.Shape, add(tStep{mem: m}))
			}
		case "list":
			walk(sh.Member.Shape, add(tStep{elem: true}))
		case "map":
			walk(sh.Key.Shape, add(tStep{mapKey: true}))
			walk(sh.Value.Shape, add(tStep{mapVal: true}))
		}
	}
	walk(in, nil)
	return out
}

// inputKinds lists the constraint kinds present in an operation's input.
func inputKinds(op *Operation) map[string]bool {
	out := map[string]bool{}
	if op.Input == nil {
		return out
	}
	for _, s := range sites(op.Input) {
		sh := s.sh
		if sh.Type == "structure" {
			for _, m := range sh.Members {
				if m.Required {
					out["required"] = true
				}
			}
		}
		if len(s.steps) > 0 {
			out["type"] = true
		}
		if sh.Min != nil && sh.Min.Float > 0 && !sh.IsNumber() {
			out["minLength"] = true
		}
		if sh.Max != nil && !sh.IsNumber() && sh.Max.Float <= maxLengthTested(sh) {
			out["maxLength"] = true
		}
		if sh.IsNumber() && sh.Min != nil && sh.Min.Float > -1e15 {
			out["minValue"] = true
		}
		if sh.IsNumber() && sh.Max != nil && sh.Max.Float < 1e15 {
			out["maxValue"] = true
		}
		if sh.Pattern != nil && len(sh.Enum) == 0 && nonMatching(sh) != nil {
			out["pattern"] = true
		}
		if len(sh.Enum) > 0 {
			out["enum"] = true
		}
	}
	return out
}

func maxLengthTested(sh *Shape) float64 {
	switch {
	case sh.Type == "list" || sh.Type == "map":
		return 2000
	case sh.Pattern != nil:
		return 4096
	}
	return 1 << 20
}

func negativeCases(t *testing.T, op *Operation) []negCase {
	t.Helper()
	if op.Input == nil {
		return nil
	}
	bd := &builder{}
	base, ok := bd.value(op.Input)
	if !ok {
		t.Fatalf("cannot build a valid %s", op)
	}
	if viol := op.Violations(base); len(viol) > 0 {
		t.Fatalf("minimal valid %s rejected: %v (%s)", op, op.Validate(base), mustJSON(base))
	}
	var out []negCase
	mk := func(kind string, s site, v any, del bool) {
		c := negCase{kind: kind, value: v, sh: s.sh, steps: s.steps}
		in, ok := bd.value(op.Input)
		if !ok {
			t.Fatalf("rebuild %s", op)
		}
		root, ok := place(bd, op.Input, in, s.steps, v, del, &c)
		if !ok {
			return
		}
		c.input = root.(map[string]any)
		c.where = pathString(s.steps, c.keys)
		out = append(out, c)
	}
	for _, s := range sites(op.Input) {
		sh := s.sh
		if sh.Type == "structure" {
			for _, m := range sh.Members {
				if m.Required {
					mk("required", site{steps: appendStep(s.steps, tStep{mem: m}), sh: m.Shape}, nil, true)
				}
			}
		}
		if len(s.steps) > 0 {
			mk("type", s, wrongType(sh), false)
		}
		if sh.Min != nil && sh.Min.Float > 0 && !sh.IsNumber() {
			if v, ok := ofLength(bd, sh, int(sh.Min.Float)-1); ok {
				mk("minLength", s, v, false)
			}
		}
		if sh.Max != nil && !sh.IsNumber() && sh.Max.Float <= maxLengthTested(sh) {
			if v, ok := ofLength(bd, sh, int(sh.Max.Float)+1); ok {
				mk("maxLength", s, v, false)
			}
		}
		if sh.IsNumber() && sh.Min != nil && sh.Min.Float > -1e15 {
			mk("minValue", s, below(sh), false)
		}
		if sh.IsNumber() && sh.Max != nil && sh.Max.Float < 1e15 {
			mk("maxValue", s, above(sh), false)
		}
		if sh.Pattern != nil && len(sh.Enum) == 0 {
			if v := nonMatching(sh); v != nil {
				mk("pattern", s, *v, false)
			}
		}
		if len(sh.Enum) > 0 {
			mk("enum", s, notInEnum(sh), false)
		}
	}
	return out
}

// lenientAt reports whether the last member on the path leaves the kind
// unenforced (its list elements and map entries included).
func lenientAt(steps []tStep, kind string) bool {
	for i := len(steps) - 1; i >= 0; i-- {
		if m := steps[i].mem; m != nil {
			for k := KindRequired; k <= KindType; k++ {
				if k.String() == kind && m.skip.has(k) {
					return true
				}
			}
			return false
		}
	}
	return false
}

func appendStep(steps []tStep, s tStep) []tStep { return append(append([]tStep(nil), steps...), s) }

// place puts v at the path (or deletes the member at its end) and returns
// the updated container.
func place(bd *builder, sh *Shape, cur any, steps []tStep, v any, del bool, c *negCase) (any, bool) {
	st := steps[0]
	last := len(steps) == 1
	switch {
	case st.mem != nil:
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if last {
			if del {
				delete(obj, st.mem.Name)
			} else {
				obj[st.mem.Name] = v
			}
			c.parent = obj
			return obj, true
		}
		child, ok := obj[st.mem.Name]
		if !ok {
			if child, ok = bd.value(st.mem.Shape); !ok {
				return nil, false
			}
		}
		nc, ok := place(bd, st.mem.Shape, child, steps[1:], v, del, c)
		if !ok {
			return nil, false
		}
		obj[st.mem.Name] = nc
		return obj, true
	case st.elem:
		lst, ok := cur.([]any)
		if !ok {
			return nil, false
		}
		if len(lst) == 0 {
			e, ok := bd.value(sh.Member.Shape)
			if !ok {
				return nil, false
			}
			lst = append(lst, e)
		}
		if last {
			lst[0] = v
			c.parent = lst
			return lst, true
		}
		nc, ok := place(bd, sh.Member.Shape, lst[0], steps[1:], v, del, c)
		if !ok {
			return nil, false
		}
		lst[0] = nc
		return lst, true
	case st.mapKey:
		mp, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		ks, ok := v.(string)
		if !ok {
			return nil, false // a key of the wrong type cannot be written in JSON
		}
		var val any
		if len(mp) == 0 {
			if val, ok = bd.value(sh.Value.Shape); !ok {
				return nil, false
			}
		} else {
			var old string
			for k := range mp {
				old = k
				break
			}
			val = mp[old]
			delete(mp, old)
		}
		mp[ks] = val
		c.keys = append(c.keys, ks)
		c.parent = mp
		return mp, true
	case st.mapVal:
		mp, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		var k string
		if len(mp) == 0 {
			if k, ok = bd.mapKey(sh.Key.Shape, 0); !ok {
				return nil, false
			}
			if mp[k], ok = bd.value(sh.Value.Shape); !ok {
				return nil, false
			}
		} else {
			for kk := range mp {
				k = kk
				break
			}
		}
		c.keys = append(c.keys, k)
		if last {
			mp[k] = v
			c.parent = mp
			return mp, true
		}
		nc, ok := place(bd, sh.Value.Shape, mp[k], steps[1:], v, del, c)
		if !ok {
			return nil, false
		}
		mp[k] = nc
		return mp, true
	}
	return nil, false
}

func pathString(steps []tStep, keys []string) string {
	var parts []string
	k := 0
	for _, s := range steps {
		switch {
		case s.mem != nil:
			parts = append(parts, s.mem.Name)
		case s.elem:
			parts = append(parts, "[0]")
		case s.mapKey:
			parts = append(parts, "{key}")
			k++
		default:
			parts = append(parts, "{"+keys[k]+"}")
			k++
		}
	}
	return strings.Join(parts, ".")
}

// ofLength builds a value of the shape with n characters/bytes/elements/entries.
func ofLength(bd *builder, sh *Shape, n int) (any, bool) {
	if n < 0 {
		return nil, false
	}
	switch sh.Type {
	case "string":
		if s, ok := genString(sh, n, n); ok {
			return s, true
		}
		return strings.Repeat("a", n), true
	case "blob":
		return base64.StdEncoding.EncodeToString(make([]byte, n)), true
	case "list":
		items := make([]any, 0, n)
		for i := 0; i < n; i++ {
			v, ok := bd.value(sh.Member.Shape)
			if !ok {
				return nil, false
			}
			items = append(items, v)
		}
		return items, true
	case "map":
		mp := map[string]any{}
		for i := 0; len(mp) < n && i < 4*n+8; i++ {
			k := "k" + strconv.Itoa(i)
			if ks := sh.Key.Shape; len(ks.Enum) > 0 {
				if i >= len(ks.Enum) {
					break
				}
				k = ks.Enum[i]
			} else if ks.Pattern != nil || ks.Min != nil {
				g, ok := genString(&Shape{Name: ks.Name + "#" + strconv.Itoa(i), Type: "string", Pattern: ks.Pattern}, max(minInt(ks), 1), min(maxInt(ks), 24))
				if !ok {
					return nil, false
				}
				k = g
			}
			v, ok := bd.value(sh.Value.Shape)
			if !ok {
				return nil, false
			}
			mp[k] = v
		}
		if len(mp) != n {
			return nil, false
		}
		return mp, true
	}
	return nil, false
}

func below(sh *Shape) json.Number {
	if sh.IsInteger() {
		return json.Number(strconv.FormatInt(int64(sh.Min.Float)-1, 10))
	}
	return json.Number(strconv.FormatFloat(sh.Min.Float-0.5, 'f', -1, 64))
}

func above(sh *Shape) json.Number {
	if sh.IsInteger() {
		return json.Number(strconv.FormatInt(int64(sh.Max.Float)+1, 10))
	}
	return json.Number(strconv.FormatFloat(sh.Max.Float+0.5, 'f', -1, 64))
}

func nonMatching(sh *Shape) *string {
	lo, hi := minInt(sh), maxInt(sh)
	for _, c := range []string{"!", " ", "#", "é", "a b", "\x00", "..", "-", "$", "/", "aws.x", ":", "_", "A", "a", "1", "\n", "*", "arn:aws:x"} {
		for _, s := range []string{c, padTo(c, lo)} {
			n := utf8.RuneCountInString(s)
			if n >= lo && n <= hi && !sh.Pattern.Match(s) {
				if sh.Pattern.Regexp() == nil && sh.Pattern.manual == nil {
					return nil // not enforced
				}
				return &s
			}
		}
	}
	return nil
}

func notInEnum(sh *Shape) string {
	for _, c := range []string{"NOT_AN_ENUM_VALUE", "invalid", "X", "zz"} {
		ok := true
		for _, e := range sh.Enum {
			if e == c {
				ok = false
			}
		}
		if ok {
			return c
		}
	}
	return "?"
}

// wrongType is a value of another JSON type than the shape's.
func wrongType(sh *Shape) any {
	switch sh.Type {
	case "string", "timestamp", "blob":
		return true
	case "boolean":
		return "yes"
	}
	if sh.IsNumber() {
		return "abc"
	}
	return "abc" // structure, list, map
}

type expectation struct {
	code    string
	message string // the whole message (one violation)
	item    string // one item of a Coral message (several violations)
	single  bool   // the style reports only this violation whatever else is wrong
}

// expectFor is the test's own statement of each service's format.
func expectFor(op *Operation, c negCase, viol []Violation) expectation {
	svc := op.Service.Key
	coral := coralItem(op, c)
	head := func(item string) string { return "1 validation error detected: " + item }
	switch svc {
	case "monitoring":
		if c.kind == "required" {
			return expectation{code: "MissingParameter", message: "The parameter " + QueryPath(viol[0].Path) + " is required.", single: onlyRequired(viol)}
		}
		if c.kind == "type" {
			return expectation{code: "InvalidParameterValue", message: "The value " + renderJava(c.value, c.sh) + " for parameter " + QueryPath(viol[0].Path) + " is invalid.", single: true}
		}
		return expectation{code: "ValidationError", message: head(coral), item: coral}
	case "sqs":
		switch c.kind {
		case "required":
			name := QueryPath(viol[0].Path)
			if c.sh.Type == "map" {
				name += "." + nameOr(c.sh.Key.QueryName, "key")
			}
			if op.Name == "CreateQueue" && len(c.steps) == 1 && c.steps[0].mem.Name == "QueueName" {
				return expectation{code: "InvalidParameterValue", message: "Value for parameter QueueName is invalid. Reason: Must specify a queue name.", single: true}
			}
			return expectation{code: "MissingParameter", message: "The request must contain the parameter " + name + ".", single: true}
		case "enum":
			return expectation{code: "InvalidAttributeName", message: "Unknown Attribute " + c.value.(string) + ".", single: true}
		case "type":
			return expectation{code: "SerializationException", message: serializationMessage(c), single: true}
		}
		return expectation{code: "InvalidParameterValue", single: true, message: op.sqsError(viol[0]).Message}
	case "pipes":
		msg := fgeExpected(c)
		return expectation{code: "ValidationException", message: "[" + msg + "]", item: msg}
	case "s3":
		return s3Expected(c)
	}
	code := op.Service.policy.code
	if c.kind == "type" {
		if op.Service.Protocol == "query" {
			return expectation{code: code, message: head(coral), item: coral, single: true}
		}
		return expectation{code: "SerializationException", message: serializationMessage(c), single: true}
	}
	return expectation{code: code, message: head(coral), item: coral}
}

func onlyRequired(viol []Violation) bool {
	n := 0
	for _, v := range viol {
		if v.Kind == KindRequired {
			n++
		}
	}
	return n == 1
}

// coralPath is the test's rendering of Coral paths.
func coralPathOf(steps []tStep, keys []string) string {
	var parts []string
	k := 0
	for _, s := range steps {
		switch {
		case s.mem != nil:
			n := s.mem.Name
			parts = append(parts, strings.ToLower(n[:1])+n[1:])
		case s.elem:
			parts = append(parts, "1.member")
		case s.mapKey:
			parts = append(parts, keys[k])
			k++
		default:
			parts = append(parts, keys[k]+".member")
			k++
		}
	}
	return strings.Join(parts, ".")
}

func coralItem(op *Operation, c negCase) string {
	steps := c.steps
	lastStep := steps[len(steps)-1]
	container := ""
	switch {
	case lastStep.elem && c.sh.Type != "structure" && c.sh.Type != "union":
		container = "list"
	case lastStep.mapKey:
		container = "mapKey"
	case lastStep.mapVal && c.sh.Type != "structure" && c.sh.Type != "union":
		container = "mapValue"
	}
	if container != "" {
		csh := containerShape(op, steps)
		path := coralPathOf(steps[:len(steps)-1], c.keys)
		var constraint string
		switch container {
		case "list":
			constraint = "Member must satisfy constraint: " + listConstraints(c.sh, true)
		case "mapKey":
			constraint = "Map keys must satisfy constraint: " + listConstraints(c.sh, false)
		default:
			constraint = "Map value must satisfy constraint: " + listConstraints(c.sh, false)
		}
		val := "'" + renderJava(c.parent, csh) + "'"
		if csh.Sensitive || c.sh.Sensitive {
			return "Value at '" + path + "' failed to satisfy constraint: " + constraint
		}
		return "Value " + val + " at '" + path + "' failed to satisfy constraint: " + constraint
	}
	path := coralPathOf(steps, c.keys)
	var val string
	switch {
	case c.value == nil:
		val = "null "
	case c.sh.Sensitive:
		val = ""
	default:
		val = "'" + renderJava(c.value, c.sh) + "' "
	}
	sh := c.sh
	var constraint string
	switch c.kind {
	case "required":
		constraint = "Member must not be null"
	case "minLength":
		constraint = "Member must have length greater than or equal to " + sh.Min.Text
	case "maxLength":
		constraint = "Member must have length less than or equal to " + sh.Max.Text
	case "minValue":
		constraint = "Member must have value greater than or equal to " + numText(sh, sh.Min)
	case "maxValue":
		constraint = "Member must have value less than or equal to " + numText(sh, sh.Max)
	case "pattern":
		constraint = "Member must satisfy regular expression pattern: " + strings.TrimSuffix(strings.TrimPrefix(sh.Pattern.Source, "^"), "$")
		if !(strings.HasPrefix(sh.Pattern.Source, "^") && strings.HasSuffix(sh.Pattern.Source, "$")) {
			constraint = "Member must satisfy regular expression pattern: " + sh.Pattern.Source
		}
	case "enum":
		constraint = "Member must satisfy enum value set: [" + strings.Join(sh.Enum, ", ") + "]"
	case "type":
		constraint = "Member must be a " + javaTypeName(sh)
	}
	return "Value " + val + "at '" + path + "' failed to satisfy constraint: " + constraint
}

func numText(sh *Shape, b *Bound) string {
	if sh.Type == "double" || sh.Type == "float" {
		return javaDouble(b.Float)
	}
	return b.Text
}

// listConstraints is the test's statement of the element constraint list.
func listConstraints(sh *Shape, notNull bool) string {
	var parts []string
	word := "length"
	if sh.IsNumber() {
		word = "value"
	}
	if sh.Max != nil {
		parts = append(parts, "Member must have "+word+" less than or equal to "+numText(sh, sh.Max))
	}
	if sh.Min != nil {
		parts = append(parts, "Member must have "+word+" greater than or equal to "+numText(sh, sh.Min))
	}
	if sh.Pattern != nil {
		parts = append(parts, "Member must satisfy regular expression pattern: "+sh.Pattern.display())
	}
	if len(sh.Enum) > 0 {
		parts = append(parts, "Member must satisfy enum value set: ["+strings.Join(sh.Enum, ", ")+"]")
	}
	if notNull {
		parts = append(parts, "Member must not be null")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func containerShape(op *Operation, steps []tStep) *Shape {
	sh := op.Input
	for _, s := range steps[:len(steps)-1] {
		switch {
		case s.mem != nil:
			sh = s.mem.Shape
		case s.elem:
			sh = sh.Member.Shape
		case s.mapVal:
			sh = sh.Value.Shape
		}
	}
	return sh
}

func serializationMessage(c negCase) string {
	switch c.value.(type) {
	case bool:
		return "TRUE_VALUE can not be converted to " + article(javaTypeName(c.sh))
	}
	if c.sh.Type == "structure" || c.sh.Type == "map" || c.sh.Type == "union" {
		return "Unexpected value type in payload"
	}
	return "STRING_VALUE can not be converted to " + article(javaTypeName(c.sh))
}

func fgeExpected(c negCase) string {
	sh := c.sh
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch c.kind {
	case "required":
		return "object has missing required properties ([" + q(c.steps[len(c.steps)-1].mem.Name) + "])"
	case "minLength", "maxLength":
		n := lengthOf(c.value)
		min := c.kind == "minLength"
		switch sh.Type {
		case "list":
			if min {
				return fmt.Sprintf("array is too short: must have at least %s elements but instance has %d elements", sh.Min.Text, n)
			}
			return fmt.Sprintf("array is too long: must have at most %s elements but instance has %d elements", sh.Max.Text, n)
		case "map":
			if min {
				return fmt.Sprintf("object has too few properties (found %d but schema requires at least %s)", n, sh.Min.Text)
			}
			return fmt.Sprintf("object has too many properties (found %d but schema requires at most %s)", n, sh.Max.Text)
		}
		if min {
			return fmt.Sprintf("string %s is too short (length: %d, required minimum: %s)", q(fmt.Sprint(c.value)), n, sh.Min.Text)
		}
		return fmt.Sprintf("string %s is too long (length: %d, maximum allowed: %s)", q(fmt.Sprint(c.value)), n, sh.Max.Text)
	case "minValue":
		return "numeric instance is lower than the required minimum (minimum: " + sh.Min.Text + ", found: " + string(c.value.(json.Number)) + ")"
	case "maxValue":
		return "numeric instance is greater than the required maximum (maximum: " + sh.Max.Text + ", found: " + string(c.value.(json.Number)) + ")"
	case "pattern":
		return "ECMA 262 regex " + q(sh.Pattern.Source) + " does not match input string " + q(c.value.(string))
	case "enum":
		vals, _ := json.Marshal(sh.Enum)
		return "instance value (" + q(c.value.(string)) + ") not found in enum (possible values: " + string(vals) + ")"
	}
	got := map[bool]string{true: "boolean", false: "string"}[c.value == true]
	return "instance type (" + got + ") does not match any allowed primitive type (allowed: [" + q(schemaType(sh)) + "])"
}

func lengthOf(v any) int {
	switch x := v.(type) {
	case string:
		if dec, err := base64.StdEncoding.DecodeString(x); err == nil && len(x)%4 == 0 && x != "" && strings.Trim(x, "A=") == "" {
			return len(dec)
		}
		return utf8.RuneCountInString(x)
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 0
}

func s3Expected(c negCase) expectation {
	top := c.steps[0].mem
	if top.Location == "" {
		if c.kind == "required" && len(c.steps) == 1 {
			return expectation{code: "MissingRequestBodyError", message: "Request Body is empty", single: true}
		}
		return expectation{code: "MalformedXML", message: "The XML you provided was not well-formed or did not validate against our published schema", single: true}
	}
	name := nameOr(top.LocationName, top.Name)
	switch {
	case c.kind == "enum" && top.Name == "StorageClass":
		return expectation{code: "InvalidStorageClass", message: "The storage class you specified is not valid", single: true}
	case c.kind == "required":
		return expectation{code: "InvalidArgument", message: "Missing required parameter " + name, single: true}
	}
	return expectation{code: "InvalidArgument", message: "Invalid argument " + name + ": " + renderJava(c.value, c.sh), single: true}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// short keeps failure output readable when values are long.
func short(s string) string {
	if len(s) <= 600 {
		return s
	}
	return s[:300] + fmt.Sprintf("…(%d bytes)…", len(s)-500) + s[len(s)-200:]
}
