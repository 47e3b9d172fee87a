package pipestate_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

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
	"github.com/taskpipe/taskpipe/internal/pipestate"
)

// cloud is the local cloud's DynamoDB, SQS and Pipes behind one endpoint,
// with a table (and stream) and a queue for a pipe.
type cloud struct {
	api       *pipes.Client
	streamARN string
	queueARN  string
}

func newCloud(t *testing.T) *cloud {
	t.Helper()
	tables := table.New(table.Options{})
	queues := queue.New(queue.Options{})
	svc := pipe.New(pipe.Options{Tables: tables, Queues: queues})
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceDynamoDB, tables)
	rt.Handle(emu.ServicePipes, svc)
	srv := httptest.NewServer(rt)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, svc.Close())
		require.NoError(t, queues.Close())
	})
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", "")}
	ddb := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	out, err := ddb.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String("tasks"),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true),
			StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(t, err)
	q, err := queues.CreateQueue("work", nil, nil)
	require.NoError(t, err)
	return &cloud{
		api:       pipes.NewFromConfig(cfg, func(o *pipes.Options) { o.BaseEndpoint = aws.String(srv.URL) }),
		streamARN: aws.ToString(out.TableDescription.LatestStreamArn),
		queueARN:  q.ARN,
	}
}

func (c *cloud) create(t *testing.T, name string, desired ptypes.RequestedPipeState) {
	t.Helper()
	_, err := c.api.CreatePipe(t.Context(), &pipes.CreatePipeInput{
		Name: aws.String(name), RoleArn: aws.String("arn:aws:iam::000000000000:role/pipe"),
		Source: aws.String(c.streamARN), Target: aws.String(c.queueARN), DesiredState: desired,
		SourceParameters: &ptypes.PipeSourceParameters{DynamoDBStreamParameters: &ptypes.PipeSourceDynamoDBStreamParameters{
			StartingPosition: ptypes.DynamoDBStreamStartPositionLatest}},
	})
	require.NoError(t, err)
}

// settled waits until the pipe's state is want and returns what the
// Reader read then.
func settled(t *testing.T, r *pipestate.Reader, want string) pipestate.State {
	t.Helper()
	var st pipestate.State
	require.Eventually(t, func() bool {
		var err error
		st, err = r.State(t.Context())
		require.NoError(t, err)
		return st.Current == want
	}, 10*time.Second, 5*time.Millisecond, "pipe never reached %s", want)
	return st
}

// The Reader reads DescribePipe's CurrentState and DesiredState from the
// local Pipes; a pipe stopped by hand while meant to run is Stalled, one
// meant to be stopped is not.
func TestReaderAgainstLocalPipes(t *testing.T) {
	t.Parallel()
	c := newCloud(t)
	c.create(t, "dispatch", ptypes.RequestedPipeStateRunning)
	c.create(t, "parked", ptypes.RequestedPipeStateStopped)
	r := &pipestate.Reader{Client: c.api, Name: "dispatch"}

	st := settled(t, r, pipestate.Running)
	require.Equal(t, pipestate.Running, st.Desired)
	require.False(t, st.Stalled(pipestate.Running))

	parked := settled(t, &pipestate.Reader{Client: c.api, Name: "parked"}, "STOPPED")
	require.Equal(t, "STOPPED", parked.Desired)
	require.False(t, parked.Stalled("STOPPED"), "stopped on purpose")

	_, err := c.api.StopPipe(t.Context(), &pipes.StopPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	st, err = r.State(t.Context())
	require.NoError(t, err)
	require.NotEqual(t, pipestate.Running, st.Current)
	require.Equal(t, "STOPPED", st.Desired, "StopPipe changes the pipe's desired state")
	require.True(t, st.Stalled(pipestate.Running), "but not the deployment's")

	_, err = (&pipestate.Reader{Client: c.api, Name: "missing"}).State(t.Context())
	require.ErrorContains(t, err, "describe pipe missing")
	_, err = (&pipestate.Reader{Client: c.api}).State(context.Background())
	require.ErrorContains(t, err, "empty pipe name")
}

func TestStalled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		current, want string
		stalled       bool
	}{
		{"RUNNING", "RUNNING", false},
		{"STOPPED", "STOPPED", false},
		{"STOPPING", "STOPPED", false},
		{"STOPPED", "RUNNING", true},
		{"STARTING", "RUNNING", true},
		{"UPDATE_FAILED", "RUNNING", true},
		{"CREATE_FAILED", "RUNNING", true},
		{"START_FAILED", "RUNNING", true},
	}
	for _, tt := range tests {
		t.Run(tt.current+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.stalled, pipestate.State{Current: tt.current, Desired: "RUNNING"}.Stalled(tt.want))
		})
	}
}
