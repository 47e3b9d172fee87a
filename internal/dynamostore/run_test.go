package dynamostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

func TestRunTasksAndCounts(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, nil)
	run1 := newTasks("run-1", "a", 7)
	run2 := newTasks("run-2", "b", 3)
	require.NoError(t, s.Create(t.Context(), append(append([]task.Task{}, run1...), run2...)))

	// Terminal and live tasks interleave in id order: the listing merges
	// the done index (a-000, a-001, a-004, a-006) with the live one.
	for _, id := range []string{"a-000", "a-001", "a-002", "a-004", "a-006"} {
		_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: id, Token: "tok", Now: t0, Lease: tasktest.Lease})
		require.NoError(t, err)
	}
	require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: "a-000", Token: "tok", Now: t0}))
	require.NoError(t, s.Fail(t.Context(), task.FailParams{TaskID: "a-001", Token: "tok", Now: t0, Kind: task.KindFatal, Reason: "404"}))
	require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: "a-004", Token: "tok", Now: t0}))
	require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: "a-006", Token: "tok", Now: t0}))

	counts, err := s.RunCounts(t.Context(), "run-1")
	require.NoError(t, err)
	require.Equal(t, map[task.State]int{task.StatePending: 2, task.StateRunning: 1, task.StateFinished: 3, task.StateFailed: 1}, counts)
	counts, err = s.RunCounts(t.Context(), "run-2")
	require.NoError(t, err)
	require.Equal(t, map[task.State]int{task.StatePending: 3, task.StateRunning: 0, task.StateFinished: 0, task.StateFailed: 0}, counts)
	counts, err = s.RunCounts(t.Context(), "no-such-run")
	require.NoError(t, err)
	require.Equal(t, map[task.State]int{task.StatePending: 0, task.StateRunning: 0, task.StateFinished: 0, task.StateFailed: 0}, counts)

	for _, limit := range []int{1, 2, 3, 4, 7, 0} {
		var (
			got    []string
			states []task.State
		)
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 100)
			page, err := s.RunTasks(t.Context(), "run-1", cursor, limit)
			require.NoError(t, err)
			if limit > 0 {
				require.LessOrEqual(t, len(page.Tasks), limit)
			}
			got = append(got, ids(page.Tasks)...)
			states = append(states, statesOf(page.Tasks)...)
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		require.Equal(t, ids(run1), got, "limit %d: the run's tasks, in id order, exactly once", limit)
		require.Equal(t, []task.State{task.StateFinished, task.StateFailed, task.StateRunning, task.StatePending,
			task.StateFinished, task.StatePending, task.StateFinished}, states, "limit %d", limit)
	}

	page, err := s.RunTasks(t.Context(), "run-1", "", 2)
	require.NoError(t, err)
	_, err = s.RunTasks(t.Context(), "run-2", page.NextCursor, 2)
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput, "a cursor is bound to its run")
	_, err = s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0, Cursor: page.NextCursor})
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput, "a run cursor is not a live cursor")
	_, err = s.RunTasks(t.Context(), "", "", 1)
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
	_, err = s.RunCounts(t.Context(), "")
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
}

func TestListLiveCursorBoundToState(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, nil)
	require.NoError(t, s.Create(t.Context(), newTasks("run-1", "t", 5)))
	page, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Microsecond), Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, page.NextCursor)
	_, err = s.ListLive(t.Context(), task.ListLiveParams{State: task.StateRunning, DueBefore: t0, Cursor: page.NextCursor})
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput)

	// A store with fewer shards rejects a cursor pointing past its last one.
	few, err := dynamostore.New(l.Client, dynamostore.Options{Table: l.Table, LiveShards: 1})
	require.NoError(t, err)
	for {
		page, err = s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Millisecond), Limit: 1, Cursor: page.NextCursor})
		require.NoError(t, err)
		if page.NextCursor == "" {
			t.Fatal("no cursor beyond shard 0 among 5 tasks in 8 shards")
		}
		_, err = few.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Millisecond), Cursor: page.NextCursor})
		if err != nil {
			require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
			require.ErrorContains(t, err, "out of range")
			return
		}
	}
}

func statesOf(ts []task.Task) []task.State {
	out := make([]task.State, len(ts))
	for i, t := range ts {
		out[i] = t.State
	}
	return out
}
