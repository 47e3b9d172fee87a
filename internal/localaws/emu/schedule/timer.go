package schedule

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// defaultInput is what a Lambda target receives when the schedule has no
// Input. AWS only says it "delivers a default notification to the target"
// (API reference, Target.Input) without documenting its shape; the local
// cloud sends an empty JSON object, which every JSON handler can decode
// (UNCONFIRMED).
const defaultInput = "{}"

// Retry backoff after a refused delivery: 1 s doubling to 1 min (AWS
// backs off exponentially with jitter without publishing numbers).
const (
	retryBase = time.Second
	retryMax  = time.Minute
)

// run is the timer: it sleeps until the earliest due occurrence or retry
// (or until schedules change) and delivers what came due.
func (s *Service) run() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		due, ok := s.earliestLocked()
		s.mu.Unlock()
		var at <-chan struct{}
		stop := func() {}
		if ok {
			at, stop = s.clock.At(due)
		}
		select {
		case <-at:
		case <-s.wake:
		case <-s.ctx.Done():
			stop()
			return
		}
		stop()
		s.runDue()
	}
}

// earliestLocked returns the first instant anything is due.
func (s *Service) earliestLocked() (time.Time, bool) {
	var first time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, sch := range s.schedules {
		if sch.req.State == StateEnabled {
			consider(sch.next)
		}
	}
	for _, j := range s.retries {
		consider(j.due)
	}
	return first, !first.IsZero()
}

// runDue delivers every occurrence and retry due by now, oldest first.
// After a clock jump each missed occurrence is delivered with its own
// scheduled time, except those older than the target's
// MaximumEventAgeInSeconds, which Scheduler would have given up on.
// Schedules with no occurrence left and ActionAfterCompletion DELETE are
// deleted after their last delivery.
func (s *Service) runDue() {
	now := s.clock.Now()
	var jobs []*job
	var finished []key
	s.mu.Lock()
	for k, sch := range s.schedules {
		if sch.req.State != StateEnabled || sch.next.IsZero() || sch.next.After(now) {
			continue
		}
		maxAge := sch.maxAge()
		for !sch.next.IsZero() && !sch.next.After(now) {
			occ := sch.next
			if now.Sub(occ) > maxAge {
				sch.stats.expired.Add(1)
				next, ok := sch.occ.atOrAfter(now.Add(-maxAge))
				if !ok || !next.After(occ) {
					next, ok = sch.occ.after(occ)
				}
				sch.next = next
				if !ok {
					sch.next = time.Time{}
				}
				continue
			}
			jobs = append(jobs, &job{
				scheduleARN: sch.arn, target: *sch.req.Target, occ: occ, attempt: 1, due: occ, stats: sch.stats,
			})
			next, ok := sch.occ.after(occ)
			if !ok {
				next = time.Time{}
			}
			sch.next = next
		}
		if sch.next.IsZero() && sch.req.ActionAfterCompletion == ActionDelete {
			finished = append(finished, k)
		}
	}
	kept := s.retries[:0]
	for _, j := range s.retries {
		if j.due.After(now) {
			kept = append(kept, j)
			continue
		}
		jobs = append(jobs, j)
	}
	s.retries = kept
	s.mu.Unlock()

	sortJobs(jobs)
	for _, j := range jobs {
		if s.ctx.Err() != nil {
			return
		}
		s.deliver(j)
	}
	if len(finished) > 0 {
		s.mu.Lock()
		for _, k := range finished {
			// Only if it was not updated meanwhile to have a future.
			if sch := s.schedules[k]; sch != nil && sch.next.IsZero() && sch.req.ActionAfterCompletion == ActionDelete {
				delete(s.schedules, k)
				s.log.Info("schedule completed and deleted", "arn", sch.arn)
			}
		}
		s.mu.Unlock()
	}
}

// deliver makes one delivery attempt; a refused one is retried per the
// target's RetryPolicy and, when that is exhausted, dead-lettered.
func (s *Service) deliver(j *job) {
	payload := s.render(j)
	j.stats.last.Store(j.occ.UnixNano())
	err := s.opts.Invoker.InvokeAsync(j.session(s.ctx), *j.target.Arn, payload)
	if err == nil {
		j.stats.invocations.Add(1)
		s.log.Debug("schedule delivered", "job", j.describe())
		return
	}
	j.stats.failures.Add(1)
	if s.ctx.Err() != nil {
		return
	}
	rp := j.target.RetryPolicy
	maxAge := time.Duration(*rp.MaximumEventAgeInSeconds) * time.Second
	condition := "MaximumRetryAttemptsExhausted"
	if j.attempt <= int(*rp.MaximumRetryAttempts) {
		delay := min(retryBase<<min(j.attempt-1, 16), retryMax)
		due := s.clock.Now().Add(delay)
		if due.Sub(j.occ) <= maxAge {
			j.stats.retries.Add(1)
			next := *j
			next.attempt, next.due = j.attempt+1, due
			s.mu.Lock()
			s.retries = append(s.retries, &next)
			s.mu.Unlock()
			s.poke()
			s.log.Warn("schedule delivery refused; retrying", "job", j.describe(), "retryAt", due, "err", err)
			return
		}
		condition = "MaximumEventAgeExhausted"
	}
	s.deadLetter(j, payload, err, condition)
}

// render is the target input with the context attributes replaced
// (Scheduler user guide, "Adding context attributes": schedule-arn,
// scheduled-time, execution-id, attempt-number).
func (s *Service) render(j *job) []byte {
	in := defaultInput
	if j.target.Input != nil {
		in = *j.target.Input
	}
	if !strings.Contains(in, "<aws.scheduler.") {
		return []byte(in)
	}
	r := strings.NewReplacer(
		"<aws.scheduler.schedule-arn>", j.scheduleARN,
		"<aws.scheduler.scheduled-time>", j.occ.UTC().Format(time.RFC3339),
		"<aws.scheduler.execution-id>", s.opts.NewID(),
		"<aws.scheduler.attempt-number>", strconv.Itoa(j.attempt),
	)
	return []byte(r.Replace(in))
}

// deadLetter sends an event that could not be delivered to the target's
// DeadLetterConfig queue. The body is the input that could not be
// delivered; the attributes follow the dead-letter event fields the
// Scheduler user guide describes (configuring-schedule-dlq.html), whose
// exact names are UNCONFIRMED.
func (s *Service) deadLetter(j *job, payload []byte, cause error, condition string) {
	dl := j.target.DeadLetterConfig
	if dl == nil || dl.Arn == nil || s.opts.Queues == nil {
		j.stats.dropped.Add(1)
		s.log.Warn("schedule delivery given up", "job", j.describe(), "condition", condition, "err", cause)
		return
	}
	str := func(v string) queue.MessageAttribute {
		return queue.MessageAttribute{DataType: "String", StringValue: v}
	}
	attrs := map[string]queue.MessageAttribute{
		"ERROR_CODE":                str("InvocationFailed"),
		"ERROR_MESSAGE":             str(truncate(cause.Error(), 1024)),
		"EXHAUSTED_RETRY_CONDITION": str(condition),
		"RETRY_ATTEMPTS":            {DataType: "Number", StringValue: strconv.Itoa(j.attempt - 1)},
		"SCHEDULE_ARN":              str(j.scheduleARN),
		"TARGET_ARN":                str(*j.target.Arn),
	}
	if _, err := s.opts.Queues.Send(s.ctx, *dl.Arn, string(payload), attrs); err != nil {
		j.stats.dropped.Add(1)
		s.log.Warn("schedule dead-letter queue refused the event", "job", j.describe(), "queue", *dl.Arn, "err", err)
		return
	}
	j.stats.deadLettered.Add(1)
	s.log.Warn("schedule delivery dead-lettered", "job", j.describe(), "queue", *dl.Arn, "condition", condition, "err", cause)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Firing is the result of an on-demand fire.
type Firing struct {
	ScheduleArn   string    `json:"scheduleArn"`
	TargetArn     string    `json:"targetArn"`
	ScheduledTime time.Time `json:"scheduledTime"`
	Payload       string    `json:"payload"`
}

// ErrInvokeRefused wraps the Invoker's error when an on-demand fire was
// not accepted.
var ErrInvokeRefused = errors.New("schedule: the target refused the event")

// Fire invokes a schedule's target now, as if an occurrence were due at
// the current time, whatever the schedule's state, start and end dates.
// It makes one attempt (no retries) and does not move the timer.
func (s *Service) Fire(ctx context.Context, group, name string) (Firing, error) {
	if group == "" {
		group = DefaultGroup
	}
	s.mu.Lock()
	sch := s.schedules[key{group, name}]
	if sch == nil {
		s.mu.Unlock()
		return Firing{}, errNoSchedule(name)
	}
	now := s.clock.Now()
	j := &job{scheduleARN: sch.arn, target: *sch.req.Target, occ: now, attempt: 1, due: now, stats: sch.stats}
	s.mu.Unlock()
	payload := s.render(j)
	f := Firing{ScheduleArn: j.scheduleARN, TargetArn: *j.target.Arn, ScheduledTime: now, Payload: string(payload)}
	j.stats.last.Store(now.UnixNano())
	if err := s.opts.Invoker.InvokeAsync(j.session(ctx), *j.target.Arn, payload); err != nil {
		j.stats.failures.Add(1)
		return f, fmt.Errorf("%w: %w", ErrInvokeRefused, err)
	}
	j.stats.invocations.Add(1)
	return f, nil
}
