package handler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

const testLease = 8 * time.Minute

type scraperBundle struct {
	local   *dynamostoretest.Local
	h       *handler.Scraper
	pages   *fakePages
	s3      *fakeS3
	dlq     *fakeDLQ
	vis     *fakeVisibility
	metrics *recorder
	logs    *syncBuffer
}

// noRetries makes an emulated DynamoDB failure surface at once instead of
// after the SDK's backoff.
func noRetries(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

func setupScraper(t testing.TB, opts ...dynamostoretest.Option) *scraperBundle {
	t.Helper()
	b := &scraperBundle{
		local:   dynamostoretest.NewLocal(t, append([]dynamostoretest.Option{dynamostoretest.WithClientOptions(noRetries)}, opts...)...),
		pages:   &fakePages{},
		s3:      &fakeS3{},
		dlq:     &fakeDLQ{},
		vis:     &fakeVisibility{},
		metrics: &recorder{},
		logs:    &syncBuffer{},
	}
	results, err := s3store.New(b.s3, "results", "p/")
	require.NoError(t, err)
	b.h = &handler.Scraper{
		Store:        b.local.Store,
		Pages:        b.pages,
		Results:      results,
		DLQ:          b.dlq,
		Visibility:   b.vis,
		Metrics:      b.metrics,
		Logger:       newLogger(b.logs),
		Now:          func() time.Time { return tasktest.T0 },
		NewToken:     tokens(),
		Lease:        testLease,
		Margin:       15 * time.Second,
		RetryBackoff: 30 * time.Second,
	}
	return b
}

func (b *scraperBundle) seed(t testing.TB, tasks ...task.Task) {
	t.Helper()
	for _, tk := range tasks {
		require.NoError(t, b.local.Seed(t.Context(), tk))
	}
}

func (b *scraperBundle) get(t testing.TB, id string) task.Task {
	t.Helper()
	tk, err := b.local.Store.Get(t.Context(), id)
	require.NoError(t, err)
	return tk
}

func (b *scraperBundle) handle(t testing.TB, ctx context.Context, ev events.SQSEvent) []string {
	t.Helper()
	resp, err := b.h.Handle(ctx, ev)
	require.NoError(t, err)
	ids := []string{}
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

func compactBody(id string) string {
	return fmt.Sprintf(`{"v":1,"taskId":%q,"runId":"run-1","url":"https://ignored.example/","domain":"ignored.example"}`, id)
}

// sqsEvent builds a batch with message ids m-1, m-2, ... and receipt
// handles rh-1, rh-2, ..., each received once.
func sqsEvent(bodies ...string) events.SQSEvent {
	var ev events.SQSEvent
	for i, b := range bodies {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:      fmt.Sprintf("m-%d", i+1),
			ReceiptHandle:  fmt.Sprintf("rh-%d", i+1),
			Body:           b,
			Attributes:     map[string]string{"ApproximateReceiveCount": "1"},
			EventSource:    "aws:sqs",
			EventSourceARN: "arn:aws:sqs:eu-west-1:000000000000:work",
		})
	}
	return ev
}

func running(id, token string, leaseExpires time.Time, attempts int) task.Task {
	tk := tasktest.Pending(id)
	tk.State = task.StateRunning
	tk.ClaimToken = token
	tk.LeaseExpiresAt = leaseExpires
	tk.Attempts = attempts
	tk.UpdatedAt = leaseExpires.Add(-testLease)
	return tk
}

func terminal(id string, st task.State) task.Task {
	tk := tasktest.Pending(id)
	tk.State = st
	tk.Attempts = 1
	tk.ClaimToken = "old"
	tk.FinishedAt = tasktest.T0.Add(-time.Minute)
	tk.UpdatedAt = tk.FinishedAt
	if st == task.StateFinished {
		tk.Result = json.RawMessage(`{"title":"done before"}`)
	} else {
		tk.ErrorKind, tk.LastError = task.KindFatal, "fatal: http 404"
	}
	return tk
}

// The decision table of the package documentation, one test per row.

func TestScraperUnparseableBodyForwardedToDLQ(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)

	failures := b.handle(t, t.Context(), sqsEvent(`{"taskId": run-1}`))

	require.Empty(t, failures, "a poison message is acknowledged once it is in the DLQ")
	require.Len(t, b.dlq.sent, 1)
	p := b.dlq.sent[0]
	require.Equal(t, `{"taskId": run-1}`, p.Body, "the body is forwarded unchanged")
	require.Contains(t, p.Reason, "poison: message: parse")
	require.Equal(t, "m-1", p.SourceMessageID)
	require.Equal(t, "arn:aws:sqs:eu-west-1:000000000000:work", p.SourceQueueARN)
	require.Equal(t, 1, p.ReceiveCount)
	require.Empty(t, b.pages.calls())
	require.Equal(t, map[string]float64{emf.PoisonForwarded: 1}, b.metrics.counts())
}

func TestScraperUnparseableBodyForwardFailureIsRetried(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.dlq.err = errors.New("sqs: access denied")

	failures := b.handle(t, t.Context(), sqsEvent(`not json`))

	require.Equal(t, []string{"m-1"}, failures, "never dropped: retried until the forward works or the redrive moves it")
	require.Equal(t, map[string]float64{emf.MessagesRetried: 1}, b.metrics.counts())
	require.Contains(t, b.logs.String(), "sqs: access denied")
}

func TestScraperTaskNotFoundForwardedToDLQ(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("missing")))

	require.Empty(t, failures)
	require.Len(t, b.dlq.sent, 1)
	require.Contains(t, b.dlq.sent[0].Reason, "task not found")
	require.Equal(t, compactBody("missing"), b.dlq.sent[0].Body)
	require.Empty(t, b.pages.calls())
	require.Equal(t, map[string]float64{emf.PoisonForwarded: 1}, b.metrics.counts())
}

func TestScraperTerminalTaskSkippedAsDuplicate(t *testing.T) {
	t.Parallel()
	for _, st := range []task.State{task.StateFinished, task.StateFailed} {
		t.Run(string(st), func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			b.seed(t, terminal("t1", st))
			before := b.get(t, "t1")

			failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

			require.Empty(t, failures)
			require.Empty(t, b.pages.calls(), "no second scrape")
			require.Equal(t, before, b.get(t, "t1"), "no second write")
			require.Equal(t, map[string]float64{emf.DuplicatesSkipped: 1}, b.metrics.counts())
		})
	}
}

func TestScraperClaimedByAnotherWorkerSkipped(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, running("t1", "other-worker", tasktest.T0.Add(time.Minute), 1))
	before := b.get(t, "t1")

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Empty(t, failures)
	require.Empty(t, b.pages.calls())
	require.Equal(t, before, b.get(t, "t1"))
	require.Equal(t, map[string]float64{emf.ClaimsSkipped: 1}, b.metrics.counts())
}

func TestScraperAttemptsExhaustedAcknowledged(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, running("t1", "crashed-worker", tasktest.T0.Add(-time.Minute), task.DefaultMaxAttempts))

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Empty(t, failures)
	require.Empty(t, b.pages.calls())
	got := b.get(t, "t1")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindExhausted, got.ErrorKind)
	require.Equal(t, map[string]float64{"TasksFailed{ErrorKind=exhausted}": 1}, b.metrics.counts())
}

func TestScraperScrapeOKFinishes(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	b.pages.answer = func(context.Context, string) (*site.Document, error) {
		return titled("Example"), nil
	}

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Empty(t, failures)
	require.Equal(t, []string{"https://example.com/t1"}, b.pages.calls(), "the row's URL, not the message's")
	got := b.get(t, "t1")
	require.Equal(t, task.StateFinished, got.State)
	var row map[string]any
	require.NoError(t, json.Unmarshal(got.Result, &row))
	require.Equal(t, "Example", row["title"], "the row keeps the start page's bounded summary")
	require.Equal(t, "tok-1", got.ClaimToken)
	require.Equal(t, 1, got.Attempts)
	require.Equal(t, map[string]float64{emf.TasksFinished: 1}, b.metrics.counts())
}

func TestScraperFatalScrapeErrorFailsTask(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	b.pages.answer = func(context.Context, string) (*site.Document, error) {
		return nil, task.Fatalf("scrape: http status 404")
	}

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Empty(t, failures, "a fatal error is not retried")
	got := b.get(t, "t1")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindFatal, got.ErrorKind)
	require.Contains(t, got.LastError, "http status 404")
	require.Empty(t, b.vis.changes)
	require.Equal(t, map[string]float64{"TasksFailed{ErrorKind=fatal}": 1}, b.metrics.counts())
}

func TestScraperRetryableScrapeErrorReleasesAndRetries(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	b.pages.answer = func(context.Context, string) (*site.Document, error) {
		return nil, errors.New("dial tcp: connection reset by peer") // no kind: retryable
	}

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Equal(t, []string{"m-1"}, failures)
	got := b.get(t, "t1")
	require.Equal(t, task.StateRunning, got.State, "released tasks stay Running so the stream does not re-dispatch")
	require.False(t, got.LeaseLive(tasktest.T0), "the lease is expired at once")
	require.Contains(t, got.LastError, "connection reset")
	require.Equal(t, []string{"rh-1=30s"}, b.vis.changes)
	require.Equal(t, map[string]float64{emf.TasksReleased: 1, emf.MessagesRetried: 1}, b.metrics.counts())

	// The redelivery claims the released task again.
	b.pages.answer = nil
	failures = b.handle(t, t.Context(), sqsEvent(compactBody("t1")))
	require.Empty(t, failures)
	got = b.get(t, "t1")
	require.Equal(t, task.StateFinished, got.State)
	require.Equal(t, 2, got.Attempts)
}

func TestScraperRetryableErrorOnLastAttemptFailsExhausted(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	// Two claims used, the lease expired: this delivery makes the last one.
	b.seed(t, running("t1", "old", tasktest.T0.Add(-time.Minute), task.DefaultMaxAttempts-1))
	b.pages.answer = func(context.Context, string) (*site.Document, error) {
		return nil, errors.New("http status 503") // no kind: retryable
	}

	failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

	require.Empty(t, failures, "no attempt is left, so the message is not retried")
	got := b.get(t, "t1")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindExhausted, got.ErrorKind)
	require.Equal(t, task.DefaultMaxAttempts, got.Attempts)
	require.Contains(t, got.LastError, "attempt 3 of 3")
	require.Contains(t, got.LastError, "503")
	require.Empty(t, b.vis.changes)
	require.Equal(t, map[string]float64{"TasksFailed{ErrorKind=exhausted}": 1}, b.metrics.counts())
}

func retryAfterError(d time.Duration) error {
	return fmt.Errorf("scrape: fetch https://example.com/t1: attempt 1 of 3: %w",
		task.Retryable(&scrape.StatusError{Code: 429, RetryAfter: d}))
}

func TestScraperRetryBackoff(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		receives string
		err      error
		noBase   bool
		want     []string
	}{
		{"FirstReceive", "1", errors.New("timeout"), false, []string{"rh-1=30s"}},
		{"ThirdReceiveDoubledTwice", "3", errors.New("timeout"), false, []string{"rh-1=2m0s"}},
		{"CappedAtSixteenTimes", "40", errors.New("timeout"), false, []string{"rh-1=8m0s"}},
		{"RetryAfterLonger", "1", retryAfterError(10 * time.Minute), false, []string{"rh-1=10m0s"}},
		{"RetryAfterShorter", "2", retryAfterError(5 * time.Second), false, []string{"rh-1=1m0s"}},
		{"RetryAfterWithoutBase", "1", retryAfterError(time.Minute), true, []string{"rh-1=1m0s"}},
		{"NoBaseNoChange", "1", errors.New("timeout"), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			if tt.noBase {
				b.h.RetryBackoff = 0
			}
			b.seed(t, tasktest.Pending("t1"))
			b.pages.answer = func(context.Context, string) (*site.Document, error) { return nil, tt.err }
			ev := sqsEvent(compactBody("t1"))
			ev.Records[0].Attributes["ApproximateReceiveCount"] = tt.receives

			require.Equal(t, []string{"m-1"}, b.handle(t, t.Context(), ev))
			require.Equal(t, tt.want, b.vis.changes)
		})
	}
}

func TestScraperBackoffFailureStillRetries(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.vis.err = errors.New("receipt handle has expired")
	b.seed(t, tasktest.Pending("t1"))
	b.pages.answer = func(context.Context, string) (*site.Document, error) { return nil, errors.New("timeout") }

	require.Equal(t, []string{"m-1"}, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))))
	require.Contains(t, b.logs.String(), "receipt handle has expired")
}

// takeOver simulates another worker taking the task over while this one
// scrapes (its lease expired and a redelivery claimed it).
func (b *scraperBundle) takeOver(t *testing.T, id string) {
	t.Helper()
	require.NoError(t, b.local.Seed(context.Background(), running(id, "thief", tasktest.T0.Add(time.Hour), 2)))
}

func TestScraperStaleClaimAcknowledged(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		err  error
	}{
		{"Finish", nil},
		{"Fail", task.Fatalf("not html")},
		{"Release", errors.New("timeout")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			b.seed(t, tasktest.Pending("t1"))
			b.pages.answer = func(context.Context, string) (*site.Document, error) {
				b.takeOver(t, "t1")
				return titled("late"), tt.err
			}

			failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))

			require.Empty(t, failures, "the new holder owns the task")
			got := b.get(t, "t1")
			require.Equal(t, "thief", got.ClaimToken, "the stale worker wrote nothing")
			require.Equal(t, task.StateRunning, got.State)
			require.Empty(t, got.Result)
			require.Empty(t, b.vis.changes)
			require.Equal(t, map[string]float64{emf.StaleClaims: 1}, b.metrics.counts())
		})
	}
}

func TestScraperStoreErrorIsRetried(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		// failAfterClaim makes DynamoDB fail once the scrape ran, so the
		// claim succeeds and the outcome write fails.
		failAfterClaim bool
		scrapeErr      error
		wantState      task.State
	}{
		{name: "Claim", wantState: task.StatePending},
		{name: "Finish", failAfterClaim: true, wantState: task.StateRunning},
		{name: "Fail", failAfterClaim: true, scrapeErr: task.Fatalf("not html"), wantState: task.StateRunning},
		{name: "Release", failAfterClaim: true, scrapeErr: errors.New("timeout"), wantState: task.StateRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			b.seed(t, tasktest.Pending("t1"))
			if tt.failAfterClaim {
				b.pages.answer = func(context.Context, string) (*site.Document, error) {
					b.local.FailRequests(t, true)
					return titled(""), tt.scrapeErr
				}
			} else {
				b.local.FailRequests(t, true)
			}

			failures := b.handle(t, t.Context(), sqsEvent(compactBody("t1")))
			b.local.FailRequests(t, false)

			require.Equal(t, []string{"m-1"}, failures)
			require.Equal(t, tt.wantState, b.get(t, "t1").State)
			require.Empty(t, b.vis.changes, "no early redelivery while the lease may still be held")
			require.Equal(t, map[string]float64{emf.MessagesRetried: 1}, b.metrics.counts())
			require.Contains(t, b.logs.String(), "InternalServerError")
		})
	}
}

func TestScraperPanicIsRetriedOthersProcessed(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("boom"), tasktest.Pending("fine"))
	b.pages.answer = func(_ context.Context, url string) (*site.Document, error) {
		if strings.HasSuffix(url, "/boom") {
			panic("nil map write")
		}
		return titled(""), nil
	}

	resp, err := b.h.Handle(t.Context(), sqsEvent(compactBody("boom"), compactBody("fine")))

	require.NoError(t, err, "a panic never fails the whole batch")
	require.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "m-1"}}, resp.BatchItemFailures)
	require.Equal(t, task.StateFinished, b.get(t, "fine").State)
	require.Contains(t, b.logs.String(), "nil map write")
}

func TestScraperNoTimeLeftIsRetried(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	// Deadlines are compared with the injected clock; the store is never
	// reached, so the context need not be live.
	ctx, cancel := context.WithDeadline(context.Background(), tasktest.T0.Add(10*time.Second))
	defer cancel()

	failures := b.handle(t, ctx, sqsEvent(compactBody("t1")))

	require.Equal(t, []string{"m-1"}, failures)
	require.Equal(t, task.StatePending, b.get(t, "t1").State, "not claimed")
	require.Empty(t, b.pages.calls())
}

func TestScraperWorkStopsBeforeDeadlineAndLeaseEnd(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name       string
		deadlineIn time.Duration
		want       time.Duration
	}{
		{"DeadlineFirst", 2 * time.Minute, 2*time.Minute - 15*time.Second},
		{"LeaseFirst", time.Hour, testLease - 15*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			// A live context needs a clock near the wall clock.
			now := time.Now().UTC().Truncate(time.Millisecond)
			b.h.Now = func() time.Time { return now }
			pending := tasktest.Pending("t1")
			pending.CreatedAt, pending.UpdatedAt = now.Add(-time.Minute), now.Add(-time.Minute)
			b.seed(t, pending)
			ctx, cancel := context.WithDeadline(t.Context(), now.Add(tt.deadlineIn))
			defer cancel()

			require.Empty(t, b.handle(t, ctx, sqsEvent(compactBody("t1"))))
			require.Len(t, b.pages.deadlines, 1)
			require.Equal(t, now.Add(tt.want), b.pages.deadlines[0])
		})
	}
}

// TestScraperRowIsBounded: however large the document, the row keeps its
// bounded summary; a document without a start page is a bug, fatal.
func TestScraperRowIsBounded(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"), tasktest.Pending("t2"))
	b.pages.answer = func(_ context.Context, url string) (*site.Document, error) {
		if strings.HasSuffix(url, "t2") {
			return &site.Document{}, nil
		}
		d := titled(strings.Repeat("x", task.MaxResultBytes))
		for i := range 50 {
			d.Contacts.Emails = append(d.Contacts.Emails, fmt.Sprintf("%s%d@example.com", strings.Repeat("a", 200), i))
		}
		return d, nil
	}

	require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))))
	require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t2"))))
	got := b.get(t, "t1")
	require.Equal(t, task.StateFinished, got.State)
	require.LessOrEqual(t, len(got.Result), site.MaxSummaryBytes)
	got = b.get(t, "t2")
	require.Equal(t, task.StateFailed, got.State)
	require.Equal(t, task.KindFatal, got.ErrorKind)
	require.Contains(t, got.LastError, "no start page")
}

// TestScraperRobotsAndOptOutFail: a robots.txt refusal and an opt-out end
// the task at once with their own kind; no retry.
func TestScraperRobotsAndOptOutFail(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		kind task.ErrorKind
	}{
		{task.Robots(errors.New("robots.txt disallows / (rule Disallow: /)")), task.KindRobots},
		{task.OptedOut(errors.New("example.com is on the opt-out list")), task.KindOptOut},
	} {
		b := setupScraper(t)
		b.seed(t, tasktest.Pending("t1"))
		b.pages.answer = func(context.Context, string) (*site.Document, error) { return nil, tt.err }
		require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody("t1"))), "not retried")
		got := b.get(t, "t1")
		require.Equal(t, task.StateFailed, got.State)
		require.Equal(t, tt.kind, got.ErrorKind)
		require.Contains(t, got.LastError, tt.err.Error())
		require.Equal(t, map[string]float64{"TasksFailed{ErrorKind=" + string(tt.kind) + "}": 1}, b.metrics.counts())
	}
}

func TestScraperRetryWithoutMessageIDFailsBatch(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.dlq.err = errors.New("down")
	ev := sqsEvent("poison")
	ev.Records[0].MessageId = ""

	_, err := b.h.Handle(t.Context(), ev)
	require.ErrorContains(t, err, "have no messageId")
}

func TestScraperValidate(t *testing.T) {
	t.Parallel()
	_, err := (&handler.Scraper{}).Handle(t.Context(), sqsEvent("x"))
	require.ErrorContains(t, err, "nil Store")
	require.ErrorContains(t, err, "lease 0s must exceed twice the margin 15s")

	b := setupScraper(t)
	b.h.Lease = 20 * time.Second
	require.ErrorContains(t, b.h.Validate(), "lease 20s must exceed twice the margin 15s")
}

func TestScraperLogsCarryIDs(t *testing.T) {
	t.Parallel()
	b := setupScraper(t)
	b.seed(t, tasktest.Pending("t1"))
	ctx := lambdacontext.NewContext(t.Context(), &lambdacontext.LambdaContext{AwsRequestID: "req-42"})

	require.Empty(t, b.handle(t, ctx, sqsEvent(compactBody("t1"))))

	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.logs.String()), "\n") {
		require.NoError(t, json.Unmarshal([]byte(l), &line))
		if line["msg"] == "task finished" {
			break
		}
	}
	require.Equal(t, "task finished", line["msg"])
	require.Equal(t, "req-42", line[emf.KeyRequestID])
	require.Equal(t, "t1", line[emf.KeyTaskID])
	require.Equal(t, "run-1", line[emf.KeyRunID])
	require.Equal(t, "m-1", line["messageId"])
}
