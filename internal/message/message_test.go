package message_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/task"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParse(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		body string // used when fixture is empty
		file string
		want message.Message
	}{
		{
			name: "StreamRecordInsert",
			file: "stream-insert.json",
			want: message.Message{Version: 1, TaskID: "run-20260101-0001", RunID: "run-20260101",
				URL: "https://Example.COM:443/about?b=2&a=1#team"},
		},
		{
			name: "StreamRecordModify",
			file: "stream-modify-retry.json",
			want: message.Message{Version: 1, TaskID: "run-20260101-0002", RunID: "run-20260101",
				URL: "http://shop.example.org/"},
		},
		{
			name: "StreamRecordRemoveTakesKey",
			file: "stream-remove.json",
			want: message.Message{Version: 1, TaskID: "run-20260101-0003"},
		},
		{
			name: "Compact",
			file: "compact.json",
			want: message.Message{Version: 1, TaskID: "run-20260101-0001", RunID: "run-20260101",
				URL: "https://example.com/about?a=1&b=2", Domain: "example.com"},
		},
		{
			name: "InputTemplate",
			file: "input-template.json",
			want: message.Message{TaskID: "run-20260101-0001"},
		},
		{
			name: "KeysOnlyRecord",
			body: `{"eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"t1"}}}}`,
			want: message.Message{Version: 1, TaskID: "t1"},
		},
		{
			name: "NullOptionalFields",
			body: `{"taskId":"t1","runId":null,"url":null}`,
			want: message.Message{TaskID: "t1"},
		},
		{
			name: "UnknownFieldsIgnored",
			body: ` {"taskId":"t1","extra":{"a":[1,2]}} `,
			want: message.Message{TaskID: "t1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := []byte(tt.body)
			if tt.file != "" {
				body = readFixture(t, tt.file)
			}
			got, err := message.Parse(body)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"Empty", ``, "not a JSON object"},
		{"Whitespace", " \n", "not a JSON object"},
		{"Array", `[{"taskId":"t1"}]`, "not a JSON object"},
		{"String", `"t1"`, "not a JSON object"},
		{"InvalidJSON", `{"taskId":"t1"`, "unexpected end"},
		{"TrailingGarbage", `{"taskId":"t1"} x`, "invalid character"},
		{"NoTaskID", `{"runId":"r1"}`, "neither a stream record nor"},
		{"WrongCaseKey", `{"TaskId":"t1"}`, "neither a stream record nor"},
		{"EmptyTaskID", `{"taskId":""}`, "empty taskId"},
		{"NullTaskID", `{"taskId":null}`, "empty taskId"},
		{"NumericTaskID", `{"taskId":42}`, "taskId is not a string"},
		{"TypedTaskID", `{"taskId":{"S":"t1"}}`, "taskId is not a string"},
		{"NumericURL", `{"taskId":"t1","url":7}`, "url is not a string"},
		{"LongTaskID", `{"taskId":"` + strings.Repeat("x", message.MaxTaskIDBytes+1) + `"}`, "limit 2048"},
		{"FutureVersion", `{"v":2,"taskId":"t1"}`, "unsupported version 2"},
		{"ZeroVersion", `{"v":0,"taskId":"t1"}`, "unsupported version 0"},
		{"FractionalVersion", `{"v":1.5,"taskId":"t1"}`, "v is not an integer"},
		{"StreamRecordNoTaskID", `{"eventName":"INSERT","dynamodb":{"Keys":{}}}`, "empty taskId"},
		{"StreamRecordNullDynamoDB", `{"eventName":"INSERT","dynamodb":null}`, "no dynamodb object"},
		{"StreamRecordNumericKey", `{"dynamodb":{"Keys":{"taskId":{"N":"1"}}}}`, "type N, want S"},
		{"StreamRecordBadEventName", `{"eventName":"UPSERT","dynamodb":{"Keys":{"taskId":{"S":"t"}}}}`, "unknown eventName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := message.Parse([]byte(tt.body))
			require.Error(t, err)
			require.ErrorContains(t, err, tt.wantErr)
			require.Equal(t, task.KindPoison, task.KindOf(err), "every parse error is poison")
		})
	}
}

func TestMessageMarshalRoundTrip(t *testing.T) {
	t.Parallel()

	m := message.Message{Version: message.Version, TaskID: "t1", RunID: "r1",
		URL: "https://example.com/", Domain: "example.com"}
	b, err := m.Marshal()
	require.NoError(t, err)
	require.JSONEq(t, `{"v":1,"taskId":"t1","runId":"r1","url":"https://example.com/","domain":"example.com"}`, string(b))

	got, err := message.Parse(b)
	require.NoError(t, err)
	require.Equal(t, m, got)

	_, err = message.Message{Version: 1}.Marshal()
	require.ErrorContains(t, err, "empty taskId")
	_, err = message.Message{Version: 9, TaskID: "t"}.Marshal()
	require.ErrorContains(t, err, "unsupported version 9")
	// encoding/json replaces invalid UTF-8 while decoding, so only a
	// message built in code can carry it.
	_, err = message.Message{TaskID: "\xff"}.Marshal()
	require.ErrorContains(t, err, "not valid UTF-8")
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"stream-insert.json", "stream-modify-retry.json", "stream-remove.json",
		"compact.json", "input-template.json"} {
		f.Add(readFixture(f, name))
	}
	for _, s := range []string{``, `{}`, `[]`, `null`, `{"taskId":null}`, `{"v":1e400,"taskId":"x"}`,
		`{"dynamodb":{"Keys":{"taskId":{"S":"a","N":"1"}}}}`, `{"dynamodb":{"NewImage":{"taskId":{"NULL":true}}}}`,
		"{\"taskId\":\"\\ud800\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := message.Parse(body)
		if err != nil {
			if task.KindOf(err) != task.KindPoison {
				t.Fatalf("parse error is not poison: %v", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Parse accepted a message that does not validate: %v", err)
		}
		// What Parse returns, a producer can send again unchanged.
		b, err := m.Marshal()
		if err != nil {
			t.Fatalf("marshal parsed message: %v", err)
		}
		again, err := message.Parse(b)
		if err != nil {
			t.Fatalf("re-parse %s: %v", b, err)
		}
		if again != m {
			t.Fatalf("round trip changed the message: %+v → %+v", m, again)
		}
	})
}

func TestNew(t *testing.T) {
	t.Parallel()

	long := "https://example.com/" + strings.Repeat("a", message.MaxURLBytes)
	tests := []struct {
		name string
		raw  string
		want message.Message
	}{
		{"Normalized", "HTTPS://Example.COM:443/about#team",
			message.Message{Version: 1, TaskID: "t", RunID: "r", URL: "https://example.com/about", Domain: "example.com"}},
		{"InvalidKeptRaw", "ftp://example.com/",
			message.Message{Version: 1, TaskID: "t", RunID: "r", URL: "ftp://example.com/"}},
		{"EmptyURL", "",
			message.Message{Version: 1, TaskID: "t", RunID: "r"}},
		{"TooLongLeftOut", long,
			message.Message{Version: 1, TaskID: "t", RunID: "r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := message.New("t", "r", tt.raw)
			require.Equal(t, tt.want, got)
			require.NoError(t, got.Validate())
		})
	}
}
