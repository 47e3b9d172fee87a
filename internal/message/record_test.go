package message_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/message"
)

func TestDecodeRecord(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		file string
		body string
		want message.Record
	}{
		{
			name: "Insert",
			file: "stream-insert.json",
			want: message.Record{
				EventID: "c4ca4238a0b923820dcc509a6f75849b", EventName: message.EventInsert,
				SequenceNumber: "111100000000012345678901", KeyTaskID: "run-20260101-0001",
				NewImage: &message.Image{TaskID: "run-20260101-0001", RunID: "run-20260101",
					URL: "https://Example.COM:443/about?b=2&a=1#team", Status: "Pending"},
			},
		},
		{
			name: "Modify",
			file: "stream-modify-retry.json",
			want: message.Record{
				EventID: "c81e728d9d4c2f636f067f89cc14862c", EventName: message.EventModify,
				SequenceNumber: "222200000000012345678902", KeyTaskID: "run-20260101-0002",
				NewImage: &message.Image{TaskID: "run-20260101-0002", RunID: "run-20260101",
					URL: "http://shop.example.org/", Status: "Pending"},
				OldImage: &message.Image{TaskID: "run-20260101-0002", RunID: "run-20260101",
					URL: "http://shop.example.org/", Status: "Failed"},
			},
		},
		{
			name: "Remove",
			file: "stream-remove.json",
			want: message.Record{
				EventID: "eccbc87e4b5ce2fe28308fd9f2a7baf3", EventName: message.EventRemove,
				SequenceNumber: "333300000000012345678903", KeyTaskID: "run-20260101-0003",
				OldImage: &message.Image{TaskID: "run-20260101-0003", RunID: "run-20260101",
					URL: "https://gone.example.net/", Status: "Finished"},
			},
		},
		{
			name: "NullAttributesAreEmpty",
			body: `{"dynamodb":{"NewImage":{"taskId":{"S":"t"},"url":{"NULL":true}}}}`,
			want: message.Record{NewImage: &message.Image{TaskID: "t"}},
		},
		{
			name: "OddTypesOutsideTheContractAreIgnored",
			body: `{"dynamodb":{"NewImage":{"taskId":{"S":"t"},"attempts":"three","result":{"X":1}}}}`,
			want: message.Record{NewImage: &message.Image{TaskID: "t"}},
		},
		{
			name: "EmptyImage",
			body: `{"eventName":"MODIFY","dynamodb":{"NewImage":{},"OldImage":null}}`,
			want: message.Record{EventName: message.EventModify, NewImage: &message.Image{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := []byte(tt.body)
			if tt.file != "" {
				body = readFixture(t, tt.file)
			}
			got, err := message.DecodeRecord(body)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeRecordRejects(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"NotObject", `[1]`, "not a JSON object"},
		{"Invalid", `{"dynamodb":`, "unexpected end"},
		{"NoDynamoDB", `{"eventName":"INSERT"}`, "no dynamodb object"},
		{"DynamoDBNotObject", `{"dynamodb":"x"}`, "cannot unmarshal"},
		{"EventNameNumber", `{"eventName":1,"dynamodb":{}}`, "cannot unmarshal"},
		{"UnknownEventName", `{"eventName":"insert","dynamodb":{}}`, `unknown eventName "insert"`},
		{"SequenceNumberNumber", `{"dynamodb":{"SequenceNumber":12}}`, "cannot unmarshal"},
		{"KeysNotObject", `{"dynamodb":{"Keys":[]}}`, "cannot unmarshal"},
		{"AttributeNotTyped", `{"dynamodb":{"NewImage":{"url":"https://x"}}}`, "attribute url: not a typed attribute value"},
		{"AttributeNull", `{"dynamodb":{"NewImage":{"url":null}}}`, "attribute url: not a typed attribute value"},
		{"AttributeTwoTypes", `{"dynamodb":{"NewImage":{"url":{"S":"a","N":"1"}}}}`, "exactly one type member, got 2"},
		{"AttributeNoType", `{"dynamodb":{"NewImage":{"url":{}}}}`, "exactly one type member, got 0"},
		{"AttributeWrongType", `{"dynamodb":{"NewImage":{"status":{"N":"1"}}}}`, "attribute status: type N, want S"},
		{"AttributeMap", `{"dynamodb":{"OldImage":{"runId":{"M":{}}}}}`, "OldImage: attribute runId: type M, want S"},
		{"AttributeUnknownType", `{"dynamodb":{"Keys":{"taskId":{"Q":"x"}}}}`, `unknown type "Q"`},
		{"StringNotString", `{"dynamodb":{"Keys":{"taskId":{"S":5}}}}`, "S is not a JSON string"},
		{"KeyDiffersFromImage", `{"dynamodb":{"Keys":{"taskId":{"S":"a"}},"NewImage":{"taskId":{"S":"b"}}}}`, "differs from NewImage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := message.DecodeRecord([]byte(tt.body))
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestRecordTaskID(t *testing.T) {
	t.Parallel()

	require.Equal(t, "k", message.Record{KeyTaskID: "k"}.TaskID())
	require.Equal(t, "n", message.Record{KeyTaskID: "n", NewImage: &message.Image{TaskID: "n"}}.TaskID())
	require.Equal(t, "k", message.Record{KeyTaskID: "k", NewImage: &message.Image{}}.TaskID())
	require.Empty(t, message.Record{}.TaskID())
}

func FuzzDecodeRecord(f *testing.F) {
	for _, name := range []string{"stream-insert.json", "stream-modify-retry.json", "stream-remove.json"} {
		f.Add(readFixture(f, name))
	}
	for _, s := range []string{`{}`, `{"dynamodb":{}}`, `{"dynamodb":{"Keys":{"taskId":{"NULL":true}}}}`,
		`{"dynamodb":{"NewImage":{"taskId":{"B":"AAAA"}}}}`, `{"eventName":"REMOVE","dynamodb":{"OldImage":{}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := message.DecodeRecord(raw)
		if err != nil {
			return
		}
		if r.NewImage != nil && r.NewImage.TaskID != "" && r.KeyTaskID != "" && r.NewImage.TaskID != r.KeyTaskID {
			t.Fatalf("accepted a record whose key and image disagree: %+v", r)
		}
		switch r.EventName {
		case "", message.EventInsert, message.EventModify, message.EventRemove:
		default:
			t.Fatalf("accepted unknown eventName %q", r.EventName)
		}
	})
}
