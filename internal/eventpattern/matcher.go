package eventpattern

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind names one way a pattern candidate can match a leaf value.
type kind uint8

const (
	kindString              kind = iota // "value"
	kindNumber                          // 300
	kindLiteral                         // true, false, null
	kindIP                              // "10.0.0.1": same address, any spelling
	kindPrefix                          // {"prefix": "x"}
	kindPrefixFold                      // {"prefix": {"equals-ignore-case": "x"}}
	kindSuffix                          // {"suffix": "x"}
	kindSuffixFold                      // {"suffix": {"equals-ignore-case": "x"}}
	kindEqualsFold                      // {"equals-ignore-case": "x"}
	kindAnythingBut                     // {"anything-but": "x" | 1 | [...]}
	kindAnythingButPrefix               // {"anything-but": {"prefix": ...}}
	kindAnythingButSuffix               // {"anything-but": {"suffix": ...}}
	kindAnythingButFold                 // {"anything-but": {"equals-ignore-case": ...}}
	kindAnythingButWildcard             // {"anything-but": {"wildcard": ...}}
	kindNumeric                         // {"numeric": [...]}
	kindExists                          // {"exists": true}
	kindAbsent                          // {"exists": false}
	kindCIDR                            // {"cidr": "10.0.0.0/24"}
	kindWildcard                        // {"wildcard": "a*b"}
)

// matcher is one compiled candidate of a pattern field.
type matcher struct {
	kind kind

	str   string    // string, prefix, suffix, equals-ignore-case operand; number text
	lit   valueType // kindLiteral: which JSON literal
	num   float64   // kindNumber: the comparable value
	numOK bool      // kindNumber: num is valid

	strs    []string  // anything-but strings / prefixes / suffixes / fold values
	nums    []float64 // anything-but numbers (Ruler requires them comparable)
	numeric bool      // kindAnythingBut: the list holds numbers

	lo, hi         float64 // kindNumeric bounds
	hasLo, hasHi   bool
	loOpen, hiOpen bool
	eq             bool // kindNumeric: {"numeric": ["=", x]}

	addr   netip.Addr   // kindIP
	prefix netip.Prefix // kindCIDR
	wild   []wildcard   // kindWildcard (one), kindAnythingButWildcard (any)
}

// valueType is the JSON type of an event leaf.
type valueType uint8

const (
	vString valueType = iota
	vNumber
	vTrue
	vFalse
	vNull
)

// leaf is one leaf value of an event, with the array elements it sits in.
type leaf struct {
	typ   valueType
	s     string // string content, or number text
	num   float64
	numOK bool
	mem   membership
}

// matches reports whether the candidate accepts the leaf value. kindAbsent is
// handled by the search, never here.
func (m *matcher) matches(v *leaf) bool {
	switch m.kind {
	case kindString:
		return v.typ == vString && v.s == m.str
	case kindNumber:
		return v.typ == vNumber && (v.s == m.str || (m.numOK && v.numOK && v.num == m.num))
	case kindLiteral:
		return v.typ == m.lit
	case kindIP:
		if v.typ != vString {
			return false
		}
		a, ok := parseIP(v.s)
		return ok && a == m.addr
	case kindPrefix:
		return v.typ == vString && strings.HasPrefix(v.s, m.str)
	case kindPrefixFold:
		return v.typ == vString && hasPrefixFold(v.s, m.str)
	case kindSuffix:
		return v.typ == vString && strings.HasSuffix(v.s, m.str)
	case kindSuffixFold:
		return v.typ == vString && hasSuffixFold(v.s, m.str)
	case kindEqualsFold:
		return v.typ == vString && strings.EqualFold(v.s, m.str)
	case kindAnythingBut:
		return !m.excludes(v)
	case kindAnythingButPrefix:
		if v.typ != vString {
			return true // Ruler: other types never carry the prefix (content_anything_prefix_int_value)
		}
		for _, p := range m.strs {
			if strings.HasPrefix(v.s, p) {
				return false
			}
		}
		return true
	case kindAnythingButSuffix:
		if v.typ != vString {
			return true
		}
		for _, p := range m.strs {
			if strings.HasSuffix(v.s, p) {
				return false
			}
		}
		return true
	case kindAnythingButFold:
		if v.typ != vString {
			return true
		}
		for _, p := range m.strs {
			if strings.EqualFold(v.s, p) {
				return false
			}
		}
		return true
	case kindAnythingButWildcard:
		if v.typ != vString {
			return true // content_anything_wildcard_int
		}
		for _, w := range m.wild {
			if w.match(v.s) {
				return false
			}
		}
		return true
	case kindNumeric:
		if v.typ != vNumber || !v.numOK {
			return false // numeric-string_NEG, numeric-null_NEG
		}
		if m.eq {
			return v.num == m.lo
		}
		if m.hasLo && (v.num < m.lo || (m.loOpen && v.num == m.lo)) {
			return false
		}
		if m.hasHi && (v.num > m.hi || (m.hiOpen && v.num == m.hi)) {
			return false
		}
		return true
	case kindExists:
		return true
	case kindCIDR:
		if v.typ != vString {
			return false // content_ip_address_bad_type_NEG
		}
		a, ok := parseIP(v.s)
		return ok && m.prefix.Contains(a)
	case kindWildcard:
		return v.typ == vString && m.wild[0].match(v.s)
	}
	return false
}

// excludes reports whether a plain anything-but lists the value. Strings
// exclude only strings and numbers only numbers (compared numerically), so a
// null or a value of the other type always passes (docs/aws-behaviour.md §5.5).
func (m *matcher) excludes(v *leaf) bool {
	if !m.numeric {
		if v.typ != vString {
			return false
		}
		for _, s := range m.strs {
			if s == v.s {
				return true
			}
		}
		return false
	}
	if v.typ != vNumber || !v.numOK {
		return false
	}
	for _, n := range m.nums {
		if n == v.num {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with prefix under Unicode simple
// case folding, rune by rune (byte lengths may differ between cases).
func hasPrefixFold(s, prefix string) bool {
	for prefix != "" {
		if s == "" {
			return false
		}
		pr, pn := utf8.DecodeRuneInString(prefix)
		sr, sn := utf8.DecodeRuneInString(s)
		if !runeEqualFold(pr, sr) {
			return false
		}
		prefix, s = prefix[pn:], s[sn:]
	}
	return true
}

// hasSuffixFold is hasPrefixFold from the end.
func hasSuffixFold(s, suffix string) bool {
	for suffix != "" {
		if s == "" {
			return false
		}
		pr, pn := utf8.DecodeLastRuneInString(suffix)
		sr, sn := utf8.DecodeLastRuneInString(s)
		if !runeEqualFold(pr, sr) {
			return false
		}
		suffix, s = suffix[:len(suffix)-pn], s[:len(s)-sn]
	}
	return true
}

// runeEqualFold reports whether two runes are equal under Unicode simple case
// folding, as strings.EqualFold compares them.
func runeEqualFold(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}
