// Package eventpatterntest holds the AWS-validated event-pattern cases that
// every event-pattern matcher in taskpipe must pass (the pattern engine
// itself, EventBridge TestEventPattern, and the Pipe filter). README.md in
// this directory records where the cases come from.
package eventpatterntest

import (
	_ "embed"
	"encoding/json"
	"testing"
)

// Expectations of a case, as AWS answered TestEventPattern.
const (
	ExpectMatch   = "match"
	ExpectNoMatch = "no_match"
	ExpectInvalid = "invalid" // InvalidEventPatternException
)

// Case is one AWS-validated pattern/event pair.
type Case struct {
	Name    string          `json:"name"`
	Expect  string          `json:"expect"`
	Event   json.RawMessage `json:"event"`
	Pattern json.RawMessage `json:"pattern"`
}

//go:embed aws-validated-cases.json
var casesJSON []byte

// Load returns every case. A file that does not parse fails the test: the
// conformance suite must never be skipped silently.
func Load(t testing.TB) []Case {
	t.Helper()
	var cases []Case
	if err := json.Unmarshal(casesJSON, &cases); err != nil {
		t.Fatalf("eventpatterntest: parse aws-validated-cases.json: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("eventpatterntest: aws-validated-cases.json holds no cases")
	}
	for _, c := range cases {
		switch c.Expect {
		case ExpectMatch, ExpectNoMatch, ExpectInvalid:
		default:
			t.Fatalf("eventpatterntest: case %q has unknown expect %q", c.Name, c.Expect)
		}
	}
	return cases
}
