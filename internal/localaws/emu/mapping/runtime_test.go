package mapping_test

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

var rbif = []string{mapping.ReportBatchItemFailures}

func TestEventShape(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "shape", 30)
	id, err := b.queues.Send(b.ctx, queueARN, `{"taskId":"t-1"}`, nil)
	require.NoError(t, err)
	b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})

	c := b.lambda.next(t)
	require.Equal(t, functionARN("worker"), c.FunctionARN)
	var ev struct {
		Records []map[string]json.RawMessage `json:"Records"`
	}
	require.NoError(t, json.Unmarshal(c.Raw, &ev))
	require.Len(t, ev.Records, 1)
	rec := ev.Records[0]
	keys := make([]string, 0, len(rec))
	for k := range rec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The keys of an AWS-recorded SQS event record (docs/aws-behaviour.md §4.8).
	require.Equal(t, []string{
		"attributes", "awsRegion", "body", "eventSource", "eventSourceARN", "md5OfBody",
		"md5OfMessageAttributes", "messageAttributes", "messageId", "receiptHandle",
	}, keys)
	require.JSONEq(t, `null`, string(rec["md5OfMessageAttributes"]))
	require.JSONEq(t, `{}`, string(rec["messageAttributes"]))

	r := c.Event.Records[0]
	require.Equal(t, id, r.MessageId)
	require.Equal(t, `{"taskId":"t-1"}`, r.Body)
	require.Equal(t, "aws:sqs", r.EventSource)
	require.Equal(t, queueARN, r.EventSourceARN)
	require.Equal(t, emu.DefaultRegion, r.AWSRegion)
	require.Equal(t, "1", r.Attributes["ApproximateReceiveCount"])
	for _, k := range []string{"SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"} {
		require.NotEmpty(t, r.Attributes[k], k)
	}
	require.Equal(t, fmt.Sprintf("%x", md5.Sum([]byte(r.Body))), r.Md5OfBody)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "the processed message is deleted")
}

// TestPartialBatchResponse: only the successes are deleted; the reported
// messages come back after the visibility timeout, and only they.
func TestPartialBatchResponse(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "partial", 30)
	ids := b.send(t, queueARN, "m0", "m1", "m2", "m3", "m4")
	var calls atomic.Int32
	b.lambda.handle = func(_ context.Context, c call) (mapping.InvokeResult, error) {
		if calls.Add(1) == 1 {
			return mapping.InvokeResult{Payload: []byte(fmt.Sprintf(
				`{"batchItemFailures":[{"itemIdentifier":%q},{"itemIdentifier":%q}]}`, ids[1], ids[3]))}, nil
		}
		return mapping.InvokeResult{Payload: []byte(`{"batchItemFailures":[]}`)}, nil
	}
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN), FunctionResponseTypes: rbif})

	first := b.lambda.next(t)
	require.ElementsMatch(t, ids, messageIDs(first), "all five arrive in one batch")
	eventually(t, func() bool { return b.stats(t, cfg.UUID).Deleted == 3 }, "three successes deleted")
	require.Equal(t, queue.Counts{InFlight: 2}, b.counts(t, queueARN), "the two failures stay, invisible")
	st := b.stats(t, cfg.UUID)
	require.Equal(t, int64(2), st.ItemFailures)
	require.Equal(t, int64(0), st.FailedBatches)

	b.expire(31 * time.Second)
	second := b.lambda.next(t)
	require.ElementsMatch(t, []string{ids[1], ids[3]}, messageIDs(second), "exactly the reported ids come back")
	for _, r := range second.Event.Records {
		require.Equal(t, "2", r.Attributes["ApproximateReceiveCount"])
	}
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "the retried messages are deleted")
}

// TestResponseHandling runs one batch of three through each kind of
// response and checks what Lambda would delete.
func TestResponseHandling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rbif     bool
		response func(ids []string) mapping.InvokeResult
		deleted  int64
		invalid  int64
		failed   int64
	}{
		{name: "EmptyListDeletesAll", rbif: true, response: body(`{"batchItemFailures":[]}`), deleted: 3},
		{name: "NullListDeletesAll", rbif: true, response: body(`{"batchItemFailures":null}`), deleted: 3},
		{name: "EmptyObjectDeletesAll", rbif: true, response: body(`{}`), deleted: 3},
		{name: "NullResponseDeletesAll", rbif: true, response: body(`null`), deleted: 3},
		{name: "EmptyResponseDeletesAll", rbif: true, response: body(``), deleted: 3},
		{name: "InvalidJSONFailsBatch", rbif: true, response: body(`{"batchItemFailures":[`), invalid: 1, failed: 1},
		{name: "EmptyIdentifierFailsBatch", rbif: true, response: body(`{"batchItemFailures":[{"itemIdentifier":""}]}`), invalid: 1, failed: 1},
		{name: "NullIdentifierFailsBatch", rbif: true, response: body(`{"batchItemFailures":[{"itemIdentifier":null}]}`), invalid: 1, failed: 1},
		{name: "WrongKeyFailsBatch", rbif: true, response: body(`{"batchItemFailures":[{"foo":"notvalid"}]}`), invalid: 1, failed: 1},
		{name: "UnknownIDFailsBatch", rbif: true, response: body(`{"batchItemFailures":[{"itemIdentifier":"not-in-batch"}]}`), invalid: 1, failed: 1},
		{
			name: "OneKnownOneUnknownFailsBatch", rbif: true, invalid: 1, failed: 1,
			response: func(ids []string) mapping.InvokeResult {
				return body(fmt.Sprintf(`{"batchItemFailures":[{"itemIdentifier":%q},{"itemIdentifier":"x"}]}`, ids[0]))(ids)
			},
		},
		{
			name: "FunctionErrorFailsBatch", rbif: true, failed: 1,
			response: func([]string) mapping.InvokeResult {
				return mapping.InvokeResult{FunctionError: "Unhandled", Payload: []byte(`{"errorMessage":"boom"}`)}
			},
		},
		{
			name: "WithoutRBIFBodyIsIgnored", deleted: 3,
			response: func(ids []string) mapping.InvokeResult {
				return body(fmt.Sprintf(`{"batchItemFailures":[{"itemIdentifier":%q}]}`, ids[0]))(ids)
			},
		},
		{name: "WithoutRBIFInvalidBodyIsIgnored", deleted: 3, response: body(`not json at all`)},
		{
			name: "WithoutRBIFFunctionErrorDeletesNothing", failed: 1,
			response: func([]string) mapping.InvokeResult { return mapping.InvokeResult{FunctionError: "Unhandled"} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, mapping.Options{})
			queueARN := b.queue(t, "responses", 30)
			ids := b.send(t, queueARN, "a", "b", "c")
			b.lambda.handle = func(_ context.Context, c call) (mapping.InvokeResult, error) {
				return tt.response(ids), nil
			}
			req := mapping.CreateRequest{EventSourceArn: aws.String(queueARN)}
			if tt.rbif {
				req.FunctionResponseTypes = rbif
			}
			cfg := b.create(t, req)
			require.ElementsMatch(t, ids, messageIDs(b.lambda.next(t)))
			eventually(t, func() bool {
				st := b.stats(t, cfg.UUID)
				return st.Succeeded+st.FailedBatches == 1
			}, "the batch is settled")
			eventually(t, func() bool { return b.stats(t, cfg.UUID).Deleted == tt.deleted }, "deletions")
			st := b.stats(t, cfg.UUID)
			require.Equal(t, tt.invalid, st.InvalidResponses)
			require.Equal(t, tt.failed, st.FailedBatches)
			require.Equal(t, int(3-tt.deleted), b.counts(t, queueARN).InFlight, "what was not deleted stays in flight")
		})
	}
}

func body(s string) func([]string) mapping.InvokeResult {
	return func([]string) mapping.InvokeResult { return mapping.InvokeResult{Payload: []byte(s)} }
}

// TestFunctionErrorRedelivers: a failed batch is not deleted and comes back
// after the visibility timeout with ApproximateReceiveCount 2.
func TestFunctionErrorRedelivers(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "redeliver", 30)
	ids := b.send(t, queueARN, "task")
	var calls atomic.Int32
	b.lambda.handle = func(context.Context, call) (mapping.InvokeResult, error) {
		if calls.Add(1) == 1 {
			return mapping.InvokeResult{FunctionError: "Unhandled", Payload: []byte(`{"errorType":"Runtime.ExitError"}`)}, nil
		}
		return mapping.InvokeResult{Payload: []byte(`null`)}, nil
	}
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN), BatchSize: aws.Int32(1)})

	first := b.lambda.next(t)
	eventually(t, func() bool { return b.stats(t, cfg.UUID).FailedBatches == 1 }, "the batch failed")
	require.Equal(t, queue.Counts{InFlight: 1}, b.counts(t, queueARN), "nothing deleted")

	b.expire(29 * time.Second)
	require.Equal(t, queue.Counts{InFlight: 1}, b.counts(t, queueARN), "still invisible before the timeout")
	b.expire(2 * time.Second)
	second := b.lambda.next(t)
	require.Equal(t, ids, messageIDs(second))
	require.Equal(t, "1", first.Event.Records[0].Attributes["ApproximateReceiveCount"])
	require.Equal(t, "2", second.Event.Records[0].Attributes["ApproximateReceiveCount"])
	require.NotEqual(t, first.Event.Records[0].ReceiptHandle, second.Event.Records[0].ReceiptHandle)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "deleted after the retry succeeded")
	st := b.stats(t, cfg.UUID)
	require.Equal(t, int64(1), st.FunctionErrors)
	require.Equal(t, int64(2), st.Batches)
	require.Equal(t, int64(1), st.Deleted)
}

// TestMaxConcurrency measures the peak of concurrent invocations with a
// slow function and many messages.
func TestMaxConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		scale *int32
		deflt int
		limit int
	}{
		{name: "ScalingConfig", scale: aws.Int32(3), limit: 3},
		{name: "DefaultLimit", deflt: 5, limit: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, mapping.Options{DefaultMaxConcurrency: tt.deflt})
			queueARN := b.queue(t, "concurrency", 300)
			const n = 40
			bodies := make([]string, n)
			for i := range bodies {
				bodies[i] = fmt.Sprint("m", i)
			}
			b.send(t, queueARN, bodies...)
			// The first calls hold until the cap is reached (or 2 s pass),
			// so a correct poller reaches the peak deterministically; the
			// rest are merely slow, and a poller without a cap overshoots.
			var started atomic.Int32
			b.lambda.handle = func(context.Context, call) (mapping.InvokeResult, error) {
				if int(started.Add(1)) <= tt.limit {
					deadline := time.Now().Add(2 * time.Second)
					for b.lambda.running() < tt.limit && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond)
					}
				}
				time.Sleep(3 * time.Millisecond)
				return mapping.InvokeResult{}, nil
			}
			req := mapping.CreateRequest{EventSourceArn: aws.String(queueARN), BatchSize: aws.Int32(1)}
			if tt.scale != nil {
				req.ScalingConfig = &mapping.ScalingConfig{MaximumConcurrency: tt.scale}
			}
			cfg := b.create(t, req)
			eventually(t, func() bool { return b.stats(t, cfg.UUID).Deleted == n }, "every message processed")
			require.Equal(t, tt.limit, b.lambda.peakConcurrency(), "the function saw exactly the cap at the peak")
			require.Equal(t, int64(tt.limit), b.stats(t, cfg.UUID).PeakConcurrency)
			require.Equal(t, queue.Counts{}, b.counts(t, queueARN))
		})
	}
}

// TestThrottledInvocationsRetry: a throttled invoke backs off and retries
// while the messages stay invisible; nothing is lost.
func TestThrottledInvocationsRetry(t *testing.T) {
	t.Parallel()
	var backoffs atomic.Int32
	b := setup(t, mapping.Options{
		DefaultMaxConcurrency: 6,
		SleepFunc: func(ctx context.Context, d time.Duration) error {
			backoffs.Add(1)
			return ctx.Err()
		},
	})
	queueARN := b.queue(t, "throttle", 60)
	const n = 30
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint("m", i)
	}
	b.send(t, queueARN, bodies...)
	// The function's own limit is 2: a third concurrent call is throttled.
	var running atomic.Int32
	b.lambda.handle = func(context.Context, call) (mapping.InvokeResult, error) {
		if running.Add(1) > 2 {
			running.Add(-1)
			return mapping.InvokeResult{}, fmt.Errorf("function: reserved concurrency: %w", mapping.ErrThrottled)
		}
		defer running.Add(-1)
		time.Sleep(5 * time.Millisecond)
		return mapping.InvokeResult{}, nil
	}
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN), BatchSize: aws.Int32(1)})
	eventually(t, func() bool { return b.stats(t, cfg.UUID).Deleted == n }, "every message processed despite throttles")
	st := b.stats(t, cfg.UUID)
	require.Positive(t, st.Throttles)
	require.Equal(t, int32(st.Throttles), backoffs.Load(), "each throttle backs off once")
	require.Equal(t, int64(0), st.FailedBatches)
	require.LessOrEqual(t, b.lambda.peakConcurrency(), 6)
}

// TestThrottledPastVisibilityGivesUp: a batch still throttled when its
// messages' visibility timeout ends is given up; the messages come back.
func TestThrottledPastVisibilityGivesUp(t *testing.T) {
	t.Parallel()
	var b *testBundle
	b = setup(t, mapping.Options{SleepFunc: func(ctx context.Context, d time.Duration) error {
		b.clock.Advance(d) // time passes in the queue's clock while backing off
		return ctx.Err()
	}})
	queueARN := b.queue(t, "throttle-out", 2)
	b.send(t, queueARN, "m")
	var attempts atomic.Int32
	b.lambda.handle = func(context.Context, call) (mapping.InvokeResult, error) {
		attempts.Add(1)
		return mapping.InvokeResult{}, mapping.ErrThrottled
	}
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})
	eventually(t, func() bool { return b.stats(t, cfg.UUID).FailedBatches >= 1 }, "the throttled batch is given up")
	st := b.stats(t, cfg.UUID)
	require.GreaterOrEqual(t, st.Throttles, int64(2), "retried before giving up")
	require.Equal(t, int64(0), st.Deleted)
}

func TestDuplicateDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{Faults: &testFaults{duplicate: once()}})
	queueARN := b.queue(t, "duplicate", 30)
	ids := b.send(t, queueARN, "task")
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})

	first, second := b.lambda.next(t), b.lambda.next(t)
	require.Equal(t, ids, messageIDs(first))
	require.Equal(t, ids, messageIDs(second), "the same message in a second invocation")
	require.Equal(t, first.Event.Records[0].ReceiptHandle, second.Event.Records[0].ReceiptHandle,
		"a duplicate SQS delivery carries the same receipt handle")
	eventually(t, func() bool { return b.stats(t, cfg.UUID).Succeeded == 2 }, "both deliveries settled")
	st := b.stats(t, cfg.UUID)
	require.Equal(t, int64(1), st.Duplicates)
	require.Equal(t, int64(2), st.Batches)
	require.Equal(t, queue.Counts{}, b.counts(t, queueARN))
}

func TestDroppedAck(t *testing.T) {
	t.Parallel()
	var dropping atomic.Bool
	dropping.Store(true)
	b := setup(t, mapping.Options{Faults: &testFaults{drop: dropping.Load}})
	queueARN := b.queue(t, "drop", 30)
	ids := b.send(t, queueARN, "task")
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})

	b.lambda.next(t)
	eventually(t, func() bool { return b.stats(t, cfg.UUID).DroppedAcks == 1 }, "the ack was dropped")
	require.Equal(t, int64(0), b.stats(t, cfg.UUID).Deleted)
	require.Equal(t, queue.Counts{InFlight: 1}, b.counts(t, queueARN), "the message was not deleted")

	dropping.Store(false)
	b.expire(31 * time.Second)
	again := b.lambda.next(t)
	require.Equal(t, ids, messageIDs(again))
	require.Equal(t, "2", again.Event.Records[0].Attributes["ApproximateReceiveCount"])
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "deleted on the second delivery")
}

func TestDelayedAck(t *testing.T) {
	t.Parallel()
	waits := make(chan time.Duration, 1)
	release := make(chan struct{})
	b := setup(t, mapping.Options{
		Faults: &testFaults{delay: 5 * time.Second},
		SleepFunc: func(ctx context.Context, d time.Duration) error {
			waits <- d
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	queueARN := b.queue(t, "delay", 30)
	b.send(t, queueARN, "task")
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})

	b.lambda.next(t)
	select {
	case d := <-waits:
		require.Equal(t, 5*time.Second, d)
	case <-time.After(waitLimit):
		t.Fatal("the acknowledgement was not delayed")
	}
	require.Equal(t, queue.Counts{InFlight: 1}, b.counts(t, queueARN), "not deleted while the ack is held")
	require.Equal(t, int64(1), b.stats(t, cfg.UUID).DelayedAcks)
	close(release)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "deleted once released")
}

func TestDisableStopsDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "disable", 30)
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})
	b.send(t, queueARN, "before")
	b.lambda.next(t)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "processed")

	out, err := b.svc.Update(cfg.UUID, mapping.UpdateRequest{Enabled: aws.Bool(false)})
	require.NoError(t, err)
	require.Equal(t, mapping.StateDisabling, out.State)
	// Update returned after the receive loop stopped, so nothing reads
	// the queue any more.
	b.send(t, queueARN, "while disabled")
	require.Equal(t, queue.Counts{Visible: 1}, b.counts(t, queueARN))
	require.Equal(t, int64(1), b.lambda.total.Load())

	_, err = b.svc.Update(cfg.UUID, mapping.UpdateRequest{Enabled: aws.Bool(true)})
	require.NoError(t, err)
	c := b.lambda.next(t)
	require.Equal(t, "while disabled", c.Event.Records[0].Body)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "processed after re-enabling")

	_, err = b.svc.Delete(cfg.UUID)
	require.NoError(t, err)
	b.send(t, queueARN, "after delete")
	require.Equal(t, queue.Counts{Visible: 1}, b.counts(t, queueARN))
}

// TestDisableLetsInFlightFinish: a batch running when the mapping is
// deleted still completes and is acknowledged.
func TestDisableLetsInFlightFinish(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "inflight", 30)
	started, finish := make(chan struct{}), make(chan struct{})
	b.lambda.handle = func(context.Context, call) (mapping.InvokeResult, error) {
		close(started)
		<-finish
		return mapping.InvokeResult{}, nil
	}
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN)})
	b.send(t, queueARN, "slow")
	<-started
	_, err := b.svc.Update(cfg.UUID, mapping.UpdateRequest{Enabled: aws.Bool(false)})
	require.NoError(t, err)
	close(finish)
	b.lambda.next(t)
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "the in-flight batch was acknowledged")
}

func TestFilterCriteria(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "filter", 30)
	ids := b.send(t, queueARN, `{"kind":"task","id":1}`, `{"kind":"other"}`, `plain text`, `{"kind":"task","id":2}`)
	cfg := b.create(t, mapping.CreateRequest{
		EventSourceArn: aws.String(queueARN),
		FilterCriteria: &mapping.FilterCriteria{Filters: []mapping.Filter{{Pattern: aws.String(`{"body":{"kind":["task"]}}`)}}},
	})
	c := b.lambda.next(t)
	require.ElementsMatch(t, []string{ids[0], ids[3]}, messageIDs(c), "only matching records are delivered")
	eventually(t, func() bool { return b.counts(t, queueARN) == queue.Counts{} }, "non-matching messages are deleted too")
	st := b.stats(t, cfg.UUID)
	require.Equal(t, int64(2), st.FilteredOut)
	require.Equal(t, int64(4), st.Polled)
}

func TestBatchingWindow(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "window", 30)
	const n = 15
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint("m", i)
	}
	b.send(t, queueARN, bodies...)
	b.create(t, mapping.CreateRequest{
		EventSourceArn: aws.String(queueARN), BatchSize: aws.Int32(20), MaximumBatchingWindowInSeconds: aws.Int32(1),
	})
	c := b.lambda.next(t)
	require.Len(t, c.Event.Records, n, "receives of 10 are gathered into one batch within the window")
}

// TestMetrics: a mapping with MetricsConfig EventCount emits AWS/Lambda
// mapping metrics; one without emits nothing.
func TestMetrics(t *testing.T) {
	t.Parallel()
	got := make(chan emu.Metric, 100)
	b := setup(t, mapping.Options{Metrics: emu.MetricSinkFunc(func(ms ...emu.Metric) {
		for _, m := range ms {
			got <- m
		}
	})})
	queueARN := b.queue(t, "metrics", 30)
	b.send(t, queueARN, "one", "two")
	cfg := b.create(t, mapping.CreateRequest{
		EventSourceArn: aws.String(queueARN),
		MetricsConfig:  &mapping.MetricsConfig{Metrics: []string{"EventCount"}},
	})
	eventually(t, func() bool { return b.stats(t, cfg.UUID).Deleted == 2 }, "processed")
	sums := map[string]float64{}
	for len(sums) < 3 {
		select {
		case m := <-got:
			require.Equal(t, "AWS/Lambda", m.Namespace)
			require.Equal(t, map[string]string{"EventSourceMappingUUID": cfg.UUID}, m.Dimensions)
			sums[m.Name] += m.Value
		case <-time.After(waitLimit):
			t.Fatalf("metrics so far: %v", sums)
		}
	}
	require.Equal(t, map[string]float64{"PolledEventCount": 2, "InvokedEventCount": 2, "DeletedEventCount": 2}, sums)
}
