package loggroup

import (
	"strings"
	"unicode"
)

// pattern is a parsed term filter pattern. Source: "Filter pattern syntax
// for metric filters, subscription filters, filter log events, and Live
// Tail" (CloudWatch Logs user guide, "Matching terms in unstructured log
// events"): space-separated terms must all occur, a term in double quotes
// may hold spaces and punctuation, ?term matches events holding any of the
// ?terms, and -term excludes events holding it. Matching is
// case-sensitive.
type pattern struct {
	all  []string
	any  []string
	none []string
}

// parsePattern parses a filter pattern. JSON, space-delimited and regex
// patterns are refused, not ignored: answering them as substring searches
// would return wrong events.
func parsePattern(p string) (*pattern, *Error) {
	p = strings.TrimSpace(p)
	out := &pattern{}
	if p == "" {
		return out, nil
	}
	switch p[0] {
	case '{', '[', '%':
		return nil, errorf(ErrInvalidParameter,
			"Invalid filter pattern %q: the taskpipe local cloud supports only term patterns (terms, \"quoted phrases\", ?any and -exclude), not JSON, space-delimited or regex patterns", p)
	}
	rs := []rune(p)
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		prefix := rune(0)
		if rs[i] == '?' || rs[i] == '-' {
			prefix = rs[i]
			i++
		}
		var term strings.Builder
		if i < len(rs) && rs[i] == '"' {
			i++
			closed := false
			for i < len(rs) {
				if rs[i] == '\\' && i+1 < len(rs) {
					term.WriteRune(rs[i+1])
					i += 2
					continue
				}
				if rs[i] == '"' {
					closed = true
					i++
					break
				}
				term.WriteRune(rs[i])
				i++
			}
			if !closed {
				return nil, errorf(ErrInvalidParameter, "Invalid filter pattern %q: unbalanced quotes", p)
			}
		} else {
			for i < len(rs) && !unicode.IsSpace(rs[i]) {
				term.WriteRune(rs[i])
				i++
			}
		}
		t := term.String()
		if t == "" {
			if prefix != 0 {
				return nil, errorf(ErrInvalidParameter, "Invalid filter pattern %q: %c without a term", p, prefix)
			}
			continue
		}
		switch prefix {
		case '?':
			out.any = append(out.any, t)
		case '-':
			out.none = append(out.none, t)
		default:
			out.all = append(out.all, t)
		}
	}
	return out, nil
}

// match reports whether msg satisfies the pattern.
func (p *pattern) match(msg string) bool {
	for _, t := range p.all {
		if !strings.Contains(msg, t) {
			return false
		}
	}
	for _, t := range p.none {
		if strings.Contains(msg, t) {
			return false
		}
	}
	if len(p.any) == 0 {
		return true
	}
	for _, t := range p.any {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}
