package pipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Input templates (docs/aws-behaviour.md §1.8; EventBridge user guide
// "eb-pipes-input-transformation"): <$.path> placeholders select from the
// event, <aws.pipes.…> placeholders name the pipe's own values, and
// everything else is copied. The template is applied per event.
//
// Quoting of string placeholders is UNCONFIRMED (docs/aws-behaviour.md §1.8, §8),
// so the renderer accepts both spellings and produces valid JSON from
// either. A template is in JSON mode when it is valid JSON with every
// placeholder filled (bare ones with null, those inside a string literal
// with nothing); then:
//
//   - a bare placeholder (`{"id": <$.id>}`) becomes the value as JSON: a
//     string is quoted, a number stays a number, an object stays an object,
//     a missing path is null;
//   - a placeholder inside a string literal (`{"id": "<$.id>"}`,
//     `{"msg": "task <$.id> done"}`) becomes the value's text, escaped for
//     the string: a string's characters, any other value's JSON; a missing
//     path is the empty string.
//
// So `{"id": <$.id>}` and `{"id": "<$.id>"}` both give {"id": "t-1"}. A
// template that is not JSON (plain text) is in text mode: a string
// placeholder becomes its characters, any other value its JSON, a missing
// path nothing.

// Reserved placeholders (docs/aws-behaviour.md §1.8).
const (
	varPipeARN       = "aws.pipes.pipe-arn"
	varPipeName      = "aws.pipes.pipe-name"
	varSourceARN     = "aws.pipes.source-arn"
	varEnrichmentARN = "aws.pipes.enrichment-arn"
	varTargetARN     = "aws.pipes.target-arn"
	varIngestionTime = "aws.pipes.event.ingestion-time"
	varEvent         = "aws.pipes.event"
	varEventJSON     = "aws.pipes.event.json"
)

var reservedVars = map[string]bool{
	varPipeARN: true, varPipeName: true, varSourceARN: true, varEnrichmentARN: true,
	varTargetARN: true, varIngestionTime: true, varEvent: true, varEventJSON: true,
}

type template struct {
	parts []tmplPart
	json  bool
}

type tmplPart struct {
	text   string
	ph     *placeholder
	quoted bool // inside a JSON string literal
}

type placeholder struct {
	reserved string     // one of the reserved names, or "" for a path
	path     []pathStep // for "$…"
}

type pathStep struct {
	key   string
	index int // ≥ 0 for [n], -1 for [*], unused for keys
	isKey bool
}

// parseTemplate parses an InputTemplate. It fails on a malformed "$"
// path or an unknown aws.pipes variable, so mistakes surface at
// CreatePipe/UpdatePipe rather than as wrong messages.
func parseTemplate(src string) (*template, error) {
	t := &template{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, tmplPart{text: lit.String()})
			lit.Reset()
		}
	}
	inString := false
	for i := 0; i < len(src); {
		c := src[i]
		if c == '<' {
			if end := strings.IndexByte(src[i+1:], '>'); end >= 0 {
				ph, ok, err := parsePlaceholder(src[i+1 : i+1+end])
				if err != nil {
					return nil, err
				}
				if ok {
					flush()
					t.parts = append(t.parts, tmplPart{ph: ph, quoted: inString})
					i += end + 2
					continue
				}
			}
		}
		switch {
		case c == '\\' && inString && i+1 < len(src):
			lit.WriteString(src[i : i+2])
			i += 2
			continue
		case c == '"':
			inString = !inString
		}
		lit.WriteByte(c)
		i++
	}
	flush()
	var probe bytes.Buffer
	for _, p := range t.parts {
		switch {
		case p.ph == nil:
			probe.WriteString(p.text)
		case !p.quoted:
			probe.WriteString("null")
		}
	}
	t.json = json.Valid(probe.Bytes())
	return t, nil
}

// parsePlaceholder reads the text between < and >. ok is false for text
// that is no placeholder at all (such as "<b>" in a plain-text template).
func parsePlaceholder(s string) (*placeholder, bool, error) {
	switch {
	case strings.HasPrefix(s, "aws.pipes."):
		if !reservedVars[s] {
			return nil, false, fmt.Errorf("unknown variable <%s>", s)
		}
		return &placeholder{reserved: s}, true, nil
	case strings.HasPrefix(s, "$"):
		path, err := parsePath(s)
		if err != nil {
			return nil, false, err
		}
		return &placeholder{path: path}, true, nil
	}
	return nil, false, nil
}

// parsePath parses the JSONPath subset Pipes documents for dynamic values
// (botocore JsonPath: \$(\.[\w/_-]+(\[(\d+|\*)\])*)*), with keys allowed
// any characters but . [ ] and white space.
func parsePath(s string) ([]pathStep, error) {
	bad := func() ([]pathStep, error) { return nil, fmt.Errorf("invalid JSON path <%s>", s) }
	var steps []pathStep
	i := 1
	for i < len(s) {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && !strings.ContainsRune(".[] \t\r\n", rune(s[j])) {
				j++
			}
			if j == i+1 {
				return bad()
			}
			steps = append(steps, pathStep{key: s[i+1 : j], isKey: true})
			i = j
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return bad()
			}
			inner := s[i+1 : i+end]
			if inner == "*" {
				steps = append(steps, pathStep{index: -1})
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 || inner[0] == '+' {
					return bad()
				}
				steps = append(steps, pathStep{index: n})
			}
			i += end + 1
		default:
			return bad()
		}
	}
	return steps, nil
}

// rawJSON is a value that is already JSON text (the whole event).
type rawJSON []byte

// renderEnv is what one rendering can refer to.
type renderEnv struct {
	cfg      *config
	now      time.Time
	eventRaw []byte
	event    any // eventRaw decoded with UseNumber
}

func (e *renderEnv) lookup(ph *placeholder) (any, bool) {
	switch ph.reserved {
	case "":
		if len(ph.path) == 0 {
			return e.whole(), true
		}
		return walk(e.event, ph.path)
	case varPipeARN:
		return e.cfg.arn, true
	case varPipeName:
		return e.cfg.name, true
	case varSourceARN:
		return e.cfg.sourceARN, true
	case varEnrichmentARN:
		return e.cfg.enrichmentARN, true
	case varTargetARN:
		return e.cfg.targetARN, true
	case varIngestionTime:
		return e.now.UTC().Format(timeLayout), true
	case varEvent:
		return e.whole(), true
	case varEventJSON:
		return string(e.eventRaw), true
	}
	return nil, false
}

// whole is the entire event, as written when it is JSON (so its member
// order survives), else as the string it is.
func (e *renderEnv) whole() any {
	if json.Valid(e.eventRaw) {
		return rawJSON(e.eventRaw)
	}
	return e.event
}

// walk follows a path; [*] collects the rest of the path over every
// element into an array.
func walk(v any, path []pathStep) (any, bool) {
	for i, st := range path {
		switch {
		case st.isKey:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
				return nil, false
			}
		case st.index < 0:
			arr, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := make([]any, 0, len(arr))
			for _, el := range arr {
				if x, ok := walk(el, path[i+1:]); ok {
					out = append(out, x)
				}
			}
			return out, true
		default:
			arr, ok := v.([]any)
			if !ok || st.index >= len(arr) {
				return nil, false
			}
			v = arr[st.index]
		}
	}
	return v, true
}

// render fills the template for one event.
func (t *template) render(env *renderEnv) []byte {
	var out bytes.Buffer
	for _, p := range t.parts {
		if p.ph == nil {
			out.WriteString(p.text)
			continue
		}
		v, found := env.lookup(p.ph)
		switch {
		case t.json && !p.quoted:
			if !found {
				out.WriteString("null")
			} else {
				out.Write(marshalValue(v))
			}
		case t.json:
			if found {
				out.Write(escapeString(textOf(v)))
			}
		default:
			if found {
				out.WriteString(textOf(v))
			}
		}
	}
	return out.Bytes()
}

// marshalValue renders a decoded JSON value (json.Number for numbers) as
// JSON, without HTML escaping.
func marshalValue(v any) []byte {
	if r, ok := v.(rawJSON); ok {
		return r
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Decoded JSON always encodes; keep the output valid regardless.
		return []byte("null")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// textOf is a value as text: a string's characters, anything else's JSON.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(marshalValue(v))
}

// escapeString escapes s for the inside of a JSON string literal.
func escapeString(s string) []byte {
	b := marshalValue(s)
	return b[1 : len(b)-1]
}

// decodeJSON decodes JSON with numbers kept as json.Number, the form
// eventpattern.MatchValue and the template walker take.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	return v, nil
}

// timeLayout is ISO 8601 with milliseconds in UTC, as AWS writes
// timestamps in event payloads.
const timeLayout = "2006-01-02T15:04:05.000Z"
