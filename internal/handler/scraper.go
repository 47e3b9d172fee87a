package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
)

// DefaultMargin is the time the scraper keeps free before its invocation
// deadline and before its lease ends, to write the outcome (Finish, Fail
// or Release) after the scrape stops.
const DefaultMargin = 15 * time.Second

// maxBackoffShift caps the retry backoff at 16 × RetryBackoff.
const maxBackoffShift = 4

// Scraper is the work-queue consumer. Its Handle never fails the whole
// batch for one message: every message is decided on its own (see the
// package documentation) and those to retry are returned in
// BatchItemFailures, which the event source mapping honours only with
// function_response_types = ["ReportBatchItemFailures"] (docs/aws-behaviour.md §4.9).
type Scraper struct {
	Store task.Store
	Pages PageScraper
	// Results stores each finished task's site document before the Finish
	// that records its key (*s3store.Store).
	Results ResultWriter
	DLQ     PoisonForwarder
	// Visibility, when set, lets a released message come back after a
	// backoff (RetryBackoff, or a site's Retry-After) instead of the queue's
	// visibility timeout.
	Visibility VisibilityChanger
	Metrics    emf.Recorder
	Logger     *slog.Logger
	Now        func() time.Time
	// NewToken returns a fresh, unique claim token.
	NewToken func() string
	// Lease is how long a claim holds the task. It must exceed the
	// function timeout, so a live worker never loses its lease; the scraper
	// also stops work Margin before the lease ends, whatever the timeout.
	Lease time.Duration
	// Margin is kept free before the deadline and the lease end to write
	// the outcome; 0 means DefaultMargin.
	Margin time.Duration
	// RetryBackoff is the first retry delay set with Visibility, doubled for
	// each further receive up to 16×; 0 leaves the queue's visibility
	// timeout in charge.
	RetryBackoff time.Duration

	leaseWarning sync.Once
}

// Validate reports missing dependencies and inconsistent durations.
func (s *Scraper) Validate() error {
	var errs []error
	if s.Store == nil {
		errs = append(errs, errors.New("nil Store"))
	}
	if s.Pages == nil {
		errs = append(errs, errors.New("nil Pages"))
	}
	if s.Results == nil {
		errs = append(errs, errors.New("nil Results"))
	}
	if s.DLQ == nil {
		errs = append(errs, errors.New("nil DLQ"))
	}
	if s.Metrics == nil {
		errs = append(errs, errors.New("nil Metrics"))
	}
	if s.Logger == nil {
		errs = append(errs, errors.New("nil Logger"))
	}
	if s.Now == nil {
		errs = append(errs, errors.New("nil Now"))
	}
	if s.NewToken == nil {
		errs = append(errs, errors.New("nil NewToken"))
	}
	if s.Margin < 0 {
		errs = append(errs, fmt.Errorf("negative margin %s", s.Margin))
	}
	if s.Lease <= 2*s.margin() {
		errs = append(errs, fmt.Errorf("lease %s must exceed twice the margin %s", s.Lease, s.margin()))
	}
	if s.RetryBackoff < 0 {
		errs = append(errs, fmt.Errorf("negative retry backoff %s", s.RetryBackoff))
	}
	if len(errs) > 0 {
		return fmt.Errorf("handler: scraper: %w", errors.Join(errs...))
	}
	return nil
}

func (s *Scraper) margin() time.Duration {
	if s.Margin == 0 {
		return DefaultMargin
	}
	return s.Margin
}

// Handle processes one SQS batch. It returns an error only when the
// Scraper is misconfigured, or when a message to retry has no message id
// (Lambda would fail the whole batch for an empty itemIdentifier anyway).
func (s *Scraper) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	// An empty list, not null: both mean success (docs/aws-behaviour.md §4.9), but []
	// reads unambiguously in logs and tests.
	resp := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
	if err := s.Validate(); err != nil {
		return resp, err
	}
	log := emf.ForInvocation(ctx, s.Logger)
	noID := 0
	for _, msg := range ev.Records {
		if !s.handleMessage(ctx, log, msg) {
			continue
		}
		s.record(log, nil, emf.Count(emf.MessagesRetried, 1))
		if msg.MessageId == "" {
			noID++
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
	}
	if noID > 0 {
		return resp, fmt.Errorf("handler: scraper: %d message(s) to retry have no messageId", noID)
	}
	return resp, nil
}

// handleMessage decides one message and reports whether to retry it. A
// panic is logged and retried: it must not fail the other messages.
func (s *Scraper) handleMessage(ctx context.Context, log *slog.Logger, msg events.SQSMessage) (retry bool) {
	log = log.With(slog.String("messageId", msg.MessageId))
	defer func() {
		if r := recover(); r != nil {
			log.Error("panic while handling message; leaving it for redelivery",
				slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
			retry = true
		}
	}()
	return s.process(ctx, log, msg)
}

func (s *Scraper) process(ctx context.Context, log *slog.Logger, msg events.SQSMessage) bool {
	now := s.Now()
	if dl, ok := ctx.Deadline(); ok {
		left := dl.Sub(now)
		if left <= s.margin() {
			log.Warn("too little time left before the deadline; leaving the message for redelivery",
				slog.Duration("left", left))
			return true
		}
		if left > s.Lease {
			s.leaseWarning.Do(func() {
				log.Warn("lease is shorter than the time left in this invocation; work stops at the lease end",
					slog.Duration("lease", s.Lease), slog.Duration("left", left))
			})
		}
	}

	m, err := message.Parse([]byte(msg.Body))
	if err != nil {
		return s.forward(ctx, log, msg, err.Error())
	}
	tlog := emf.ForTask(log, m.TaskID, m.RunID)

	token := s.NewToken()
	t, err := s.Store.Claim(ctx, task.ClaimParams{TaskID: m.TaskID, Token: token, Now: now, Lease: s.Lease})
	switch {
	case err == nil:
	case errors.Is(err, task.ErrNotFound):
		return s.forward(ctx, tlog, msg, err.Error())
	case errors.Is(err, task.ErrTerminal):
		// A duplicate delivery (the Pipe and SQS both deliver at least
		// once, and the reconciler re-sends): the work is done.
		tlog.Info("task is terminal; duplicate delivery skipped")
		s.record(tlog, nil, emf.Count(emf.DuplicatesSkipped, 1))
		return false
	case errors.Is(err, task.ErrClaimed):
		// Another worker holds a live lease. It will finish, fail or
		// release the task; a release comes back through that worker's own
		// message, and if the worker dies its message reappears after the
		// visibility timeout, which exceeds the lease. If that message is
		// lost too, the reconciler re-dispatches the expired lease. Retrying
		// this duplicate would only burn receives and land it in the DLQ as
		// a false alarm.
		tlog.Info("task is claimed by another worker; delivery skipped")
		s.record(tlog, nil, emf.Count(emf.ClaimsSkipped, 1))
		return false
	case errors.Is(err, task.ErrExhausted):
		tlog.Warn("task attempts exhausted; the claim marked it failed", slog.Any("error", err))
		s.record(tlog, kindDims(task.KindExhausted), emf.Count(emf.TasksFailed, 1))
		return false
	default:
		tlog.Error("claim task; leaving the message for redelivery", slog.Any("error", err))
		return true
	}

	tlog = emf.ForTask(log, t.ID, t.RunID).With(slog.Int("attempt", t.Attempts))
	return s.work(ctx, tlog, msg, t, token)
}

// work scrapes a claimed task and writes the outcome.
func (s *Scraper) work(ctx context.Context, log *slog.Logger, msg events.SQSMessage, t task.Task, token string) bool {
	start := s.Now()
	wctx, cancel := context.WithDeadline(ctx, s.workDeadline(ctx, start))
	doc, err := s.Pages.Crawl(wctx, t.URL)
	cancel()
	latency := s.Now().Sub(start)
	s.record(log, nil, emf.Milliseconds(emf.FetchLatency, latency))

	var result json.RawMessage
	if err == nil {
		if n := skippedFetches(doc); n > 0 {
			s.record(log, nil, emf.Count(emf.KeyPagesSkipped, n))
		}
		result, err = s.result(ctx, t, doc)
	}
	switch kind := task.KindOf(err); {
	case err == nil:
		return s.finish(ctx, log, t, token, result, latency)
	case kind == task.KindFatal || kind == task.KindRobots || kind == task.KindOptOut:
		// Retrying cannot change the answer: the same page, the same
		// robots.txt, the same opt-out list.
		return s.fail(ctx, log, t, token, kind, err)
	case t.Attempts >= t.MaxAttempts:
		// No claim is left for a retry: releasing would only send the
		// message round the queue until its redrive moved it to the DLQ,
		// and leave the task for the reconciler to call stuck.
		return s.fail(ctx, log, t, token, task.KindExhausted,
			fmt.Errorf("attempt %d of %d: %w", t.Attempts, t.MaxAttempts, err))
	default:
		return s.release(ctx, log, msg, t, token, err)
	}
}

// skippedFetches counts the key pages the crawl's budget left unfetched.
func skippedFetches(doc *site.Document) int {
	n := 0
	if doc != nil {
		for _, f := range doc.Fetches {
			if f.Outcome == site.FetchSkipped {
				n++
			}
		}
	}
	return n
}

// result stores the document (Results.Put) and returns what the row keeps
// of it: the compact site.Summary with the object's key and digest, at most
// site.MaxSummaryBytes. The object write is idempotent and decides
// nothing: a crash after it and before the Finish leaves an object that the
// retry overwrites with the same bytes, and the Finish stays the one fenced
// write of the outcome. A failed write releases the task for a retry.
func (s *Scraper) result(ctx context.Context, t task.Task, doc *site.Document) (json.RawMessage, error) {
	if doc == nil || len(doc.Pages) == 0 {
		return nil, task.Fatalf("handler: scraper: the scraper returned no start page")
	}
	body, err := doc.Marshal()
	if err != nil {
		// The document holds only strings, numbers and times; a marshal
		// error is a bug that no retry of the same page fixes.
		return nil, task.Fatal(fmt.Errorf("handler: scraper: %w", err))
	}
	key, sum, err := s.Results.Put(ctx, t.RunID, t.ID, body)
	if err != nil {
		return nil, fmt.Errorf("handler: scraper: store the document: %w", err)
	}
	sm := doc.Summary()
	sm.Object, sm.SHA256 = key, sum
	b, err := sm.MarshalBounded()
	if err != nil {
		return nil, task.Fatal(fmt.Errorf("handler: scraper: %w", err))
	}
	return b, nil
}

// workDeadline ends the scrape Margin before the invocation deadline and
// Margin before the lease ends, so the outcome is written in time and by a
// worker that still holds the lease.
func (s *Scraper) workDeadline(ctx context.Context, start time.Time) time.Time {
	d := start.Add(s.Lease - s.margin())
	if dl, ok := ctx.Deadline(); ok && dl.Add(-s.margin()).Before(d) {
		d = dl.Add(-s.margin())
	}
	return d
}

func (s *Scraper) finish(ctx context.Context, log *slog.Logger, t task.Task, token string, result json.RawMessage, latency time.Duration) bool {
	err := s.Store.Finish(ctx, task.FinishParams{TaskID: t.ID, Token: token, Now: s.Now(), Result: result})
	switch {
	case err == nil:
		log.Info("task finished", slog.Duration("latency", latency), slog.Int("resultBytes", len(result)))
		s.record(log, nil, emf.Count(emf.TasksFinished, 1))
		return false
	case errors.Is(err, task.ErrStaleClaim):
		log.Warn("lost the claim before finishing; result discarded", slog.Any("error", err))
		s.record(log, nil, emf.Count(emf.StaleClaims, 1))
		return false
	default:
		// The lease is still ours until it expires; the redelivery comes
		// after the visibility timeout, which is longer, so no backoff here.
		log.Error("finish task; leaving the message for redelivery", slog.Any("error", err))
		return true
	}
}

func (s *Scraper) fail(ctx context.Context, log *slog.Logger, t task.Task, token string, kind task.ErrorKind, cause error) bool {
	reason := task.Truncate(cause.Error(), task.MaxErrorBytes)
	err := s.Store.Fail(ctx, task.FailParams{TaskID: t.ID, Token: token, Now: s.Now(), Kind: kind, Reason: reason})
	switch {
	case err == nil:
		log.Warn("task failed", slog.String("errorKind", string(kind)), slog.String("reason", reason))
		s.record(log, kindDims(kind), emf.Count(emf.TasksFailed, 1))
		return false
	case errors.Is(err, task.ErrStaleClaim):
		log.Warn("lost the claim before failing the task; outcome discarded", slog.Any("error", err))
		s.record(log, nil, emf.Count(emf.StaleClaims, 1))
		return false
	default:
		log.Error("fail task; leaving the message for redelivery", slog.Any("error", err), slog.String("reason", reason))
		return true
	}
}

func (s *Scraper) release(ctx context.Context, log *slog.Logger, msg events.SQSMessage, t task.Task, token string, cause error) bool {
	reason := task.Truncate(cause.Error(), task.MaxErrorBytes)
	err := s.Store.Release(ctx, task.ReleaseParams{TaskID: t.ID, Token: token, Now: s.Now(), Reason: reason})
	switch {
	case err == nil:
	case errors.Is(err, task.ErrStaleClaim):
		log.Warn("lost the claim before releasing the task; the new holder owns it", slog.Any("error", err))
		s.record(log, nil, emf.Count(emf.StaleClaims, 1))
		return false
	default:
		log.Error("release task; leaving the message for redelivery", slog.Any("error", err), slog.String("reason", reason))
		return true
	}
	log.Warn("task released for a retry", slog.String("reason", reason))
	s.record(log, nil, emf.Count(emf.TasksReleased, 1))
	// Only after a successful Release: the lease has expired, so an early
	// redelivery can claim the task instead of finding it claimed.
	if delay := s.backoff(receiveCount(msg), cause); delay > 0 && s.Visibility != nil {
		if err := s.Visibility.Change(ctx, msg.ReceiptHandle, delay); err != nil {
			log.Warn("set retry backoff; the queue's visibility timeout applies instead", slog.Any("error", err))
		}
	}
	return true
}

// retryAfter is an error that carries a server's Retry-After
// (*scrape.StatusError).
type retryAfter interface {
	error
	RetryDelay() time.Duration
}

// backoff is the delay before the next delivery: RetryBackoff doubled per
// receive (capped), or longer if the site asked for it.
func (s *Scraper) backoff(receives int, cause error) time.Duration {
	var d time.Duration
	if s.RetryBackoff > 0 {
		d = s.RetryBackoff << min(max(receives-1, 0), maxBackoffShift) // ×1, 2, 4, 8, 16
	}
	var ra retryAfter
	if errors.As(cause, &ra) {
		d = max(d, ra.RetryDelay()) // a 429 or 503 Retry-After
	}
	return d
}

// forward sends msg to the work DLQ with reason and reports whether to
// retry: only when the forward itself failed, so the message is never
// dropped (after maxReceiveCount the queue's redrive moves it anyway).
func (s *Scraper) forward(ctx context.Context, log *slog.Logger, msg events.SQSMessage, reason string) bool {
	p := sqsqueue.Poison{
		Body:            msg.Body,
		Reason:          reason,
		SourceMessageID: msg.MessageId,
		SourceQueueARN:  msg.EventSourceARN,
		ReceiveCount:    receiveCount(msg),
	}
	if err := s.DLQ.Forward(ctx, p); err != nil {
		log.Error("forward message to the work DLQ; leaving it for redelivery",
			slog.String("reason", reason), slog.Any("error", err))
		return true
	}
	log.Warn("message forwarded to the work DLQ", slog.String("reason", reason))
	s.record(log, nil, emf.Count(emf.PoisonForwarded, 1))
	return false
}

func (s *Scraper) record(log *slog.Logger, dims []emf.Dimension, ms ...emf.Metric) {
	if err := s.Metrics.Record(dims, ms...); err != nil {
		log.Error("record metrics", slog.Any("error", err))
	}
}

func kindDims(k task.ErrorKind) []emf.Dimension {
	return []emf.Dimension{{Name: emf.DimErrorKind, Value: string(k)}}
}

// receiveCount reads ApproximateReceiveCount, a decimal string
// (docs/aws-behaviour.md §4.8); 0 when absent or malformed.
func receiveCount(msg events.SQSMessage) int {
	n, err := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
