package dynamostore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// lifecycle creates tasks and drives them to: "pending", "running" (held by
// tok), "finished", "failed" and "exhausted".
func lifecycle(t *testing.T, s *dynamostore.Store) {
	t.Helper()
	ctx := t.Context()
	tasks := []task.Task{
		{ID: "pending", RunID: "r", URL: "https://example.com/1"},
		{ID: "running", RunID: "r", URL: "https://example.com/2"},
		{ID: "finished", RunID: "r", URL: "https://example.com/3"},
		{ID: "failed", RunID: "r", URL: "https://example.com/4"},
		{ID: "exhausted", RunID: "r", URL: "https://example.com/5", MaxAttempts: 1},
	}
	require.NoError(t, s.Create(ctx, tasks))
	for _, id := range []string{"running", "finished", "failed", "exhausted"} {
		_, err := s.Claim(ctx, task.ClaimParams{TaskID: id, Token: "tok", Now: t0, Lease: tasktest.Lease})
		require.NoError(t, err)
	}
	require.NoError(t, s.Finish(ctx, task.FinishParams{TaskID: "finished", Token: "tok", Now: t0, Result: json.RawMessage(`{"ok":1}`)}))
	require.NoError(t, s.Fail(ctx, task.FailParams{TaskID: "failed", Token: "tok", Now: t0, Kind: task.KindFatal, Reason: "404"}))
	require.NoError(t, s.Release(ctx, task.ReleaseParams{TaskID: "exhausted", Token: "tok", Now: t0, Reason: "timeout"}))
	_, err := s.Claim(ctx, task.ClaimParams{TaskID: "exhausted", Token: "tok2", Now: t0, Lease: tasktest.Lease})
	require.ErrorIs(t, err, task.ErrExhausted)
}

func TestRetry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   string
		from []task.State
	}{
		{"failed", []task.State{task.StateFailed}},
		{"exhausted", []task.State{task.StateFailed, task.StateFinished}},
		{"finished", []task.State{task.StateFinished}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			l := dynamostoretest.NewLocal(t)
			s := newStore(t, l, l.Client, nil)
			lifecycle(t, s)
			before, err := s.Get(t.Context(), tc.id)
			require.NoError(t, err)
			now := t0.Add(time.Hour)
			require.NoError(t, s.Retry(t.Context(), dynamostore.RetryParams{TaskID: tc.id, From: tc.from, Now: now}))

			got, err := s.Get(t.Context(), tc.id)
			require.NoError(t, err)
			require.Equal(t, task.Task{
				ID: tc.id, RunID: before.RunID, URL: before.URL, State: task.StatePending,
				MaxAttempts: before.MaxAttempts, CreatedAt: before.CreatedAt, UpdatedAt: now,
			}, got, "a retried task is as new, except createdAt")

			page, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StatePending, DueBefore: now.Add(time.Millisecond)})
			require.NoError(t, err)
			require.Contains(t, ids(page.Tasks), tc.id, "back in the live index")
			running, err := s.ListLive(t.Context(), task.ListLiveParams{State: task.StateRunning, DueBefore: now.Add(24 * time.Hour)})
			require.NoError(t, err)
			require.NotContains(t, ids(running.Tasks), tc.id)

			c, err := s.Claim(t.Context(), task.ClaimParams{TaskID: tc.id, Token: "again", Now: now, Lease: tasktest.Lease})
			require.NoError(t, err)
			require.Equal(t, 1, c.Attempts)
		})
	}
}

func TestRetryRefused(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, nil)
	lifecycle(t, s)
	for _, tc := range []struct {
		name string
		p    dynamostore.RetryParams
		is   error
		msg  string
	}{
		{"WrongState", dynamostore.RetryParams{TaskID: "finished", From: []task.State{task.StateFailed}, Now: t0}, dynamostore.ErrWrongState, "task is Finished, want one of [Failed]"},
		{"PendingNotAsked", dynamostore.RetryParams{TaskID: "pending", From: []task.State{task.StateFailed, task.StateFinished}, Now: t0}, dynamostore.ErrWrongState, "task is Pending"},
		{"Unknown", dynamostore.RetryParams{TaskID: "nope", From: []task.State{task.StateFailed}, Now: t0}, task.ErrNotFound, "retry task nope"},
		{"NoFrom", dynamostore.RetryParams{TaskID: "failed", Now: t0}, dynamostore.ErrInvalidInput, "no state to retry from"},
		{"BadFrom", dynamostore.RetryParams{TaskID: "failed", From: []task.State{"Done"}, Now: t0}, dynamostore.ErrInvalidInput, `unknown state "Done"`},
		{"DupFrom", dynamostore.RetryParams{TaskID: "failed", From: []task.State{task.StateFailed, task.StateFailed}, Now: t0}, dynamostore.ErrInvalidInput, "listed twice"},
		{"NoID", dynamostore.RetryParams{From: []task.State{task.StateFailed}, Now: t0}, dynamostore.ErrInvalidInput, "empty task id"},
		// A live task is the pipeline's: retrying a Running one would revoke
		// a live claim (docs/design.md §3.7), as task.CanTransition says.
		{"FromRunning", dynamostore.RetryParams{TaskID: "running", From: []task.State{task.StateRunning}, Now: t0}, dynamostore.ErrInvalidInput, "cannot retry from Running"},
		{"FromPending", dynamostore.RetryParams{TaskID: "pending", From: []task.State{task.StateFailed, task.StatePending}, Now: t0}, dynamostore.ErrInvalidInput, "cannot retry from Pending"},
		{"NoTime", dynamostore.RetryParams{TaskID: "failed", From: []task.State{task.StateFailed}}, dynamostore.ErrInvalidInput, "zero time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before task.Task
			if tc.p.TaskID != "" && tc.p.TaskID != "nope" {
				var err error
				before, err = s.Get(t.Context(), tc.p.TaskID)
				require.NoError(t, err)
			}
			err := s.Retry(t.Context(), tc.p)
			require.ErrorIs(t, err, tc.is)
			require.ErrorContains(t, err, tc.msg)
			if before.ID != "" {
				after, err := s.Get(t.Context(), tc.p.TaskID)
				require.NoError(t, err)
				require.Equal(t, before, after, "a refused retry writes nothing")
			}
		})
	}
}

func TestResultTTL(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, func(o *dynamostore.Options) { o.ResultTTL = 48 * time.Hour })
	lifecycle(t, s)
	wantExp := func(at time.Time) string { return formatInt(at.Add(48 * time.Hour).Unix()) }
	for _, id := range []string{"finished", "failed", "exhausted"} {
		require.Equal(t, wantExp(t0), attrN(t, rawItem(t, l, id), dynamostore.AttrExpiresAt), id)
	}
	for _, id := range []string{"pending", "running"} {
		require.NotContains(t, rawItem(t, l, id), dynamostore.AttrExpiresAt, "live rows never expire")
	}
	require.NoError(t, s.Retry(t.Context(), dynamostore.RetryParams{TaskID: "finished", From: []task.State{task.StateFinished}, Now: t0}))
	require.NotContains(t, rawItem(t, l, "finished"), dynamostore.AttrExpiresAt, "a retried task must not expire")

	// Without ResultTTL nothing expires.
	l2 := dynamostoretest.NewLocal(t)
	s2 := newStore(t, l2, l2.Client, nil)
	lifecycle(t, s2)
	for _, id := range []string{"finished", "failed", "exhausted"} {
		require.NotContains(t, rawItem(t, l2, id), dynamostore.AttrExpiresAt)
	}
}

func TestIndexAttributes(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, func(o *dynamostore.Options) { o.LiveShards = 16 })
	lifecycle(t, s)
	pending := rawItem(t, l, "pending")
	require.Regexp(t, `^live#(0\d|1[0-5])$`, attrS(t, pending, dynamostore.AttrLiveKey))
	require.Equal(t, formatInt(t0.UnixMilli()), attrN(t, pending, dynamostore.AttrLiveSince))
	require.NotContains(t, pending, dynamostore.AttrDoneRun)
	// A claim and a release change no index attribute: the live index
	// entry is written when the task becomes live and deleted when it
	// stops being live, and nothing in between.
	before := rawItem(t, l, "pending")
	_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: "pending", Token: "tok", Now: t0.Add(time.Minute), Lease: tasktest.Lease})
	require.NoError(t, err)
	require.NoError(t, s.Release(t.Context(), task.ReleaseParams{TaskID: "pending", Token: "tok", Now: t0.Add(2 * time.Minute), Reason: "x"}))
	after := rawItem(t, l, "pending")
	for _, name := range []string{dynamostore.AttrLiveKey, dynamostore.AttrLiveSince, task.AttrRunID, task.AttrTaskID} {
		require.Equal(t, before[name], after[name], name)
	}
	for _, id := range []string{"finished", "failed", "exhausted"} {
		item := rawItem(t, l, id)
		require.NotContains(t, item, dynamostore.AttrLiveKey, "%s must leave the sparse live index", id)
		require.NotContains(t, item, dynamostore.AttrLiveSince, id)
		require.Equal(t, attrS(t, item, task.AttrRunID), attrS(t, item, dynamostore.AttrDoneRun), "%s must enter the done index under its run", id)
	}
	require.NoError(t, s.Retry(t.Context(), dynamostore.RetryParams{TaskID: "failed", From: []task.State{task.StateFailed}, Now: t0.Add(time.Hour)}))
	retried := rawItem(t, l, "failed")
	require.NotContains(t, retried, dynamostore.AttrDoneRun, "a retried task leaves the done index")
	require.Equal(t, formatInt(t0.Add(time.Hour).UnixMilli()), attrN(t, retried, dynamostore.AttrLiveSince))
}

func TestRetryRowWrittenWithoutLiveKey(t *testing.T) {
	t.Parallel()
	// A terminal row that never was in the live index (seeded, imported)
	// joins it on retry, and every other live task stays listed.
	l := dynamostoretest.NewLocal(t)
	want := []string{"f"}
	for _, id := range []string{"p0", "p1", "p2", "p3", "p4"} {
		require.NoError(t, l.Seed(t.Context(), tasktest.Pending(id)))
		want = append(want, id)
	}
	f := tasktest.Pending("f")
	f.State, f.ErrorKind, f.LastError = task.StateFailed, task.KindFatal, "x"
	require.NoError(t, l.Seed(t.Context(), f))
	require.NoError(t, l.Store.Retry(t.Context(), dynamostore.RetryParams{TaskID: "f", From: []task.State{task.StateFailed}, Now: t0}))
	for _, limit := range []int{0, 1, 2} {
		p := task.ListLiveParams{State: task.StatePending, DueBefore: t0.Add(time.Hour), Limit: limit}
		var got []string
		for {
			page, err := l.Store.ListLive(t.Context(), p)
			require.NoError(t, err)
			got = append(got, ids(page.Tasks)...)
			if page.NextCursor == "" {
				break
			}
			p.Cursor = page.NextCursor
		}
		require.ElementsMatch(t, want, got, "limit %d", limit)
	}
}
