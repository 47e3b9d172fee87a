package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParsePipePointer(t *testing.T) {
	t.Parallel()
	good := `{"context":{"partnerResourceArn":"arn:aws:pipes:us-east-1:1:pipe/p","condition":"RetryAttemptsExhausted"},"version":"1.0","timestamp":"2026-01-01T00:00:00Z",
	 "DDBStreamBatchInfo":{"shardId":"shardId-1","startSequenceNumber":"99","endSequenceNumber":"100","approximateArrivalOfFirstRecord":1767225600,"batchSize":2,"streamArn":"arn:s"}}`
	p, err := ParsePipePointer([]byte(good))
	require.NoError(t, err)
	require.Equal(t, "RetryAttemptsExhausted", p.Context.Condition)
	require.Equal(t, "1767225600", rawText(p.Batch.ApproximateArrivalOfFirstRecord), "numbers are shown as given")
	tests := []struct{ name, body, want string }{
		{"NotJSON", `nope`, "invalid character"},
		{"Kinesis", `{"KinesisBatchInfo":{}}`, "no DDBStreamBatchInfo"},
		{"Empty", `{"DDBStreamBatchInfo":{}}`, "empty streamArn"},
		{"Reversed", `{"DDBStreamBatchInfo":{"shardId":"s","streamArn":"a","startSequenceNumber":"100","endSequenceNumber":"99"}}`, "after endSequenceNumber"},
		{"Letters", `{"DDBStreamBatchInfo":{"shardId":"s","streamArn":"a","startSequenceNumber":"1e3","endSequenceNumber":"99"}}`, "not a sequence number"},
		{"Trailing", `{"DDBStreamBatchInfo":{}} {}`, "trailing data"},
	}
	for _, tt := range tests {
		_, err := ParsePipePointer([]byte(tt.body))
		require.ErrorContains(t, err, tt.want, tt.name)
	}
}

func TestCompareSequence(t *testing.T) {
	t.Parallel()
	require.Equal(t, -1, compareSequence("99", "100"))
	require.Equal(t, 0, compareSequence("000100", "100"))
	require.Equal(t, 1, compareSequence("49999999999999999999999999999999999999", "4999999999999999999999999999999999998"))
}

func FuzzParsePipePointer(f *testing.F) {
	f.Add(`{"DDBStreamBatchInfo":{"shardId":"s","streamArn":"a","startSequenceNumber":"1","endSequenceNumber":"2"}}`)
	f.Add(`{"context":{},"DDBStreamBatchInfo":{"batchSize":-1}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ParsePipePointer([]byte(body))
		if err != nil {
			return
		}
		b := p.Batch
		if b == nil || b.StreamArn == "" || b.ShardID == "" || compareSequence(b.StartSequenceNumber, b.EndSequenceNumber) > 0 {
			t.Fatalf("accepted an unusable pointer: %+v", b)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseFilterFiles(f *testing.F) {
	f.Add(`[{"pattern":"{\"a\":[\"b\"]}"}]`, `[{"eventName":"INSERT","dynamodb":{"Keys":{"k":{"S":"v"}}}}]`)
	f.Add(`{"Filters":[{"Pattern":"{}"}]}`, "{\"a\":1}\n{}\n")
	f.Add(`{"a":[{"prefix":"x"}]}`, `{"Records":[{"a":"xy"}]}`)
	f.Fuzz(func(t *testing.T, pattern, records string) {
		filters, err := ParseFilters([]byte(pattern))
		if err != nil {
			return
		}
		recs, err := ParseRecords([]byte(records))
		if err != nil {
			return
		}
		for i, r := range recs {
			_, _ = matchRecord(i, r, filters) // must not panic; errors are reported per record
		}
	})
}

func TestRateTracker(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rt rateTracker
	rt.add(sample{at: t0, done: 0})
	_, ok := rt.rate()
	require.False(t, ok)
	rt.add(sample{at: t0.Add(time.Minute), done: 600}) // 10/s
	r, ok := rt.rate()
	require.True(t, ok)
	require.InDelta(t, 10, r, 1e-9)
	// Old samples leave the window: the rate follows the recent pace.
	rt.add(sample{at: t0.Add(4 * time.Minute), done: 600 + 180}) // 1/s since
	rt.add(sample{at: t0.Add(5 * time.Minute), done: 600 + 240}) // 1/s
	r, ok = rt.rate()
	require.True(t, ok)
	require.InDelta(t, 1, r, 1e-9)
	// A retry makes done go down: unknown, not negative.
	rt.add(sample{at: t0.Add(6 * time.Minute), done: 100})
	_, ok = rt.rate()
	require.False(t, ok)
}
