package pipe

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// Templates come from pipe definitions (untrusted request bodies); whatever
// parses must render without panicking, and a JSON-mode template must
// always render valid JSON, whatever the event.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		`{"id": <$.dynamodb.Keys.taskId.S>}`, `{"id": "<$.dynamodb.Keys.taskId.S>"}`, `<$>`, `"<$>"`,
		`{"e": <aws.pipes.event>, "j": "<aws.pipes.event.json>"}`, `text <$.eventName> <b>`, `[<$.a[0]>, <$.a[*].b>]`,
		`{"a": "x\" <$.eventName>"}`, `<$.dynamodb.NewImage.note.S>`, `{"k": <$.dynamodb.Keys>}`,
	} {
		f.Add(s, testEvent)
		f.Add(s, `not json`)
	}
	f.Fuzz(func(t *testing.T, src, event string) {
		tm, err := parseTemplate(src)
		if err != nil {
			return
		}
		ev, err := decodeJSON([]byte(event))
		if err != nil {
			ev = event // a plain item renders as a string
		}
		cfg := &config{name: "p", arn: "arn:aws:pipes:us-east-1:000000000000:pipe/p"}
		out := tm.render(&renderEnv{cfg: cfg, now: time.Unix(0, 0), eventRaw: []byte(event), event: ev})
		// A bare placeholder is its value's raw text (a string unquoted, as
		// on AWS), so only a JSON template whose placeholders all sit in
		// string literals must render JSON whatever the event.
		quoted := true
		for _, p := range tm.parts {
			if p.ph != nil && !p.quoted {
				quoted = false
			}
		}
		if tm.json && quoted && !json.Valid(out) {
			t.Fatalf("JSON template %q rendered invalid JSON %q for event %q", src, out, event)
		}
	})
}

// Enrichment responses come from user functions.
func FuzzParseEnrichment(f *testing.F) {
	for _, s := range []string{``, `null`, `[]`, `{}`, `""`, `[{}]`, `[1,2]`, `{"a":1}`, `"x"`, `[`, `<html>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		items, err := parseEnrichment(payload)
		if err != nil {
			return
		}
		for _, it := range items {
			if !json.Valid(it) {
				t.Fatalf("item %q of %q is not JSON", it, payload)
			}
		}
	})
}

// CreatePipe and UpdatePipe bodies are untrusted: any body gets an API
// answer (never a panic or a 5xx); a rejected CreatePipe leaves no pipe
// behind, an accepted one can be updated with the same body and deleted.
func FuzzCreatePipeBody(f *testing.F) {
	tables := table.New(table.Options{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"tasks","BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],`+
		`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.CreateTable")
	tables.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		f.Fatalf("create table: %d %s", rec.Code, rec.Body)
	}
	streamARN, err := tables.LatestStreamARN("tasks")
	if err != nil {
		f.Fatal(err)
	}
	queues := queue.New(queue.Options{})
	defer queues.Close()
	q, err := queues.CreateQueue("q", nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	valid := `{"RoleArn":"arn:aws:iam::000000000000:role/r","Source":"` + streamARN + `","Target":"` + q.ARN + `",` +
		`"SourceParameters":{"DynamoDBStreamParameters":{"StartingPosition":"LATEST","BatchSize":5},` +
		`"FilterCriteria":{"Filters":[{"Pattern":"{\"dynamodb\":{\"NewImage\":{\"status\":{\"S\":[\"Pending\"]}}}}"}]}},` +
		`"TargetParameters":{"InputTemplate":"{\"id\": <$.dynamodb.Keys.id.S>}"}}`
	for _, s := range []string{
		valid, ``, `{}`, `[1,2]`, `null`, `{"Tags":{"":""}}`, `{"TargetParameters":{"InputTemplate":"<$.."}}`,
		`{"SourceParameters":{"DynamoDBStreamParameters":{"BatchSize":-5,"StartingPosition":"NOPE"},"FilterCriteria":{"Filters":[{"Pattern":"{"}]}}}`,
		strings.Replace(valid, `"BatchSize":5`, `"BatchSize":11`, 1),
		strings.Replace(valid, `"BatchSize":5`, `"MaximumRecordAgeInSeconds":30`, 1),
	} {
		f.Add("p", s)
	}
	svc := New(Options{Tables: tables, Queues: queues})
	defer svc.Close()
	do := func(method, name, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/v1/pipes/x", strings.NewReader(body))
		req.URL.RawPath = "/v1/pipes/" + urlEscape(name)
		req.URL.Path = "/v1/pipes/" + name
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, req)
		return rec
	}
	// The valid seed really creates a pipe, so the fuzzer starts from
	// bodies that reach the runtime.
	if rec := do(http.MethodPost, "seed", valid); rec.Code != http.StatusOK {
		f.Fatalf("valid seed rejected: %d %s", rec.Code, rec.Body)
	}
	if rec := do(http.MethodDelete, "seed", ""); rec.Code != http.StatusOK {
		f.Fatalf("delete seed pipe: %d %s", rec.Code, rec.Body)
	}
	f.Fuzz(func(t *testing.T, name, body string) {
		check := func(method string, rec *httptest.ResponseRecorder) {
			if rec.Code >= 500 {
				t.Fatalf("%s %q: status %d: %s", method, body, rec.Code, rec.Body)
			}
			if rec.Code != http.StatusOK && rec.Header().Get("X-Amzn-ErrorType") == "" {
				t.Fatalf("%s %q: status %d without an error type", method, body, rec.Code)
			}
		}
		created := do(http.MethodPost, name, body)
		check("CreatePipe", created)
		svc.mu.Lock()
		_, exists := svc.pipes[name]
		svc.mu.Unlock()
		if exists != (created.Code == http.StatusOK) {
			t.Fatalf("CreatePipe %q answered %d but the pipe exists: %v", body, created.Code, exists)
		}
		if !exists {
			return
		}
		check("UpdatePipe", do(http.MethodPut, name, body))
		if del := do(http.MethodDelete, name, ""); del.Code != http.StatusOK {
			t.Fatalf("DeletePipe: %d %s", del.Code, del.Body)
		}
	})
}

func urlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}
