package function

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// InvocationType selects how Invoke runs a function.
type InvocationType int

const (
	// Sync runs the function and returns its response (RequestResponse).
	Sync InvocationType = iota
	// Async queues the event and returns at once (Event); the function
	// runs when it has capacity, with Lambda's retries on failure.
	Async
	// DryRun only checks that the function exists and may be invoked.
	DryRun
)

// String returns the X-Amz-Invocation-Type value.
func (t InvocationType) String() string {
	switch t {
	case Async:
		return "Event"
	case DryRun:
		return "DryRun"
	}
	return "RequestResponse"
}

// Payload limits ("Lambda quotas": 6 MB for synchronous request and
// response payloads, 256 KB for asynchronous events). RIE accepts a
// response of up to 6 MiB + 100 bytes (docs/aws-behaviour.md §4.1).
const (
	maxSyncPayload     = 6291456
	maxAsyncPayload    = 262144
	maxResponsePayload = 6291556
	// maxEventAge is how long an asynchronous event may wait for capacity
	// or a retry (MaximumEventAgeInSeconds default, 6 hours).
	maxEventAge = 6 * time.Hour
	// finishingPatience is how long a synchronous invoke at the limit
	// waits for an environment that has answered but not yet asked for
	// its next event, before it is throttled.
	finishingPatience = 2 * time.Second
)

// InvokeOptions are the optional parameters of Invoke.
type InvokeOptions struct {
	// Type is Sync (default), Async or DryRun.
	Type InvocationType
	// Qualifier may be empty or "$LATEST"; versions and aliases are not
	// emulated.
	Qualifier string
	// ClientContext is the client context JSON passed to the runtime in
	// Lambda-Runtime-Client-Context (decoded; the HTTP header carries it
	// base64-encoded). Sync only.
	ClientContext string
	// TraceID is the X-Ray trace header; one is made up when empty.
	TraceID string
	// LogTail asks for the last 4 KB of the invocation's log (Sync only).
	LogTail bool
}

// InvokeResult is what an invocation returned.
type InvokeResult struct {
	// StatusCode is 200 (Sync), 202 (Async) or 204 (DryRun).
	StatusCode int
	RequestID  string
	// Payload is the function's response, or the error document when
	// FunctionError is set.
	Payload []byte
	// FunctionError is "Unhandled" when the function failed (error,
	// panic, timeout, crash), as in the X-Amz-Function-Error header.
	FunctionError string
	// ErrorType is the errorType of the error document, e.g.
	// "Sandbox.Timedout" or "Runtime.ExitError".
	ErrorType       string
	ExecutedVersion string
	// Duration is the time from handing the event to the runtime to its
	// answer (or to the timeout or crash).
	Duration time.Duration
	// Instance and PID identify the execution environment that ran it.
	Instance  string
	PID       int
	ColdStart bool
	// LogTail is the end of the invocation's log when requested.
	LogTail string
}

// outcome statuses, as REPORT lines and platform.report records name them.
const (
	statusSuccess = "success"
	statusError   = "error"
	statusTimeout = "timeout"
	statusCrash   = "crash"
)

// outcome is how an invocation ended.
type outcome struct {
	payload   []byte
	errorType string
	funcErr   bool
	status    string
	fatal     bool   // the environment must be replaced
	message   string // the platform's error message (crashes)
}

func (o outcome) reportStatus() string {
	switch o.status {
	case statusTimeout:
		return "timeout"
	case statusSuccess:
		return "success"
	}
	return "error"
}

// errorDoc is the error document Lambda returns for platform-detected
// failures: {"errorMessage": …, "errorType": …}.
func errorDoc(errType, msg string) []byte {
	b, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{msg, errType}) // two strings always marshal
	return b
}

// invocation is one event on its way through an environment.
type invocation struct {
	id            string
	payload       []byte
	arn           string
	traceID       string
	clientContext string
	timeout       time.Duration
	created       time.Time

	delivered   chan struct{} // closed when /next hands it to the runtime
	done        chan struct{} // closed when the outcome is known
	finalized   chan struct{} // closed once END/REPORT are written
	deliverOnce sync.Once
	finalOnce   sync.Once

	mu       sync.Mutex
	finished bool // the outcome is set and done closed
	frozen   bool // the process was stopped mid-invocation: only the timeout ends it
	out      outcome
	start    time.Time // real clock, at delivery
	deadline time.Time
	tail     tailBuf
}

func newInvocation(id string, payload []byte, arn, traceID, clientContext string, timeout time.Duration) *invocation {
	return &invocation{
		id: id, payload: payload, arn: arn, traceID: traceID, clientContext: clientContext, timeout: timeout,
		created: time.Now(), delivered: make(chan struct{}), done: make(chan struct{}), finalized: make(chan struct{}),
	}
}

// complete records the outcome; the first one wins. Once the invocation
// is frozen, only its timeout completes it: a stopped process answers
// nothing.
func (inv *invocation) complete(o outcome) bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.finished || inv.frozen && o.status != statusTimeout {
		return false
	}
	inv.finished, inv.out = true, o
	close(inv.done)
	return true
}

// freeze marks an invocation in flight as frozen; it reports false once
// the outcome is known.
func (inv *invocation) freeze() bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.finished {
		return false
	}
	inv.frozen = true
	return true
}

func (inv *invocation) completed() bool {
	select {
	case <-inv.done:
		return true
	default:
		return false
	}
}

func (inv *invocation) outcome() outcome {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.out
}

func (inv *invocation) finalize() { inv.finalOnce.Do(func() { close(inv.finalized) }) }

// elapsed is the invocation's duration so far: from delivery, or from its
// creation when it never reached the runtime.
func (inv *invocation) elapsed() time.Duration {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.start.IsZero() {
		return time.Since(inv.created)
	}
	return time.Since(inv.start)
}

// newTraceID makes an X-Ray trace header ("Root=1-<epoch hex>-<24 hex>;
// Parent=<16 hex>;Sampled=0").
func newTraceID(now time.Time) string {
	var b [20]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return fmt.Sprintf("Root=1-%08x-%s;Parent=%s;Sampled=0", now.Unix(), hex.EncodeToString(b[:12]), hex.EncodeToString(b[12:]))
}

// Invoke runs a function (the Invoke API). Errors are *Error values:
// ErrNotFound, ErrThrottled (sync at the concurrency limit),
// ErrRequestTooLarge, ErrInvalidRequestContent; a function that fails is
// not an error but a result with FunctionError set. A sync invocation whose
// ctx ends returns ctx's error while the function runs on, as in Lambda.
func (s *Service) Invoke(ctx context.Context, ref string, payload []byte, opts InvokeOptions) (InvokeResult, error) {
	limit := maxSyncPayload
	if opts.Type == Async {
		limit = maxAsyncPayload
	}
	if len(payload) > limit {
		return InvokeResult{}, errorf(ErrRequestTooLarge, "Request must be smaller than %d bytes for the InvokeFunction operation", limit)
	}
	if len(payload) == 0 {
		// An invoke without a payload reaches the runtime as {}; an empty
		// body would fail aws-lambda-go's JSON decoding (docs/aws-behaviour.md §4.4).
		payload = []byte("{}")
	} else if !json.Valid(payload) {
		return InvokeResult{}, errorf(ErrInvalidRequestContent, "Could not parse request body into json: Could not parse payload into json: the payload is not valid JSON")
	}
	s.mu.Lock()
	fn, lerr := s.lookupLocked(ref, opts.Qualifier)
	if lerr != nil {
		s.mu.Unlock()
		return InvokeResult{}, lerr
	}
	if s.closed {
		s.mu.Unlock()
		return InvokeResult{}, errorf(ErrServiceUnavailable, "the local cloud is shutting down")
	}
	if perr := s.errNotActiveLocked(fn); perr != nil && opts.Type != DryRun {
		s.mu.Unlock()
		return InvokeResult{}, perr
	}
	id := uuid.NewString()
	traceID := opts.TraceID
	if traceID == "" {
		traceID = newTraceID(s.opts.Now())
	}
	switch opts.Type {
	case DryRun:
		s.mu.Unlock()
		return InvokeResult{StatusCode: 204, RequestID: id}, nil
	case Async:
		s.enqueueLocked(fn, &asyncEvent{id: id, payload: payload, traceID: traceID, received: s.opts.Now()})
		s.mu.Unlock()
		return InvokeResult{StatusCode: 202, RequestID: id}, nil
	}
	s.mu.Unlock()

	inst, cold, aerr := s.acquire(ctx, fn)
	if aerr != nil {
		return InvokeResult{}, aerr
	}
	inv := newInvocation(id, payload, fn.arn, traceID, opts.ClientContext, time.Duration(inst.cfg.Timeout)*time.Second)
	res := make(chan InvokeResult, 1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res <- s.execute(inst, inv, cold)
	}()
	select {
	case r := <-res:
		if !opts.LogTail {
			r.LogTail = ""
		}
		return r, nil
	case <-ctx.Done():
		return InvokeResult{}, fmt.Errorf("function: invoke %s: %w", fn.name, ctx.Err())
	}
}

// acquire takes an invocation slot and an environment for it: the most
// recently used warm one; else, when an environment has just answered and
// is on its way back to /next, that one (an in-process caller can invoke
// again faster than a runtime asks for its next event); else a new one
// while the function is under its limit. At the limit a sync invoke is
// throttled.
func (s *Service) acquire(ctx context.Context, fn *function) (*instance, bool, error) {
	var patience <-chan time.Time
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, false, errorf(ErrServiceUnavailable, "the local cloud is shutting down")
		}
		if fn.deleted {
			s.mu.Unlock()
			return nil, false, errNotFound(fn.arn)
		}
		wait := s.finishingLocked(fn) && !patienceOver(patience)
		if inst, cold, ok := s.tryAcquireLocked(fn, !wait); ok {
			s.mu.Unlock()
			return inst, cold, nil
		}
		if !wait {
			fn.stats.Throttles++
			s.mu.Unlock()
			s.putMetrics(fn.name, metric("Throttles", 1, "Count"))
			return nil, false, errThrottled(fn.reserve != nil)
		}
		if patience == nil {
			patience = time.After(finishingPatience)
		}
		ch := fn.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-patience:
		case <-s.done:
		case <-ctx.Done():
			return nil, false, fmt.Errorf("function: invoke %s: %w", fn.name, ctx.Err())
		}
		s.mu.Lock()
	}
}

// finishingLocked reports whether an environment of the current code and
// configuration has answered and will soon be warm again.
func (s *Service) finishingLocked(fn *function) bool {
	for inst := range fn.instances {
		if inst.state == stFinishing && inst.gen == fn.gen {
			return true
		}
	}
	return false
}

func patienceOver(p <-chan time.Time) bool {
	if p == nil {
		return false
	}
	select {
	case <-p:
		return true
	default:
		return false
	}
}

// tryAcquireLocked takes a warm environment, or starts a new one if
// allowed and the function's limit allows.
func (s *Service) tryAcquireLocked(fn *function, allowNew bool) (*instance, bool, bool) {
	limit := fn.limit(s)
	if fn.busy >= limit || (fn.reserve == nil && s.unreservedBusyLocked() >= s.unreservedPoolLocked()) {
		return nil, false, false
	}
	for len(fn.idle) > 0 {
		inst := fn.idle[len(fn.idle)-1]
		fn.idle = fn.idle[:len(fn.idle)-1]
		if inst.gen != fn.gen {
			s.removeLocked(inst)
			s.stopAsync(inst, "configuration or code changed")
			continue
		}
		inst.state = stAssigned
		inst.counted = true
		inst.lastUsed = time.Now()
		fn.busy++
		if fn.busy > fn.stats.PeakConcurrent {
			fn.stats.PeakConcurrent = fn.busy
		}
		return inst, false, true
	}
	if !allowNew || len(fn.instances) >= limit {
		return nil, false, false
	}
	return s.newInstanceLocked(fn), true, true
}

// execute runs one invocation in an environment the caller acquired and
// writes its log record, metrics and counters.
func (s *Service) execute(inst *instance, inv *invocation, cold bool) InvokeResult {
	out, delivered := s.run(inst, inv, cold)
	return s.finish(inst, inv, out, delivered, cold)
}

// run hands the event to the runtime and waits for its answer, the
// deadline, or the process's end.
func (s *Service) run(inst *instance, inv *invocation, cold bool) (outcome, bool) {
	if cold {
		inst.platformInitStart()
		if err := inst.start(); err != nil {
			var se *startError
			if !errors.As(err, &se) {
				se = &startError{"Sandbox.Failure", err.Error()}
			}
			msg := fmt.Sprintf("RequestId: %s Error: %s", inv.id, se.msg)
			inv.complete(outcome{payload: errorDoc(se.errType, msg), errorType: se.errType, funcErr: true, status: statusCrash, fatal: true, message: se.msg})
			return inv.outcome(), false
		}
	}
	inst.assign <- inv // capacity 1, and an environment runs one invocation at a time

	initTimer := time.NewTimer(s.opts.InitTimeout)
	defer initTimer.Stop()
	initStart := time.Now()
waitInit:
	select {
	case <-inv.delivered:
	case <-inst.exited:
		inv.complete(s.crashOutcome(inst, inv))
		return inv.outcome(), false
	case <-inst.initFailed:
		inst.mu.Lock()
		body, typ := inst.initErr, inst.initErrType
		inst.mu.Unlock()
		inst.kill("the runtime reported an init error")
		inv.complete(outcome{payload: body, errorType: typ, funcErr: true, status: statusCrash, fatal: true,
			message: fmt.Sprintf("Runtime init failed: %s", typ)})
		return inv.outcome(), false
	case <-initTimer.C:
		if more, ok := initTimeLeft(inst.pid, s.opts.InitTimeout, time.Since(initStart)); ok {
			initTimer.Reset(more)
			goto waitInit
		}
		inst.sampleMemory()
		inv.complete(s.timeoutOutcome(inv, s.opts.InitTimeout))
		inst.kill("init timed out")
		return inv.outcome(), false
	}

	s.mu.Lock()
	concurrent := inst.fn.busy
	s.mu.Unlock()
	s.putMetrics(inst.fn.name, metric("ConcurrentExecutions", float64(concurrent), "Count"))

	inv.mu.Lock()
	deadline := inv.deadline
	inv.mu.Unlock()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-inv.done:
	case <-inst.exited:
		inv.complete(s.crashOutcome(inst, inv)) // no-op when the runtime answered first
	case <-timer.C:
		inst.sampleMemory()
		if inv.complete(s.timeoutOutcome(inv, inv.timeout)) {
			inst.kill("timeout")
		}
	}
	return inv.outcome(), true
}

// timeoutOutcome is Lambda's answer for an invocation that ran past its
// timeout: Sandbox.Timedout, "RequestId: <id> Error: Task timed out after
// N.NN seconds" (an AWS response recorded in seek-oss/aws-codedeploy-hooks'
// changelog; LocalStack's RIE fork answers the same).
func (s *Service) timeoutOutcome(inv *invocation, after time.Duration) outcome {
	msg := fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", inv.id, after.Seconds())
	return outcome{payload: errorDoc("Sandbox.Timedout", msg), errorType: "Sandbox.Timedout", funcErr: true, status: statusTimeout, fatal: true}
}

// crashOutcome is Lambda's answer when the runtime process exits during an
// invocation: Runtime.ExitError, "RequestId: <id> Error: Runtime exited
// with error: exit status 2" (or "signal: killed"), or "Runtime exited
// without providing a reason" for a clean exit.
func (s *Service) crashOutcome(inst *instance, inv *invocation) outcome {
	reason := "Runtime exited with error: " + inst.exitDesc
	if inst.exitDesc == "exit status 0" {
		reason = "Runtime exited without providing a reason"
	}
	msg := fmt.Sprintf("RequestId: %s Error: %s", inv.id, reason)
	return outcome{payload: errorDoc("Runtime.ExitError", msg), errorType: "Runtime.ExitError", funcErr: true, status: statusCrash, fatal: true, message: reason}
}

// finish writes the log record, counts the invocation, and either retires
// the environment (timeouts, crashes) or lets its next /next make it warm.
func (s *Service) finish(inst *instance, inv *invocation, out outcome, delivered, cold bool) InvokeResult {
	inst.sampleMemory()
	if inst.out != nil {
		inst.out.drain()
	}
	duration := inv.elapsed()
	if !delivered {
		inst.platformStart(inv)
	}
	inst.platformError(inv, out, duration)
	inst.mu.Lock()
	initDuration := time.Duration(0)
	if cold {
		initDuration = inst.initDuration
	}
	inst.mu.Unlock()
	inst.platformEnd(inv, out, duration, initDuration, inst.maxMemoryMB())

	fn := inst.fn
	s.mu.Lock()
	fn.stats.Invocations++
	if out.funcErr {
		fn.stats.Errors++
	}
	switch {
	case out.status == statusTimeout:
		fn.stats.Timeouts++
	case out.status == statusCrash:
		fn.stats.Crashes++
	}
	if out.fatal {
		s.removeLocked(inst)
	} else if inst.state != stDead {
		inst.state = stFinishing
	}
	s.mu.Unlock()
	if out.fatal {
		s.stopAsync(inst, "invocation "+out.status)
	}
	errs := 0.0
	if out.funcErr {
		errs = 1
	}
	s.putMetrics(fn.name,
		metric("Invocations", 1, "Count"),
		metric("Errors", errs, "Count"),
		metric("Duration", float64(duration)/float64(time.Millisecond), "Milliseconds"))
	inv.finalize()

	res := InvokeResult{
		StatusCode: 200, RequestID: inv.id, Payload: out.payload, ExecutedVersion: "$LATEST",
		Duration: duration, Instance: inst.id, PID: inst.pid, ColdStart: cold, LogTail: inv.tail.String(),
	}
	if out.funcErr {
		res.FunctionError = "Unhandled"
		res.ErrorType = out.errorType
	}
	return res
}

// metric is an AWS/Lambda datapoint; putMetrics adds the FunctionName
// dimension and the time.
func metric(name string, v float64, unit string) emu.Metric {
	return emu.Metric{Namespace: "AWS/Lambda", Name: name, Value: v, Unit: unit}
}

func (s *Service) putMetrics(function string, ms ...emu.Metric) {
	if s.opts.Metrics == nil {
		return
	}
	now := s.opts.Now()
	for i := range ms {
		ms[i].Dimensions = map[string]string{"FunctionName": function}
		ms[i].Time = now
	}
	s.opts.Metrics.PutMetrics(ms...)
}

// asyncEvent is a queued Event invocation.
type asyncEvent struct {
	id       string
	payload  []byte
	traceID  string
	received time.Time // injected clock, for the maximum event age
	attempt  int       // retries so far
}

// enqueueLocked queues an async event and makes sure a dispatcher runs.
func (s *Service) enqueueLocked(fn *function, ev *asyncEvent) {
	fn.async = append(fn.async, ev)
	if !fn.dispatching {
		fn.dispatching = true
		s.wg.Add(1)
		go s.dispatch(fn)
	}
}

// dispatch runs a function's queued async events as capacity allows: an
// event waits (it is not throttled) while the function is at its limit,
// as Lambda's internal queue does, for up to the maximum event age.
func (s *Service) dispatch(fn *function) {
	defer s.wg.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.closed || fn.deleted || len(fn.async) == 0 {
			fn.dispatching = false
			return
		}
		ev := fn.async[0]
		_, maxAge := s.asyncLimitsLocked(fn)
		if age := s.opts.Now().Sub(ev.received); age > maxAge {
			fn.async = fn.async[1:]
			fn.stats.AsyncDropped++
			s.log.Warn("lambda async event dropped: older than the maximum event age", "function", fn.name, "requestId", ev.id, "age", age)
			continue
		}
		inst, cold, ok := s.tryAcquireLocked(fn, !s.finishingLocked(fn))
		if !ok {
			ch := fn.changed
			s.mu.Unlock()
			select {
			case <-ch:
			case <-s.done:
			case <-time.After(time.Minute): // re-check the event age now and then
			}
			s.mu.Lock()
			continue
		}
		fn.async = fn.async[1:]
		inv := newInvocation(ev.id, ev.payload, fn.arn, ev.traceID, "", time.Duration(inst.cfg.Timeout)*time.Second)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			res := s.execute(inst, inv, cold)
			if res.FunctionError != "" {
				s.retryAsync(fn, ev, res.ErrorType)
			}
		}()
	}
}

// retryAsync schedules the next attempt of a failed async event, or drops
// it after the last retry (no on-failure destination or DLQ is emulated).
func (s *Service) retryAsync(fn *function, ev *asyncEvent, errType string) {
	s.mu.Lock()
	retries, _ := s.asyncLimitsLocked(fn)
	s.mu.Unlock()
	if ev.attempt >= retries {
		s.mu.Lock()
		fn.stats.AsyncDropped++
		s.mu.Unlock()
		s.log.Warn("lambda async event failed every attempt and is dropped", "function", fn.name, "requestId", ev.id, "attempts", ev.attempt+1, "errorType", errType)
		return
	}
	delay := s.opts.AsyncRetryDelays[ev.attempt]
	ev.attempt++
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.done:
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed && !fn.deleted {
			s.enqueueLocked(fn, ev)
		}
	}()
}

// initStretch bounds how far the init limit may stretch in wall time on a
// busy machine (initTimeLeft).
const initStretch = 6

// initTimeLeft says whether a process whose init has run for elapsed (wall
// time) may go on, and for how long before the next check. On Lambda each
// execution environment has CPU of its own, so its 10 s init limit
// (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html)
// measures the runtime's own start-up; here every environment shares the
// host's cores, and many cold starts at once on a loaded machine would hit
// a wall-clock limit that no environment on AWS would. So the limit counts
// the process's CPU time, and wall time only up to initStretch times the
// limit (a process that sleeps or waits through its init still times out).
// Where CPU time cannot be read the limit is wall time.
func initTimeLeft(pid int, limit, elapsed time.Duration) (time.Duration, bool) {
	if elapsed >= initStretch*limit {
		return 0, false
	}
	used, ok := cpuTime(pid)
	if !ok || used >= limit {
		return 0, false
	}
	return min(limit-used, initStretch*limit-elapsed), true
}
