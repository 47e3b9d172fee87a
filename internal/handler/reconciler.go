package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/pipestate"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Defaults of the Reconciler.
const (
	// DefaultReconcileMargin is kept free before the invocation deadline.
	DefaultReconcileMargin = 10 * time.Second
	// DefaultPageSize is the ListLive page size.
	DefaultPageSize = 100
	// DefaultMaxRedispatch caps the messages one run sends. While a large
	// job waits in the queue, its Pending tasks look overdue; re-sending
	// all of them every few minutes would multiply the backlog. Duplicates
	// are harmless, so the cap only bounds the waste; later runs continue.
	DefaultMaxRedispatch = 1000
)

// Reconciler is the recovery path for everything the stream, the Pipe or a
// DLQ lost (docs/design.md §3). Each run lists live tasks through the store's
// sparse index, never scanning the table:
//
//   - Pending for longer than PendingGrace: a new work message is sent
//     (the row is not written; a duplicate message is harmless).
//   - Running with a lease expired for longer than RunningGrace: a new
//     message while attempts remain, else Fail with task.KindStuck, fenced
//     by the claim token read from the index, so a worker that took the
//     task over in between is never overwritten.
type Reconciler struct {
	Store      task.Store
	Dispatcher Dispatcher
	Metrics    emf.Recorder
	Logger     *slog.Logger
	Now        func() time.Time
	// PendingGrace is how long a task may stay Pending before a new
	// message is sent for it.
	PendingGrace time.Duration
	// RunningGrace is how long a lease may have been expired before the
	// reconciler acts. It must exceed the work queue's visibility timeout,
	// so SQS's own redelivery of a released task always comes first.
	RunningGrace time.Duration
	// PageSize is the ListLive page size; 0 means DefaultPageSize.
	PageSize int
	// MaxRedispatch caps the messages sent per run; 0 means
	// DefaultMaxRedispatch.
	MaxRedispatch int
	// Margin is kept free before the invocation deadline; 0 means
	// DefaultReconcileMargin.
	Margin time.Duration
	// Pipe, when set, is asked for the dispatch Pipe's state each run; the
	// run publishes PipeStalled, so an alarm fires when the pipe should be
	// delivering and is not (a stopped or failed pipe emits no metric of
	// its own).
	Pipe PipeStater
	// PipeDesiredState is the state the deployment wants the pipe in
	// (Terraform's desired_state): RUNNING, or STOPPED, which turns the
	// alarm off. "" means RUNNING.
	PipeDesiredState string
}

// ReconcileInput is the optional JSON input of a run: the schedule
// target's input, or the detail of an EventBridge event.
type ReconcileInput struct {
	// DryRun lists and reports without sending or failing anything.
	DryRun bool `json:"dryRun,omitempty"`
}

// Report is what one run did; it is returned, logged and partly emitted as
// metrics.
type Report struct {
	DryRun bool `json:"dryRun,omitempty"`
	// RedispatchedPending and RedispatchedRunning count messages sent.
	RedispatchedPending int `json:"redispatchedPending"`
	RedispatchedRunning int `json:"redispatchedRunning"`
	// FailedStuck counts Running tasks failed as stuck.
	FailedStuck int `json:"failedStuck"`
	// StaleSkipped counts stuck tasks that were taken over before the
	// reconciler could fail them.
	StaleSkipped int `json:"staleSkipped"`
	// Unsent counts messages the dispatcher did not send.
	Unsent int `json:"unsent"`
	// Pages counts ListLive pages read.
	Pages int `json:"pages"`
	// StoppedEarly is set when the run stopped for its deadline, and
	// Capped when it reached MaxRedispatch; Unfinished names the states
	// whose listing it did not finish (for any reason, errors included).
	StoppedEarly bool         `json:"stoppedEarly"`
	Capped       bool         `json:"capped"`
	Unfinished   []task.State `json:"unfinished,omitempty"`
	// OldestAgeSeconds is, per live state, how long the oldest overdue task
	// seen has been due (Pending: since it became Pending; Running: since
	// its lease expired); 0 when none is overdue.
	OldestAgeSeconds map[task.State]float64 `json:"oldestAgeSeconds"`
	// PipeState is the dispatch Pipe's CurrentState, empty when the run
	// did not (or could not) read it, and PipeDesiredState the state the
	// deployment wants; PipeStalled is set when it should run and does not.
	PipeState        string `json:"pipeState,omitempty"`
	PipeDesiredState string `json:"pipeDesiredState,omitempty"`
	PipeStalled      bool   `json:"pipeStalled,omitempty"`
}

// Validate reports missing dependencies and bad durations.
func (r *Reconciler) Validate() error {
	var errs []error
	if r.Store == nil {
		errs = append(errs, errors.New("nil Store"))
	}
	if r.Dispatcher == nil {
		errs = append(errs, errors.New("nil Dispatcher"))
	}
	if r.Metrics == nil {
		errs = append(errs, errors.New("nil Metrics"))
	}
	if r.Logger == nil {
		errs = append(errs, errors.New("nil Logger"))
	}
	if r.Now == nil {
		errs = append(errs, errors.New("nil Now"))
	}
	if r.PendingGrace <= 0 {
		errs = append(errs, fmt.Errorf("pending grace %s must be positive", r.PendingGrace))
	}
	if r.RunningGrace <= 0 {
		errs = append(errs, fmt.Errorf("running grace %s must be positive", r.RunningGrace))
	}
	switch r.PipeDesiredState {
	case "", pipestate.Running, "STOPPED":
	default:
		errs = append(errs, fmt.Errorf("pipe desired state %q must be RUNNING or STOPPED", r.PipeDesiredState))
	}
	if r.PageSize < 0 || r.MaxRedispatch < 0 || r.Margin < 0 {
		errs = append(errs, fmt.Errorf("negative page size %d, max redispatch %d or margin %s",
			r.PageSize, r.MaxRedispatch, r.Margin))
	}
	if len(errs) > 0 {
		return fmt.Errorf("handler: reconciler: %w", errors.Join(errs...))
	}
	return nil
}

// ParseReconcileInput reads a run's input: empty or null (no options), a
// ReconcileInput object, or an EventBridge event whose detail is one.
// Unknown fields are errors, so a typo in the schedule fails loudly.
func ParseReconcileInput(raw json.RawMessage) (ReconcileInput, error) {
	var in ReconcileInput
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return in, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return in, fmt.Errorf("handler: reconciler: input is not a JSON object: %w", err)
	}
	if _, ok := top["detail-type"]; ok {
		// EventBridge event envelope (a scheduled rule): options in detail.
		return ParseReconcileInput(top["detail"])
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Errorf("handler: reconciler: input: %w", err)
	}
	return in, nil
}

// Handle runs one reconciliation. It goes on after an error with one task
// or page and returns all errors joined, with the Report of what it did.
func (r *Reconciler) Handle(ctx context.Context, raw json.RawMessage) (Report, error) {
	rep := Report{OldestAgeSeconds: map[task.State]float64{task.StatePending: 0, task.StateRunning: 0}}
	if err := r.Validate(); err != nil {
		return rep, err
	}
	in, err := ParseReconcileInput(raw)
	if err != nil {
		return rep, err
	}
	rep.DryRun = in.DryRun
	log := emf.ForInvocation(ctx, r.Logger)
	now := r.Now()
	run := &reconcileRun{r: r, log: log, now: now, rep: &rep, dryRun: in.DryRun}

	// Running first: it is usually short and holds the tasks no other
	// mechanism will recover.
	states := []struct {
		state task.State
		grace time.Duration
	}{
		{task.StateRunning, r.RunningGrace},
		{task.StatePending, r.PendingGrace},
	}
	for _, s := range states {
		if rep.StoppedEarly || !run.state(ctx, s.state, now.Add(-s.grace)) {
			rep.Unfinished = append(rep.Unfinished, s.state)
		}
	}
	run.pipe(ctx)
	r.emit(log, rep)
	log.Info("reconcile run done", slog.Any("report", rep))
	return rep, errors.Join(run.errs...)
}

func (r *Reconciler) emit(log *slog.Logger, rep Report) {
	record := func(dims []emf.Dimension, ms ...emf.Metric) {
		if err := r.Metrics.Record(dims, ms...); err != nil {
			log.Error("record metrics", slog.Any("error", err))
		}
	}
	for _, st := range []task.State{task.StatePending, task.StateRunning} {
		n := rep.RedispatchedPending
		if st == task.StateRunning {
			n = rep.RedispatchedRunning
		}
		age := time.Duration(rep.OldestAgeSeconds[st] * float64(time.Second))
		record([]emf.Dimension{{Name: emf.DimState, Value: string(st)}},
			emf.Count(emf.Redispatched, n), emf.Seconds(emf.OldestLiveTaskAge, age))
	}
	incomplete := 0
	if len(rep.Unfinished) > 0 {
		incomplete = 1
	}
	record(nil, emf.Count(emf.StuckFailed, rep.FailedStuck), emf.Count(emf.ReconcileIncomplete, incomplete))
	if rep.PipeState != "" {
		stalled := 0
		if rep.PipeStalled {
			stalled = 1
		}
		record(nil, emf.Count(emf.PipeStalled, stalled))
	}
}

// pipe reads the dispatch Pipe's state. An error is the run's error (the
// reconciler's Errors alarm), and no PipeStalled is published for it: an
// unknown state is neither healthy nor stalled.
func (run *reconcileRun) pipe(ctx context.Context) {
	if run.r.Pipe == nil {
		return
	}
	st, err := run.r.Pipe.State(ctx)
	if err != nil {
		run.errs = append(run.errs, fmt.Errorf("handler: reconciler: pipe state: %w", err))
		return
	}
	want := run.r.PipeDesiredState
	if want == "" {
		want = pipestate.Running
	}
	run.rep.PipeState, run.rep.PipeDesiredState, run.rep.PipeStalled = st.Current, want, st.Stalled(want)
	if run.rep.PipeStalled {
		run.log.Error("the dispatch pipe is not running although the deployment wants it to: new tasks are not dispatched",
			slog.String("currentState", st.Current), slog.String("pipeDesiredState", st.Desired), slog.String("stateReason", st.Reason))
	}
}

// reconcileRun is the state of one Handle call.
type reconcileRun struct {
	r      *Reconciler
	log    *slog.Logger
	now    time.Time
	rep    *Report
	dryRun bool
	errs   []error
}

func (run *reconcileRun) margin() time.Duration {
	if run.r.Margin == 0 {
		return DefaultReconcileMargin
	}
	return run.r.Margin
}

func (run *reconcileRun) maxRedispatch() int {
	if run.r.MaxRedispatch == 0 {
		return DefaultMaxRedispatch
	}
	return run.r.MaxRedispatch
}

func (run *reconcileRun) redispatched() int {
	return run.rep.RedispatchedPending + run.rep.RedispatchedRunning
}

// state pages through one live state and reports whether it finished.
func (run *reconcileRun) state(ctx context.Context, st task.State, dueBefore time.Time) bool {
	limit := run.r.PageSize
	if limit == 0 {
		limit = DefaultPageSize
	}
	cursor := ""
	for {
		if dl, ok := ctx.Deadline(); ok && dl.Sub(run.r.Now()) <= run.margin() {
			run.log.Warn("stopping before the deadline; the next run continues", slog.String("state", string(st)))
			run.rep.StoppedEarly = true
			return false
		}
		if run.redispatched() >= run.maxRedispatch() {
			run.log.Warn("redispatch cap reached; the next run continues",
				slog.String("state", string(st)), slog.Int("cap", run.maxRedispatch()))
			run.rep.Capped = true
			return false
		}
		page, err := run.r.Store.ListLive(ctx, task.ListLiveParams{State: st, DueBefore: dueBefore, Limit: limit, Cursor: cursor})
		if err != nil {
			run.errs = append(run.errs, fmt.Errorf("handler: reconciler: list %s: %w", st, err))
			return false
		}
		run.rep.Pages++
		if !run.page(ctx, st, page.Tasks) {
			return false // capped within the page
		}
		if page.NextCursor == "" {
			return true
		}
		cursor = page.NextCursor
	}
}

// page acts on one page of overdue tasks. It reports false when the
// redispatch cap left some of them out.
func (run *reconcileRun) page(ctx context.Context, st task.State, tasks []task.Task) bool {
	complete := true
	var msgs []message.Message
	for _, t := range tasks {
		due := t.LeaseExpiresAt
		if st == task.StatePending {
			due = pendingSince(t)
		}
		if age := run.now.Sub(due).Seconds(); age > run.rep.OldestAgeSeconds[st] {
			run.rep.OldestAgeSeconds[st] = age
		}
		if st == task.StateRunning && t.Attempts >= maxAttempts(t) {
			run.failStuck(ctx, t)
			continue
		}
		if run.redispatched()+len(msgs) >= run.maxRedispatch() {
			run.rep.Capped, complete = true, false
			continue
		}
		msgs = append(msgs, message.New(t.ID, t.RunID, t.URL))
	}
	if len(msgs) == 0 {
		return complete
	}
	sent := len(msgs)
	if !run.dryRun {
		if err := run.r.Dispatcher.Send(ctx, msgs); err != nil {
			var se *sqsqueue.SendError
			if errors.As(err, &se) {
				sent -= len(se.Unsent)
				run.rep.Unsent += len(se.Unsent)
			} else {
				sent = 0
				run.rep.Unsent += len(msgs)
			}
			run.errs = append(run.errs, fmt.Errorf("handler: reconciler: redispatch %s: %w", st, err))
		}
	}
	if st == task.StatePending {
		run.rep.RedispatchedPending += sent
	} else {
		run.rep.RedispatchedRunning += sent
	}
	return complete
}

func (run *reconcileRun) failStuck(ctx context.Context, t task.Task) {
	log := emf.ForTask(run.log, t.ID, t.RunID)
	reason := fmt.Sprintf("stuck: lease expired at %s (%s before this check), %d of %d attempts used",
		t.LeaseExpiresAt.UTC().Format(time.RFC3339), run.now.Sub(t.LeaseExpiresAt).Round(time.Second), t.Attempts, maxAttempts(t))
	if run.dryRun {
		run.rep.FailedStuck++
		return
	}
	err := run.r.Store.Fail(ctx, task.FailParams{TaskID: t.ID, Token: t.ClaimToken, Now: run.r.Now(), Kind: task.KindStuck, Reason: reason})
	switch {
	case err == nil:
		log.Warn("stuck task failed", slog.String("reason", reason))
		run.rep.FailedStuck++
	case errors.Is(err, task.ErrStaleClaim):
		// Taken over (or finished) since the index was read: its new
		// holder owns it.
		log.Info("stuck task changed hands before it could be failed; skipped", slog.Any("error", err))
		run.rep.StaleSkipped++
	default:
		run.errs = append(run.errs, fmt.Errorf("handler: reconciler: fail stuck task %s: %w", t.ID, err))
	}
}

// pendingSince is when a Pending task became Pending: its last update, or
// its creation when it was never updated (the store's dueAt for Pending).
func pendingSince(t task.Task) time.Time {
	if !t.UpdatedAt.IsZero() {
		return t.UpdatedAt
	}
	return t.CreatedAt
}

func maxAttempts(t task.Task) int {
	if t.MaxAttempts > 0 {
		return t.MaxAttempts
	}
	return task.DefaultMaxAttempts
}
