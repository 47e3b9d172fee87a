package pipe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

const (
	tableName = "tasks"
	roleARN   = "arn:aws:iam::000000000000:role/pipe"
	waitFor   = 15 * time.Second
	tick      = 2 * time.Millisecond
)

// clock is a settable test clock shared by every service of an env.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// metricLog records every datapoint the pipes emit.
type metricLog struct {
	mu sync.Mutex
	ms []emu.Metric
}

func (m *metricLog) PutMetrics(ms ...emu.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ms = append(m.ms, ms...)
}

// Sum adds up a metric's values for one pipe.
func (m *metricLog) Sum(pipeName, metric string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := 0.0
	for _, x := range m.ms {
		if x.Name == metric && x.Dimensions["PipeName"] == pipeName {
			if x.Namespace != pipe.MetricNamespace {
				panic("metric in namespace " + x.Namespace)
			}
			total += x.Value
		}
	}
	return total
}

// faults fails the target of the pipes named in it.
type faults struct {
	mu    sync.Mutex
	pipes map[string]bool
	// body, when set, fails the sends whose body it selects.
	body func(body []byte) bool
	// enrich, when set, decides the enrichment faults.
	enrich func(name string) (bool, time.Duration)
}

func (f *faults) PipeTargetFails(name string, body []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pipes[name] || (f.body != nil && f.body(body))
}

func (f *faults) PipeEnrichmentFails(name string) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enrich == nil {
		return false, 0
	}
	return f.enrich(name)
}

func (f *faults) FailEnrichment(sel func(name string) (bool, time.Duration)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enrich = sel
}

func (f *faults) FailBodies(sel func(body []byte) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body = sel
}

func (f *faults) Set(name string, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pipes == nil {
		f.pipes = map[string]bool{}
	}
	f.pipes[name] = fail
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a local cloud with DynamoDB (HTTP and Go), SQS (Go) and Pipes
// (HTTP, through the real SDK client).
type env struct {
	clock     *clock
	tables    *table.Service
	queues    *queue.Service
	pipes     *pipe.Service
	metrics   *metricLog
	faults    *faults
	logs      *syncBuffer
	ddb       *dynamodb.Client
	api       *pipes.Client
	url       string
	streamARN string
	router    *emu.Router
}

type envOption func(*pipe.Options)

func withInvoker(inv pipe.Invoker) envOption { return func(o *pipe.Options) { o.Invoker = inv } }

// newEnv builds the services, a "tasks" table keyed by taskId with a
// NEW_AND_OLD_IMAGES stream, and the clients.
func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	e := &env{clock: clk, metrics: &metricLog{}, faults: &faults{}, logs: &syncBuffer{}}
	e.tables = table.New(table.Options{Now: clk.Now})
	e.queues = queue.New(queue.Options{Now: clk.Now})
	po := pipe.Options{
		Now: clk.Now, Tables: e.tables, Queues: e.queues, Metrics: e.metrics, Faults: e.faults,
		RetryBackoff: time.Millisecond,
		Logger:       slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, o := range opts {
		o(&po)
	}
	e.pipes = pipe.New(po)
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceDynamoDB, e.tables)
	rt.Handle(emu.ServicePipes, e.pipes)
	srv := httptest.NewServer(rt)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, e.pipes.Close())
		require.NoError(t, e.queues.Close())
	})
	e.url, e.router = srv.URL, rt
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		// No retries: a retried request would hide a wrong first answer.
		Retryer: func() aws.Retryer { return aws.NopRetryer{} },
	}
	e.ddb = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	e.api = pipes.NewFromConfig(cfg, func(o *pipes.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	out, err := e.ddb.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(tableName),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true),
			StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(t, err)
	e.streamARN = aws.ToString(out.TableDescription.LatestStreamArn)
	return e
}

// queue creates a standard queue and returns its ARN.
func (e *env) queue(t testing.TB, name string) string {
	t.Helper()
	info, err := e.queues.CreateQueue(name, nil, nil)
	require.NoError(t, err)
	return info.ARN
}

// pipeSpec is what the tests vary in a pipe.
type pipeSpec struct {
	name        string
	target      string
	filters     []string
	batchSize   int32
	window      int32
	maxAge      int32
	retries     *int32
	bisect      bool
	parallel    int32
	dlq         string
	enrichment  string
	template    string
	stopped     bool
	trimHorizon bool
}

func (s pipeSpec) input(streamARN string) *pipes.CreatePipeInput {
	dp := &ptypes.PipeSourceDynamoDBStreamParameters{StartingPosition: ptypes.DynamoDBStreamStartPositionLatest,
		MaximumRetryAttempts: s.retries}
	if s.trimHorizon {
		dp.StartingPosition = ptypes.DynamoDBStreamStartPositionTrimHorizon
	}
	if s.batchSize > 0 {
		dp.BatchSize = aws.Int32(s.batchSize)
	}
	if s.window > 0 {
		dp.MaximumBatchingWindowInSeconds = aws.Int32(s.window)
	}
	if s.maxAge != 0 {
		dp.MaximumRecordAgeInSeconds = aws.Int32(s.maxAge)
	}
	if s.bisect {
		dp.OnPartialBatchItemFailure = ptypes.OnPartialBatchItemFailureStreamsAutomaticBisect
	}
	if s.parallel > 0 {
		dp.ParallelizationFactor = aws.Int32(s.parallel)
	}
	if s.dlq != "" {
		dp.DeadLetterConfig = &ptypes.DeadLetterConfig{Arn: aws.String(s.dlq)}
	}
	in := &pipes.CreatePipeInput{
		Name: aws.String(s.name), RoleArn: aws.String(roleARN), Source: aws.String(streamARN), Target: aws.String(s.target),
		SourceParameters: &ptypes.PipeSourceParameters{DynamoDBStreamParameters: dp},
	}
	if len(s.filters) > 0 {
		fc := &ptypes.FilterCriteria{}
		for _, f := range s.filters {
			fc.Filters = append(fc.Filters, ptypes.Filter{Pattern: aws.String(f)})
		}
		in.SourceParameters.FilterCriteria = fc
	}
	if s.enrichment != "" {
		in.Enrichment = aws.String(s.enrichment)
	}
	if s.template != "" {
		in.TargetParameters = &ptypes.PipeTargetParameters{InputTemplate: aws.String(s.template)}
	}
	if s.stopped {
		in.DesiredState = ptypes.RequestedPipeStateStopped
	}
	return in
}

// createPipe creates a pipe through the API and waits until it settles.
func (e *env) createPipe(t testing.TB, s pipeSpec) {
	t.Helper()
	out, err := e.api.CreatePipe(context.Background(), s.input(e.streamARN))
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateCreating, out.CurrentState)
	want := ptypes.PipeStateRunning
	if s.stopped {
		want = ptypes.PipeStateStopped
	}
	e.waitState(t, s.name, want)
}

func (e *env) waitState(t testing.TB, name string, want ptypes.PipeState) {
	t.Helper()
	require.Eventually(t, func() bool {
		out, err := e.api.DescribePipe(context.Background(), &pipes.DescribePipeInput{Name: aws.String(name)})
		return err == nil && out.CurrentState == want
	}, waitFor, tick, "pipe %s never became %s", name, want)
}

// becomesPending returns the two filters of docs/aws-behaviour.md §1.3 from testdata.
func becomesPending(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/becomes-pending.json")
	require.NoError(t, err)
	var pats []json.RawMessage
	require.NoError(t, json.Unmarshal(b, &pats))
	out := make([]string, len(pats))
	for i, p := range pats {
		var c bytes.Buffer
		require.NoError(t, json.Compact(&c, p))
		out[i] = c.String()
	}
	return out
}

func str(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }
func num(v int) ddbtypes.AttributeValue    { return &ddbtypes.AttributeValueMemberN{Value: fmt.Sprint(v)} }

// task is an item of the tasks table.
func task(id, status string, extra ...any) map[string]ddbtypes.AttributeValue {
	item := map[string]ddbtypes.AttributeValue{"taskId": str(id), "status": str(status), "url": str("https://example.com/" + id)}
	for i := 0; i+1 < len(extra); i += 2 {
		item[extra[i].(string)] = extra[i+1].(ddbtypes.AttributeValue)
	}
	return item
}

func (e *env) put(t testing.TB, item map[string]ddbtypes.AttributeValue) {
	t.Helper()
	_, err := e.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: item})
	require.NoError(t, err)
}

// batchWrite writes puts and deletes 25 per BatchWriteItem call.
func (e *env) batchWrite(t testing.TB, reqs []ddbtypes.WriteRequest) {
	t.Helper()
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := e.ddb.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]ddbtypes.WriteRequest{tableName: reqs[:n]}})
		require.NoError(t, err)
		require.Empty(t, out.UnprocessedItems)
		reqs = reqs[n:]
	}
}

func putReq(item map[string]ddbtypes.AttributeValue) ddbtypes.WriteRequest {
	return ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{Item: item}}
}

func deleteReq(id string) ddbtypes.WriteRequest {
	return ddbtypes.WriteRequest{DeleteRequest: &ddbtypes.DeleteRequest{Key: map[string]ddbtypes.AttributeValue{"taskId": str(id)}}}
}

// stream returns the table's stream.
func (e *env) stream(t testing.TB) *table.Stream {
	t.Helper()
	st, err := e.tables.Stream(e.streamARN)
	require.NoError(t, err)
	return st
}

// waitDrained waits until the pipe has read everything in its stream.
func (e *env) waitDrained(t testing.TB, name string) {
	t.Helper()
	st := e.stream(t)
	require.Eventually(t, func() bool {
		c, ok := e.pipes.Checkpoint(name)
		return ok && c == uint64(st.Latest())
	}, waitFor, tick, "pipe %s did not consume its stream", name)
}

// receiveAll waits until the queue holds exactly n visible messages (and,
// after the pipe drained, no more arrive) and returns their bodies in
// queue order.
func (e *env) receiveAll(t testing.TB, pipeName, queueARN string, n int) []string {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := e.queues.Counts(queueARN)
		return err == nil && c.Visible >= n
	}, waitFor, tick, "queue %s never held %d messages", queueARN, n)
	if pipeName != "" {
		e.waitDrained(t, pipeName)
	}
	c, err := e.queues.Counts(queueARN)
	require.NoError(t, err)
	require.Equal(t, n, c.Visible, "messages in %s", queueARN)
	var bodies []string
	for len(bodies) < n {
		msgs, err := e.queues.Receive(context.Background(), queueARN, n-len(bodies), 0, time.Hour)
		require.NoError(t, err)
		require.NotEmpty(t, msgs)
		for _, m := range msgs {
			bodies = append(bodies, m.Body)
		}
	}
	return bodies
}

// taskIDs decodes message bodies as Pipes stream records and returns the
// task ids, failing on anything that is not one.
func taskIDs(t testing.TB, bodies []string) []string {
	t.Helper()
	ids := make([]string, len(bodies))
	for i, b := range bodies {
		var rec events.DynamoDBEventRecord
		require.NoError(t, json.Unmarshal([]byte(b), &rec), b)
		require.NotEmpty(t, rec.EventSourceArn, "eventSourceARN missing: %s", b)
		ids[i] = rec.Change.Keys["taskId"].String()
	}
	return ids
}

// requireOnce checks that ids hold each of want exactly once.
func requireOnce(t testing.TB, ids []string, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
	}
	for _, w := range want {
		require.Equal(t, 1, seen[w], "task %s delivered %d times", w, seen[w])
	}
	require.Len(t, ids, len(want), "unexpected extra deliveries: %v", strings.Join(ids, ","))
}

// seqOf returns the sequence number of the INSERT record of a task.
func (e *env) seqOf(t testing.TB, id string) string {
	t.Helper()
	res, err := e.stream(t).Read(0, 1000)
	require.NoError(t, err)
	for _, r := range res.Records {
		if r.EventName == table.EventInsert && strings.Contains(string(r.DynamoDB.Keys), `"`+id+`"`) {
			return r.DynamoDB.SequenceNumber
		}
	}
	t.Fatalf("no INSERT record for %s", id)
	return ""
}

// echo is an enrichment that returns its input, recording each batch.
type echo struct {
	mu      sync.Mutex
	batches [][]json.RawMessage
	fail    func(batch []json.RawMessage) bool
	reply   func(batch []json.RawMessage) []byte
	delay   func(batch []json.RawMessage) time.Duration
	active  int
	peak    int
}

func (f *echo) Invoke(_ context.Context, function string, payload []byte) (pipe.Invocation, error) {
	if function != "enrich" {
		return pipe.Invocation{}, fmt.Errorf("unexpected function %q", function)
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(payload, &batch); err != nil {
		return pipe.Invocation{}, fmt.Errorf("enrichment payload is not a JSON array: %w", err)
	}
	f.mu.Lock()
	f.batches = append(f.batches, batch)
	f.active++
	f.peak = max(f.peak, f.active)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	if f.delay != nil {
		time.Sleep(f.delay(batch))
	}
	if f.fail != nil && f.fail(batch) {
		return pipe.Invocation{Payload: []byte(`{"errorMessage":"poison","errorType":"errorString"}`),
			FunctionError: "Unhandled", ErrorType: "errorString"}, nil
	}
	if f.reply != nil {
		return pipe.Invocation{Payload: f.reply(batch)}, nil
	}
	return pipe.Invocation{Payload: payload}, nil
}

const enrichARN = "arn:aws:lambda:us-east-1:000000000000:function:enrich"
