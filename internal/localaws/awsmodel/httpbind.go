package awsmodel

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// uriTemplate is an operation's requestUri: path segments that are
// literals or {Label} / {Label+} (greedy) labels, and the literal query
// parameters that select the operation (S3's "?tagging", "?list-type=2").
type uriTemplate struct {
	segs  []uriSeg
	query url.Values
}

type uriSeg struct {
	literal        string
	label          string
	prefix, suffix string // text around a label inside one segment
	greedy         bool
}

func parseURITemplate(s string) (*uriTemplate, error) {
	path, q, _ := strings.Cut(s, "?")
	t := &uriTemplate{}
	if q != "" {
		vals, err := url.ParseQuery(q)
		if err != nil {
			return nil, fmt.Errorf("requestUri %q: %w", s, err)
		}
		t.query = vals
	}
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return t, nil
	}
	for _, seg := range strings.Split(path, "/") {
		open := strings.IndexByte(seg, '{')
		if open < 0 {
			t.segs = append(t.segs, uriSeg{literal: seg})
			continue
		}
		end := strings.IndexByte(seg, '}')
		if end < open {
			return nil, fmt.Errorf("requestUri %q: bad label in %q", s, seg)
		}
		label := seg[open+1 : end]
		greedy := strings.HasSuffix(label, "+")
		t.segs = append(t.segs, uriSeg{label: strings.TrimSuffix(label, "+"), greedy: greedy, prefix: seg[:open], suffix: seg[end+1:]})
	}
	return t, nil
}

// match binds the labels of an escaped request path; each label value is
// unescaped, a greedy label keeps its slashes.
func (t *uriTemplate) match(escapedPath string) (map[string]string, bool) {
	p := strings.TrimPrefix(escapedPath, "/")
	var parts []string
	if p != "" {
		parts = strings.Split(p, "/")
	}
	out := map[string]string{}
	for i, seg := range t.segs {
		if seg.greedy {
			if i >= len(parts) {
				return nil, false
			}
			rest := strings.Join(parts[i:], "/")
			if !strings.HasPrefix(rest, seg.prefix) || !strings.HasSuffix(rest, seg.suffix) {
				return nil, false
			}
			rest = rest[len(seg.prefix) : len(rest)-len(seg.suffix)]
			v, err := url.PathUnescape(rest)
			if err != nil || v == "" {
				return nil, false
			}
			out[seg.label] = v
			return out, true
		}
		if i >= len(parts) {
			// A trailing empty label ("/{Bucket}" with path "/") does not match.
			return nil, false
		}
		if seg.label == "" {
			if parts[i] != seg.literal {
				return nil, false
			}
			continue
		}
		part := parts[i]
		if !strings.HasPrefix(part, seg.prefix) || !strings.HasSuffix(part, seg.suffix) || len(part) < len(seg.prefix)+len(seg.suffix) {
			return nil, false
		}
		v, err := url.PathUnescape(part[len(seg.prefix) : len(part)-len(seg.suffix)])
		if err != nil {
			return nil, false
		}
		out[seg.label] = v
	}
	// Extra trailing segments: allow a single trailing slash only.
	if len(parts) > len(t.segs) && !(len(parts) == len(t.segs)+1 && parts[len(parts)-1] == "") {
		return nil, false
	}
	return out, true
}

func (op *Operation) template() (*uriTemplate, error) {
	op.uriOnce.Do(func() { op.uri, op.uriErr = parseURITemplate(op.RequestURI) })
	return op.uri, op.uriErr
}

// MatchPath reports whether an escaped URL path matches the operation's
// requestUri and returns the label values (unescaped, by label name).
func (op *Operation) MatchPath(escapedPath string) (map[string]string, bool) {
	t, err := op.template()
	if err != nil {
		return nil, false
	}
	return t.match(escapedPath)
}

// HTTPInput gathers the input of a REST-JSON or REST-XML request into the
// generic tree Validate takes, keyed by member name: URI labels (greedy
// ones keep their slashes), query-string members (lists from repeated
// parameters, a map member takes the parameters no other member binds),
// headers (lists split at commas; the "headers" prefix map collects
// x-amz-meta-* style headers by their lower-cased suffix) and the body.
//
// body is the decoded payload: for operations whose input has a payload
// member (S3 PutBucketPolicy's Policy, CreateBucket's
// CreateBucketConfiguration) it is stored under that member as it is
// (nil: no body); otherwise it must be the decoded JSON object, whose keys
// (member names or their jsonName/locationName) are mapped to member names.
//
// Values are typed from their shapes: integers and doubles become
// json.Number, booleans bool; a value that does not parse is kept as the
// string it was, and Validate reports it as the wrong type. The path must
// be path-style (an S3 virtual-host request must be rewritten to
// /{Bucket}/… first); a path that does not match the requestUri is an error.
func (op *Operation) HTTPInput(r *http.Request, body any) (map[string]any, error) {
	out := map[string]any{}
	in := op.Input
	if in == nil {
		return out, nil
	}
	labels, ok := op.MatchPath(r.URL.EscapedPath())
	if !ok {
		return nil, fmt.Errorf("awsmodel: %s %s does not match %s %s", r.Method, r.URL.Path, op.Method, op.RequestURI)
	}
	query := r.URL.Query()
	bound := map[string]bool{}
	var queryMap *Member
	for _, m := range in.Members {
		switch m.Location {
		case "uri":
			if v, ok := labels[nameOr(m.LocationName, m.Name)]; ok {
				out[m.Name] = scalarFromString(v, m.Shape)
			}
		case "querystring":
			if m.Shape.Type == "map" {
				queryMap = m
				continue
			}
			name := nameOr(m.LocationName, m.Name)
			bound[name] = true
			vals, ok := query[name]
			if !ok {
				continue
			}
			if m.Shape.Type == "list" {
				items := make([]any, 0, len(vals))
				for _, v := range vals {
					items = append(items, scalarFromString(v, m.Shape.Member.Shape))
				}
				out[m.Name] = items
			} else if len(vals) > 0 {
				out[m.Name] = scalarFromString(vals[0], m.Shape)
			}
		case "header":
			name := nameOr(m.LocationName, m.Name)
			vals := r.Header.Values(name)
			if len(vals) == 0 {
				continue
			}
			if m.Shape.Type == "list" {
				var items []any
				for _, v := range vals {
					for _, part := range strings.Split(v, ",") {
						items = append(items, scalarFromString(strings.TrimSpace(part), m.Shape.Member.Shape))
					}
				}
				out[m.Name] = items
			} else {
				out[m.Name] = scalarFromString(strings.Join(vals, ","), m.Shape)
			}
		case "headers":
			prefix := strings.ToLower(m.LocationName)
			mp := map[string]any{}
			for k, vs := range r.Header {
				lk := strings.ToLower(k)
				if strings.HasPrefix(lk, prefix) && len(vs) > 0 {
					mp[lk[len(prefix):]] = strings.Join(vs, ",")
				}
			}
			if len(mp) > 0 {
				out[m.Name] = mp
			}
		}
	}
	if queryMap != nil {
		mp := map[string]any{}
		keys := make([]string, 0, len(query))
		for k := range query {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if bound[k] || op.uri.query.Has(k) {
				continue
			}
			vs := query[k]
			if vt := queryMap.Shape.Value.Shape; vt.Type == "list" {
				items := make([]any, 0, len(vs))
				for _, v := range vs {
					items = append(items, v)
				}
				mp[k] = items
			} else if len(vs) > 0 {
				mp[k] = vs[0]
			}
		}
		if len(mp) > 0 {
			out[queryMap.Name] = mp
		}
	}
	if body == nil {
		return out, nil
	}
	if in.Payload != "" {
		out[in.Payload] = body
		return out, nil
	}
	obj, ok := body.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("awsmodel: %s body is %s, not an object", op, jsonKind(body))
	}
	for _, m := range in.Members {
		if m.Location != "" {
			continue
		}
		if v, ok := obj[m.wireKey()]; ok {
			out[m.Name] = v
		} else if v, ok := obj[m.Name]; ok {
			out[m.Name] = v
		}
	}
	return out, nil
}

// scalarFromString types a string from a URI, query string, header or
// query-protocol form for its shape; strings that do not parse stay strings.
func scalarFromString(s string, sh *Shape) any {
	switch {
	case sh.IsNumber():
		if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") {
			return jsonNumber(s)
		}
	case sh.Type == "boolean":
		switch s {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return s
}
