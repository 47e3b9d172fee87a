package awsmodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits that keep validation bounded whatever the input.
const (
	// MaxDepth is the nesting depth below which values are not checked
	// (recursive shapes: DynamoDB AttributeValue M/L). DynamoDB itself
	// allows 32 levels; deeper values are left to the service.
	MaxDepth = 64
	// MaxViolations is the most violations collected for one request.
	MaxViolations = 100
)

// Kind is the kind of a constraint violation.
type Kind int

// Violation kinds.
const (
	KindRequired  Kind = iota // a required member is missing or null (also a null list element)
	KindMinLength             // string/blob length or list/map size below min
	KindMaxLength             // … above max
	KindMinValue              // number below min
	KindMaxValue              // number above max
	KindPattern               // string does not match the pattern
	KindEnum                  // string not in the enum
	KindType                  // value of the wrong JSON type for the shape
)

func (k Kind) String() string {
	return [...]string{"required", "minLength", "maxLength", "minValue", "maxValue", "pattern", "enum", "type"}[k]
}

// Step is one step of a path from the input root: a structure member, a
// list element (Index ≥ 1) or a map entry (MapKey set; IsKey when the step
// is the key itself rather than the value).
type Step struct {
	Member *Member
	Index  int
	MapKey string
	Entry  int // 1-based position of the map entry in key order
	IsKey  bool
	// List/map are the container shape for index and map steps (wire names).
	Container *Shape
	// Ref is the reference the container was reached through (for flattening).
	Ref *Ref
}

// Violation is one constraint a value breaks.
type Violation struct {
	Kind  Kind
	Path  []Step
	Shape *Shape // the shape the value should satisfy
	Value any    // the offending value; nil for KindRequired
	// Length is the actual length/size (length kinds).
	Length int
	// Bound is the violated min/max.
	Bound *Bound
	// Container, when set, is the list or map whose element, key or value
	// the violation is about (elements of non-structure shape); AWS's Coral
	// validators report those once, at the container.
	Container *ContainerRef
}

// ContainerRef is a list or map whose elements are reported as a whole.
type ContainerRef struct {
	Kind  string // "list", "mapKey", "mapValue"
	Path  []Step
	Shape *Shape // the list or map shape
	Value any
}

// contSpec names the list or map whose elements a check reports at: the
// container's path length, shape and value.
type contSpec struct {
	kind  string
	depth int
	sh    *Shape
	val   any
}

// validator walks one input. The path is a stack of steps reused across
// the walk and copied only when a violation is recorded, so a valid input
// costs no allocation beyond the validator itself.
type validator struct {
	viol   []Violation
	full   bool
	sorted bool // walking maps in key order
	path   []Step
	buf    [16]Step
	skip   kindSet // constraint kinds the current member leaves unenforced
}

func (v *validator) push(s Step) { v.path = append(v.path, s) }
func (v *validator) pop()        { v.path = v.path[:len(v.path)-1] }

// Validate checks a decoded request against an operation's input shape and
// returns nil or an *Error in the service's own format. input is the
// generic decoding of the request (map[string]any keyed by the model's
// member names, or for JSON bodies by their wire names; []any; string;
// json.Number or float64/int; bool; []byte or base64 strings for blobs;
// numbers, strings or time.Time for timestamps). Members the model does
// not define are ignored, as AWS ignores them. An unknown service or
// operation is an error (not an *Error).
func Validate(service, operation string, input any) error {
	m, err := Load()
	if err != nil {
		return err
	}
	op := m.Operation(service, operation)
	if op == nil {
		return fmt.Errorf("awsmodel: %s:%s is not a served operation", service, operation)
	}
	if e := op.Validate(input); e != nil {
		return e
	}
	return nil
}

// Validate checks input against the operation's input shape; see the
// package-level Validate. It returns nil (an untyped nil *Error) when the
// input is valid.
func (op *Operation) Validate(input any) *Error {
	viol := op.Violations(input)
	if len(viol) == 0 {
		return nil
	}
	return op.errorFor(viol)
}

// Violations returns every violation (up to MaxViolations) in model order.
func (op *Operation) Violations(input any) []Violation {
	if op.Input == nil {
		return nil
	}
	var v validator
	v.path = v.buf[:0]
	if input == nil {
		input = map[string]any{}
	}
	v.check(input, op.Input, contSpec{}, 0)
	return v.viol
}

func (v *validator) add(kind Kind, sh *Shape, val any, length int, b *Bound, c contSpec) {
	if v.skip.has(kind) {
		return
	}
	if len(v.viol) >= MaxViolations {
		v.full = true
		return
	}
	vi := Violation{Kind: kind, Path: append([]Step(nil), v.path...), Shape: sh, Value: val, Length: length, Bound: b}
	if c.kind != "" {
		vi.Container = &ContainerRef{Kind: c.kind, Path: append([]Step(nil), v.path[:c.depth]...), Shape: c.sh, Value: c.val}
	}
	v.viol = append(v.viol, vi)
}

// check validates val (not nil) against sh at the current path; c names
// the container to report direct violations at.
func (v *validator) check(val any, sh *Shape, c contSpec, depth int) {
	if v.full || depth > MaxDepth {
		return
	}
	if sh.Document {
		return
	}
	switch sh.Type {
	case "structure", "union":
		obj, ok := val.(map[string]any)
		if !ok {
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		for _, mem := range sh.Members {
			x, present := obj[mem.Name]
			if !present && sh.byWire != nil && sh.byWire[mem.LocationName] == mem {
				x, present = obj[mem.LocationName]
			}
			if (!present || x == nil) && !mem.Required {
				continue
			}
			v.push(Step{Member: mem})
			outer := v.skip
			v.skip = mem.skip
			if !present || x == nil {
				v.add(KindRequired, mem.Shape, nil, 0, nil, contSpec{})
			} else {
				v.check(x, mem.Shape, contSpec{}, depth+1)
			}
			v.skip = outer
			v.pop()
			if v.full {
				return
			}
		}
	case "list":
		n, ok := listLen(val)
		if !ok {
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		v.checkSize(n, sh, val, c)
		elem := sh.Member.Shape
		var ec contSpec
		if elem.Type != "structure" && elem.Type != "union" {
			ec = contSpec{kind: "list", depth: len(v.path), sh: sh, val: val}
		}
		eachListItem(val, func(i int, it any) bool {
			v.push(Step{Index: i + 1, Container: sh})
			if it == nil {
				v.add(KindRequired, elem, nil, 0, nil, ec)
			} else {
				v.check(it, elem, ec, depth+1)
			}
			v.pop()
			return !v.full
		})
	case "map":
		n, ok := mapLen(val)
		if !ok {
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		v.checkSize(n, sh, val, c)
		if n == 0 {
			return
		}
		kc := contSpec{kind: "mapKey", depth: len(v.path), sh: sh, val: val}
		var vc contSpec
		if vs := sh.Value.Shape; vs.Type != "structure" && vs.Type != "union" {
			vc = contSpec{kind: "mapValue", depth: len(v.path), sh: sh, val: val}
		}
		entry := func(i int, k string, x any) bool {
			v.push(Step{MapKey: k, Entry: i, IsKey: true, Container: sh})
			v.checkString(k, sh.Key.Shape, kc)
			v.pop()
			if x != nil {
				v.push(Step{MapKey: k, Entry: i, Container: sh})
				v.check(x, sh.Value.Shape, vc, depth+1)
				v.pop()
			}
			return !v.full
		}
		// Visit in Go's order; only when something is wrong visit again in
		// key order, so violations come out in a stable order.
		// (Once re-walking in key order, nested maps go straight to key order:
		// otherwise nested maps would be re-walked 2^depth times.)
		if v.sorted {
			eachMapEntry(val, n, entry)
			return
		}
		before := len(v.viol)
		eachMapEntryUnordered(val, entry)
		if len(v.viol) > before {
			v.viol, v.full, v.sorted = v.viol[:before], false, true
			eachMapEntry(val, n, entry)
			v.sorted = false
		}
	case "string":
		s, ok := val.(string)
		if !ok {
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		v.checkString(s, sh, c)
	case "blob":
		var n int
		switch b := val.(type) {
		case []byte:
			n = len(b)
		case string:
			dec, err := base64.StdEncoding.DecodeString(b)
			if err != nil {
				v.add(KindType, sh, val, 0, nil, c)
				return
			}
			n = len(dec)
		default:
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		if sh.Min != nil || sh.Max != nil {
			v.checkLength(n, sh, val, c)
		}
	case "boolean":
		if _, ok := val.(bool); !ok {
			v.add(KindType, sh, val, 0, nil, c)
		}
	case "timestamp":
		switch t := val.(type) {
		case time.Time, json.Number, float64, float32, int, int32, int64, uint32, uint64:
		case string:
			if _, ok := parseTimestamp(t); !ok {
				v.add(KindType, sh, val, 0, nil, c)
			}
		default:
			v.add(KindType, sh, val, 0, nil, c)
		}
	case "integer", "long", "short", "byte", "float", "double", "bigInteger", "bigDecimal":
		f, ok := number(val, sh)
		if !ok {
			v.add(KindType, sh, val, 0, nil, c)
			return
		}
		if sh.Min != nil && f < sh.Min.Float {
			v.add(KindMinValue, sh, val, 0, sh.Min, c)
		} else if sh.Max != nil && f > sh.Max.Float {
			v.add(KindMaxValue, sh, val, 0, sh.Max, c)
		}
	}
}

// checkString checks a string value (or map key) against a string shape:
// pattern, then length, then enum — the order AWS lists them in.
func (v *validator) checkString(s string, sh *Shape, c contSpec) {
	if sh.Pattern != nil && !sh.Pattern.Match(s) {
		v.add(KindPattern, sh, s, 0, nil, c)
	}
	if sh.Min != nil || sh.Max != nil {
		// Lengths count code points (Smithy's definition of string length).
		v.checkLength(utf8.RuneCountInString(s), sh, s, c)
	}
	if sh.enumSet != nil {
		if _, ok := sh.enumSet[s]; !ok {
			v.add(KindEnum, sh, s, 0, nil, c)
		}
	}
}

func (v *validator) checkLength(n int, sh *Shape, val any, c contSpec) {
	if sh.Min != nil && float64(n) < sh.Min.Float {
		v.add(KindMinLength, sh, val, n, sh.Min, c)
	}
	if sh.Max != nil && float64(n) > sh.Max.Float {
		v.add(KindMaxLength, sh, val, n, sh.Max, c)
	}
}

func (v *validator) checkSize(n int, sh *Shape, val any, c contSpec) {
	if sh.Min != nil || sh.Max != nil {
		v.checkLength(n, sh, val, c)
	}
}

// number returns the value of a number for a numeric shape; ok is false
// for non-numbers, non-integral values of integral shapes and integers
// beyond the shape's type.
func number(val any, sh *Shape) (float64, bool) {
	var f float64
	switch n := val.(type) {
	case json.Number:
		if sh.IsInteger() {
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				f = float64(i)
				break
			}
		}
		x, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return 0, false
		}
		f = x
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int8:
		f = float64(n)
	case int16:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint8:
		f = float64(n)
	case uint16:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f, sh.Type == "double" || sh.Type == "float"
	}
	if sh.IsInteger() {
		if f != math.Trunc(f) {
			return 0, false
		}
		lo, hi := intRange(sh.Type)
		if f < lo || f > hi {
			return 0, false
		}
	}
	return f, true
}

func listLen(val any) (int, bool) {
	switch l := val.(type) {
	case []any:
		return len(l), true
	case []string:
		return len(l), true
	case []map[string]any:
		return len(l), true
	}
	return 0, false
}

func eachListItem(val any, f func(int, any) bool) {
	switch l := val.(type) {
	case []any:
		for i, x := range l {
			if !f(i, x) {
				return
			}
		}
	case []string:
		for i, x := range l {
			if !f(i, x) {
				return
			}
		}
	case []map[string]any:
		for i, x := range l {
			if !f(i, x) {
				return
			}
		}
	}
}

func mapLen(val any) (int, bool) {
	switch m := val.(type) {
	case map[string]any:
		return len(m), true
	case map[string]string:
		return len(m), true
	}
	return 0, false
}

func eachMapEntryUnordered(val any, f func(int, string, any) bool) {
	i := 0
	switch m := val.(type) {
	case map[string]any:
		for k, x := range m {
			i++
			if !f(i, k, x) {
				return
			}
		}
	case map[string]string:
		for k, x := range m {
			i++
			if !f(i, k, x) {
				return
			}
		}
	}
}

// eachMapEntry visits entries in key order (violations come out in a
// stable order); a single entry needs no sorting.
func eachMapEntry(val any, n int, f func(int, string, any) bool) {
	switch m := val.(type) {
	case map[string]any:
		if n == 1 {
			for k, x := range m {
				f(1, k, x)
			}
			return
		}
		keys := make([]string, 0, n)
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if !f(i+1, k, m[k]) {
				return
			}
		}
	case map[string]string:
		keys := make([]string, 0, n)
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if !f(i+1, k, m[k]) {
				return
			}
		}
	}
}

// parseTimestamp accepts the timestamp forms of the AWS protocols:
// epoch seconds (possibly fractional), ISO 8601 / RFC 3339 and RFC 1123.
func parseTimestamp(s string) (time.Time, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 GMT"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(val any) string {
	switch val.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number"
	case []any, []string, []map[string]any:
		return "array"
	case map[string]any, map[string]string:
		return "object"
	case []byte:
		return "binary"
	case time.Time:
		return "timestamp"
	}
	return fmt.Sprintf("%T", val)
}

// CoralPath renders a path as AWS's Coral validators do: member names with
// a lower-case first letter, list elements as "N.member" (1-based), map
// values as "key.member": "keySchema.1.member.attributeName".
func CoralPath(path []Step) string {
	var b strings.Builder
	for i, s := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		switch {
		case s.Member != nil:
			b.WriteString(s.Member.pathName)
		case s.Index > 0:
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteString(".member")
		default:
			b.WriteString(s.MapKey)
			if !s.IsKey {
				b.WriteString(".member")
			}
		}
	}
	return b.String()
}

// QueryPath renders a path as the query protocol names parameters:
// "MetricData.member.12.Dimensions.member.1.Value", "Attribute.1.Name"
// (flattened lists and maps, query wire names). Map entries are numbered
// by key order.
func QueryPath(path []Step) string {
	var parts []string
	var lastRef *Ref
	for _, s := range path {
		switch {
		case s.Member != nil:
			name := s.Member.QueryName
			if name == "" {
				name = s.Member.Name
			}
			parts = append(parts, name)
			lastRef = &s.Member.Ref
		case s.Index > 0:
			lst := s.Container
			flat := lst.Flattened || (lastRef != nil && lastRef.QueryFlattened)
			if flat {
				if lst.Member.QueryName != "" && len(parts) > 0 {
					parts[len(parts)-1] = lst.Member.QueryName
				}
			} else {
				name := lst.Member.QueryName
				if name == "" {
					name = "member"
				}
				parts = append(parts, name)
			}
			parts = append(parts, strconv.Itoa(s.Index))
			lastRef = lst.Member
		default:
			mp := s.Container
			flat := mp.Flattened || (lastRef != nil && lastRef.QueryFlattened)
			if !flat {
				parts = append(parts, "entry")
			}
			parts = append(parts, strconv.Itoa(s.Entry))
			if s.IsKey {
				parts = append(parts, nameOr(mp.Key.QueryName, "key"))
			} else {
				parts = append(parts, nameOr(mp.Value.QueryName, "value"))
			}
			lastRef = mp.Value
		}
	}
	return strings.Join(parts, ".")
}

// FieldPath renders a path with model member names: "SourceParameters.FilterCriteria.Filters[0].Pattern".
func FieldPath(path []Step) string {
	var b strings.Builder
	for _, s := range path {
		switch {
		case s.Member != nil:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Member.Name)
		case s.Index > 0:
			fmt.Fprintf(&b, "[%d]", s.Index-1)
		default:
			fmt.Fprintf(&b, "[%q]", s.MapKey)
		}
	}
	return b.String()
}

func nameOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// lastMember returns the member the path ends at (nil when it ends at an element).
func lastMember(path []Step) *Member {
	if len(path) == 0 {
		return nil
	}
	return path[len(path)-1].Member
}
