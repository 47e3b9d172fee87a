package pipe

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testEvent = `{"eventID":"e1","eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"t-1"}},` +
	`"NewImage":{"taskId":{"S":"t-1"},"status":{"S":"Pending"},"attempts":{"N":"2"},"note":{"S":"say \"hi\" <b>"},` +
	`"tags":{"L":[{"S":"news"},{"S":"daily"}]}},"SequenceNumber":"100000000000000000001","SizeBytes":42},` +
	`"eventSourceARN":"arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/x"}`

func renderForTest(t *testing.T, src string) (string, bool) {
	t.Helper()
	tm, err := parseTemplate(src)
	require.NoError(t, err)
	ev, err := decodeJSON([]byte(testEvent))
	require.NoError(t, err)
	cfg := &config{name: "p", arn: "arn:aws:pipes:us-east-1:000000000000:pipe/p",
		sourceARN: "arn:src", targetARN: "arn:tgt"}
	out := tm.render(&renderEnv{cfg: cfg, now: time.Date(2026, 3, 1, 12, 0, 0, 5e6, time.UTC), eventRaw: []byte(testEvent), event: ev})
	return string(out), tm.json
}

// TestTemplateRendering renders templates as the EventBridge user guide
// documents (eb-pipes-input-transformation.html): a placeholder is its
// value's text, quotes are the template's. A bare string placeholder in a
// JSON template gives invalid JSON, as on AWS (issue 12 defect 10: it used
// to be quoted for the author, so a template that worked locally sent
// broken JSON on AWS).
func TestTemplateRendering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tmpl, want string
		json, valid      bool
	}{
		{"bare string is not quoted", `{"id": <$.dynamodb.Keys.taskId.S>}`, `{"id": t-1}`, true, false},
		{"quoted string", `{"id": "<$.dynamodb.Keys.taskId.S>"}`, `{"id": "t-1"}`, true, true},
		{"string inside text", `{"m": "task <$.dynamodb.Keys.taskId.S> is <$.dynamodb.NewImage.status.S>"}`, `{"m": "task t-1 is Pending"}`, true, true},
		{"escaped inside a string literal", `{"b": "<$.dynamodb.NewImage.note.S>"}`, `{"b": "say \"hi\" <b>"}`, true, true},
		{"bare string with quotes is raw", `{"a": <$.dynamodb.NewImage.note.S>}`, `{"a": say "hi" <b>}`, true, false},
		{"number", `{"n": <$.dynamodb.SizeBytes>, "q": "<$.dynamodb.SizeBytes>"}`, `{"n": 42, "q": "42"}`, true, true},
		{"object bare and quoted", `{"k": <$.dynamodb.Keys>, "s": "<$.dynamodb.Keys>"}`,
			`{"k": {"taskId":{"S":"t-1"}}, "s": "{\"taskId\":{\"S\":\"t-1\"}}"}`, true, true},
		{"array index", `["<$.dynamodb.NewImage.tags.L[1].S>"]`, `["daily"]`, true, true},
		{"array wildcard", `{"tags": <$.dynamodb.NewImage.tags.L[*].S>}`, `{"tags": ["news","daily"]}`, true, true},
		{"missing bare and quoted", `{"a": <$.nope>, "b": "<$.nope>", "c": <$.dynamodb.NewImage.tags.L[9]>}`, `{"a": null, "b": "", "c": null}`, true, true},
		{"whole event", `<$>`, testEvent, true, true},
		{"reserved, quoted as the guide asks", `{"n": "<aws.pipes.pipe-name>", "a": "<aws.pipes.pipe-arn>", "s": "<aws.pipes.source-arn>", "t": "<aws.pipes.target-arn>", "e": "<aws.pipes.enrichment-arn>", "i": "<aws.pipes.event.ingestion-time>"}`,
			`{"n": "p", "a": "arn:aws:pipes:us-east-1:000000000000:pipe/p", "s": "arn:src", "t": "arn:tgt", "e": "", "i": "2026-03-01T12:00:00.005Z"}`, true, true},
		{"reserved string bare", `{"n": <aws.pipes.pipe-name>}`, `{"n": p}`, true, false},
		{"plain text", `Task <$.dynamodb.Keys.taskId.S> has <$.dynamodb.NewImage.attempts> and <$.nope>.`,
			`Task t-1 has {"N":"2"} and .`, false, false},
		{"not a placeholder", `<b>hello</b> <$.eventName>`, `<b>hello</b> INSERT`, false, false},
		{"escaped quote keeps string state", `{"a": "x\" <$.eventName>"}`, `{"a": "x\" INSERT"}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, isJSON := renderForTest(t, tc.tmpl)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.json, isJSON)
			require.Equal(t, tc.valid, json.Valid([]byte(got)), got)
		})
	}
}

func TestTemplateEventVariables(t *testing.T) {
	t.Parallel()
	got, _ := renderForTest(t, `{"e": <aws.pipes.event>, "j": <aws.pipes.event.json>, "q": "<aws.pipes.event>"}`)
	var out struct {
		E json.RawMessage `json:"e"`
		J json.RawMessage `json:"j"`
		Q string          `json:"q"`
	}
	require.NoError(t, json.Unmarshal([]byte(got), &out))
	require.JSONEq(t, testEvent, string(out.E))
	// "Because it isn't escaped, the variable can only be used as a value
	// for a JSON field" (the guide, aws.pipes.event.json).
	require.JSONEq(t, testEvent, string(out.J))
	require.Equal(t, testEvent, out.Q)
}

func TestTemplateParseErrors(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`<$.>`, `<$..a>`, `<$.a[x]>`, `<$.a[-1]>`, `<$.a[1>`, `<$a>`, `<aws.pipes.unknown>`, `<$.a b>`} {
		_, err := parseTemplate(src)
		require.Error(t, err, src)
	}
}

func TestParseEnrichment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: ``}, {in: `null`}, {in: `[]`}, {in: `{}`}, {in: ` { } `}, {in: `""`},
		{in: `[{}]`, want: []string{`{}`}},
		{in: `[1,"a",null]`, want: []string{`1`, `"a"`, `null`}},
		{in: `{"a":1}`, want: []string{`{"a":1}`}},
		{in: `"text"`, want: []string{`"text"`}},
		{in: `42`, want: []string{`42`}},
		{in: `[`, err: true},
		{in: `{"a":1}{"b":2}`, err: true},
	} {
		got, err := parseEnrichment([]byte(tc.in))
		if tc.err {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		require.Equal(t, tc.want, gs, tc.in)
	}
}
