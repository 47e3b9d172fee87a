package localcloud_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// These tests run the local cloud end to end: real aws-sdk-go-v2 clients
// over HTTP create the resources, and the functions are the real
// bootstrap of testdata/e2efn, run as processes through the Runtime API.
// What the handlers saw is read from their journal files, independently
// of the local cloud's own counters.

// TestEventSourceMappingFailureHandling proves how an SQS event source
// mapping settles what a real bootstrap did: a partial batch response
// deletes only the successes; a panicking process is replaced and its
// message redelivered; a process that sleeps past its timeout is killed
// ("Task timed out") and its message redelivered after the visibility
// timeout (Lambda developer guide, with-sqs.html and
// services-sqs-errorhandling.html; docs/aws-behaviour.md §4).
func TestEventSourceMappingFailureHandling(t *testing.T) {
	t.Parallel()
	// The queue's visibility timeout must be at least the function
	// timeout (services-sqs-configure.html); both are short to keep the
	// test fast. Redeliveries are checked to come no sooner than
	// visibility minus slack: the slack covers the time between the
	// receive and the handler's first journal line (a cold start).
	const visibility = 3 * time.Second
	const slack = time.Second

	t.Run("partial batch deletes only the successes", func(t *testing.T) {
		t.Parallel()
		e := startCloud(t)
		journal := e.createFunction(t, fnSpec{name: "partial", mode: "sqs", timeout: 2, journal: true})
		qURL, qARN := e.createQueue(t, "partial", visibility)
		failKeys := map[string]bool{"m2": true, "m5": true, "m7": true}
		var bodies []string
		for i := range 10 {
			key := fmt.Sprintf("m%d", i)
			bodies = append(bodies, fmt.Sprintf(`{"key":%q,"failFirst":%t}`, key, failKeys[key]))
		}
		ids := e.sendBodies(t, qURL, bodies)
		failIDs := map[string]bool{}
		for i, id := range ids {
			if failKeys[fmt.Sprintf("m%d", i)] {
				failIDs[id] = true
			}
		}
		uuid := e.createMapping(t, mappingSpec{function: "partial", queueARN: qARN, batchSize: 10, reportFailures: true})

		// After the first round, exactly the reported messages remain, in
		// flight until their visibility timeout ends.
		require.Eventually(t, func() bool { return e.mappingStats(t, uuid).Deleted == 7 }, settle, poll)
		visible, inFlight := e.queueDepth(t, qURL)
		require.Equal(t, 0, visible)
		require.Equal(t, 3, inFlight, "only the three failed messages remain")

		st := e.waitDeleted(t, uuid, 10)
		require.Equal(t, int64(3), st.ItemFailures)
		require.Zero(t, st.FunctionErrors)
		require.Zero(t, st.InvalidResponses)
		visible, inFlight = e.queueDepth(t, qURL)
		require.Zero(t, visible+inFlight, "queue drained")

		entries := readJournal(t, journal)
		seen := map[string][]int{}         // message id → receive counts, in order
		firstAt := map[string]time.Time{}  // message id → first delivery
		secondAt := map[string]time.Time{} // message id → second delivery
		mixed := false                     // one invocation held both outcomes
		reported := map[string]bool{}
		for _, en := range entries {
			switch en.Kind {
			case "start":
				for _, d := range en.Messages {
					seen[d.MessageID] = append(seen[d.MessageID], d.ReceiveCount)
					at := time.Unix(0, en.UnixNano)
					if d.ReceiveCount == 1 {
						firstAt[d.MessageID] = at
					} else {
						secondAt[d.MessageID] = at
					}
				}
				if len(en.Messages) > 1 {
					var fails, oks int
					for _, d := range en.Messages {
						if failIDs[d.MessageID] {
							fails++
						} else {
							oks++
						}
					}
					mixed = mixed || (fails > 0 && oks > 0)
				}
			case "end":
				for _, id := range en.Failed {
					reported[id] = true
				}
			}
		}
		require.True(t, mixed, "some invocation carried both successes and failures: %+v", entries)
		require.Equal(t, failIDs, reported, "the handler reported exactly the failing ids")
		for _, id := range ids {
			if failIDs[id] {
				require.Equal(t, []int{1, 2}, seen[id], "failed message %s is redelivered once, with ApproximateReceiveCount 2", id)
				require.GreaterOrEqual(t, secondAt[id].Sub(firstAt[id]), visibility-slack, "redelivered only after the visibility timeout")
			} else {
				require.Equal(t, []int{1}, seen[id], "successful message %s is deleted, never redelivered", id)
			}
		}
	})

	t.Run("a panicking process is replaced", func(t *testing.T) {
		t.Parallel()
		e := startCloud(t)
		journal := e.createFunction(t, fnSpec{name: "crashy", mode: "sqs", timeout: 2, journal: true})
		qURL, qARN := e.createQueue(t, "crashy", visibility)
		ids := e.sendBodies(t, qURL, []string{`{"key":"p","panicFirst":true}`})
		uuid := e.createMapping(t, mappingSpec{function: "crashy", queueARN: qARN, batchSize: 1, reportFailures: true})

		st := e.waitDeleted(t, uuid, 1)
		require.Equal(t, int64(1), st.FunctionErrors, "the panic failed the batch")
		starts, ends := splitJournal(readJournal(t, journal))
		require.Len(t, starts, 2, "delivered twice")
		require.Len(t, ends, 1, "only the second delivery returned")
		require.Equal(t, ids[0], starts[0].Messages[0].MessageID)
		require.Equal(t, ids[0], starts[1].Messages[0].MessageID)
		require.Equal(t, 1, starts[0].Messages[0].ReceiveCount)
		require.Equal(t, 2, starts[1].Messages[0].ReceiveCount)
		require.NotEqual(t, starts[0].PID, starts[1].PID, "a fresh process ran the redelivery")
		require.GreaterOrEqual(t, time.Duration(starts[1].UnixNano-starts[0].UnixNano), visibility-slack)

		fs, err := e.cloud.Functions().Stats("crashy")
		require.NoError(t, err)
		require.Equal(t, int64(2), fs.Invocations)
		require.Equal(t, int64(1), fs.Errors)
		require.Equal(t, int64(2), fs.ColdStarts, "the panicked process was not reused")
		requireGone(t, starts[0].PID)
	})

	t.Run("a process past its timeout is killed", func(t *testing.T) {
		t.Parallel()
		e := startCloud(t)
		journal := e.createFunction(t, fnSpec{name: "sleepy", mode: "sqs", timeout: 1, journal: true})
		qURL, qARN := e.createQueue(t, "sleepy", visibility)
		ids := e.sendBodies(t, qURL, []string{`{"key":"s","sleepFirstMs":30000}`})
		uuid := e.createMapping(t, mappingSpec{function: "sleepy", queueARN: qARN, batchSize: 1, reportFailures: true})

		st := e.waitDeleted(t, uuid, 1)
		require.Equal(t, int64(1), st.FunctionErrors, "the timeout failed the batch")
		starts, ends := splitJournal(readJournal(t, journal))
		require.Len(t, starts, 2, "delivered twice")
		require.Len(t, ends, 1, "the first process never returned")
		require.Equal(t, ids[0], starts[1].Messages[0].MessageID)
		require.Equal(t, []int{1, 2}, []int{starts[0].Messages[0].ReceiveCount, starts[1].Messages[0].ReceiveCount})
		require.NotEqual(t, starts[0].PID, starts[1].PID, "the timed-out process was killed, not reused")
		require.GreaterOrEqual(t, time.Duration(starts[1].UnixNano-starts[0].UnixNano), visibility-slack)
		requireGone(t, starts[0].PID)

		fs, err := e.cloud.Functions().Stats("sleepy")
		require.NoError(t, err)
		require.Equal(t, int64(1), fs.Timeouts)
		require.Equal(t, int64(2), fs.ColdStarts)

		// The timeout is in the function's log group, as Lambda writes it.
		logs := cloudwatchlogs.NewFromConfig(e.cfg)
		out, err := logs.FilterLogEvents(context.Background(), &cloudwatchlogs.FilterLogEventsInput{
			LogGroupName: aws.String("/aws/lambda/sleepy")})
		require.NoError(t, err)
		var lines []string
		for _, ev := range out.Events {
			lines = append(lines, aws.ToString(ev.Message))
		}
		// Lambda reports the elapsed time, which overshoots the timeout a little under load.
		require.Regexp(t, `Task timed out after 1\.\d\d seconds`, strings.Join(lines, "\n"))
	})
}

// splitJournal separates start and end lines.
func splitJournal(entries []entry) (starts, ends []entry) {
	for _, e := range entries {
		if e.Kind == "start" {
			starts = append(starts, e)
		} else {
			ends = append(ends, e)
		}
	}
	return starts, ends
}

// requireGone waits until no process has the given id: the local cloud
// killed and reaped it.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, settle, poll, "process %d still exists", pid)
}

// TestConcurrencyCaps proves that the number of function processes running
// at once never exceeds the mapping's MaximumConcurrency or the function's
// reserved concurrency, whichever is lower. It is measured three ways: the
// function service's peak, the mapping's peak, and the overlap of the
// handlers' own start and end times (the handler sleeps 20 ms per message,
// so 200 messages keep every allowed process busy).
func TestConcurrencyCaps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		esmMax      int32
		reserved    int32
		cap         int
		wantThrottl bool // the reservation, not the mapping, is the binding limit
	}{
		{name: "mapping max below reserved", esmMax: 5, reserved: 8, cap: 5},
		{name: "reserved below mapping max", esmMax: 5, reserved: 3, cap: 3, wantThrottl: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const messages = 200
			e := startCloud(t)
			journal := e.createFunction(t, fnSpec{name: "worker", mode: "sqs", timeout: 5, reserved: tc.reserved, journal: true})
			// A visibility timeout long enough that throttled batches are
			// retried rather than expiring: every message runs once.
			qURL, qARN := e.createQueue(t, "work", 60*time.Second)
			bodies := make([]string, messages)
			for i := range bodies {
				bodies[i] = fmt.Sprintf(`{"key":"w%d","workMs":20}`, i)
			}
			e.sendBodies(t, qURL, bodies)
			uuid := e.createMapping(t, mappingSpec{function: "worker", queueARN: qARN, batchSize: 1,
				maxConcurrency: tc.esmMax, reportFailures: true})

			ms := e.waitDeleted(t, uuid, messages)
			fs, err := e.cloud.Functions().Stats("worker")
			require.NoError(t, err)
			entries := readJournal(t, journal)
			starts, ends := splitJournal(entries)
			overlap := maxOverlap(entries)
			t.Logf("peaks: function %d, mapping %d, handlers %d; throttles: function %d, mapping %d; processes started %d",
				fs.PeakConcurrent, ms.PeakConcurrency, overlap, fs.Throttles, ms.Throttles, fs.ColdStarts)

			require.Len(t, starts, messages, "every message ran once")
			require.Len(t, ends, messages)
			require.LessOrEqual(t, fs.PeakConcurrent, tc.cap, "function peak concurrency")
			require.LessOrEqual(t, overlap, tc.cap, "handlers running at once")
			require.LessOrEqual(t, ms.PeakConcurrency, int64(tc.esmMax), "mapping peak concurrency")
			require.LessOrEqual(t, int(fs.ColdStarts), int(tc.reserved), "processes never exceed the reservation")
			// Not vacuous: the handlers did run in parallel.
			require.GreaterOrEqual(t, overlap, 2, "handlers ran concurrently")
			if tc.wantThrottl {
				require.Positive(t, ms.Throttles, "the mapping was throttled by the reservation")
				require.Equal(t, ms.Throttles, fs.Throttles)
			}
		})
	}
}

// becomesPending is the pipeline's dispatch filter pair (docs/aws-behaviour.md §1.3;
// terraform/modules/dispatch's default): the new image is Pending and
// the old image had no status (INSERT) or another one (MODIFY).
var becomesPending = []string{
	`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`,
	`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"anything-but":["Pending"]}]}}}}`,
}

// pipeline is a table with a stream, a Pipe with the "becomes Pending"
// filters to a work queue, and an event source mapping from the queue to a
// real bootstrap that marks each task Finished through the SDK.
type pipeline struct {
	*e2e
	pipes                     *pipes.Client
	table, fn, uuid, queueURL string
}

func newPipeline(tb testing.TB, e *e2e, mode string, maxConcurrency int32) *pipeline {
	tb.Helper()
	ctx := context.Background()
	p := &pipeline{e2e: e, table: "tasks", fn: "finisher"}
	tbl, err := e.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(p.table),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(tb, err)
	var qARN string
	p.queueURL, qARN = e.createQueue(tb, "work", 60*time.Second)

	var filters []ptypes.Filter
	for _, f := range becomesPending {
		filters = append(filters, ptypes.Filter{Pattern: aws.String(f)})
	}
	api := pipes.NewFromConfig(e.cfg)
	p.pipes = api
	_, err = api.CreatePipe(ctx, &pipes.CreatePipeInput{
		Name: aws.String("dispatch"), RoleArn: aws.String(roleARN),
		Source: tbl.TableDescription.LatestStreamArn, Target: aws.String(qARN),
		SourceParameters: &ptypes.PipeSourceParameters{
			DynamoDBStreamParameters: &ptypes.PipeSourceDynamoDBStreamParameters{
				StartingPosition:               ptypes.DynamoDBStreamStartPositionLatest,
				BatchSize:                      aws.Int32(10),
				MaximumBatchingWindowInSeconds: aws.Int32(0),
				MaximumRetryAttempts:           aws.Int32(3),
				OnPartialBatchItemFailure:      ptypes.OnPartialBatchItemFailureStreamsAutomaticBisect,
			},
			FilterCriteria: &ptypes.FilterCriteria{Filters: filters},
		},
	})
	require.NoError(tb, err)
	p.waitPipe(tb, ptypes.PipeStateRunning)

	e.createFunction(tb, fnSpec{name: p.fn, mode: mode, timeout: 10, env: map[string]string{"TABLE_NAME": p.table}})
	p.uuid = e.createMapping(tb, mappingSpec{function: p.fn, queueARN: qARN, batchSize: 1,
		maxConcurrency: maxConcurrency, reportFailures: true})
	return p
}

// waitPipe waits until the pipe has settled in state want.
func (p *pipeline) waitPipe(tb testing.TB, want ptypes.PipeState) {
	tb.Helper()
	require.Eventually(tb, func() bool {
		out, err := p.pipes.DescribePipe(context.Background(), &pipes.DescribePipeInput{Name: aws.String("dispatch")})
		return err == nil && out.CurrentState == want
	}, settle, poll, "pipe never became %s", want)
}

func (p *pipeline) put(tb testing.TB, id, status string) {
	tb.Helper()
	_, err := p.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(p.table),
		Item: map[string]ddbtypes.AttributeValue{
			"taskId": &ddbtypes.AttributeValueMemberS{Value: id},
			"status": &ddbtypes.AttributeValueMemberS{Value: status},
		}})
	require.NoError(tb, err)
}

func (p *pipeline) status(tb testing.TB, id string) string {
	tb.Helper()
	out, err := p.ddb.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(p.table),
		Key: map[string]ddbtypes.AttributeValue{"taskId": &ddbtypes.AttributeValueMemberS{Value: id}}, ConsistentRead: aws.Bool(true)})
	require.NoError(tb, err)
	s, ok := out.Item["status"].(*ddbtypes.AttributeValueMemberS)
	require.True(tb, ok, "task %s has no status: %v", id, out.Item)
	return s.Value
}

// TestPipelineSmoke runs the pipeline's data path through the assembled
// cloud: rows written Pending (inserted, or changed to Pending later) reach
// the handler through stream → Pipe → queue → mapping, and the handler
// marks them Finished through the SDK at the AWS_ENDPOINT_URL the cloud
// gave its process. Rows that never become Pending are not dispatched, and
// the handler's own Finished writes do not loop back.
func TestPipelineSmoke(t *testing.T) {
	t.Parallel()
	e := startCloud(t)
	p := newPipeline(t, e, "finish", 5)
	e.cloud.ResetCounts()

	const inserted, modified, ignored = 30, 5, 3
	for i := range inserted {
		p.put(t, fmt.Sprintf("t-%02d", i), "Pending")
	}
	for i := range modified {
		p.put(t, fmt.Sprintf("r-%02d", i), "Running") // not dispatched: never Pending
	}
	for i := range ignored {
		p.put(t, fmt.Sprintf("f-%02d", i), "Failed")
	}
	for i := range modified {
		_, err := p.ddb.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(p.table),
			Key:                       map[string]ddbtypes.AttributeValue{"taskId": &ddbtypes.AttributeValueMemberS{Value: fmt.Sprintf("r-%02d", i)}},
			UpdateExpression:          aws.String("SET #s = :p"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":p": &ddbtypes.AttributeValueMemberS{Value: "Pending"}},
		})
		require.NoError(t, err)
	}
	var want []string
	for i := range inserted {
		want = append(want, fmt.Sprintf("t-%02d", i))
	}
	for i := range modified {
		want = append(want, fmt.Sprintf("r-%02d", i))
	}
	require.Eventually(t, func() bool {
		for _, id := range want {
			if p.status(t, id) != "Finished" {
				return false
			}
		}
		return true
	}, settle, poll, "every dispatched task becomes Finished")

	// A barrier: the stream is one ordered shard, so once a task written
	// after every Finished update has itself finished, the Pipe has
	// judged all those updates (and must have filtered them out).
	p.put(t, "barrier", "Pending")
	require.Eventually(t, func() bool { return p.status(t, "barrier") == "Finished" }, settle, poll)
	st := e.waitDeleted(t, p.uuid, inserted+modified+1)
	require.Equal(t, int64(inserted+modified+1), st.Polled, "one message per task, no loop from the Finished writes")
	for i := range ignored {
		require.Equal(t, "Failed", p.status(t, fmt.Sprintf("f-%02d", i)))
	}
	visible, inFlight := e.queueDepth(t, p.queueURL)
	require.Zero(t, visible+inFlight)

	counts := map[string]int64{}
	var rows []localcloud.CallerCount
	getJSON(t, e.cloud.AdminClient(), e.cloud.URL()+"/_taskpipe/counts/callers", &rows)
	for _, r := range rows {
		counts[r.Caller+" "+r.Service+":"+r.Operation] = r.Count
	}
	finished := int64(inserted + modified + 1)
	require.Equal(t, finished, counts[p.fn+" "+emu.ServiceDynamoDB+":UpdateItem"], "the handler finished each task once: %v", rows)
	require.Equal(t, int64(inserted+modified+ignored+1), counts[localcloud.ClientCaller+" "+emu.ServiceDynamoDB+":PutItem"], "%v", rows)
	require.Equal(t, int64(modified), counts[localcloud.ClientCaller+" "+emu.ServiceDynamoDB+":UpdateItem"], "%v", rows)
	for _, r := range rows {
		if r.Caller == p.fn {
			require.Equal(t, "dynamodb:UpdateItem", r.Service+":"+r.Operation, "the handler made no other call: %v", rows)
		}
	}
}

// TestScheduleFires drives EventBridge Scheduler through the cloud with a
// real bootstrap as target. On demand: the admin endpoint fires a
// rate(1 minute) schedule whose first occurrence is an hour away. On time:
// localcloud.Config cannot inject the scheduler's clock (only Now, and the
// scheduler then waits with real timers), so the test uses the real clock
// with a StartDate 58 s in the past, which Scheduler accepts (up to 5
// minutes back); the next occurrence, StartDate + 1 minute, is 2 s away.
// The schedule package's ManualClock tests cover longer horizons.
func TestScheduleFires(t *testing.T) {
	t.Parallel()
	e := startCloud(t)
	ctx := context.Background()
	journal := e.createFunction(t, fnSpec{name: "ticker", mode: "event", timeout: 5, journal: true})
	fn, err := e.cloud.Functions().Configuration("ticker")
	require.NoError(t, err)
	api := scheduler.NewFromConfig(e.cfg)
	create := func(name string, start time.Time) {
		t.Helper()
		_, err := api.CreateSchedule(ctx, &scheduler.CreateScheduleInput{
			Name:               aws.String(name),
			ScheduleExpression: aws.String("rate(1 minute)"),
			StartDate:          aws.Time(start),
			FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff},
			Target: &schedtypes.Target{
				Arn:     aws.String(fn.FunctionArn),
				RoleArn: aws.String(roleARN),
				Input:   aws.String(fmt.Sprintf(`{"schedule":%q,"scheduledTime":"<aws.scheduler.scheduled-time>"}`, name)),
			},
		})
		require.NoError(t, err)
	}
	type event struct {
		Schedule      string    `json:"schedule"`
		ScheduledTime time.Time `json:"scheduledTime"`
	}
	events := func() (map[string][]event, map[string][]time.Time) {
		byName, at := map[string][]event{}, map[string][]time.Time{}
		for _, en := range readJournal(t, journal) {
			var ev event
			require.NoError(t, json.Unmarshal(en.Event, &ev))
			byName[ev.Schedule] = append(byName[ev.Schedule], ev)
			at[ev.Schedule] = append(at[ev.Schedule], time.Unix(0, en.UnixNano))
		}
		return byName, at
	}

	now := time.Now().UTC().Truncate(time.Second)
	create("on-demand", now.Add(time.Hour))
	start := now.Add(-58 * time.Second)
	create("on-time", start)

	var firing struct {
		ScheduledTime time.Time `json:"scheduledTime"`
		Payload       string    `json:"payload"`
	}
	code := adminPost(t, e.cloud.AdminClient(), e.cloud.URL()+"/_taskpipe/schedules/default/on-demand/fire", &firing)
	require.Equal(t, 200, code)
	require.Contains(t, firing.Payload, `"schedule":"on-demand"`)

	due := start.Add(time.Minute)
	require.Eventually(t, func() bool {
		byName, _ := events()
		return len(byName["on-demand"]) == 1 && len(byName["on-time"]) == 1
	}, settle, poll, "both schedules fired")
	byName, at := events()
	require.True(t, byName["on-demand"][0].ScheduledTime.Equal(firing.ScheduledTime.Truncate(time.Second)),
		"the on-demand firing carries its own time: %v vs %v", byName["on-demand"][0].ScheduledTime, firing.ScheduledTime)
	require.True(t, byName["on-time"][0].ScheduledTime.Equal(due), "scheduled time %v, want %v", byName["on-time"][0].ScheduledTime, due)
	require.False(t, at["on-time"][0].Before(due), "fired at %v, not before %v", at["on-time"][0], due)

	var got struct {
		Stats struct {
			Invocations int64 `json:"invocations"`
		} `json:"stats"`
	}
	getJSON(t, e.cloud.AdminClient(), e.cloud.URL()+"/_taskpipe/schedules/default/on-time", &got)
	require.Equal(t, int64(1), got.Stats.Invocations, "fired once: the past occurrence at StartDate is not replayed")
}

// TestMaxOverlap checks the measuring stick of TestConcurrencyCaps.
func TestMaxOverlap(t *testing.T) {
	t.Parallel()
	span := func(inv string, from, to int64) []entry {
		return []entry{{Kind: "start", Invocation: inv, UnixNano: from}, {Kind: "end", Invocation: inv, UnixNano: to}}
	}
	join := func(parts ...[]entry) []entry {
		var out []entry
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name    string
		entries []entry
		want    int
	}{
		{name: "empty", want: 0},
		{name: "one", entries: span("a", 1, 5), want: 1},
		{name: "sequential", entries: join(span("a", 1, 5), span("b", 6, 9)), want: 1},
		{name: "touching ends do not overlap", entries: join(span("a", 1, 5), span("b", 5, 9)), want: 1},
		{name: "nested", entries: join(span("a", 1, 10), span("b", 2, 3), span("c", 4, 8), span("d", 5, 6)), want: 3},
		{name: "journal order differs from time order", entries: join(span("b", 3, 7), span("a", 1, 4), span("c", 6, 9)), want: 2},
		{name: "killed invocation runs to the end", entries: append(join(span("b", 5, 9)), entry{Kind: "start", Invocation: "a", UnixNano: 1}), want: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, maxOverlap(tc.entries))
		})
	}
}

// TestInvokeColdStart invokes a real bootstrap once through the Lambda API
// of the assembled cloud: the smallest path that starts a process. Under
// -race it is the minimal reproduction of any race between starting an
// environment and serving its first Runtime API request.
func TestInvokeColdStart(t *testing.T) {
	t.Parallel()
	e := startCloud(t)
	journal := e.createFunction(t, fnSpec{name: "once", mode: "event", timeout: 5, journal: true})
	out, err := e.lam.Invoke(context.Background(), &lambda.InvokeInput{FunctionName: aws.String("once"), Payload: []byte(`{"hello":"world"}`)})
	require.NoError(t, err)
	require.Nil(t, out.FunctionError)
	require.JSONEq(t, `{"status":"recorded"}`, string(out.Payload))
	starts, _ := splitJournal(readJournal(t, journal))
	require.Len(t, starts, 1)
	require.JSONEq(t, `{"hello":"world"}`, string(starts[0].Event))
	fs, err := e.cloud.Functions().Stats("once")
	require.NoError(t, err)
	require.Equal(t, int64(1), fs.ColdStarts)
}
