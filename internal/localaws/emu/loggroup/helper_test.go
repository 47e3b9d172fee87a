package loggroup_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

// fakeClock is a settable clock for retention and timestamp checks.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
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

// testBundle is one CloudWatch Logs behind the local cloud's router, with a
// real aws-sdk-go-v2 client pointed at it.
type testBundle struct {
	svc    *loggroup.Service
	clock  *fakeClock
	client *cloudwatchlogs.Client
	ctx    context.Context
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	svc := loggroup.New(loggroup.Options{Now: clock.Now})
	router := emu.NewRouter()
	router.Handle(emu.ServiceLogs, svc)
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)
	client := cloudwatchlogs.New(cloudwatchlogs.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   srv.Client(),
	})
	return &testBundle{svc: svc, clock: clock, client: client, ctx: context.Background()}
}

func (b *testBundle) createGroup(t *testing.T, name string) {
	t.Helper()
	_, err := b.client.CreateLogGroup(b.ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(name)})
	require.NoError(t, err)
}

func (b *testBundle) createStream(t *testing.T, group, stream string) {
	t.Helper()
	_, err := b.client.CreateLogStream(b.ctx, &cloudwatchlogs.CreateLogStreamInput{
		LogGroupName: aws.String(group), LogStreamName: aws.String(stream),
	})
	require.NoError(t, err)
}

// requireAPIError asserts err is an API error with the given code.
func requireAPIError(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	var apiErr interface{ ErrorCode() string }
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, code, apiErr.ErrorCode(), "error: %v", err)
}
