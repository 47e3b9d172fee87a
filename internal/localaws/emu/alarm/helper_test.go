package alarm_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a console tests read while the service writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type env struct {
	svc     *alarm.Service
	clock   *clock
	console *syncBuffer
	client  *cloudwatch.Client
	url     string
	// seen records the Content-Encoding of each request the router got.
	mu        sync.Mutex
	encodings []string
}

// newEnv serves a Service through an emu.Router on httptest and returns a
// real aws-sdk-go-v2 CloudWatch client for it (no retries, so a test sees
// exactly the error the service sent).
func newEnv(t *testing.T, opts alarm.Options) *env {
	t.Helper()
	e := &env{clock: newClock(), console: &syncBuffer{}}
	if opts.Now == nil {
		opts.Now = e.clock.Now
	}
	if opts.Console == nil {
		opts.Console = e.console
	}
	e.svc = alarm.New(opts)
	t.Cleanup(func() { require.NoError(t, e.svc.Close()) })
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceMonitoring, e.svc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.encodings = append(e.encodings, r.Header.Get("Content-Encoding"))
		e.mu.Unlock()
		rt.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	e.client = cloudwatch.New(cloudwatch.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		RetryMaxAttempts: 1,
	})
	return e
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// dlqAlarm is the pipeline's "DLQ not empty" alarm (docs/aws-behaviour.md §3.10).
func dlqAlarm(name, queueName string) *cloudwatch.PutMetricAlarmInput {
	return &cloudwatch.PutMetricAlarmInput{
		AlarmName:          aws.String(name),
		Namespace:          aws.String("AWS/SQS"),
		MetricName:         aws.String("ApproximateNumberOfMessagesVisible"),
		Dimensions:         []types.Dimension{{Name: aws.String("QueueName"), Value: aws.String(queueName)}},
		Statistic:          types.StatisticMaximum,
		Period:             aws.Int32(60),
		EvaluationPeriods:  aws.Int32(1),
		DatapointsToAlarm:  aws.Int32(1),
		ComparisonOperator: types.ComparisonOperatorGreaterThanOrEqualToThreshold,
		Threshold:          aws.Float64(1),
		TreatMissingData:   aws.String("notBreaching"),
		AlarmActions:       []string{"arn:aws:sns:us-east-1:000000000000:alerts"},
	}
}

func describeOne(t *testing.T, e *env, name string) types.MetricAlarm {
	t.Helper()
	out, err := e.client.DescribeAlarms(ctx(t), &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{name}})
	require.NoError(t, err)
	require.Len(t, out.MetricAlarms, 1)
	return out.MetricAlarms[0]
}
