package handler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/pipestate"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// fakeDispatcher records sent messages; unsent task ids come back in a
// *sqsqueue.SendError like the real dispatcher's.
type fakeDispatcher struct {
	mu     sync.Mutex
	sent   []message.Message
	calls  int
	unsent map[string]bool
	onSend func()
}

func (d *fakeDispatcher) Send(_ context.Context, msgs []message.Message) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	if d.onSend != nil {
		d.onSend()
	}
	var unsent []string
	for _, m := range msgs {
		if d.unsent[m.TaskID] {
			unsent = append(unsent, m.TaskID)
			continue
		}
		d.sent = append(d.sent, m)
	}
	if len(unsent) > 0 {
		return &sqsqueue.SendError{Unsent: unsent, Total: len(msgs), Err: errors.New("InternalError")}
	}
	return nil
}

func (d *fakeDispatcher) taskIDs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := make([]string, 0, len(d.sent))
	for _, m := range d.sent {
		ids = append(ids, m.TaskID)
	}
	return ids
}

// hookStore runs afterList after every ListLive, to change rows between
// the index read and the reconciler's writes.
type hookStore struct {
	task.Store
	afterList func()
}

func (s hookStore) ListLive(ctx context.Context, p task.ListLiveParams) (task.LivePage, error) {
	page, err := s.Store.ListLive(ctx, p)
	if s.afterList != nil {
		s.afterList()
	}
	return page, err
}

type reconcilerBundle struct {
	local    *dynamostoretest.Local
	h        *handler.Reconciler
	dispatch *fakeDispatcher
	metrics  *recorder
	logs     *syncBuffer
}

const (
	testPendingGrace = 30 * time.Minute
	testRunningGrace = 100 * time.Minute
)

func setupReconciler(t *testing.T) *reconcilerBundle {
	t.Helper()
	b := &reconcilerBundle{
		local:    dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(noRetries)),
		dispatch: &fakeDispatcher{},
		metrics:  &recorder{},
		logs:     &syncBuffer{},
	}
	b.h = &handler.Reconciler{
		Store:        b.local.Store,
		Dispatcher:   b.dispatch,
		Metrics:      b.metrics,
		Logger:       newLogger(b.logs),
		Now:          func() time.Time { return tasktest.T0 },
		PendingGrace: testPendingGrace,
		RunningGrace: testRunningGrace,
	}
	return b
}

func (b *reconcilerBundle) seed(t *testing.T, tasks ...task.Task) {
	t.Helper()
	for _, tk := range tasks {
		require.NoError(t, b.local.Seed(t.Context(), tk))
	}
}

func pendingSince(id string, since time.Time) task.Task {
	tk := tasktest.Pending(id)
	tk.CreatedAt, tk.UpdatedAt = since, since
	return tk
}

func TestReconcilerPendingOverdueRedispatched(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.seed(t,
		pendingSince("old", tasktest.T0.Add(-time.Hour)),
		pendingSince("recent", tasktest.T0.Add(-time.Minute)),
		terminal("done", task.StateFinished),
	)

	rep, err := b.h.Handle(t.Context(), nil)

	require.NoError(t, err)
	require.Equal(t, []message.Message{{Version: 1, TaskID: "old", RunID: "run-1",
		URL: "https://example.com/old", Domain: "example.com"}}, b.dispatch.sent)
	require.Equal(t, 1, rep.RedispatchedPending)
	require.Equal(t, 3600.0, rep.OldestAgeSeconds[task.StatePending])
	require.Empty(t, rep.Unfinished)
	require.False(t, rep.StoppedEarly)
	require.Equal(t, task.StatePending, getTask(t, b.local, "old").State, "the row is not written")
}

func getTask(t *testing.T, l *dynamostoretest.Local, id string) task.Task {
	t.Helper()
	tk, err := l.Store.Get(t.Context(), id)
	require.NoError(t, err)
	return tk
}

func TestReconcilerRunning(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	long := tasktest.T0.Add(-3 * time.Hour)
	b.seed(t,
		running("retry", "tok-a", long, 1),
		running("stuck", "tok-b", long, task.DefaultMaxAttempts),
		running("recent", "tok-c", tasktest.T0.Add(-10*time.Minute), 3), // within RunningGrace: SQS redelivers first
		running("live", "tok-d", tasktest.T0.Add(time.Minute), 1),
	)

	rep, err := b.h.Handle(t.Context(), nil)

	require.NoError(t, err)
	require.Equal(t, []string{"retry"}, b.dispatch.taskIDs())
	require.Equal(t, 1, rep.RedispatchedRunning)
	require.Equal(t, 1, rep.FailedStuck)
	require.Equal(t, 3*3600.0, rep.OldestAgeSeconds[task.StateRunning])

	stuck := getTask(t, b.local, "stuck")
	require.Equal(t, task.StateFailed, stuck.State)
	require.Equal(t, task.KindStuck, stuck.ErrorKind)
	require.Contains(t, stuck.LastError, "3 of 3 attempts used")
	for _, id := range []string{"retry", "recent", "live"} {
		require.Equal(t, task.StateRunning, getTask(t, b.local, id).State, id)
	}
	require.Equal(t, map[string]float64{
		"Redispatched{State=Running}":      1,
		"OldestLiveTaskAge{State=Running}": 3 * 3600,
		emf.StuckFailed:                    1,
	}, b.metrics.counts())
}

func TestReconcilerStuckTakenOverIsSkipped(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.seed(t, running("stuck", "tok-old", tasktest.T0.Add(-3*time.Hour), task.DefaultMaxAttempts))
	b.h.Store = hookStore{Store: b.local.Store, afterList: func() {
		// A worker finishes the task after the index was read.
		tk := terminal("stuck", task.StateFinished)
		require.NoError(t, b.local.Seed(context.Background(), tk))
	}}

	rep, err := b.h.Handle(t.Context(), nil)

	require.NoError(t, err)
	require.Equal(t, 0, rep.FailedStuck)
	require.Equal(t, 1, rep.StaleSkipped)
	require.Equal(t, task.StateFinished, getTask(t, b.local, "stuck").State, "the fenced Fail wrote nothing")
}

func TestReconcilerPaginates(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.h.PageSize = 10
	for i := range 25 {
		b.seed(t, pendingSince(fmt.Sprintf("p%02d", i), tasktest.T0.Add(-time.Hour-time.Duration(i)*time.Minute)))
	}

	rep, err := b.h.Handle(t.Context(), nil)

	require.NoError(t, err)
	require.Equal(t, 25, rep.RedispatchedPending)
	ids := b.dispatch.taskIDs()
	require.Len(t, ids, 25)
	seen := map[string]bool{}
	for _, id := range ids {
		require.False(t, seen[id], "task %s sent twice", id)
		seen[id] = true
	}
	require.GreaterOrEqual(t, rep.Pages, 4, "3+ Pending pages and 1 Running page")
	require.Equal(t, (time.Hour + 24*time.Minute).Seconds(), rep.OldestAgeSeconds[task.StatePending])
}

func TestReconcilerStopsBeforeDeadline(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	// A live context needs a clock near the wall clock; each Send takes a
	// minute of it.
	var mu sync.Mutex
	now := time.Now().UTC().Truncate(time.Millisecond)
	start := now
	b.h.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	b.dispatch.onSend = func() { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Minute) }
	b.h.PageSize = 5
	b.h.Margin = 10 * time.Second
	for i := range 12 {
		b.seed(t, pendingSince(fmt.Sprintf("p%02d", i), start.Add(-time.Hour)))
	}
	ctx, cancel := context.WithDeadline(t.Context(), start.Add(90*time.Second))
	defer cancel()

	rep, err := b.h.Handle(ctx, nil)

	require.NoError(t, err)
	require.True(t, rep.StoppedEarly)
	require.Equal(t, []task.State{task.StatePending}, rep.Unfinished)
	require.Equal(t, 10, rep.RedispatchedPending, "two pages sent, the third left for the next run")
	require.Equal(t, 1.0, b.metrics.get(emf.ReconcileIncomplete))
}

func TestReconcilerCapsRedispatch(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.h.MaxRedispatch = 3
	for i := range 5 {
		b.seed(t, pendingSince(fmt.Sprintf("p%d", i), tasktest.T0.Add(-time.Hour)))
	}

	rep, err := b.h.Handle(t.Context(), nil)

	require.NoError(t, err)
	require.Equal(t, 3, rep.RedispatchedPending)
	require.Len(t, b.dispatch.sent, 3)
	require.True(t, rep.Capped)
	require.False(t, rep.StoppedEarly)
	require.Equal(t, []task.State{task.StatePending}, rep.Unfinished)
}

func TestReconcilerUnsentMessagesAreErrors(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.seed(t, pendingSince("a", tasktest.T0.Add(-time.Hour)), pendingSince("b", tasktest.T0.Add(-time.Hour)))
	b.dispatch.unsent = map[string]bool{"b": true}

	rep, err := b.h.Handle(t.Context(), nil)

	require.ErrorContains(t, err, "redispatch Pending")
	require.ErrorContains(t, err, "InternalError")
	require.Equal(t, 1, rep.RedispatchedPending)
	require.Equal(t, 1, rep.Unsent)
}

func TestReconcilerListErrorReported(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.local.FailRequests(t, true)

	rep, err := b.h.Handle(t.Context(), nil)

	require.ErrorContains(t, err, "list Running")
	require.ErrorContains(t, err, "list Pending")
	require.Equal(t, []task.State{task.StateRunning, task.StatePending}, rep.Unfinished)
	require.Equal(t, 1.0, b.metrics.get(emf.ReconcileIncomplete))
}

func TestReconcilerDryRun(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.seed(t,
		pendingSince("p", tasktest.T0.Add(-time.Hour)),
		running("stuck", "tok", tasktest.T0.Add(-3*time.Hour), task.DefaultMaxAttempts),
	)

	rep, err := b.h.Handle(t.Context(), json.RawMessage(`{"dryRun":true}`))

	require.NoError(t, err)
	require.True(t, rep.DryRun)
	require.Equal(t, 1, rep.RedispatchedPending)
	require.Equal(t, 1, rep.FailedStuck)
	require.Empty(t, b.dispatch.sent)
	require.Zero(t, b.dispatch.calls)
	require.Equal(t, task.StateRunning, getTask(t, b.local, "stuck").State)
}

func TestReconcilerValidate(t *testing.T) {
	t.Parallel()
	b := setupReconciler(t)
	b.h.RunningGrace = 0
	_, err := b.h.Handle(t.Context(), nil)
	require.ErrorContains(t, err, "running grace 0s must be positive")
	require.Empty(t, b.dispatch.sent)
}

func TestParseReconcileInput(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		raw     string
		file    string
		want    handler.ReconcileInput
		wantErr string
	}{
		{name: "Empty", raw: ""},
		{name: "Null", raw: "null"},
		{name: "EmptyObject", raw: "{}"},
		{name: "SchedulerInputFixture", file: "scheduler-input.json"},
		{name: "EventBridgeScheduledEventFixture", file: "eventbridge-scheduled-event.json"},
		{name: "DryRun", raw: `{"dryRun":true}`, want: handler.ReconcileInput{DryRun: true}},
		{name: "EventBridgeDetailDryRun", raw: `{"detail-type":"Scheduled Event","detail":{"dryRun":true}}`,
			want: handler.ReconcileInput{DryRun: true}},
		{name: "Array", raw: `[]`, wantErr: "not a JSON object"},
		{name: "String", raw: `"run"`, wantErr: "not a JSON object"},
		{name: "UnknownField", raw: `{"dryRUN2":true}`, wantErr: `unknown field "dryRUN2"`},
		{name: "WrongType", raw: `{"dryRun":"yes"}`, wantErr: "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := []byte(tt.raw)
			if tt.file != "" {
				raw = readFixture(t, tt.file)
			}
			got, err := handler.ParseReconcileInput(raw)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// fakePipe answers the reconciler's pipe state check.
type fakePipe struct {
	st  pipestate.State
	err error
}

func (p fakePipe) State(context.Context) (pipestate.State, error) { return p.st, p.err }

// Each run publishes PipeStalled: 1 when the deployment wants the pipe
// running and DescribePipe says it is not (a stopped or failed pipe emits
// no metric of its own), 0 otherwise; nothing when it cannot tell.
func TestReconcilerPipeState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pipe    handler.PipeStater
		want    string // the deployment's desired state
		stalled float64
		emitted bool
		wantErr string
	}{
		{name: "Running", pipe: fakePipe{st: pipestate.State{Current: "RUNNING", Desired: "RUNNING"}}, emitted: true},
		{name: "StoppedByHand", pipe: fakePipe{st: pipestate.State{Current: "STOPPED", Desired: "STOPPED"}}, stalled: 1, emitted: true},
		{name: "UpdateFailed", pipe: fakePipe{st: pipestate.State{Current: "UPDATE_FAILED", Desired: "RUNNING", Reason: "role"}}, stalled: 1, emitted: true},
		{name: "StoppedOnPurpose", pipe: fakePipe{st: pipestate.State{Current: "STOPPED", Desired: "STOPPED"}}, want: "STOPPED", emitted: true},
		{name: "DescribeFails", pipe: fakePipe{err: errors.New("AccessDeniedException")}, wantErr: "pipe state: AccessDeniedException"},
		{name: "NoPipeConfigured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupReconciler(t)
			b.h.Pipe, b.h.PipeDesiredState = tt.pipe, tt.want

			rep, err := b.h.Handle(t.Context(), nil)

			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			b.metrics.mu.Lock()
			v, ok := b.metrics.values[emf.PipeStalled]
			b.metrics.mu.Unlock()
			require.Equal(t, tt.emitted, ok)
			require.Equal(t, tt.stalled, v)
			require.Equal(t, tt.stalled == 1, rep.PipeStalled)
			if tt.stalled == 1 {
				require.Contains(t, b.logs.String(), "the dispatch pipe is not running")
			}
		})
	}
}

func TestReconcilerConfigPipe(t *testing.T) {
	t.Parallel()
	env := map[string]string{handler.EnvTableName: "t", handler.EnvWorkQueueURL: "q", handler.EnvRunningGraceSeconds: "300",
		handler.EnvPipeName: "p", handler.EnvPipeDesiredState: "stopped"}
	c, err := handler.ReconcilerConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, "p", c.PipeName)
	require.Equal(t, "STOPPED", c.PipeDesiredState)
	env[handler.EnvPipeDesiredState] = "paused"
	_, err = handler.ReconcilerConfigFromEnv(func(k string) string { return env[k] })
	require.ErrorContains(t, err, "PIPE_DESIRED_STATE must be RUNNING or STOPPED")
}
