package awsmodel

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

// QueryInput turns the parameters of a query-protocol request (IAM, STS,
// CloudWatch's query protocol, SQS's legacy query protocol) into the
// generic tree Validate takes, walking the input shape the way botocore's
// query serializer writes it: structure members by their wire name
// (locationName), lists as Name.member.N (or Name.N, renamed to the
// element's locationName, when flattened: SQS "AttributeName.1"), maps as
// Name.entry.N.key/value (flattened: "Attribute.1.Name"/"Attribute.1.Value"),
// an empty list as "Name=". Element numbers need not be contiguous; the
// elements come out in number order. Action, Version and parameters the
// model does not define are ignored. Scalars are typed as HTTPInput types
// them.
func (op *Operation) QueryInput(form url.Values) map[string]any {
	out := map[string]any{}
	if op.Input == nil {
		return out
	}
	q := queryDecoder{form: form}
	for _, m := range op.Input.Members {
		if v, ok := q.value(nameOr(m.QueryName, m.Name), &m.Ref, 0); ok {
			out[m.Name] = v
		}
	}
	return out
}

type queryDecoder struct {
	form url.Values
	keys []string // sorted, built on first use
}

func (q *queryDecoder) sortedKeys() []string {
	if q.keys == nil {
		q.keys = make([]string, 0, len(q.form))
		for k := range q.form {
			q.keys = append(q.keys, k)
		}
		sort.Strings(q.keys)
	}
	return q.keys
}

// hasPrefix reports whether any parameter is key or starts with key+".".
func (q *queryDecoder) hasPrefix(key string) bool {
	if _, ok := q.form[key]; ok {
		return true
	}
	keys := q.sortedKeys()
	p := key + "."
	i := sort.SearchStrings(keys, p)
	return i < len(keys) && strings.HasPrefix(keys[i], p)
}

// indices returns the element numbers N present as base.N or base.N.….
func (q *queryDecoder) indices(base string) []int {
	keys := q.sortedKeys()
	p := base + "."
	seen := map[int]bool{}
	var out []int
	for i := sort.SearchStrings(keys, p); i < len(keys) && strings.HasPrefix(keys[i], p); i++ {
		rest := keys[i][len(p):]
		seg, _, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(seg)
		if err != nil || n < 1 || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		if len(out) > 10000 {
			break
		}
	}
	sort.Ints(out)
	return out
}

func (q *queryDecoder) value(key string, ref *Ref, depth int) (any, bool) {
	sh := ref.Shape
	if depth > MaxDepth {
		return nil, false
	}
	switch sh.Type {
	case "structure", "union":
		if !q.hasPrefix(key) {
			return nil, false
		}
		obj := map[string]any{}
		for _, m := range sh.Members {
			if v, ok := q.value(key+"."+nameOr(m.QueryName, m.Name), &m.Ref, depth+1); ok {
				obj[m.Name] = v
			}
		}
		return obj, true
	case "list":
		base := key
		if ref.QueryFlattened || sh.Flattened {
			if n := sh.Member.QueryName; n != "" {
				if i := strings.LastIndexByte(key, '.'); i >= 0 {
					base = key[:i+1] + n
				} else {
					base = n
				}
			}
		} else {
			base = key + "." + nameOr(sh.Member.QueryName, "member")
		}
		idx := q.indices(base)
		if len(idx) == 0 {
			if v, ok := q.form[key]; ok && len(v) > 0 && v[0] == "" {
				return []any{}, true
			}
			return nil, false
		}
		items := make([]any, 0, len(idx))
		for _, n := range idx {
			v, ok := q.value(base+"."+strconv.Itoa(n), sh.Member, depth+1)
			if !ok {
				v = nil
			}
			items = append(items, v)
		}
		return items, true
	case "map":
		base := key
		if !(ref.QueryFlattened || sh.Flattened) {
			base = key + ".entry"
		}
		idx := q.indices(base)
		if len(idx) == 0 {
			if v, ok := q.form[key]; ok && len(v) > 0 && v[0] == "" {
				return map[string]any{}, true
			}
			return nil, false
		}
		mp := make(map[string]any, len(idx))
		kn, vn := nameOr(sh.Key.QueryName, "key"), nameOr(sh.Value.QueryName, "value")
		for _, n := range idx {
			entry := base + "." + strconv.Itoa(n) + "."
			k, ok := q.form[entry+kn]
			if !ok || len(k) == 0 {
				continue
			}
			v, ok := q.value(entry+vn, sh.Value, depth+1)
			if !ok {
				v = nil
			}
			mp[k[0]] = v
		}
		return mp, true
	}
	vals, ok := q.form[key]
	if !ok || len(vals) == 0 {
		return nil, false
	}
	return scalarFromString(vals[0], sh), true
}
