package loggroup

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"
)

// FuzzParsePattern checks that no filter pattern panics the parser and
// that a parsed pattern can always be matched.
func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"", "ERROR", `"a b" ?c -d`, `{ $.x = 1 }`, `"`, `?`, `-"x`, "\t\n", `\"`} {
		f.Add(s, "some ERROR line")
	}
	f.Fuzz(func(t *testing.T, p, msg string) {
		pat, err := parsePattern(p)
		if err != nil {
			if err.Type != ErrInvalidParameter.Type {
				t.Fatalf("pattern %q: error type %s", p, err.Type)
			}
			return
		}
		pat.match(msg)
	})
}

// FuzzServeHTTP sends arbitrary bodies to every operation: the handler
// must answer 200 or a 4xx AWS error, never panic or 5xx.
func FuzzServeHTTP(f *testing.F) {
	ops := make([]string, 0, len(operations))
	for op := range operations {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	seeds := []string{
		`{}`, `{"logGroupName":"g"}`, `{"logGroupName":"g","logStreamName":"s"}`,
		`{"logGroupName":"g","logStreamName":"s","logEvents":[{"timestamp":1,"message":"m"}]}`,
		`{"logGroupName":"g","logStreamName":"s","nextToken":"f/1/2","limit":1}`,
		`{"logGroupNamePrefix":"g","nextToken":"Zzo="}`, `{"resourceArn":"arn:aws:logs:us-east-1:000000000000:log-group:g"}`,
		`{"logGroupName":"g","filterPattern":"\"x"}`, `{"logGroupName":"g","retentionInDays":3}`, `[`, `null`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, opIdx uint8, body []byte) {
		s := New(Options{Now: func() time.Time { return time.Unix(1_772_000_000, 0) }})
		_ = s.Append("g", "s", Event{Timestamp: time.Unix(1_772_000_000, 0), Message: "hello"})
		op := ops[int(opIdx)%len(ops)]
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", targetPrefix+op)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && (rec.Code < 400 || rec.Code >= 500) {
			t.Fatalf("%s %q: status %d: %s", op, body, rec.Code, rec.Body.String())
		}
	})
}
