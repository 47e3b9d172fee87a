package eventpattern

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxSearchSteps bounds the array-consistent search for one event and rule.
const maxSearchSteps = 1 << 20

// Match reports whether the event, a JSON object, matches the pattern. The
// error is for an event that is not a JSON object, or one whose arrays make
// array-consistent matching exceed its step bound (ErrEventTooComplex).
// Only the parts of the event the pattern can see are decoded; duplicate
// keys resolve as encoding/json does, the last one winning.
func (p *Pattern) Match(event []byte) (bool, error) {
	obj, err := decodePruned(event, p.root)
	if err != nil {
		return false, err
	}
	return p.matchObject(obj)
}

// MatchValue is Match for an event already decoded by encoding/json into
// map[string]any (numbers as json.Number, float64 or int). Duplicate keys
// were resolved by the decoder: the last one wins.
func (p *Pattern) MatchValue(event any) (bool, error) {
	obj, ok := event.(map[string]any)
	if !ok {
		return false, fmt.Errorf("eventpattern: event must be a JSON object, not %T", event)
	}
	return p.matchObject(obj)
}

func (p *Pattern) matchObject(obj map[string]any) (bool, error) {
	ev, err := flatten(obj, p.root, p.paths)
	if err != nil {
		return false, err
	}
	for i := range p.rules {
		ok, err := ev.matchRule(&p.rules[i])
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// arrayPos says a leaf lies in element idx of the event array numbered id.
type arrayPos struct{ id, idx int32 }

// membership lists the array elements a leaf lies in, outermost first. Only
// objects and arrays inside arrays add a position; a scalar element does not
// (aws/event-ruler Event.loadArray).
type membership []arrayPos

// compatible reports whether two memberships never disagree on an array.
func compatible(a, b membership) bool {
	for _, x := range b {
		for _, y := range a {
			if x.id == y.id && x.idx != y.idx {
				return false
			}
		}
	}
	return true
}

// event is a flattened event: the leaves at each field path, by path id.
type event struct {
	leaves    [][]*leaf
	hasArrays bool // some leaf lies inside an array element
}

// maxArrayNesting bounds arrays inside arrays along one path: every level
// adds a position to the leaves below it, so the depth costs quadratic
// memory. Real events nest a few levels.
const maxArrayNesting = 64

// flatten walks the decoded event along the pattern's path trie.
func flatten(obj map[string]any, root *stepNode, paths int) (*event, error) {
	ev := &event{leaves: make([][]*leaf, paths)}
	tooDeep := false
	var nextArray int32
	var walk func(v any, n *stepNode, mem membership)
	walk = func(v any, n *stepNode, mem membership) {
		switch t := v.(type) {
		case map[string]any:
			for k, child := range t {
				if c := n.lookup(k); c != nil {
					walk(child, c, mem)
				}
			}
		case []any:
			id := nextArray
			nextArray++
			for i, el := range t {
				switch el.(type) {
				case map[string]any, []any:
					if len(mem) >= maxArrayNesting {
						tooDeep = true
						return
					}
					inner := make(membership, len(mem), len(mem)+1)
					copy(inner, mem)
					walk(el, n, append(inner, arrayPos{id: id, idx: int32(i)}))
				default:
					walk(el, n, mem)
				}
			}
		default:
			if n.id < 0 {
				return // a leaf where the pattern expects an object
			}
			l := makeLeaf(v)
			if l == nil {
				return
			}
			l.mem = mem
			if len(mem) > 0 {
				ev.hasArrays = true
			}
			ev.leaves[n.id] = append(ev.leaves[n.id], l)
		}
	}
	walk(obj, root, nil)
	if tooDeep {
		return nil, ErrEventTooComplex
	}
	return ev, nil
}

// makeLeaf converts a decoded JSON scalar; nil for types encoding/json never
// produces.
func makeLeaf(v any) *leaf {
	switch t := v.(type) {
	case string:
		return &leaf{typ: vString, s: t}
	case json.Number:
		n, ok := comparable(string(t))
		return &leaf{typ: vNumber, s: string(t), num: n, numOK: ok}
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return nil
		}
		return &leaf{typ: vNumber, s: strconv.FormatFloat(t, 'g', -1, 64), num: t, numOK: true}
	case int:
		s := strconv.Itoa(t)
		n, ok := comparable(s)
		return &leaf{typ: vNumber, s: s, num: n, numOK: ok}
	case int64:
		s := strconv.FormatInt(t, 10)
		n, ok := comparable(s)
		return &leaf{typ: vNumber, s: s, num: n, numOK: ok}
	case bool:
		if t {
			return &leaf{typ: vTrue}
		}
		return &leaf{typ: vFalse}
	case nil:
		return &leaf{typ: vNull}
	}
	return nil
}

// accepts reports whether any value candidate of the field matches the leaf.
func (f *field) accepts(v *leaf) bool {
	for i := range f.ms {
		if f.ms[i].matches(v) {
			return true
		}
	}
	return false
}

// matchRule decides one sub-rule.
func (ev *event) matchRule(r *rule) (bool, error) {
	if !ev.hasArrays {
		// Without array elements every field is independent.
		for i := range r.fields {
			f := &r.fields[i]
			vals := ev.leaves[f.id]
			ok := f.absent && len(vals) == 0
			for _, v := range vals {
				if ok {
					break
				}
				ok = f.accepts(v)
			}
			if !ok {
				return false, nil
			}
		}
		return true, nil
	}
	s := newSearch(ev, r)
	return s.run(0, nil)
}

// search is Ruler's array-consistent matching (ACFinder) as a depth-first
// search over the rule's fields in path order, remembering failed states.
type search struct {
	fields   []field
	vals     [][]*leaf
	relevant []map[int32]bool // arrays that leaves of fields[i:] lie in
	failed   map[string]bool
	steps    int
}

func newSearch(ev *event, r *rule) *search {
	n := len(r.fields)
	s := &search{
		fields:   r.fields,
		vals:     make([][]*leaf, n),
		relevant: make([]map[int32]bool, n+1),
		failed:   map[string]bool{},
	}
	s.relevant[n] = map[int32]bool{}
	for i := n - 1; i >= 0; i-- {
		s.vals[i] = ev.leaves[r.fields[i].id]
		rel := make(map[int32]bool, len(s.relevant[i+1]))
		for id := range s.relevant[i+1] {
			rel[id] = true
		}
		for _, v := range s.vals[i] {
			for _, p := range v.mem {
				rel[p.id] = true
			}
		}
		s.relevant[i] = rel
	}
	return s
}

// key names a search state: the field index and the chosen elements of the
// arrays that later fields can still see.
func (s *search) key(i int, mem membership) string {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(i))
	for _, p := range mem {
		if s.relevant[i][p.id] {
			sb.WriteByte('|')
			sb.WriteString(strconv.Itoa(int(p.id)))
			sb.WriteByte(':')
			sb.WriteString(strconv.Itoa(int(p.idx)))
		}
	}
	return sb.String()
}

func (s *search) run(i int, mem membership) (bool, error) {
	if i == len(s.fields) {
		return true, nil
	}
	k := s.key(i, mem)
	if s.failed[k] {
		return false, nil
	}
	if s.steps++; s.steps > maxSearchSteps {
		return false, ErrEventTooComplex
	}
	f := &s.fields[i]
	triedSame := false // a leaf that fixes no array later fields can see
	for _, v := range s.vals[i] {
		if !compatible(mem, v.mem) || !f.accepts(v) {
			continue
		}
		next, grows := s.extend(i+1, mem, v.mem)
		if !grows {
			if triedSame {
				continue // same state as a candidate already tried
			}
			triedSame = true
		}
		ok, err := s.run(i+1, next)
		if err != nil || ok {
			return ok, err
		}
	}
	if f.absent {
		// exists:false holds when no leaf at the path agrees with the array
		// elements chosen so far (Ruler NameState.getNameTransitions).
		present := false
		for _, v := range s.vals[i] {
			if compatible(mem, v.mem) {
				present = true
				break
			}
		}
		if !present {
			ok, err := s.run(i+1, mem)
			if err != nil || ok {
				return ok, err
			}
		}
	}
	s.failed[k] = true
	return false, nil
}

// extend adds a leaf's array positions to the chosen ones. grows reports
// whether it fixed an array that fields from index `from` on can see.
func (s *search) extend(from int, mem, add membership) (membership, bool) {
	var out membership
	grows := false
	for _, p := range add {
		known := false
		for _, q := range mem {
			if q.id == p.id {
				known = true
				break
			}
		}
		if known {
			continue
		}
		if out == nil {
			out = make(membership, len(mem), len(mem)+len(add))
			copy(out, mem)
		}
		out = append(out, p)
		if s.relevant[from][p.id] {
			grows = true
		}
	}
	if out == nil {
		return mem, false
	}
	return out, grows
}
