// Package eventpatterntest loads the AWS-validated event-pattern cases that
// every event-pattern matcher in taskpipe must pass (the pattern engine
// itself, EventBridge TestEventPattern, and the Pipe filter).
package eventpatterntest

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// EnvCasesFile names an environment variable that overrides where the cases
// file is looked up.
const EnvCasesFile = "TASKPIPE_EVENT_PATTERN_CASES"

// relPath is where the file sits relative to the directory that holds the
// repository (/work/main → /work/shared/reference/...).
const relPath = "shared/reference/event-patterns/aws-validated-cases.json"

// Path finds the cases file: $TASKPIPE_EVENT_PATTERN_CASES, else
// shared/reference/event-patterns/aws-validated-cases.json in the working
// directory or any parent (tests run in their package directory, so from
// /work/main/internal/x this finds /work/shared/...).
func Path() (string, bool) {
	if p := os.Getenv(EnvCasesFile); p != "" {
		_, err := os.Stat(p)
		return p, err == nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, relPath)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Load reads every case. A missing or unreadable file fails the test: the
// conformance suite must never be skipped silently.
func Load(t testing.TB) []Case {
	t.Helper()
	p, ok := Path()
	if !ok && os.Getenv(EnvCasesFile) != "" {
		t.Fatalf("eventpatterntest: AWS-validated cases not found at %s=%s; the conformance suite cannot run without it", EnvCasesFile, p)
	}
	if !ok {
		t.Fatalf("eventpatterntest: AWS-validated cases not found: looked for %s in every parent of the working directory "+
			"(or set %s); the conformance suite cannot run without it", relPath, EnvCasesFile)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("eventpatterntest: read %s: %v", p, err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("eventpatterntest: parse %s: %v", p, err)
	}
	if len(cases) == 0 {
		t.Fatalf("eventpatterntest: %s holds no cases", p)
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
