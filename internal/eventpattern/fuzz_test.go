package eventpattern_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/eventpattern/eventpatterntest"
)

// seedFuzz adds every AWS-validated pattern/event pair and the DynamoDB
// fixtures as seeds.
func seedFuzz(f *testing.F) {
	f.Helper()
	for _, c := range eventpatterntest.Load(f) {
		f.Add([]byte(c.Pattern), []byte(c.Event))
	}
	pending := readTestdata(f, "filter-becomes-pending-changed.json")
	for _, rec := range []string{"ddb-insert-pending.json", "ddb-modify-running-to-pending.json", "ddb-remove-pending.json"} {
		f.Add(pending, readTestdata(f, rec))
	}
	f.Add([]byte(`{"employees":{"firstName":["Anna"],"ids":[{"exists":false}]}}`), []byte(employees))
	f.Add([]byte(`{"a":[{"wildcard":"*\\**\\\\"}]}`), []byte(`{"a":"x*y\\"}`))
}

// FuzzCompile: any input either compiles or fails with an
// *InvalidPatternError, never a panic; a compiled pattern recompiles from
// its source and matches an empty event without error.
func FuzzCompile(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, pattern, _ []byte) {
		p, err := eventpattern.Compile(pattern)
		if err != nil {
			if !eventpattern.IsInvalidPattern(err) {
				t.Fatalf("Compile(%q): error is %T, want *InvalidPatternError: %v", pattern, err, err)
			}
			return
		}
		if _, err := eventpattern.Compile([]byte(p.String())); err != nil {
			t.Fatalf("recompile %q: %v", p.String(), err)
		}
		_ = eventpattern.ValidateForPipes(p)
		if _, err := p.Match([]byte(`{}`)); err != nil {
			t.Fatalf("Match({}) on %q: %v", pattern, err)
		}
	})
}

// FuzzMatch: for a valid pattern, every JSON-object event matches or not
// without error (bar the documented step bound), and anything else errors;
// Match and MatchValue agree.
func FuzzMatch(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, pattern, event []byte) {
		p, err := eventpattern.Compile(pattern)
		if err != nil {
			return
		}
		got, err := p.Match(event)
		var obj map[string]any
		isObject := json.Valid(event) && json.Unmarshal(event, &obj) == nil && obj != nil
		switch {
		case errors.Is(err, eventpattern.ErrEventTooComplex):
			return
		case isObject && err != nil:
			t.Fatalf("Match(%q) on valid object: %v", event, err)
		case !isObject && err == nil:
			t.Fatalf("Match(%q) accepted a non-object event", event)
		case err != nil:
			return
		}
		again, err := p.MatchValue(obj)
		if err != nil && !errors.Is(err, eventpattern.ErrEventTooComplex) {
			t.Fatalf("MatchValue: %v", err)
		}
		if err == nil && again != got {
			// json.Unmarshal without UseNumber turns numbers into float64;
			// only numbers beyond float64 precision may legitimately differ.
			var withNumbers map[string]any
			if json.Unmarshal(event, &withNumbers) == nil && !hasNumbers(withNumbers) {
				t.Fatalf("Match=%v MatchValue=%v for %q on %q", got, again, pattern, event)
			}
		}
	})
}

func hasNumbers(v any) bool {
	switch t := v.(type) {
	case float64:
		return true
	case map[string]any:
		for _, c := range t {
			if hasNumbers(c) {
				return true
			}
		}
	case []any:
		for _, c := range t {
			if hasNumbers(c) {
				return true
			}
		}
	}
	return false
}
