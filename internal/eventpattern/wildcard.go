package eventpattern

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// maxWildcardComplexity bounds how many wildcard-pattern prefixes one input
// value may match at once, per event field. Ruler measures this with
// MachineComplexityEvaluator; its README suggests a per-rule limit of 10,
// which is the one number consistent with the AWS-validated cases: the
// accepted "/Users/*/dir/dir/dir/dir/dir/doc.txt" scores 7 and the rejected
// "*:*:*:*:*:event-bus/*" scores 11. AWS's exact limit is UNCONFIRMED.
const maxWildcardComplexity = 10

// maxComplexityStates caps the subset construction that measures complexity;
// a pattern set needing more distinct states is called too complex.
const maxComplexityStates = 20000

const tooComplexReason = "Rule is too complex - try using fewer wildcard characters or fewer repeating character sequences after a wildcard character"

// wildcard is a compiled wildcard pattern: literal segments separated by '*'.
// Each '*' matches any run of bytes, including none and including '/'.
type wildcard struct {
	src  string   // the operand as written, for complexity measurement
	segs []string // len(stars)+1 literal segments
}

// parseWildcard applies Ruler's WildcardParser rules: "**" is rejected, a
// backslash escapes only '*' or '\'. Positions count the opening quote Ruler
// adds, as its messages do.
func parseWildcard(s string) (wildcard, error) {
	w := wildcard{src: s}
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			if i+1 < len(s) && s[i+1] == '*' {
				return wildcard{}, invalid(fmt.Sprintf("Consecutive wildcard characters at pos %d", i+1))
			}
			w.segs = append(w.segs, cur.String())
			cur.Reset()
		case '\\':
			if i+1 < len(s) && (s[i+1] == '*' || s[i+1] == '\\') {
				cur.WriteByte(s[i+1])
				i++
				continue
			}
			return wildcard{}, invalid(fmt.Sprintf("Invalid escape character at pos %d", i+1))
		default:
			cur.WriteByte(c)
		}
	}
	w.segs = append(w.segs, cur.String())
	return w, nil
}

// match reports whether v matches the whole wildcard pattern.
func (w wildcard) match(v string) bool {
	if len(w.segs) == 1 {
		return v == w.segs[0]
	}
	first, last := w.segs[0], w.segs[len(w.segs)-1]
	if len(v) < len(first)+len(last) || !strings.HasPrefix(v, first) || !strings.HasSuffix(v, last) {
		return false
	}
	// Greedy leftmost placement of the middle segments is optimal when every
	// gap is a '*': an earlier placement never prevents a later one.
	rest := v[len(first) : len(v)-len(last)]
	for _, seg := range w.segs[1 : len(w.segs)-1] {
		i := strings.Index(rest, seg)
		if i < 0 {
			return false
		}
		rest = rest[i+len(seg):]
	}
	return true
}

// wildcardToken is one element of a wildcard pattern as Ruler compiles it:
// a literal byte, or a star.
type wildcardToken struct {
	star bool
	b    byte
}

// tokens returns the pattern as Ruler's byte machine sees it: wrapped in the
// JSON quotes Ruler adds to every string value.
func (w wildcard) tokens() []wildcardToken {
	out := []wildcardToken{{b: '"'}}
	for i, seg := range w.segs {
		if i > 0 {
			out = append(out, wildcardToken{star: true})
		}
		for j := 0; j < len(seg); j++ {
			out = append(out, wildcardToken{b: seg[j]})
		}
	}
	return append(out, wildcardToken{b: '"'})
}

// wildcardComplexity returns the largest number of pattern prefixes that a
// single input can match at once, summed over the patterns (the measure of
// Ruler's MachineComplexityEvaluator: a prefix ending at each token counts).
// It stops early, returning limit+1, once the answer exceeds limit or the
// search grows past maxComplexityStates.
func wildcardComplexity(patterns [][]wildcardToken, limit int) int {
	type state struct{ p, i int } // pattern p has matched tokens[:i]
	closure := func(set []state) []state {
		for k := 0; k < len(set); k++ { // set grows while we walk it
			s := set[k]
			if s.i < len(patterns[s.p]) && patterns[s.p][s.i].star {
				set = append(set, state{s.p, s.i + 1})
			}
		}
		return set
	}
	key := func(set []state) string {
		sort.Slice(set, func(a, b int) bool {
			if set[a].p != set[b].p {
				return set[a].p < set[b].p
			}
			return set[a].i < set[b].i
		})
		var sb strings.Builder
		for _, s := range set {
			sb.WriteString(strconv.Itoa(s.p))
			sb.WriteByte(':')
			sb.WriteString(strconv.Itoa(s.i))
			sb.WriteByte(',')
		}
		return sb.String()
	}
	count := func(set []state) int {
		n := 0
		for _, s := range set {
			if s.i > 0 {
				n++
			}
		}
		return n
	}
	// The alphabet: every literal byte used, plus one byte used by none.
	used := map[byte]bool{}
	for _, toks := range patterns {
		for _, t := range toks {
			if !t.star {
				used[t.b] = true
			}
		}
	}
	alphabet := make([]byte, 0, len(used)+1)
	for b := range used {
		alphabet = append(alphabet, b)
	}
	for c := 0; c < 256; c++ {
		if !used[byte(c)] {
			alphabet = append(alphabet, byte(c))
			break
		}
	}

	var start []state
	for p := range patterns {
		start = append(start, state{p, 0})
	}
	start = closure(start)
	seen := map[string]bool{key(start): true}
	queue := [][]state{start}
	best := count(start)
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, c := range alphabet {
			var next []state
			dedup := map[state]bool{}
			add := func(s state) {
				if !dedup[s] {
					dedup[s] = true
					next = append(next, s)
				}
			}
			for _, s := range cur {
				toks := patterns[s.p]
				if s.i > 0 && toks[s.i-1].star {
					add(s) // a star absorbs the byte
				}
				if s.i < len(toks) && !toks[s.i].star && toks[s.i].b == c {
					add(state{s.p, s.i + 1})
				}
			}
			if len(next) == 0 {
				continue
			}
			next = closure(next)
			// closure may add duplicates of states already present.
			uniq := next[:0]
			seenState := map[state]bool{}
			for _, s := range next {
				if !seenState[s] {
					seenState[s] = true
					uniq = append(uniq, s)
				}
			}
			next = uniq
			if n := count(next); n > best {
				best = n
				if best > limit {
					return best
				}
			}
			k := key(next)
			if seen[k] {
				continue
			}
			if len(seen) >= maxComplexityStates {
				return limit + 1
			}
			seen[k] = true
			queue = append(queue, next)
		}
	}
	return best
}
