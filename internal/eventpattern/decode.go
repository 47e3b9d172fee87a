package eventpattern

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// decodePruned decodes a JSON object, keeping only the members a field path
// can reach (Ruler's Event likewise skips steps no rule uses). It validates
// the whole input first, so skipped parts cannot hide malformed JSON.
func decodePruned(data []byte, root *stepNode) (map[string]any, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for the syntax error's message
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("eventpattern: decode event: %w", err)
	}
	d := decoder{data: data}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return nil, errors.New("eventpattern: event must be a JSON object")
	}
	v, err := d.value(root)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// decoder walks JSON that json.Valid accepted.
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at pos when n is non-nil and skips it otherwise.
// Objects keep only members whose key leads somewhere in the trie.
func (d *decoder) value(n *stepNode) (any, error) {
	d.space()
	switch c := d.data[d.pos]; {
	case c == '{':
		d.pos++
		var obj map[string]any
		if n != nil {
			obj = map[string]any{}
		}
		for {
			d.space()
			if d.data[d.pos] == '}' {
				d.pos++
				return obj, nil
			}
			if d.data[d.pos] == ',' {
				d.pos++
				d.space()
			}
			raw := d.stringRaw()
			d.space()
			d.pos++ // ':'
			var child *stepNode
			var key string
			if n != nil {
				var err error
				if key, err = unquote(raw); err != nil {
					return nil, err
				}
				child = n.lookup(key)
			}
			v, err := d.value(child)
			if err != nil {
				return nil, err
			}
			if child != nil {
				obj[key] = v // a later duplicate replaces an earlier one
			}
		}
	case c == '[':
		d.pos++
		var arr []any
		for {
			d.space()
			if d.data[d.pos] == ']' {
				d.pos++
				if n != nil && arr == nil {
					arr = []any{}
				}
				return arr, nil
			}
			if d.data[d.pos] == ',' {
				d.pos++
			}
			v, err := d.value(n)
			if err != nil {
				return nil, err
			}
			if n != nil {
				arr = append(arr, v)
			}
		}
	case c == '"':
		raw := d.stringRaw()
		if n == nil {
			return nil, nil
		}
		return unquote(raw)
	case c == 't':
		d.pos += 4
		return true, nil
	case c == 'f':
		d.pos += 5
		return false, nil
	case c == 'n':
		d.pos += 4
		return nil, nil
	default: // number
		start := d.pos
		for d.pos < len(d.data) {
			switch d.data[d.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return json.Number(d.data[start:d.pos]), nil
			}
			d.pos++
		}
		return json.Number(d.data[start:d.pos]), nil
	}
}

// stringRaw returns the quoted string at pos, quotes included.
func (d *decoder) stringRaw() []byte {
	start := d.pos
	d.pos++
	for d.data[d.pos] != '"' {
		if d.data[d.pos] == '\\' {
			d.pos++
		}
		d.pos++
	}
	d.pos++
	return d.data[start:d.pos]
}

// unquote decodes a JSON string literal.
func unquote(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	// Invalid UTF-8 goes through encoding/json too, which turns it into
	// U+FFFD exactly as MatchValue's decoder would.
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("eventpattern: decode event string: %w", err)
	}
	return s, nil
}
