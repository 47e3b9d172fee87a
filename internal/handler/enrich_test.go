package handler_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/message"
)

func setupEnrich(t *testing.T) (*handler.Enrich, *recorder, *syncBuffer) {
	t.Helper()
	rec, logs := &recorder{}, &syncBuffer{}
	return &handler.Enrich{Metrics: rec, Logger: newLogger(logs)}, rec, logs
}

// TestEnrichContract runs the captured Pipe batch through the handler and
// compares the JSON the Pipe would send to the queue with the captured
// response.
func TestEnrichContract(t *testing.T) {
	t.Parallel()
	h, rec, logs := setupEnrich(t)
	var batch []json.RawMessage
	decodeFixture(t, "pipes-enrich-batch.json", &batch)

	got, err := h.Handle(t.Context(), batch)

	require.NoError(t, err)
	body, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(readFixture(t, "pipes-enrich-response.json")), string(body))
	require.Equal(t, map[string]float64{emf.EnrichDropped: 2}, rec.counts(), "the REMOVE and the keys-only record")
	require.Contains(t, logs.String(), "did not normalize")

	// Every item is a message the scraper accepts.
	for _, m := range got {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		parsed, err := message.Parse(b)
		require.NoError(t, err)
		require.Equal(t, m, parsed)
	}
}

func TestEnrich(t *testing.T) {
	t.Parallel()

	insert := `{"eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"t1"}},"NewImage":{"taskId":{"S":"t1"},"runId":{"S":"r"},"url":{"S":"Example.com"},"status":{"S":"Pending"}}}}`
	tests := []struct {
		name  string
		batch []string
		want  []message.Message
		// wantCounts are the metrics recorded (nil: none).
		wantCounts map[string]float64
	}{
		{
			name:  "NormalizesURL",
			batch: []string{insert},
			want:  []message.Message{{Version: 1, TaskID: "t1", RunID: "r", URL: "https://example.com/", Domain: "example.com"}},
		},
		{
			name:  "EmptyBatch",
			batch: nil,
			want:  []message.Message{},
		},
		{
			name: "AllDroppedGivesEmptyArray",
			batch: []string{
				`{"eventName":"REMOVE","dynamodb":{"Keys":{"taskId":{"S":"t1"}},"OldImage":{"taskId":{"S":"t1"}}}}`,
				`{"eventName":"MODIFY","dynamodb":{"NewImage":{"url":{"S":"https://x.example/"}}}}`,
			},
			want: []message.Message{},
		},
		{
			name:  "TaskIDFromKeys",
			batch: []string{`{"eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"k1"}},"NewImage":{"url":{"NULL":true}}}}`},
			want:  []message.Message{{Version: 1, TaskID: "k1"}},
		},
		{
			// Enrichment has no partial batch failure handling on AWS: a
			// failed call would take the good record down with the bad one.
			name:       "MalformedRecordDroppedOthersKept",
			batch:      []string{insert, `{"eventName":"INSERT","dynamodb":{"NewImage":{"taskId":{"N":"1"}}}}`},
			want:       []message.Message{{Version: 1, TaskID: "t1", RunID: "r", URL: "https://example.com/", Domain: "example.com"}},
			wantCounts: map[string]float64{emf.EnrichMalformed: 1},
		},
		{
			name:       "NotARecordDropped",
			batch:      []string{`{"taskId":"t1"}`, `"text"`, `[1]`, insert},
			want:       []message.Message{{Version: 1, TaskID: "t1", RunID: "r", URL: "https://example.com/", Domain: "example.com"}},
			wantCounts: map[string]float64{emf.EnrichMalformed: 3},
		},
		{
			name:       "UnusableTaskIDDropped",
			batch:      []string{`{"eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"` + strings.Repeat("x", message.MaxTaskIDBytes+1) + `"}},"NewImage":{"url":{"S":"https://a.example/"}}}}`, insert},
			want:       []message.Message{{Version: 1, TaskID: "t1", RunID: "r", URL: "https://example.com/", Domain: "example.com"}},
			wantCounts: map[string]float64{emf.EnrichMalformed: 1},
		},
		{
			name: "DroppedAndMalformedCountedApart",
			batch: []string{
				`{"eventName":"REMOVE","dynamodb":{"Keys":{"taskId":{"S":"t1"}},"OldImage":{"taskId":{"S":"t1"}}}}`,
				`{"eventName":"BOGUS","dynamodb":{}}`,
			},
			want:       []message.Message{},
			wantCounts: map[string]float64{emf.EnrichDropped: 1, emf.EnrichMalformed: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, rec, _ := setupEnrich(t)
			var batch []json.RawMessage
			for _, r := range tt.batch {
				batch = append(batch, json.RawMessage(r))
			}
			got, err := h.Handle(t.Context(), batch)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			if tt.wantCounts != nil {
				require.Equal(t, tt.wantCounts, rec.counts())
			}
			b, err := json.Marshal(got)
			require.NoError(t, err)
			require.NotEqual(t, "null", string(b), "the Pipe needs an array")
		})
	}
}

// TestEnrichMalformedFixture: the captured batch's second record has a
// numeric url; it is dropped with a log line that locates it, and the first
// record still goes to the target.
func TestEnrichMalformedFixture(t *testing.T) {
	t.Parallel()
	h, rec, logs := setupEnrich(t)
	var batch []json.RawMessage
	decodeFixture(t, "pipes-enrich-malformed-batch.json", &batch)

	got, err := h.Handle(t.Context(), batch)

	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "run-20260101-0002", got[0].TaskID)
	require.Equal(t, map[string]float64{emf.EnrichMalformed: 1}, rec.counts())
	require.Contains(t, logs.String(), "malformed stream record; dropped")
	require.Contains(t, logs.String(), "attribute url: type N, want S")
	require.Contains(t, logs.String(), `"record":2`)
}

func TestEnrichValidate(t *testing.T) {
	t.Parallel()
	_, err := (&handler.Enrich{}).Handle(t.Context(), nil)
	require.ErrorContains(t, err, "nil Metrics")
}
