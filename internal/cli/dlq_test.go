package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
)

const poisonReason = "poison: message: parse: invalid character '-' in literal true (expecting 'r')"

// fillWorkDLQ puts a poison message (forwarded by the scraper's
// Forwarder) and a message that SQS itself moved after maxReceiveCount
// into the work DLQ.
func fillWorkDLQ(t *testing.T, tc *testCloud) {
	t.Helper()
	ctx := context.Background()
	fwd := &sqsqueue.Forwarder{Client: tc.sqs, QueueURL: tc.workDLQ}
	require.NoError(t, fwd.Forward(ctx, sqsqueue.Poison{Body: `{"taskId": t-4}`, Reason: poisonReason,
		SourceMessageID: "m-1", SourceQueueARN: tc.queueARN(t, tc.workQ), ReceiveCount: 1}))

	body, err := message.New("r/0000001", "r", "https://a.example.com/").Marshal()
	require.NoError(t, err)
	_, err = tc.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(tc.workQ), MessageBody: aws.String(string(body))})
	require.NoError(t, err)
	for range 3 { // maxReceiveCount 3: the fourth receive moves it
		out, err := tc.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(tc.workQ)})
		require.NoError(t, err)
		require.Len(t, out.Messages, 1)
		_, err = tc.sqs.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(tc.workQ), ReceiptHandle: out.Messages[0].ReceiptHandle})
		require.NoError(t, err)
	}
	out, err := tc.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(tc.workQ)})
	require.NoError(t, err)
	require.Empty(t, out.Messages, "moved to the DLQ")
	visible, _ := tc.counts(t, tc.workDLQ)
	require.Equal(t, "2", visible)
}

func pointerBody(t *testing.T, streamARN, shard, start, end string, size int) string {
	t.Helper()
	p := map[string]any{
		"context": map[string]any{"partnerResourceArn": "arn:aws:pipes:us-east-1:000000000000:pipe/taskpipe", "condition": "RetryAttemptsExhausted"},
		"version": "1.0", "timestamp": "2026-01-01T12:00:00.000Z",
		"DDBStreamBatchInfo": map[string]any{"shardId": shard, "startSequenceNumber": start, "endSequenceNumber": end,
			"approximateArrivalOfFirstRecord": "2026-01-01T12:00:00Z", "approximateArrivalOfLastRecord": "2026-01-01T12:00:00Z",
			"batchSize": size, "streamArn": streamARN},
	}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return string(b)
}

func (tc *testCloud) send(t *testing.T, url, body string) {
	t.Helper()
	_, err := tc.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
	require.NoError(t, err)
}

func TestDLQListShowsReasonsWithoutConsuming(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	fillWorkDLQ(t, tc)
	tc.send(t, tc.pipeDLQ, pointerBody(t, "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2026-01-01T00:00:00.000",
		"shardId-00000001", "000000000000000000101", "000000000000000000104", 4))
	tc.send(t, tc.pipeDLQ, `not a pointer`)

	res := tc.run(t, (*cli.Env).DLQList, "")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	out := res.stdout.String()
	for _, want := range []string{
		"work DLQ " + tc.workDLQ + ": 2 messages shown (about 2 visible, 0 in flight before listing)",
		"reason: " + poisonReason,
		`body: {"taskId": t-4}`,
		"reason: moved by SQS after maxReceiveCount receives",
		"from: " + tc.queueARN(t, tc.workQ),
		"task: r/0000001 run r url https://a.example.com/",
		"pipe DLQ " + tc.pipeDLQ + ": 2 messages shown",
		"reason: RetryAttemptsExhausted",
		"pipe: arn:aws:pipes:us-east-1:000000000000:pipe/taskpipe",
		"shard: shardId-00000001 sequence 000000000000000000101..000000000000000000104 (batch of 4, records arrived 2026-01-01T12:00:00Z .. 2026-01-01T12:00:00Z)",
		"reason: not a pipe pointer: pipe pointer: invalid character",
	} {
		require.Contains(t, out, want)
	}

	// Nothing consumed, nothing left hidden.
	for _, q := range []string{tc.workDLQ, tc.pipeDLQ} {
		visible, inFlight := tc.counts(t, q)
		require.Equal(t, "2", visible, q)
		require.Equal(t, "0", inFlight, q)
	}

	// JSON lines, one queue.
	res = tc.run(t, (*cli.Env).DLQList, "", "--queue", "pipe", "--json")
	require.NoError(t, res.err)
	lines := strings.Split(strings.TrimSpace(res.stdout.String()), "\n")
	require.Len(t, lines, 2)
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got = append(got, m)
	}
	sort.Slice(got, func(i, j int) bool { return got[i]["pointer"] != nil && got[j]["pointer"] == nil })
	require.Equal(t, "pipe", got[0]["queue"])
	require.Equal(t, "RetryAttemptsExhausted", got[0]["reason"])
	require.Equal(t, "shardId-00000001", got[0]["pointer"].(map[string]any)["DDBStreamBatchInfo"].(map[string]any)["shardId"])
	require.Nil(t, got[1]["pointer"])
	visible, _ := tc.counts(t, tc.pipeDLQ)
	require.Equal(t, "2", visible)
}

func TestDLQListUsage(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	for _, args := range [][]string{{"--queue", "all"}, {"--max", "0"}, {"--visibility", "10ms"}, {"extra"}} {
		res := tc.run(t, (*cli.Env).DLQList, "", args...)
		require.Equal(t, 2, exitCode(res.err), "args %q: %v", args, res.err)
	}
	env, _, stderr := tc.env("")
	require.Equal(t, 2, exitCode(env.DLQ(context.Background(), []string{"purge"})))
	require.Contains(t, stderr.String(), "Usage: taskpipe dlq <list|redrive>")
	env.Getenv = func(string) string { return "" }
	err := env.DLQList(context.Background(), []string{"--queue", "pipe"})
	require.ErrorContains(t, err, "missing the pipe DLQ URL: set --pipe-dlq-url or TASKPIPE_PIPE_DLQ_URL")
}

func TestDLQRedriveWork(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	fillWorkDLQ(t, tc)
	env, stdout, stderr := tc.env("")
	env.Sleep = cli.SleepContext // the move task paces itself with real timers
	err := env.DLQRedrive(context.Background(), []string{"--queue", "work", "--interval", "100ms"})
	require.NoError(t, err, "stderr: %s", stderr)
	require.Contains(t, stdout.String(), "work DLQ redrive started: about 2 messages")
	require.Contains(t, stdout.String(), "work DLQ redrive completed: 2 messages moved to the work queue")
	require.Contains(t, stderr.String(), "dlq redrive: work: COMPLETED: moved 2 of 2", "progress counts, not pointer addresses")

	visible, inFlight := tc.counts(t, tc.workDLQ)
	require.Equal(t, [2]string{"0", "0"}, [2]string{visible, inFlight})
	bodies := tc.drain(t, tc.workQ)
	sort.Strings(bodies)
	require.Equal(t, []string{
		`{"taskId": t-4}`, // the poison message moves too: the destination is explicit
		`{"v":1,"taskId":"r/0000001","runId":"r","url":"https://a.example.com/","domain":"example.com"}`,
	}, bodies)

	// An empty DLQ starts no task.
	env, stdout, _ = tc.env("")
	require.NoError(t, env.DLQRedrive(context.Background(), nil))
	require.Contains(t, stdout.String(), "work DLQ is empty")
}

// streamRecords reads every record of the table's stream.
func (tc *testCloud) streamRecords(t *testing.T) (arn, shard string, recs []streamtypes.Record) {
	t.Helper()
	ctx := context.Background()
	desc, err := tc.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tc.table)})
	require.NoError(t, err)
	arn = aws.ToString(desc.Table.LatestStreamArn)
	sd, err := tc.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	require.Len(t, sd.StreamDescription.Shards, 1)
	shard = aws.ToString(sd.StreamDescription.Shards[0].ShardId)
	it, err := tc.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
		ShardId: aws.String(shard), ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
	require.NoError(t, err)
	out, err := tc.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	require.NoError(t, err)
	return arn, shard, out.Records
}

func seq(r streamtypes.Record) string { return aws.ToString(r.Dynamodb.SequenceNumber) }

// workMessages drains the work queue and returns the task ids of the
// messages, sorted.
func (tc *testCloud) workMessages(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, b := range tc.drain(t, tc.workQ) {
		m, err := message.Parse([]byte(b))
		require.NoError(t, err, b)
		ids = append(ids, m.TaskID)
	}
	sort.Strings(ids)
	return ids
}

func TestDLQRedrivePipe(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	ctx := context.Background()
	var tasks []task.Task
	for i := 1; i <= 5; i++ {
		tasks = append(tasks, task.Task{ID: cli.TaskID("p", i), RunID: "p", URL: fmt.Sprintf("https://p%d.example.com/", i)})
	}
	require.NoError(t, tc.store.Create(ctx, tasks))
	arn, shard, recs := tc.streamRecords(t)
	require.Len(t, recs, 5)

	// Move some covered tasks on: 2 finished, 3 leased by a live worker,
	// 4 claimed by a worker whose lease has expired.
	now := tc.clock.Now()
	_, err := tc.store.Claim(ctx, task.ClaimParams{TaskID: "p/0000002", Token: "a", Now: now, Lease: time.Minute})
	require.NoError(t, err)
	require.NoError(t, tc.store.Finish(ctx, task.FinishParams{TaskID: "p/0000002", Token: "a", Now: now}))
	_, err = tc.store.Claim(ctx, task.ClaimParams{TaskID: "p/0000003", Token: "b", Now: now, Lease: time.Hour})
	require.NoError(t, err)
	_, err = tc.store.Claim(ctx, task.ClaimParams{TaskID: "p/0000004", Token: "c", Now: now, Lease: time.Second})
	require.NoError(t, err)
	tc.clock.Advance(time.Minute)

	// The pipe gave up on the batch of records 1..4 (the INSERTs of tasks
	// 1-4); task 5's record is outside it.
	tc.send(t, tc.pipeDLQ, pointerBody(t, arn, shard, seq(recs[0]), seq(recs[3]), 4))

	res := tc.run(t, (*cli.Env).DLQRedrive, "", "--queue", "pipe")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stdout.String(), "pipe DLQ redrive: 1 pointers read, 1 deleted, 0 left in the queue; 4 stream records, 4 tasks covered, 2 work messages sent, 2 tasks skipped")
	require.Equal(t, []string{"p/0000001", "p/0000004"}, tc.workMessages(t))
	visible, inFlight := tc.counts(t, tc.pipeDLQ)
	require.Equal(t, [2]string{"0", "0"}, [2]string{visible, inFlight}, "pointer deleted")
}

func TestDLQRedrivePipeFallsBackWhenRecordsAreGone(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	ctx := context.Background()
	for _, run := range []string{"q", "z"} {
		var tasks []task.Task
		for i := 1; i <= 3; i++ {
			tasks = append(tasks, task.Task{ID: cli.TaskID(run, i), RunID: run, URL: fmt.Sprintf("https://%s%d.example.com/", run, i)})
		}
		require.NoError(t, tc.store.Create(ctx, tasks))
	}
	arn, shard, recs := tc.streamRecords(t)
	tc.send(t, tc.pipeDLQ, pointerBody(t, arn, shard, seq(recs[0]), seq(recs[1]), 2))
	_, err := tc.store.Claim(ctx, task.ClaimParams{TaskID: "q/0000003", Token: "x", Now: tc.clock.Now(), Lease: 48 * time.Hour})
	require.NoError(t, err)

	tc.clock.Advance(25 * time.Hour) // DynamoDB Streams keeps records 24 h

	res := tc.run(t, (*cli.Env).DLQRedrive, "", "--queue", "pipe", "--run", "q")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stderr.String(), "stream records no longer available")
	require.Contains(t, res.stderr.String(), "falling back to the live index")
	require.Contains(t, res.stderr.String(), "fallback: 2 live tasks of run q are due")
	require.Equal(t, []string{"q/0000001", "q/0000002"}, tc.workMessages(t), "the run's Pending tasks; the leased one and run z are left")
	visible, _ := tc.counts(t, tc.pipeDLQ)
	require.Equal(t, "0", visible)
}

func TestDLQRedrivePipeLeavesBadPointers(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	tc.send(t, tc.pipeDLQ, `{"context":{"condition":"RetryAttemptsExhausted"},"DDBStreamBatchInfo":{"shardId":"s","startSequenceNumber":"9","endSequenceNumber":"1","streamArn":"arn"}}`)
	res := tc.run(t, (*cli.Env).DLQRedrive, "", "--queue", "pipe")
	require.Equal(t, 1, exitCode(res.err))
	require.ErrorContains(t, res.err, "startSequenceNumber is after endSequenceNumber")
	require.Contains(t, res.stdout.String(), "1 pointers read, 0 deleted, 1 left in the queue")
	visible, inFlight := tc.counts(t, tc.pipeDLQ)
	require.Equal(t, [2]string{"1", "0"}, [2]string{visible, inFlight}, "left in the queue and visible")
}
