package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

var benchResult = json.RawMessage(`{"title":"Example Domain","links":1}`)

// TestClaimFinishRequests pins the scraper's happy path: one request to
// claim, one to finish, no reads.
func TestClaimFinishRequests(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	s := newStore(t, l, l.Client, nil)
	require.NoError(t, s.Create(t.Context(), newTasks("run-1", "t", 1)))
	rc.Reset()

	_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: "t-000", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.NoError(t, err)
	require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: "t-000", Token: "tok", Now: t0, Result: benchResult}))
	require.Equal(t, 2, rc.Total())
	require.Equal(t, 2, rc.Count("UpdateItem"))
	require.Zero(t, rc.Reads())
}

// BenchmarkClaimFinish measures the scraper's two writes per task through
// the real SDK, HTTP and the local cloud's DynamoDB. ns/op is dominated by the local HTTP round
// trips and the emulator, not by DynamoDB; requests/op and reads/op are the
// numbers that carry over to AWS.
func BenchmarkClaimFinish(b *testing.B) {
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(b, dynamostoretest.WithClientOptions(rc.ClientOption))
	s, err := dynamostore.New(l.Client, dynamostore.Options{Table: l.Table, Now: func() time.Time { return t0 }})
	require.NoError(b, err)
	tasks := make([]task.Task, b.N)
	for i := range tasks {
		id := fmt.Sprintf("t-%d", i)
		tasks[i] = task.Task{ID: id, RunID: "bench", URL: "https://example.com/" + id}
	}
	require.NoError(b, s.Create(b.Context(), tasks))
	rc.Reset()
	b.ResetTimer()
	for i := range b.N {
		id := tasks[i].ID
		if _, err := s.Claim(b.Context(), task.ClaimParams{TaskID: id, Token: "tok", Now: t0, Lease: time.Minute}); err != nil {
			b.Fatal(err)
		}
		if err := s.Finish(b.Context(), task.FinishParams{TaskID: id, Token: "tok", Now: t0, Result: benchResult}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rc.Total())/float64(b.N), "requests/op")
	b.ReportMetric(float64(rc.Reads())/float64(b.N), "reads/op")
}

// TestReadRequests pins what the reconciler, `status` and `results` cost:
// on the happy path (nothing overdue, a finished run) no row is read, only
// the indexes are queried; a row is read only for a task that is overdue
// or, for a run's listing and counts, still live.
func TestReadRequests(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	s := newStore(t, l, l.Client, nil) // 8 live shards
	shards := s.LiveShards()
	tasks := newTasks("run-1", "t", 30)
	require.NoError(t, s.Create(t.Context(), tasks))
	for _, tk := range tasks[:20] {
		_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: tk.ID, Token: "tok", Now: t0, Lease: tasktest.Lease})
		require.NoError(t, err)
		require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: tk.ID, Token: "tok", Now: t0, Result: benchResult}))
	}
	type want struct{ queries, batchGets int }
	tests := []struct {
		name string
		call func() error
		want want
	}{
		{"reconciler, nothing overdue: a query per shard", func() error {
			_, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(-time.Minute)})
			return err
		}, want{shards, 0}},
		{"reconciler, 10 overdue: their rows in one batch", func() error {
			page, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Minute)})
			require.Len(t, page.Tasks, 10)
			return err
		}, want{shards, 1}},
		{"counts, 10 live: the done index, a query per shard, one batch", func() error {
			_, err := s.RunCounts(t.Context(), "run-1")
			return err
		}, want{1 + shards, 1}},
		{"listing, 10 live", func() error {
			page, err := s.RunTasks(t.Context(), "run-1", "", 0)
			require.Len(t, page.Tasks, 30)
			return err
		}, want{1 + shards, 1}},
		{"counts of a finished run: no row read", func() error {
			_, err := s.RunCounts(t.Context(), "run-none")
			return err
		}, want{1 + shards, 0}},
	}
	for _, tc := range tests {
		// Not parallel: the counter is shared.
		rc.Reset()
		require.NoError(t, tc.call(), tc.name)
		require.Equal(t, tc.want, want{rc.Count("Query"), rc.Count("BatchGetItem")}, tc.name)
		require.Equal(t, rc.Total(), rc.Reads(), "%s: reads only", tc.name)
	}
}

// TestRowReadsRetryUnprocessedKeys: keys a throttled BatchGetItem leaves
// unprocessed are asked again, and a read that never completes is an error,
// not a silently shorter listing.
func TestRowReadsRetryUnprocessedKeys(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	api := &faultAPI{API: l.Client, unprocess: 1}
	s := newStore(t, l, api, func(o *dynamostore.Options) {
		o.LiveShards = 1
		o.Sleep = func(context.Context, time.Duration) error { return nil }
	})
	require.NoError(t, s.Create(t.Context(), newTasks("run-1", "t", 5)))
	page, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Minute)})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 5, "the unprocessed key was read on the next call")

	slept := 0
	stuck := newStore(t, l, &faultAPI{API: l.Client, unprocess: -1}, func(o *dynamostore.Options) {
		o.BatchAttempts = 3
		o.Sleep = func(context.Context, time.Duration) error { slept++; return nil }
	})
	_, err = stuck.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Minute)})
	require.ErrorIs(t, err, dynamostore.ErrUnprocessed)
	require.ErrorContains(t, err, "after 3 attempts")
	require.Equal(t, 2, slept, "a backoff between attempts")
}
