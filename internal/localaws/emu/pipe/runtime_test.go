package pipe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
)

// The acceptance case of the pipeline: with the "becomes Pending" filter
// pair (no eventName), 1,000 inserts of Pending rows, 1,000 modifications
// that keep them Pending and 500 deletions give exactly 1,000 messages,
// one per task.
func TestBecomesPendingDeliversEachTaskOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: becomesPending(t), batchSize: 10})

	const n = 1000
	ids := make([]string, n)
	var inserts, modifies, removes []ddbtypes.WriteRequest
	for i := range n {
		ids[i] = fmt.Sprintf("t-%04d", i)
		inserts = append(inserts, putReq(task(ids[i], "Pending")))
		modifies = append(modifies, putReq(task(ids[i], "Pending", "attempts", num(0), "note", str("touched"))))
		if i%2 == 0 {
			removes = append(removes, deleteReq(ids[i]))
		}
	}
	e.batchWrite(t, inserts)
	e.batchWrite(t, modifies)
	e.batchWrite(t, removes)
	require.Equal(t, 2500, int(e.stream(t).Latest()), "stream records captured")

	got := taskIDs(t, e.receiveAll(t, "dispatch", work, n))
	requireOnce(t, got, ids)
	require.Equal(t, float64(n), e.metrics.Sum("dispatch", "EventCount"))
	require.Zero(t, e.metrics.Sum("dispatch", "ExecutionFailed"))
}

// Each transition is checked against the filter pair: only records whose
// status becomes Pending pass.
func TestBecomesPendingTransitions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	// Rows that exist before the pipe starts reading (LATEST).
	e.put(t, task("pending-stays", "Pending"))
	e.put(t, task("running-back", "Running"))
	e.put(t, task("pending-runs", "Pending"))
	e.put(t, task("no-status", "Pending"))
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: becomesPending(t)})

	e.put(t, task("insert-pending", "Pending"))                  // INSERT Pending: yes
	e.put(t, task("insert-running", "Running"))                  // INSERT Running: no
	e.put(t, task("pending-stays", "Pending", "note", str("x"))) // MODIFY Pending→Pending: no
	e.put(t, task("running-back", "Pending"))                    // MODIFY Running→Pending: yes
	e.put(t, task("pending-runs", "Running"))                    // MODIFY Pending→Running: no
	// MODIFY that removes the status: no.
	_, err := e.ddb.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(tableName), Key: map[string]ddbtypes.AttributeValue{"taskId": str("no-status")},
		UpdateExpression: aws.String("REMOVE #s"), ExpressionAttributeNames: map[string]string{"#s": "status"}})
	require.NoError(t, err)
	// MODIFY from no status to Pending: yes.
	e.put(t, task("no-status", "Pending"))
	// REMOVE: no.
	_, err = e.ddb.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String(tableName), Key: map[string]ddbtypes.AttributeValue{"taskId": str("insert-pending")}})
	require.NoError(t, err)

	got := taskIDs(t, e.receiveAll(t, "dispatch", work, 3))
	requireOnce(t, got, []string{"insert-pending", "running-back", "no-status"})
}

// A record the target refuses (here: its enrichment item is over SQS's
// 1 MiB message limit) is isolated by bisection into exactly one
// dead-letter pointer, while every other record is delivered (at least
// once: a half that fails after some sends is sent again).
func TestBisectIsolatesPoisonRecord(t *testing.T) {
	t.Parallel()
	const poison = "t-13"
	isPoison := func(r json.RawMessage) bool { return strings.Contains(string(r), `"`+poison+`"`) }
	huge := `{"pad":"` + strings.Repeat("x", 1<<20) + `"}`
	fn := &echo{reply: func(batch []json.RawMessage) []byte {
		items := make([]string, len(batch))
		for i, r := range batch {
			items[i] = string(r)
			if isPoison(r) {
				items[i] = huge
			}
		}
		return []byte("[" + strings.Join(items, ",") + "]")
	}}
	e := newEnv(t, withInvoker(fn))
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	// The batching window makes full batches of 10, so the poison record is
	// found by splitting 10 → 5 → 3 → 2 → 1.
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: becomesPending(t), batchSize: 10, window: 1,
		bisect: true, retries: aws.Int32(2), dlq: dlq, enrichment: enrichARN})

	var good []string
	var reqs []ddbtypes.WriteRequest
	for i := range 40 {
		id := fmt.Sprintf("t-%02d", i)
		if id != poison {
			good = append(good, id)
		}
		reqs = append(reqs, putReq(task(id, "Pending")))
	}
	e.batchWrite(t, reqs)

	dead := e.receiveAll(t, "dispatch", dlq, 1)
	c, err := e.queues.Counts(work)
	require.NoError(t, err)
	got := taskIDs(t, e.receiveAll(t, "", work, c.Visible))
	for _, id := range good {
		require.Contains(t, got, id)
	}
	require.NotContains(t, got, poison)
	var dl pipe.DeadLetter
	require.NoError(t, json.Unmarshal([]byte(dead[0]), &dl))
	seq := e.seqOf(t, poison)
	require.Equal(t, "RetryAttemptsExhausted", dl.Context.Condition)
	require.Equal(t, "arn:aws:pipes:us-east-1:000000000000:pipe/dispatch", dl.Context.PartnerResourceArn)
	require.Equal(t, "1.0", dl.Version)
	require.Equal(t, seq, dl.DDBStreamBatchInfo.StartSequenceNumber)
	require.Equal(t, seq, dl.DDBStreamBatchInfo.EndSequenceNumber)
	require.Equal(t, 1, dl.DDBStreamBatchInfo.BatchSize)
	require.Equal(t, e.streamARN, dl.DDBStreamBatchInfo.StreamArn)
	require.Equal(t, e.stream(t).ShardID(), dl.DDBStreamBatchInfo.ShardID)
	require.Equal(t, "2026-03-01T12:00:00.000Z", dl.DDBStreamBatchInfo.ApproximateArrivalOfFirstRecord)

	// The poison record alone was tried 1 + MaximumRetryAttempts times.
	fn.mu.Lock()
	alone := 0
	for _, b := range fn.batches {
		if len(b) == 1 && isPoison(b[0]) {
			alone++
		}
	}
	fn.mu.Unlock()
	require.Equal(t, 3, alone)
	require.Zero(t, e.metrics.Sum("dispatch", "EnrichmentStageFailed"))
}

// An enrichment that fails on one record of a batch is not bisected:
// "Partial batch failure handling is not supported for enrichment"
// (docs/aws-behaviour.md §1.7). The batch is retried whole 1 +
// MaximumRetryAttempts times and dead-lettered whole; the other batches
// are delivered once.
func TestEnrichmentFailureIsNotBisected(t *testing.T) {
	t.Parallel()
	const poison = "t-13"
	isPoison := func(batch []json.RawMessage) bool {
		return slices.ContainsFunc(batch, func(r json.RawMessage) bool { return strings.Contains(string(r), `"`+poison+`"`) })
	}
	fn := &echo{fail: isPoison}
	e := newEnv(t, withInvoker(fn))
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	// Full batches of 10 (the batching window), so t-10 … t-19 fail together.
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: becomesPending(t), batchSize: 10, window: 1,
		bisect: true, retries: aws.Int32(2), dlq: dlq, enrichment: enrichARN})

	var good []string
	var reqs []ddbtypes.WriteRequest
	for i := range 40 {
		id := fmt.Sprintf("t-%02d", i)
		if i < 10 || i >= 20 {
			good = append(good, id)
		}
		reqs = append(reqs, putReq(task(id, "Pending")))
	}
	e.batchWrite(t, reqs)

	requireOnce(t, taskIDs(t, e.receiveAll(t, "dispatch", work, len(good))), good)
	var dl pipe.DeadLetter
	require.NoError(t, json.Unmarshal([]byte(e.receiveAll(t, "", dlq, 1)[0]), &dl))
	require.Equal(t, "RetryAttemptsExhausted", dl.Context.Condition)
	require.Equal(t, 10, dl.DDBStreamBatchInfo.BatchSize)
	require.Equal(t, e.seqOf(t, "t-10"), dl.DDBStreamBatchInfo.StartSequenceNumber)
	require.Equal(t, e.seqOf(t, "t-19"), dl.DDBStreamBatchInfo.EndSequenceNumber)

	fn.mu.Lock()
	defer fn.mu.Unlock()
	failed := 0
	for _, b := range fn.batches {
		if isPoison(b) {
			require.Len(t, b, 10, "never split")
			failed++
		}
	}
	require.Equal(t, 3, failed, "1 attempt + 2 retries")
	require.Equal(t, 3.0, e.metrics.Sum("dispatch", "EnrichmentStageFailed"))
}

// A stopped pipe delivers nothing; once started it delivers everything
// written while it was stopped. A second, running pipe on the same stream
// is the sentinel: once it has delivered the records written meanwhile, a
// stopped pipe that wrongly kept running has had them just as long.
func TestStoppedPipeDeliversAfterStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, sentinel := e.queue(t, "work"), e.queue(t, "sentinel")
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: becomesPending(t)})
	e.createPipe(t, pipeSpec{name: "sentinel", target: sentinel, filters: becomesPending(t)})
	ctx := context.Background()

	e.put(t, task("before", "Pending"))
	require.Equal(t, []string{"before"}, taskIDs(t, e.receiveAll(t, "dispatch", work, 1)))
	require.Equal(t, []string{"before"}, taskIDs(t, e.receiveAll(t, "sentinel", sentinel, 1)))

	out, err := e.api.StopPipe(ctx, &pipes.StopPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateStopping, out.CurrentState)
	require.Equal(t, ptypes.RequestedPipeStateStopped, out.DesiredState)
	e.waitState(t, "dispatch", ptypes.PipeStateStopped)
	at, _ := e.pipes.Checkpoint("dispatch")

	var ids []string
	var reqs []ddbtypes.WriteRequest
	for i := range 50 {
		ids = append(ids, fmt.Sprintf("while-stopped-%02d", i))
		reqs = append(reqs, putReq(task(ids[i], "Pending")))
	}
	e.batchWrite(t, reqs)
	requireOnce(t, taskIDs(t, e.receiveAll(t, "sentinel", sentinel, 50)), ids)
	c, err := e.queues.Counts(work)
	require.NoError(t, err)
	require.Zero(t, c.Visible, "a stopped pipe delivered")
	now, _ := e.pipes.Checkpoint("dispatch")
	require.Equal(t, at, now, "a stopped pipe moved its checkpoint")

	started, err := e.api.StartPipe(ctx, &pipes.StartPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateStarting, started.CurrentState)
	requireOnce(t, taskIDs(t, e.receiveAll(t, "dispatch", work, 50)), ids)
	e.waitState(t, "dispatch", ptypes.PipeStateRunning)
}

// UpdatePipe that changes only the filter keeps the stream position: no
// record is lost or delivered again, and the new filter applies to what
// comes next.
func TestUpdateFilterKeepsPosition(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	pending := `{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}}}}`
	urgent := `{"dynamodb":{"NewImage":{"status":{"S":["Urgent"]}}}}`
	e.createPipe(t, pipeSpec{name: "dispatch", target: work, filters: []string{pending}})

	var first []ddbtypes.WriteRequest
	var want []string
	for i := range 20 {
		id := fmt.Sprintf("first-%02d", i)
		want = append(want, id)
		first = append(first, putReq(task(id, "Pending")))
	}
	first = append(first, putReq(task("early-urgent", "Urgent"))) // filtered out under the old filter
	e.batchWrite(t, first)
	requireOnce(t, taskIDs(t, e.receiveAll(t, "dispatch", work, 20)), want)

	out, err := e.api.UpdatePipe(context.Background(), &pipes.UpdatePipeInput{
		Name: aws.String("dispatch"), RoleArn: aws.String(roleARN),
		SourceParameters: &ptypes.UpdatePipeSourceParameters{FilterCriteria: &ptypes.FilterCriteria{
			Filters: []ptypes.Filter{{Pattern: aws.String(pending)}, {Pattern: aws.String(urgent)}}}},
	})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateUpdating, out.CurrentState)
	e.waitState(t, "dispatch", ptypes.PipeStateRunning)

	var next []ddbtypes.WriteRequest
	var wantNext []string
	for i := range 10 {
		p, u := fmt.Sprintf("next-pending-%02d", i), fmt.Sprintf("next-urgent-%02d", i)
		wantNext = append(wantNext, p, u)
		next = append(next, putReq(task(p, "Pending")), putReq(task(u, "Urgent")))
	}
	e.batchWrite(t, next)
	// A replay from the start would bring back the first 20 (they match the
	// new filter too) and early-urgent.
	requireOnce(t, taskIDs(t, e.receiveAll(t, "dispatch", work, 20)), wantNext)

	d, err := e.api.DescribePipe(context.Background(), &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Len(t, d.SourceParameters.FilterCriteria.Filters, 2)
	require.Equal(t, ptypes.DynamoDBStreamStartPositionLatest, d.SourceParameters.DynamoDBStreamParameters.StartingPosition)
}

// A batch whose oldest record is older than MaximumRecordAgeInSeconds goes
// to the dead-letter queue as one pointer with the age condition.
func TestRecordAgeExceededGoesToDLQ(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	e.faults.Set("aged", true)
	e.createPipe(t, pipeSpec{name: "aged", target: work, batchSize: 10, window: 1, maxAge: 60, dlq: dlq})

	e.batchWrite(t, []ddbtypes.WriteRequest{putReq(task("a", "Pending")), putReq(task("b", "Pending")), putReq(task("c", "Pending"))})
	require.Eventually(t, func() bool { return e.metrics.Sum("aged", "TargetStageFailed") >= 2 }, waitFor, tick)
	e.clock.Advance(61 * time.Second)

	dead := e.receiveAll(t, "aged", dlq, 1)
	var dl pipe.DeadLetter
	require.NoError(t, json.Unmarshal([]byte(dead[0]), &dl))
	require.Equal(t, "MaximumRecordAgeExceeded", dl.Context.Condition)
	require.Equal(t, 3, dl.DDBStreamBatchInfo.BatchSize)
	require.Equal(t, e.seqOf(t, "a"), dl.DDBStreamBatchInfo.StartSequenceNumber)
	require.Equal(t, e.seqOf(t, "c"), dl.DDBStreamBatchInfo.EndSequenceNumber)
	require.Equal(t, "2026-03-01T12:01:01.000Z", dl.Timestamp)
	c, err := e.queues.Counts(work)
	require.NoError(t, err)
	require.Zero(t, c.Visible+c.InFlight)
}

// Without bisection a failing batch is retried whole MaximumRetryAttempts
// times, then sent to the DLQ as one pointer; without a DLQ the records
// are dropped with a warning.
func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		withDLQ bool
	}{{"dlq", true}, {"no-dlq", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
			spec := pipeSpec{name: "failing", target: work, batchSize: 5, window: 1, retries: aws.Int32(2)}
			if tc.withDLQ {
				spec.dlq = dlq
			}
			e.faults.Set("failing", true)
			e.createPipe(t, spec)
			var reqs []ddbtypes.WriteRequest
			for i := range 5 {
				reqs = append(reqs, putReq(task(fmt.Sprintf("t-%d", i), "Pending")))
			}
			e.batchWrite(t, reqs)
			e.waitDrained(t, "failing")

			require.Equal(t, 3.0, e.metrics.Sum("failing", "Invocations"), "1 attempt + 2 retries")
			require.Equal(t, 15.0, e.metrics.Sum("failing", "EventCount"))
			require.Equal(t, 3.0, e.metrics.Sum("failing", "TargetStageFailed"))
			if !tc.withDLQ {
				require.Contains(t, e.logs.String(), "pipe dropped records: no dead-letter queue configured")
				c, err := e.queues.Counts(dlq)
				require.NoError(t, err)
				require.Zero(t, c.Visible)
				return
			}
			var dl pipe.DeadLetter
			require.NoError(t, json.Unmarshal([]byte(e.receiveAll(t, "failing", dlq, 1)[0]), &dl))
			require.Equal(t, "RetryAttemptsExhausted", dl.Context.Condition)
			require.Equal(t, 5, dl.DDBStreamBatchInfo.BatchSize)
			require.Equal(t, e.seqOf(t, "t-0"), dl.DDBStreamBatchInfo.StartSequenceNumber)
			require.Equal(t, e.seqOf(t, "t-4"), dl.DDBStreamBatchInfo.EndSequenceNumber)
		})
	}
}

// A batch that failed is retried whole, and succeeds once the target
// recovers: nothing is lost, nothing goes to the DLQ.
func TestTransientTargetFailureRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	e.faults.Set("flaky", true)
	e.createPipe(t, pipeSpec{name: "flaky", target: work, dlq: dlq, retries: aws.Int32(-1)})
	e.put(t, task("t-1", "Pending"))
	require.Eventually(t, func() bool { return e.metrics.Sum("flaky", "TargetStageFailed") >= 3 }, waitFor, tick)
	e.faults.Set("flaky", false)
	require.Equal(t, []string{"t-1"}, taskIDs(t, e.receiveAll(t, "flaky", work, 1)))
	c, err := e.queues.Counts(dlq)
	require.NoError(t, err)
	require.Zero(t, c.Visible)
}

// The target fault acts per SendMessage: a batch whose second message
// fails has sent its first, so the execution failed partly, and the
// retry sends the first again (at least once) until the second gets
// through.
func TestTargetFaultPerMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	var mu sync.Mutex
	left := 2
	e.faults.FailBodies(func(body []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(string(body), `"t-1"`) && left > 0 {
			left--
			return true
		}
		return false
	})
	e.createPipe(t, pipeSpec{name: "partial", target: work, batchSize: 2, window: 1, dlq: dlq, retries: aws.Int32(5)})
	e.batchWrite(t, []ddbtypes.WriteRequest{putReq(task("t-0", "Pending")), putReq(task("t-1", "Pending"))})

	got := taskIDs(t, e.receiveAll(t, "partial", work, 4))
	require.ElementsMatch(t, []string{"t-0", "t-0", "t-0", "t-1"}, got)
	require.Equal(t, 2.0, e.metrics.Sum("partial", "TargetStagePartiallyFailed"))
	require.Equal(t, 2.0, e.metrics.Sum("partial", "ExecutionPartiallyFailed"))
	c, err := e.queues.Counts(dlq)
	require.NoError(t, err)
	require.Zero(t, c.Visible)
}

// The input template is rendered per record; string placeholders give the
// same valid JSON whether or not the template quotes them.
func TestInputTemplate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	// String placeholders in quotes, objects bare, as the EventBridge user
	// guide asks (eb-pipes-input-transformation.html).
	tmpl := `{"quoted": "<$.dynamodb.NewImage.taskId.S>",` +
		` "firstTag": "<$.dynamodb.NewImage.tags.L[0].S>", "attempts": "<$.dynamodb.NewImage.attempts.N>",` +
		` "missing": <$.dynamodb.NewImage.nope.S>, "text": "task <$.dynamodb.Keys.taskId.S> is <$.dynamodb.NewImage.status.S>",` +
		` "pipe": "<aws.pipes.pipe-name>", "pipeArn": "<aws.pipes.pipe-arn>", "source": "<aws.pipes.source-arn>",` +
		` "target": "<aws.pipes.target-arn>", "enrichment": "<aws.pipes.enrichment-arn>",` +
		` "ingested": "<aws.pipes.event.ingestion-time>", "event": <aws.pipes.event>, "eventJSON": <aws.pipes.event.json>}`
	e.createPipe(t, pipeSpec{name: "templated", target: work, template: tmpl})
	e.put(t, task("t-1", "Pending", "attempts", num(2), "tags", &ddbtypes.AttributeValueMemberL{
		Value: []ddbtypes.AttributeValue{str("news"), str("daily")}}))

	body := e.receiveAll(t, "templated", work, 1)[0]
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Equal(t, "t-1", got["quoted"])
	require.Equal(t, "news", got["firstTag"])
	require.Equal(t, "2", got["attempts"]) // DynamoDB numbers are strings
	require.Nil(t, got["missing"])
	require.Contains(t, got, "missing")
	require.Equal(t, "task t-1 is Pending", got["text"])
	require.Equal(t, "templated", got["pipe"])
	require.Equal(t, "arn:aws:pipes:us-east-1:000000000000:pipe/templated", got["pipeArn"])
	require.Equal(t, e.streamARN, got["source"])
	require.Equal(t, work, got["target"])
	require.Equal(t, "", got["enrichment"])
	require.Equal(t, "2026-03-01T12:00:00.000Z", got["ingested"])
	ev, ok := got["event"].(map[string]any)
	require.True(t, ok, "event is an object: %v", got["event"])
	require.Equal(t, "INSERT", ev["eventName"])
	require.Equal(t, e.streamARN, ev["eventSourceARN"])
	// aws.pipes.event.json is the event's JSON, unescaped: "the variable
	// can only be used as a value for a JSON field" (the guide).
	evJSON, err := json.Marshal(got["eventJSON"])
	require.NoError(t, err)
	var rec events.DynamoDBEventRecord
	require.NoError(t, json.Unmarshal(evJSON, &rec))
	require.Equal(t, "t-1", rec.Change.NewImage["taskId"].String())
}

// The enrichment's response decides what reaches the target
// (docs/aws-behaviour.md §1.7).
func TestEnrichmentResponses(t *testing.T) {
	t.Parallel()
	eleven := "[" + strings.TrimSuffix(strings.Repeat(`{"n":1},`, 11), ",") + "]"
	for _, tc := range []struct {
		name   string
		reply  string
		bodies []string
		dead   int
	}{
		{name: "empty-array", reply: `[]`},
		{name: "empty-object", reply: `{}`},
		{name: "empty-string", reply: `""`},
		{name: "null", reply: `null`},
		{name: "no-payload", reply: ``},
		{name: "object", reply: `{"taskId":"t-1"}`, bodies: []string{`{"taskId":"t-1"}`}},
		{name: "array", reply: `[{"taskId":"t-1"},{"taskId":"t-1","copy":true}]`,
			bodies: []string{`{"taskId":"t-1"}`, `{"taskId":"t-1","copy":true}`}},
		{name: "array-of-empty", reply: `[{}]`, bodies: []string{`{}`}},
		{name: "more-than-target-limit", reply: eleven, dead: 1},
		{name: "not-json", reply: `<html>`, dead: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fn := &echo{reply: func([]json.RawMessage) []byte { return []byte(tc.reply) }}
			e := newEnv(t, withInvoker(fn))
			work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
			e.createPipe(t, pipeSpec{name: "enriched", target: work, enrichment: enrichARN, retries: aws.Int32(0), dlq: dlq})
			e.put(t, task("t-1", "Pending"))
			e.waitDrained(t, "enriched")
			require.Equal(t, tc.bodies, nilIfEmpty(e.receiveAll(t, "enriched", work, len(tc.bodies))))
			c, err := e.queues.Counts(dlq)
			require.NoError(t, err)
			require.Equal(t, tc.dead, c.Visible)
			fn.mu.Lock()
			defer fn.mu.Unlock()
			require.Len(t, fn.batches, 1)
			require.Len(t, fn.batches[0], 1, "the enrichment gets the batch as an array")
			var rec events.DynamoDBEventRecord
			require.NoError(t, json.Unmarshal(fn.batches[0][0], &rec))
			require.Equal(t, "t-1", rec.Change.Keys["taskId"].String())
			require.Equal(t, e.streamARN, rec.EventSourceArn)
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// With ParallelizationFactor > 1 batches run concurrently, yet records of
// one item arrive in the order they were written.
func TestParallelizationKeepsPerKeyOrder(t *testing.T) {
	t.Parallel()
	// The batch holding k-00's first version is slow, so a later version
	// of k-00 handled by another partition would overtake it.
	fn := &echo{delay: func(batch []json.RawMessage) time.Duration {
		for _, r := range batch {
			if strings.Contains(string(r), `"k-00"`) && strings.Contains(string(r), `"version":{"N":"1"}`) {
				return 50 * time.Millisecond
			}
		}
		return time.Millisecond
	}}
	e := newEnv(t, withInvoker(fn))
	work := e.queue(t, "work")
	e.createPipe(t, pipeSpec{name: "parallel", target: work, batchSize: 2, parallel: 4, enrichment: enrichARN, stopped: true})

	const keys, versions = 15, 5
	for v := 1; v <= versions; v++ {
		var reqs []ddbtypes.WriteRequest
		for k := range keys {
			reqs = append(reqs, putReq(task(fmt.Sprintf("k-%02d", k), "Pending", "version", num(v))))
		}
		e.batchWrite(t, reqs)
	}
	_, err := e.api.StartPipe(context.Background(), &pipes.StartPipeInput{Name: aws.String("parallel")})
	require.NoError(t, err)

	bodies := e.receiveAll(t, "parallel", work, keys*versions)
	last := map[string]int{}
	for _, b := range bodies {
		var rec events.DynamoDBEventRecord
		require.NoError(t, json.Unmarshal([]byte(b), &rec))
		id := rec.Change.Keys["taskId"].String()
		v, err := strconv.Atoi(rec.Change.NewImage["version"].Number())
		require.NoError(t, err)
		require.Equal(t, last[id]+1, v, "task %s: version %d after %d", id, v, last[id])
		last[id] = v
	}
	require.Len(t, last, keys)
	fn.mu.Lock()
	defer fn.mu.Unlock()
	require.GreaterOrEqual(t, fn.peak, 2, "partitions never ran concurrently")
	for _, b := range fn.batches {
		require.LessOrEqual(t, len(b), 2, "batch larger than BatchSize")
	}
}

// An UpdatePipe that fixes a failing configuration takes effect while a
// batch is retrying: the batch is delivered under the new definition.
func TestUpdateDuringRetryAppliesNewDefinition(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	broken, fixed := e.queue(t, "broken"), e.queue(t, "fixed")
	e.createPipe(t, pipeSpec{name: "moving", target: broken})
	require.NoError(t, e.queues.DeleteQueue(broken)) // every send now fails
	e.put(t, task("t-1", "Pending"))
	require.Eventually(t, func() bool { return e.metrics.Sum("moving", "TargetStageFailed") >= 2 }, waitFor, tick)

	_, err := e.api.UpdatePipe(context.Background(), &pipes.UpdatePipeInput{
		Name: aws.String("moving"), RoleArn: aws.String(roleARN), Target: aws.String(fixed)})
	require.NoError(t, err)
	require.Equal(t, []string{"t-1"}, taskIDs(t, e.receiveAll(t, "moving", fixed, 1)))
	e.waitState(t, "moving", ptypes.PipeStateRunning)
}

// Deleting a pipe stops its runtime. A pipe left running on the same
// stream is the sentinel: once it has delivered the record, a deleted pipe
// that wrongly kept running has had it just as long.
func TestDeleteStopsDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, sentinel := e.queue(t, "work"), e.queue(t, "sentinel")
	e.createPipe(t, pipeSpec{name: "gone", target: work})
	e.createPipe(t, pipeSpec{name: "sentinel", target: sentinel})
	_, err := e.api.DeletePipe(context.Background(), &pipes.DeletePipeInput{Name: aws.String("gone")})
	require.NoError(t, err)
	e.put(t, task("t-1", "Pending"))
	require.Equal(t, []string{"t-1"}, taskIDs(t, e.receiveAll(t, "sentinel", sentinel, 1)))
	c, err := e.queues.Counts(work)
	require.NoError(t, err)
	require.Zero(t, c.Visible)
}

// TRIM_HORIZON starts at the oldest retained record.
func TestTrimHorizonReadsExistingRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	e.put(t, task("old", "Pending"))
	e.createPipe(t, pipeSpec{name: "from-start", target: work, trimHorizon: true})
	e.put(t, task("new", "Pending"))
	requireOnce(t, taskIDs(t, e.receiveAll(t, "from-start", work, 2)), []string{"old", "new"})
}

// The local cloud's fault injector plugs in as is.
var _ pipe.Faults = emu.Faults(emu.NoFaults{})

// A throttled enrichment is retried until it runs, without using up
// MaximumRetryAttempts and without bisecting (docs/aws-behaviour.md §1.5).
func TestThrottledEnrichmentDoesNotCount(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	throttled := 0
	fn := pipe.InvokerFunc(func(_ context.Context, _ string, payload []byte) (pipe.Invocation, error) {
		mu.Lock()
		defer mu.Unlock()
		if throttled < 5 {
			throttled++
			return pipe.Invocation{}, fmt.Errorf("lambda: TooManyRequestsException: %w", pipe.ErrThrottled)
		}
		return pipe.Invocation{Payload: payload}, nil
	})
	e := newEnv(t, withInvoker(fn))
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	e.createPipe(t, pipeSpec{name: "busy", target: work, enrichment: enrichARN, retries: aws.Int32(0), bisect: true,
		dlq: dlq, batchSize: 2, window: 1})
	e.batchWrite(t, []ddbtypes.WriteRequest{putReq(task("t-1", "Pending")), putReq(task("t-2", "Pending"))})
	requireOnce(t, taskIDs(t, e.receiveAll(t, "busy", work, 2)), []string{"t-1", "t-2"})
	require.Equal(t, 5.0, e.metrics.Sum("busy", "ExecutionThrottled"))
	require.Equal(t, 6.0, e.metrics.Sum("busy", "Invocations"))
	require.Equal(t, 12.0, e.metrics.Sum("busy", "EventCount"), "never bisected")
	require.Zero(t, e.metrics.Sum("busy", "ExecutionFailed"))
	c, err := e.queues.Counts(dlq)
	require.NoError(t, err)
	require.Zero(t, c.Visible)
}

// EnrichmentParameters.InputTemplate shapes each record before the
// enrichment sees the batch; a template that renders plain text gives JSON
// strings. SqsQueueParameters.MessageGroupId may be a path into the item.
func TestEnrichmentInputTemplateAndGroupID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tmpl, want string
	}{
		{"json", `{"id": "<$.dynamodb.Keys.taskId.S>", "status": "<$.dynamodb.NewImage.status.S>"}`, `{"id": "t-1", "status": "Pending"}`},
		{"text", `task <$.dynamodb.Keys.taskId.S>`, `"task t-1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fn := &echo{}
			e := newEnv(t, withInvoker(fn))
			work := e.queue(t, "work")
			in := pipeSpec{name: "shaped", target: work, enrichment: enrichARN}.input(e.streamARN)
			in.EnrichmentParameters = &ptypes.PipeEnrichmentParameters{InputTemplate: aws.String(tc.tmpl)}
			in.TargetParameters = &ptypes.PipeTargetParameters{SqsQueueParameters: &ptypes.PipeTargetSqsQueueParameters{
				MessageGroupId: aws.String("$.id")}}
			_, err := e.api.CreatePipe(context.Background(), in)
			require.NoError(t, err)
			e.waitState(t, "shaped", ptypes.PipeStateRunning)
			e.put(t, task("t-1", "Pending"))
			require.Equal(t, []string{tc.want}, e.receiveAll(t, "shaped", work, 1))
			fn.mu.Lock()
			require.Equal(t, tc.want, string(fn.batches[0][0]))
			fn.mu.Unlock()
		})
	}

	e := newEnv(t)
	work := e.queue(t, "work")
	in := pipeSpec{name: "grouped", target: work}.input(e.streamARN)
	in.TargetParameters = &ptypes.PipeTargetParameters{SqsQueueParameters: &ptypes.PipeTargetSqsQueueParameters{
		MessageGroupId: aws.String("$.dynamodb.Keys.taskId.S")}}
	_, err := e.api.CreatePipe(context.Background(), in)
	require.NoError(t, err)
	e.waitState(t, "grouped", ptypes.PipeStateRunning)
	e.put(t, task("t-7", "Pending"))
	require.Eventually(t, func() bool {
		c, err := e.queues.Counts(work)
		return err == nil && c.Visible == 1
	}, waitFor, tick)
	msgs, err := e.queues.Receive(context.Background(), work, 1, 0, time.Hour)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "t-7", msgs[0].Attributes["MessageGroupId"])
}

// TrackDeliveries records each record's fate once: delivered, or
// dead-lettered after its retries; an untracked pipe records nothing.
func TestTrackDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	e.faults.FailBodies(func(body []byte) bool { return strings.Contains(string(body), `"t-3"`) })
	e.pipes.TrackDeliveries("tracked")
	e.createPipe(t, pipeSpec{name: "tracked", target: work, batchSize: 5, window: 1, bisect: true, retries: aws.Int32(1), dlq: dlq})
	var reqs []ddbtypes.WriteRequest
	for i := range 5 {
		reqs = append(reqs, putReq(task(fmt.Sprintf("t-%d", i), "Pending")))
	}
	e.batchWrite(t, reqs)
	e.receiveAll(t, "tracked", dlq, 1)

	got := e.pipes.Deliveries("tracked")
	want := map[string]pipe.Fate{}
	for i := range 5 {
		id := fmt.Sprintf("t-%d", i)
		f := pipe.Fate{Delivered: 1}
		if id == "t-3" {
			f = pipe.Fate{DeadLettered: 1}
		}
		want[e.seqOf(t, id)] = f
	}
	require.Equal(t, want, got)
	require.Nil(t, e.pipes.Deliveries("other"))
}

// An injected enrichment error or timeout fails the enrichment stage: the
// batch is retried whole (never bisected), the target sees nothing until
// the enrichment succeeds, and then each record once.
func TestEnrichmentFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hang time.Duration
	}{{"error", 0}, {"timeout", 20 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fn := &echo{}
			e := newEnv(t, withInvoker(fn))
			work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
			var mu sync.Mutex
			left := 2
			e.faults.FailEnrichment(func(string) (bool, time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				if left == 0 {
					return false, 0
				}
				left--
				return true, tc.hang
			})
			e.createPipe(t, pipeSpec{name: "enriched", target: work, enrichment: enrichARN, batchSize: 3, window: 1,
				bisect: true, retries: aws.Int32(3), dlq: dlq})
			start := time.Now()
			e.batchWrite(t, []ddbtypes.WriteRequest{putReq(task("t-0", "Pending")), putReq(task("t-1", "Pending")), putReq(task("t-2", "Pending"))})

			requireOnce(t, taskIDs(t, e.receiveAll(t, "enriched", work, 3)), []string{"t-0", "t-1", "t-2"})
			require.Equal(t, 2.0, e.metrics.Sum("enriched", "EnrichmentStageFailed"))
			require.Equal(t, 9.0, e.metrics.Sum("enriched", "EventCount"), "three attempts of the whole batch of 3")
			fn.mu.Lock()
			require.Len(t, fn.batches, 1, "the faults fail before the function is invoked")
			fn.mu.Unlock()
			require.GreaterOrEqual(t, time.Since(start), 2*tc.hang, "each timed-out invocation hung first")
		})
	}
}
