package localcloud_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

type testBundle struct {
	cloud *localcloud.Cloud
	cfg   aws.Config
}

// setup starts a cloud on a free port and an aws.Config pointing at it.
func setup(t *testing.T) *testBundle {
	t.Helper()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	cfg := aws.Config{
		Region:           emu.DefaultRegion,
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint:     aws.String(c.URL()),
		RetryMaxAttempts: 1,
	}
	return &testBundle{cloud: c, cfg: cfg}
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	var apiErr smithy.APIError
	require.True(t, errors.As(err, &apiErr), "want API error %s, got %v", code, err)
	require.Equal(t, code, apiErr.ErrorCode())
}

func getJSON(t *testing.T, client *http.Client, url string, v any) {
	t.Helper()
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

// TestEndToEnd drives every registered service through its real SDK client
// over the one endpoint, then reads the request counters.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	id, err := sts.NewFromConfig(b.cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	require.NoError(t, err)
	require.Equal(t, emu.DefaultAccountID, aws.ToString(id.Account))

	tep, err := eventbridge.NewFromConfig(b.cfg).TestEventPattern(ctx, &eventbridge.TestEventPatternInput{
		EventPattern: aws.String(`{"source":["taskpipe"]}`),
		Event:        aws.String(`{"id":"1","account":"000000000000","source":"taskpipe","time":"2026-01-01T00:00:00Z","region":"us-east-1","detail-type":"t","resources":[]}`),
	})
	require.NoError(t, err)
	require.True(t, tep.Result)

	_, err = iam.NewFromConfig(b.cfg).CreateRole(ctx, &iam.CreateRoleInput{
		RoleName:                 aws.String("pipe"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[]}`),
	})
	require.NoError(t, err)

	sq := sqs.NewFromConfig(b.cfg)
	q, err := sq.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("work")})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(aws.ToString(q.QueueUrl), b.cloud.URL()+"/"+emu.DefaultAccountID+"/work"), aws.ToString(q.QueueUrl))
	_, err = sq.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(`{"taskId":"t-1"}`)})
	require.NoError(t, err)
	got, err := sq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 1})
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)

	ddb := dynamodb.NewFromConfig(b.cfg)
	_, err = ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tasks"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(t, err)
	tables, err := ddb.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Equal(t, []string{"tasks"}, tables.TableNames)

	streams, err := dynamodbstreams.NewFromConfig(b.cfg).ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	require.Len(t, streams.Streams, 1)

	var health struct {
		Status   string   `json:"status"`
		Services []string `json:"services"`
	}
	getJSON(t, b.cloud.AdminClient(), b.cloud.URL()+"/_taskpipe/health", &health)
	require.Equal(t, "ok", health.Status)
	require.Equal(t, b.cloud.Services(), health.Services)

	var counts []emu.OpCount
	getJSON(t, b.cloud.AdminClient(), b.cloud.URL()+"/_taskpipe/counts", &counts)
	byOp := map[string]int64{}
	for _, c := range counts {
		byOp[c.Service+":"+c.Operation] = c.Count
	}
	for _, op := range []string{"sts:GetCallerIdentity", "events:TestEventPattern", "iam:CreateRole", "sqs:CreateQueue",
		"sqs:SendMessage", "sqs:ReceiveMessage", "dynamodb:CreateTable", "dynamodb:ListTables", "streams.dynamodb:ListStreams"} {
		require.Equal(t, int64(1), byOp[op], "count of %s in %v", op, counts)
	}
	_, admin := byOp["admin:health"]
	require.False(t, admin, "admin requests are not counted")

	resp, err := b.cloud.AdminClient().Post(b.cloud.URL()+"/_taskpipe/counts/reset", "", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	getJSON(t, b.cloud.AdminClient(), b.cloud.URL()+"/_taskpipe/counts", &counts)
	require.Empty(t, counts)
}

// TestUnknownRequestsFailFast: requests for services or operations the cloud
// lacks get an AWS-style error at once, never a hang.
func TestUnknownRequestsFailFast(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang detector, not a speed check
	defer cancel()

	_, err := lambda.NewFromConfig(b.cfg).ListLayers(ctx, &lambda.ListLayersInput{})
	requireCode(t, err, "UnknownOperationException")

	_, err = eventbridge.NewFromConfig(b.cfg).ListRules(ctx, &eventbridge.ListRulesInput{})
	requireCode(t, err, "UnknownOperationException")

	_, err = iam.NewFromConfig(b.cfg).ListUsers(ctx, &iam.ListUsersInput{})
	requireCode(t, err, "InvalidAction")

	resp, err := http.Post(b.cloud.URL()+"/", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	var body map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "UnknownOperationException", body["__type"])

	resp, err = b.cloud.AdminClient().Get(b.cloud.URL() + "/_taskpipe/nope")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestCloseReleasesLongPoll: Close returns while a 20-second long poll is in
// flight, and the poll is answered rather than cut off.
func TestCloseReleasesLongPoll(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, c.Start(context.Background()))
	client := sqs.New(sqs.Options{Region: emu.DefaultRegion, BaseEndpoint: aws.String(c.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), RetryMaxAttempts: 1})
	ctx := context.Background()
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("idle")})
	require.NoError(t, err)

	polled := make(chan error, 1)
	go func() {
		_, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		polled <- err
	}()
	require.Eventually(t, func() bool { return c.InFlight() == 1 }, 10*time.Second, time.Millisecond, "poll in flight")

	require.NoError(t, c.Close())
	select {
	case err := <-polled:
		requireCode(t, err, "AWS.SimpleQueueService.ServiceUnavailable")
	case <-time.After(15 * time.Second): // a hang detector: the poll would otherwise last 20 s
		t.Fatal("long poll not released by Close")
	}
	<-c.Done()
	require.NoError(t, c.Err())
	require.NoError(t, c.Close(), "Close is idempotent")
}

// TestContextCancelStops: cancelling Start's context shuts the cloud down.
func TestContextCancelStops(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, c.Start(ctx))
	resp, err := http.Get(c.URL() + "/_taskpipe/health")
	require.NoError(t, err)
	resp.Body.Close()
	cancel()
	<-c.Done()
	require.NoError(t, c.Close())
	_, err = http.Get(c.URL() + "/_taskpipe/health")
	require.Error(t, err, "nothing listens after shutdown")
	require.Error(t, c.Start(context.Background()), "a closed cloud does not restart")
}

func TestCloseBeforeStart(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{})
	require.NoError(t, c.Close())
	<-c.Done()
	require.Error(t, c.Start(context.Background()))
	require.Equal(t, "http://"+localcloud.DefaultAddr, c.URL())
}

// TestEnv: the variables from Env are enough for the SDK's default config
// chain (AWS_ENDPOINT_URL included) to reach the cloud. Not parallel: it
// sets process environment.
func TestEnv(t *testing.T) {
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", Region: "eu-west-1"})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })

	env := map[string]string{}
	for _, kv := range c.Env() {
		k, v, ok := strings.Cut(kv, "=")
		require.True(t, ok, kv)
		env[k] = v
		t.Setenv(k, v)
	}
	require.Equal(t, c.URL(), env["AWS_ENDPOINT_URL"])
	require.Equal(t, "eu-west-1", env["AWS_REGION"])
	require.Equal(t, "eu-west-1", env["AWS_DEFAULT_REGION"])
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")

	cfg, err := config.LoadDefaultConfig(context.Background())
	require.NoError(t, err)
	out, err := sqs.NewFromConfig(cfg).CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("env")})
	require.NoError(t, err)
	require.Contains(t, aws.ToString(out.QueueUrl), c.URL())
}
