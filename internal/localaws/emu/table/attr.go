package table

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/truora/minidyn/server"
)

// item is one DynamoDB item in minidyn's wire representation. nil means
// "no item"; an item that exists always holds at least its key attributes.
type item = map[string]*server.AttributeValue

// cloneItem deep-copies an item. Images read from minidyn share leaf
// pointers and slices with its storage, which later writes may mutate in
// place, so every image kept past the current write is cloned first.
func cloneItem(it item) item {
	if it == nil {
		return nil
	}
	out := make(item, len(it))
	for k, v := range it {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v *server.AttributeValue) *server.AttributeValue {
	if v == nil {
		return nil
	}
	out := &server.AttributeValue{}
	if v.S != nil {
		s := *v.S
		out.S = &s
	}
	if v.N != nil {
		n := *v.N
		out.N = &n
	}
	if v.B != nil {
		out.B = slices.Clone(v.B)
	}
	if v.BOOL != nil {
		b := *v.BOOL
		out.BOOL = &b
	}
	if v.NULL != nil {
		b := *v.NULL
		out.NULL = &b
	}
	if v.SS != nil {
		out.SS = cloneStrings(v.SS)
	}
	if v.NS != nil {
		out.NS = cloneStrings(v.NS)
	}
	if v.BS != nil {
		out.BS = make([][]byte, len(v.BS))
		for i, b := range v.BS {
			out.BS[i] = slices.Clone(b)
		}
	}
	if v.L != nil {
		out.L = make([]*server.AttributeValue, len(v.L))
		for i, e := range v.L {
			out.L[i] = cloneValue(e)
		}
	}
	if v.M != nil {
		out.M = cloneItem(v.M)
	}
	return out
}

func cloneStrings(in []*string) []*string {
	out := make([]*string, len(in))
	for i, p := range in {
		if p != nil {
			s := *p
			out[i] = &s
		}
	}
	return out
}

// equalItems reports whether two items hold the same attributes with the
// same values in DynamoDB's sense: numbers compare by value ("1.50" equals
// "1.5") and sets compare without order. A write that leaves an item equal
// to what it was produces no stream record (docs/aws-behaviour.md §2.5).
func equalItems(a, b item) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !equalValues(av, bv) {
			return false
		}
	}
	return true
}

func equalValues(a, b *server.AttributeValue) bool {
	if a == nil || b == nil {
		return a == b
	}
	switch {
	case a.S != nil:
		return b.S != nil && *a.S == *b.S
	case a.N != nil:
		return b.N != nil && equalNumbers(*a.N, *b.N)
	case a.B != nil:
		return b.B != nil && string(a.B) == string(b.B)
	case a.BOOL != nil:
		return b.BOOL != nil && *a.BOOL == *b.BOOL
	case a.NULL != nil:
		return b.NULL != nil && *a.NULL == *b.NULL
	case a.SS != nil:
		return b.SS != nil && equalSets(a.SS, b.SS, func(s string) string { return s })
	case a.NS != nil:
		return b.NS != nil && equalSets(a.NS, b.NS, canonicalNumber)
	case a.BS != nil:
		if b.BS == nil || len(a.BS) != len(b.BS) {
			return false
		}
		as, bs := make([]string, len(a.BS)), make([]string, len(b.BS))
		for i := range a.BS {
			as[i], bs[i] = string(a.BS[i]), string(b.BS[i])
		}
		sort.Strings(as)
		sort.Strings(bs)
		return slices.Equal(as, bs)
	case a.L != nil:
		if b.L == nil || len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !equalValues(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case a.M != nil:
		return b.M != nil && equalItems(a.M, b.M)
	default:
		return isEmptyValue(b)
	}
}

func isEmptyValue(v *server.AttributeValue) bool {
	return v.S == nil && v.N == nil && v.B == nil && v.BOOL == nil && v.NULL == nil &&
		v.SS == nil && v.NS == nil && v.BS == nil && v.L == nil && v.M == nil
}

func equalSets(a, b []*string, canon func(string) string) bool {
	if len(a) != len(b) {
		return false
	}
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		as[i], bs[i] = canon(deref(a[i])), canon(deref(b[i]))
	}
	sort.Strings(as)
	sort.Strings(bs)
	return slices.Equal(as, bs)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func equalNumbers(a, b string) bool {
	if a == b {
		return true
	}
	return canonicalNumber(a) == canonicalNumber(b)
}

// canonicalNumber returns an exact canonical form of a DynamoDB number, or
// the input when it does not parse (the comparison then falls back to text).
func canonicalNumber(s string) string {
	var r big.Rat
	if _, ok := r.SetString(s); !ok {
		return s
	}
	return r.RatString()
}

// itemSize approximates DynamoDB's item size: the UTF-8 length of every
// attribute name plus the size of its value. Rules from the DynamoDB
// developer guide, "Item sizes and formats": strings and binaries count
// their bytes; a number costs one byte per two significant digits plus one;
// booleans and nulls one byte; lists and maps 3 bytes plus one byte per
// element. Applied to stream records it reproduces every SizeBytes value
// AWS has published (docs/aws-behaviour.md §2.4: 12, 26 and 59 bytes).
func itemSize(it item) int64 {
	var n int64
	for k, v := range it {
		n += int64(len(k)) + valueSize(v)
	}
	return n
}

func valueSize(v *server.AttributeValue) int64 {
	if v == nil {
		return 0
	}
	switch {
	case v.S != nil:
		return int64(len(*v.S))
	case v.N != nil:
		return numberSize(*v.N)
	case v.B != nil:
		return int64(len(v.B))
	case v.BOOL != nil, v.NULL != nil:
		return 1
	case v.SS != nil:
		var n int64
		for _, s := range v.SS {
			n += int64(len(deref(s)))
		}
		return n
	case v.NS != nil:
		var n int64
		for _, s := range v.NS {
			n += numberSize(deref(s))
		}
		return n
	case v.BS != nil:
		var n int64
		for _, b := range v.BS {
			n += int64(len(b))
		}
		return n
	case v.L != nil:
		n := int64(3)
		for _, e := range v.L {
			n += 1 + valueSize(e)
		}
		return n
	case v.M != nil:
		n := int64(3)
		for k, e := range v.M {
			n += 1 + int64(len(k)) + valueSize(e)
		}
		return n
	default:
		return 0
	}
}

// numberSize is ⌈significant digits / 2⌉ + 1, leading and trailing zeroes
// trimmed (DynamoDB developer guide, "Item sizes and formats").
func numberSize(s string) int64 {
	mant := s
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant = mant[:i]
	}
	digits := make([]byte, 0, len(mant))
	for i := 0; i < len(mant); i++ {
		if c := mant[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	d := strings.Trim(string(digits), "0")
	return int64((len(d)+1)/2) + 1
}

// appendItemJSON appends an item in DynamoDB JSON with sorted attribute
// names. It exists because minidyn's AttributeValue drops empty lists and
// maps ({"L":[]} would encode as {}), which the SDKs and aws-lambda-go reject.
func appendItemJSON(buf []byte, it item) []byte {
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = appendValueJSON(buf, it[k])
	}
	return append(buf, '}')
}

func appendValueJSON(buf []byte, v *server.AttributeValue) []byte {
	if v == nil {
		return append(buf, "null"...)
	}
	switch {
	case v.S != nil:
		buf = append(buf, `{"S":`...)
		buf = appendJSONString(buf, *v.S)
	case v.N != nil:
		buf = append(buf, `{"N":`...)
		buf = appendJSONString(buf, *v.N)
	case v.B != nil:
		buf = append(buf, `{"B":"`...)
		buf = base64.StdEncoding.AppendEncode(buf, v.B)
		buf = append(buf, '"')
	case v.BOOL != nil:
		if *v.BOOL {
			buf = append(buf, `{"BOOL":true`...)
		} else {
			buf = append(buf, `{"BOOL":false`...)
		}
	case v.NULL != nil:
		if *v.NULL {
			buf = append(buf, `{"NULL":true`...)
		} else {
			buf = append(buf, `{"NULL":false`...)
		}
	case v.SS != nil:
		buf = append(buf, `{"SS":`...)
		buf = appendStringList(buf, v.SS)
	case v.NS != nil:
		buf = append(buf, `{"NS":`...)
		buf = appendStringList(buf, v.NS)
	case v.BS != nil:
		buf = append(buf, `{"BS":[`...)
		for i, b := range v.BS {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '"')
			buf = base64.StdEncoding.AppendEncode(buf, b)
			buf = append(buf, '"')
		}
		buf = append(buf, ']')
	case v.L != nil:
		buf = append(buf, `{"L":[`...)
		for i, e := range v.L {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendValueJSON(buf, e)
		}
		buf = append(buf, ']')
	case v.M != nil:
		buf = append(buf, `{"M":`...)
		buf = appendItemJSON(buf, v.M)
	default:
		// Validation upstream never stores a value without a type; encode
		// it as minidyn would rather than invent one.
		return append(buf, "{}"...)
	}
	return append(buf, '}')
}

func appendStringList(buf []byte, list []*string) []byte {
	buf = append(buf, '[')
	for i, s := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, deref(s))
	}
	return append(buf, ']')
}

// appendJSONString appends s as a JSON string. Plain printable text takes
// the fast path; anything needing escapes goes through encoding/json so the
// rules (control characters, invalid UTF-8) are exactly the standard ones.
func appendJSONString(buf []byte, s string) []byte {
	if utf8.ValidString(s) {
		plain := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			buf = append(buf, '"')
			buf = append(buf, s...)
			return append(buf, '"')
		}
	}
	enc, err := json.Marshal(s)
	if err != nil {
		// json.Marshal of a string cannot fail; keep the output valid anyway.
		return append(buf, `""`...)
	}
	return append(buf, enc...)
}

// wireItem marshals an item with appendItemJSON; used in response shapes.
type wireItem item

// MarshalJSON implements json.Marshaler.
func (w wireItem) MarshalJSON() ([]byte, error) {
	if w == nil {
		return []byte("null"), nil
	}
	return appendItemJSON(nil, item(w)), nil
}

func wireItems(items []item) []wireItem {
	if items == nil {
		return nil
	}
	out := make([]wireItem, len(items))
	for i, it := range items {
		out[i] = wireItem(it)
	}
	return out
}
