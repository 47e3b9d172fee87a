package dynamostore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	s := newStore(t, l, l.Client, nil)

	tasks := newTasks("run-1", "t", 60)
	tasks[7].MaxAttempts = 5
	tasks[8].CreatedAt = t0.Add(-time.Hour)
	tasks[9].State = task.StatePending // explicit Pending is allowed
	require.NoError(t, s.Create(t.Context(), tasks))
	require.Equal(t, 3, rc.Count("BatchWriteItem"), "60 tasks go out in batches of 25")

	for _, want := range tasks {
		got, err := s.Get(t.Context(), want.ID)
		require.NoError(t, err)
		created := t0
		if !want.CreatedAt.IsZero() {
			created = want.CreatedAt
		}
		max := want.MaxAttempts
		if max == 0 {
			max = task.DefaultMaxAttempts
		}
		require.Equal(t, task.Task{
			ID: want.ID, RunID: "run-1", URL: want.URL, State: task.StatePending,
			MaxAttempts: max, CreatedAt: created, UpdatedAt: created,
		}, got)
	}
	page, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Millisecond), Limit: 100})
	require.NoError(t, err)
	require.ElementsMatch(t, ids(tasks), ids(page.Tasks), "new tasks are in the live index")
	require.Empty(t, page.NextCursor)
	require.NoError(t, s.Create(t.Context(), nil), "creating nothing is a no-op")
}

func TestCreateInvalid(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2049)
	ok := func(id string) task.Task { return task.Task{ID: id, RunID: "r", URL: "https://example.com/"} }
	with := func(edit func(*task.Task)) []task.Task {
		tk := ok("bad")
		edit(&tk)
		return []task.Task{ok("good-1"), tk, ok("good-2")}
	}
	for _, tc := range []struct {
		name  string
		tasks []task.Task
		msg   string
	}{
		{"EmptyID", with(func(tk *task.Task) { tk.ID = "" }), "empty id"},
		{"LongID", with(func(tk *task.Task) { tk.ID = long }), "over 2048"},
		{"EmptyRun", with(func(tk *task.Task) { tk.RunID = "" }), "empty run id"},
		{"LongRun", with(func(tk *task.Task) { tk.RunID = long }), "run id is 2049 bytes"},
		{"EmptyURL", with(func(tk *task.Task) { tk.URL = "" }), "empty url"},
		{"Duplicate", with(func(tk *task.Task) { tk.ID = "good-1" }), "duplicate of task 0"},
		{"Running", with(func(tk *task.Task) { tk.State = task.StateRunning }), "new tasks are Pending"},
		{"Attempts", with(func(tk *task.Task) { tk.Attempts = 1 }), "start at 0"},
		{"NegativeMax", with(func(tk *task.Task) { tk.MaxAttempts = -1 }), "negative max attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc dynamostoretest.RequestCounter
			l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
			rc.Reset() // forget CreateTable
			err := l.Store.Create(t.Context(), tc.tasks)
			require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
			require.ErrorContains(t, err, tc.msg)
			require.Zero(t, rc.Total(), "bad input must write nothing")
		})
	}
}

// flaky leaves each id unprocessed the first `times` times it is sent, and
// the ids in always on every send.
type flaky struct {
	mu     sync.Mutex
	times  int
	always map[string]bool
	seen   map[string]int
}

func (f *flaky) match(item map[string]json.RawMessage) bool {
	var key struct{ S string }
	if json.Unmarshal(item[task.AttrTaskID], &key) != nil {
		return false
	}
	id := key.S
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.always[id] {
		return true
	}
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	f.seen[id]++
	return f.seen[id] <= f.times
}

func TestCreateRetriesUnprocessed(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	fl := &flaky{times: 2}
	l.LeaveUnprocessed(fl.match)

	var sleeps []time.Duration
	s := newStore(t, l, l.Client, func(o *dynamostore.Options) {
		o.Rand = func() float64 { return 0.5 }
		o.Sleep = func(_ context.Context, d time.Duration) error {
			sleeps = append(sleeps, d)
			return nil
		}
	})
	tasks := newTasks("run-1", "t", 30)
	require.NoError(t, s.Create(t.Context(), tasks))

	for _, tk := range tasks {
		_, err := s.Get(t.Context(), tk.ID)
		require.NoError(t, err, "task %s must be written", tk.ID)
	}
	// Two batches (25 + 5), each sent three times: twice all unprocessed.
	require.Equal(t, 6, rc.Count("BatchWriteItem"))
	// Full jitter with Rand 0.5: half of 50ms, then half of 100ms, per batch.
	require.Equal(t, []time.Duration{25 * time.Millisecond, 50 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond}, sleeps)
}

func TestCreateReportsUnwritten(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	stuck := map[string]bool{"t-003": true, "t-027": true}
	l.LeaveUnprocessed((&flaky{always: stuck}).match)
	var sleeps int
	s := newStore(t, l, l.Client, func(o *dynamostore.Options) {
		o.BatchAttempts = 4
		o.Sleep = func(context.Context, time.Duration) error { sleeps++; return nil }
	})
	tasks := newTasks("run-1", "t", 60)
	err := s.Create(t.Context(), tasks)

	var ce *dynamostore.CreateError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, dynamostore.ErrUnprocessed)
	// Batch 1 (t-000..t-024) leaves t-003 behind and stops: batch 2 keeps
	// t-027 unwritten too, and batch 3 was never sent.
	want := []string{"t-003"}
	for _, tk := range tasks[25:] {
		want = append(want, tk.ID)
	}
	require.Equal(t, want, ce.Unwritten)
	require.Equal(t, 60, ce.Total)
	require.Equal(t, 3, sleeps, "4 attempts, 3 backoffs")
	require.ErrorContains(t, err, "36 of 60 tasks not written (t-003, t-025, t-026, t-027, t-028 and 31 more)")

	unwritten := map[string]bool{}
	for _, id := range ce.Unwritten {
		unwritten[id] = true
	}
	for _, tk := range tasks {
		_, err := s.Get(t.Context(), tk.ID)
		if unwritten[tk.ID] {
			require.ErrorIs(t, err, task.ErrNotFound, "%s reported unwritten but exists", tk.ID)
		} else {
			require.NoError(t, err, "%s reported written but missing", tk.ID)
		}
	}
}

func TestCreateHardError(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	boom := errors.New("throttled for good")
	api := &faultAPI{API: l.Client}
	api.batchWrite = func(n int, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		if n == 2 {
			return nil, boom
		}
		return l.Client.BatchWriteItem(context.Background(), in)
	}
	s := newStore(t, l, api, nil)
	tasks := newTasks("run-1", "t", 70)
	err := s.Create(t.Context(), tasks)
	var ce *dynamostore.CreateError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, boom)
	require.Equal(t, ids(tasks[25:]), ce.Unwritten, "the failed batch and every later one")
	for _, tk := range tasks[:25] {
		_, err := s.Get(t.Context(), tk.ID)
		require.NoError(t, err)
	}
}

func TestCreateUnmappableUnprocessed(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	api := &faultAPI{API: l.Client}
	api.batchWrite = func(_ int, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		// Claims an item it was never sent is unprocessed.
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{
			l.Table: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				task.AttrTaskID: &types.AttributeValueMemberS{Value: "stranger"},
			}}}},
		}}, nil
	}
	s := newStore(t, l, api, nil)
	tasks := newTasks("run-1", "t", 3)
	err := s.Create(t.Context(), tasks)
	var ce *dynamostore.CreateError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, ids(tasks), ce.Unwritten, "an answer that cannot be mapped back marks the whole batch unwritten")
}

func TestCreateCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	l.LeaveUnprocessed((&flaky{times: 100}).match)
	ctx, cancel := context.WithCancel(t.Context())
	s := newStore(t, l, l.Client, func(o *dynamostore.Options) {
		o.Sleep = func(ctx context.Context, _ time.Duration) error {
			cancel()
			return ctx.Err()
		}
	})
	tasks := newTasks("run-1", "t", 5)
	err := s.Create(ctx, tasks)
	var ce *dynamostore.CreateError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, ids(tasks), ce.Unwritten)
}
