package pipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Input templates (docs/aws-behaviour.md §1.8), as the EventBridge user guide documents them
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-input-transformation.html):
// <$.path> placeholders select from the event, <aws.pipes.…> placeholders
// name the pipe's own values, and everything else is copied. The template
// is applied per event.
//
// A placeholder is replaced by its value's text: a string's characters,
// any other value's JSON. Quotes are the template's: "put quotes around
// variables that refer to JSON path parameters, but do not put quotes
// around variables that refer to JSON objects or arrays" (the guide's
// note). So `{"id": "<$.id>"}` gives {"id": "t-1"}, while `{"id": <$.id>}`
// gives {"id": t-1}, which is not JSON, as it is not on AWS: a template
// that works here works there. Inside a string literal of a JSON template
// the text is escaped for the string ("EventBridge replaces input
// transformers at runtime to ensure a valid JSON output"). A missing path
// is null outside a string literal and nothing inside one or in a
// plain-text template (the guide does not say; unconfirmed).

// Reserved placeholders (the guide's "Reserved variables").
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
		case !found:
			if t.json && !p.quoted {
				out.WriteString("null")
			}
		case t.json && p.quoted:
			out.Write(escapeString(textOf(v)))
		default:
			out.WriteString(textOf(v))
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
