package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/task"
)

// clock is a settable clock shared by the local cloud and the commands.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testCloud is a local cloud with the pipeline's table and queues, made
// with the SDK exactly as the commands will see them.
type testCloud struct {
	cloud   *localcloud.Cloud
	clock   *clock
	cfg     aws.Config
	ddb     *dynamodb.Client
	sqs     *sqs.Client
	streams *dynamodbstreams.Client
	store   *dynamostore.Store
	table   string
	workQ   string
	workDLQ string
	pipeDLQ string
}

func newTestCloud(t testing.TB) *testCloud {
	t.Helper()
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", Now: clk.Now})
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	cfg := aws.Config{
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(c.URL()),
	}
	tc := &testCloud{cloud: c, clock: clk, cfg: cfg, table: "tasks",
		ddb: dynamodb.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg), streams: dynamodbstreams.NewFromConfig(cfg)}
	require.NoError(t, dynamostore.CreateTable(ctx, tc.ddb, tc.table, dynamostore.TableOptions{}))
	var err error
	tc.store, err = dynamostore.New(tc.ddb, dynamostore.Options{Table: tc.table, Now: clk.Now})
	require.NoError(t, err)

	tc.workDLQ = tc.createQueue(t, "work-dlq", nil)
	dlqARN := tc.queueARN(t, tc.workDLQ)
	tc.workQ = tc.createQueue(t, "work", map[string]string{
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, dlqARN),
		"VisibilityTimeout": "60",
	})
	tc.pipeDLQ = tc.createQueue(t, "pipe-dlq", nil)
	return tc
}

func (tc *testCloud) createQueue(t testing.TB, name string, attrs map[string]string) string {
	t.Helper()
	out, err := tc.sqs.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(t, err)
	return aws.ToString(out.QueueUrl)
}

func (tc *testCloud) queueARN(t testing.TB, url string) string {
	t.Helper()
	out, err := tc.sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	require.NoError(t, err)
	return out.Attributes["QueueArn"]
}

// visible returns the queue's ApproximateNumberOfMessages and
// ApproximateNumberOfMessagesNotVisible (exact in the local cloud).
func (tc *testCloud) counts(t *testing.T, url string) (visible, inFlight string) {
	t.Helper()
	out, err := tc.sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{
			sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	require.NoError(t, err)
	return out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"]
}

// drain receives and deletes every message of a queue and returns the
// bodies.
func (tc *testCloud) drain(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	var bodies []string
	for {
		out, err := tc.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10})
		require.NoError(t, err)
		if len(out.Messages) == 0 {
			return bodies
		}
		for _, m := range out.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
			_, err := tc.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
			require.NoError(t, err)
		}
	}
}

// seed writes tasks exactly as given, in any state.
func (tc *testCloud) seed(t *testing.T, tasks ...task.Task) {
	t.Helper()
	for _, tk := range tasks {
		item, err := tc.store.Item(tk)
		require.NoError(t, err)
		_, err = tc.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tc.table), Item: item})
		require.NoError(t, err)
	}
}

// runTasks reads a whole run through the store.
func (tc *testCloud) runTasks(t *testing.T, run string) []task.Task {
	t.Helper()
	var all []task.Task
	cursor := ""
	for {
		page, err := tc.store.RunTasks(context.Background(), run, cursor, 0)
		require.NoError(t, err)
		all = append(all, page.Tasks...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// result is one command run's output.
type result struct {
	stdout, stderr *bytes.Buffer
	err            error
}

// env returns an Env on the test cloud with the resource names in its
// environment and the fake clock.
func (tc *testCloud) env(stdin string) (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	vars := map[string]string{
		cli.EnvTable: tc.table, cli.EnvWorkQueueURL: tc.workQ,
		cli.EnvWorkDLQURL: tc.workDLQ, cli.EnvPipeDLQURL: tc.pipeDLQ,
	}
	return &cli.Env{
		Stdin:   strings.NewReader(stdin),
		Stdout:  &stdout,
		Stderr:  &stderr,
		Getenv:  func(k string) string { return vars[k] },
		LoadAWS: func(context.Context) (aws.Config, error) { return tc.cfg.Copy(), nil },
		Now:     tc.clock.Now,
		Sleep: func(ctx context.Context, d time.Duration) error {
			tc.clock.Advance(d)
			return ctx.Err()
		},
		Rand: func(b []byte) (int, error) {
			for i := range b {
				b[i] = byte(0xa0 + i)
			}
			return len(b), nil
		},
	}, &stdout, &stderr
}

// run runs one command on a fresh Env.
func (tc *testCloud) run(t *testing.T, cmd func(*cli.Env, context.Context, []string) error, stdin string, args ...string) result {
	t.Helper()
	env, stdout, stderr := tc.env(stdin)
	err := cmd(env, context.Background(), args)
	return result{stdout: stdout, stderr: stderr, err: err}
}

// exitCode is the status cmd/taskpipe would exit with.
func exitCode(err error) int {
	var ue *cli.UsageError
	var ee *cli.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ee):
		return ee.Code
	}
	return 1
}
