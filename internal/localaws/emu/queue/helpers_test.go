package queue_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// fakeClock is a settable clock for visibility, delay and retention tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testBundle is one local SQS behind the local cloud's router, with a real
// aws-sdk-go-v2 client pointed at it.
type testBundle struct {
	svc      *queue.Service
	clock    *fakeClock
	client   *sqs.Client
	endpoint string
	ctx      context.Context
}

func setup(t testing.TB, opts queue.Options) *testBundle {
	t.Helper()
	clock := newFakeClock()
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	svc := queue.New(opts)
	router := emu.NewRouter()
	router.Handle(emu.ServiceSQS, svc)
	srv := httptest.NewServer(router)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, svc.Close())
	})
	client := sqs.New(sqs.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   srv.Client(),
	})
	return &testBundle{svc: svc, clock: clock, client: client, endpoint: srv.URL, ctx: context.Background()}
}

// createQueue creates a queue through the SDK and returns its URL.
func (b *testBundle) createQueue(t testing.TB, name string, attrs map[string]string) string {
	t.Helper()
	out, err := b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(t, err)
	return aws.ToString(out.QueueUrl)
}

func (b *testBundle) arn(name string) string {
	return "arn:aws:sqs:" + emu.DefaultRegion + ":" + emu.DefaultAccountID + ":" + name
}

func (b *testBundle) send(t *testing.T, url, body string) string {
	t.Helper()
	out, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
	require.NoError(t, err)
	return aws.ToString(out.MessageId)
}

// receive short-polls with every system attribute.
func (b *testBundle) receive(t *testing.T, url string, max int32, visibility *int32) *sqs.ReceiveMessageOutput {
	t.Helper()
	in := &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(url),
		MaxNumberOfMessages:         max,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	}
	if visibility != nil {
		in.VisibilityTimeout = *visibility
	}
	out, err := b.client.ReceiveMessage(b.ctx, in)
	require.NoError(t, err)
	return out
}

// requireAPIError checks the typed SDK error, its ErrorCode (from
// x-amzn-query-error) and the HTTP status.
func requireAPIError(t *testing.T, err error, target any, code string, status int) {
	t.Helper()
	require.Error(t, err)
	if target != nil {
		require.ErrorAs(t, err, target)
	}
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, code, apiErr.ErrorCode(), "error code of %v", err)
	var respErr *awshttp.ResponseError
	require.True(t, errors.As(err, &respErr), "no HTTP response error in %v", err)
	require.Equal(t, status, respErr.HTTPStatusCode(), "status of %v", err)
}

func ptr[T any](v T) *T { return &v }
