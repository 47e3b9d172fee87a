package awsmodel

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Test-side helpers: build valid values for shapes and values that break
// exactly one constraint.

func seedFor(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64())
}

var genCache sync.Map // "pattern\x00lo\x00hi" → genResult

type genResult struct {
	s  string
	ok bool
}

// genString returns a string of rune length in [lo, hi] that satisfies the
// shape's pattern: random strings from the pattern's syntax tree, and for
// long targets a short valid string "pumped" by repeating one of its
// characters.
func genString(sh *Shape, lo, hi int) (string, bool) {
	if lo < 0 {
		lo = 0
	}
	if hi < lo {
		return "", false
	}
	p := sh.Pattern
	if p == nil || (p.Regexp() == nil && p.manual == nil) {
		n := lo
		if n == 0 && hi >= 1 {
			n = 1
		}
		return strings.Repeat("a", n), true
	}
	key := p.Source + "\x00" + strconv.Itoa(lo) + "\x00" + strconv.Itoa(hi)
	if r, ok := genCache.Load(key); ok {
		return r.(genResult).s, r.(genResult).ok
	}
	s, ok := genStringUncached(p, lo, hi)
	genCache.Store(key, genResult{s, ok})
	return s, ok
}

func genStringUncached(p *Pattern, lo, hi int) (string, bool) {
	fits := func(s string) bool {
		n := utf8.RuneCountInString(s)
		return n >= lo && n <= hi && p.Match(s)
	}
	if p.manual != nil {
		for _, base := range []string{"a", "abc", "$.a", "x1", "src", "my-source"} {
			for _, s := range []string{base, padTo(base, lo)} {
				if fits(s) {
					return s, true
				}
			}
		}
		return "", false
	}
	tr, _ := TranslateJavaRegexp(p.Source)
	re, err := syntax.Parse(tr, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	rng := rand.New(rand.NewSource(seedFor(p.Source + strconv.Itoa(lo) + "/" + strconv.Itoa(hi))))
	var valid []string
	for try := 0; try < 200; try++ {
		budget := min(max(lo, 1), 48)
		if try >= 100 {
			budget = 1 + try%8
		}
		var b strings.Builder
		g := &strGen{rng: rng, budget: budget}
		g.gen(&b, re)
		s := b.String()
		if fits(s) {
			return s, true
		}
		if p.Match(s) && len(valid) < 8 && utf8.RuneCountInString(s) < lo {
			valid = append(valid, s)
		}
	}
	// Pump a shorter valid string up to lo runes.
	for _, base := range valid {
		rs := []rune(base)
		for i := range rs {
			s := string(rs[:i]) + strings.Repeat(string(rs[i]), lo-len(rs)) + string(rs[i:])
			if fits(s) {
				return s, true
			}
		}
	}
	return "", false
}

func padTo(s string, n int) string {
	for utf8.RuneCountInString(s) < n {
		s += "a"
	}
	return s
}

type strGen struct {
	rng    *rand.Rand
	budget int
}

func (g *strGen) reps(min, max int) int {
	if max < 0 || max > min+g.budget+1 {
		max = min + g.budget + 1
	}
	if max <= min {
		return min
	}
	return min + g.rng.Intn(max-min+1)
}

func (g *strGen) gen(b *strings.Builder, re *syntax.Regexp) {
	if b.Len() > 4096 {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(g.pick(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		g.gen(b, re.Sub[0])
	case syntax.OpStar:
		for i, n := 0, g.reps(0, -1); i < n; i++ {
			g.gen(b, re.Sub[0])
		}
	case syntax.OpPlus:
		for i, n := 0, g.reps(1, -1); i < n; i++ {
			g.gen(b, re.Sub[0])
		}
	case syntax.OpQuest:
		if g.rng.Intn(2) == 0 {
			g.gen(b, re.Sub[0])
		}
	case syntax.OpRepeat:
		for i, n := 0, g.reps(re.Min, re.Max); i < n; i++ {
			g.gen(b, re.Sub[0])
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.gen(b, s)
		}
	case syntax.OpAlternate:
		g.gen(b, re.Sub[g.rng.Intn(len(re.Sub))])
	}
}

// pick chooses a rune from class ranges, preferring ASCII letters and digits.
func (g *strGen) pick(ranges []rune) rune {
	var nice []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r <= 0x7e; r++ {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				nice = append(nice, r)
			}
		}
	}
	if len(nice) > 0 && g.rng.Intn(8) != 0 {
		return nice[g.rng.Intn(len(nice))]
	}
	i := g.rng.Intn(len(ranges)/2) * 2
	lo, hi := ranges[i], ranges[i+1]
	if hi > lo+0x7f {
		hi = lo + 0x7f
	}
	r := lo + rune(g.rng.Intn(int(hi-lo+1)))
	if r == utf8.RuneError || (r >= 0xd800 && r <= 0xdfff) {
		return lo
	}
	return r
}

// builder makes minimal valid values: required members only, minimum
// collection sizes, first enum values, in-range numbers.
type builder struct {
	depth int
}

func (bd *builder) value(sh *Shape) (any, bool) {
	bd.depth++
	defer func() { bd.depth-- }()
	if bd.depth > 40 {
		return nil, false
	}
	switch sh.Type {
	case "structure", "union":
		obj := map[string]any{}
		for _, m := range sh.Members {
			if !m.Required {
				continue
			}
			v, ok := bd.value(m.Shape)
			if !ok {
				return nil, false
			}
			if l, isList := v.([]any); isList && len(l) == 0 && (m.Location == "querystring" || m.Location == "header") {
				// An empty list does not travel in a query string or a
				// header (it arrives as absent): give it an element.
				e, ok := bd.value(m.Shape.Member.Shape)
				if !ok {
					return nil, false
				}
				v = []any{e}
			}
			obj[m.Name] = v
		}
		return obj, true
	case "list":
		n := minInt(sh)
		items := []any{}
		for i := 0; i < n; i++ {
			v, ok := bd.value(sh.Member.Shape)
			if !ok {
				return nil, false
			}
			items = append(items, v)
		}
		return items, true
	case "map":
		n := minInt(sh)
		mp := map[string]any{}
		for i := 0; len(mp) < n && i < n*4+4; i++ {
			k, ok := bd.mapKey(sh.Key.Shape, i)
			if !ok {
				return nil, false
			}
			v, ok := bd.value(sh.Value.Shape)
			if !ok {
				return nil, false
			}
			mp[k] = v
		}
		if len(mp) < n {
			return nil, false
		}
		return mp, true
	case "string":
		if len(sh.Enum) > 0 {
			return sh.Enum[0], true
		}
		lo, hi := minInt(sh), maxInt(sh)
		s, ok := genString(sh, lo, min(hi, lo+300))
		return s, ok
	case "blob":
		n := max(minInt(sh), 1)
		if sh.Max != nil && float64(n) > sh.Max.Float {
			n = int(sh.Max.Float)
		}
		return base64.StdEncoding.EncodeToString(make([]byte, n)), true
	case "boolean":
		return true, true
	case "timestamp":
		return json.Number("1700000000"), true
	}
	if sh.IsNumber() {
		return numberIn(sh), true
	}
	return nil, false
}

func (bd *builder) mapKey(sh *Shape, i int) (string, bool) {
	if len(sh.Enum) > 0 {
		if i < len(sh.Enum) {
			return sh.Enum[i], true
		}
		return "", false
	}
	s, ok := genString(sh, max(minInt(sh), 1), min(maxInt(sh), 300))
	if !ok {
		return "", false
	}
	if i > 0 {
		// Distinct keys: a pumped variant of the first.
		rs := []rune(s)
		for j := range rs {
			alt := string(rs[:j]) + strings.Repeat(string(rs[j]), i) + string(rs[j:])
			if n := utf8.RuneCountInString(alt); n <= maxInt(sh) && (sh.Pattern == nil || sh.Pattern.Match(alt)) {
				return alt, true
			}
		}
		return "", false
	}
	return s, true
}

func numberIn(sh *Shape) json.Number {
	v := 1.0
	if sh.Min != nil && v < sh.Min.Float {
		v = sh.Min.Float
	}
	if sh.Max != nil && v > sh.Max.Float {
		v = sh.Max.Float
	}
	if sh.IsInteger() {
		return json.Number(strconv.FormatInt(int64(math.Ceil(v)), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'f', -1, 64))
}

func minInt(sh *Shape) int {
	if sh.Min == nil || sh.Min.Float < 0 {
		return 0
	}
	return int(sh.Min.Float)
}

func maxInt(sh *Shape) int {
	if sh.Max == nil || sh.Max.Float > 1<<30 {
		return 1 << 30
	}
	return int(sh.Max.Float)
}
