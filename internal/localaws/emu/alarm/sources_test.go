package alarm_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// TestDLQAlarmFiresAtFirstMessage is the pipeline's DLQ alarm
// (docs/aws-behaviour.md §3.10) against the real SQS engine: one message in the
// DLQ puts it in ALARM at the next evaluation, draining it brings it back
// to OK.
func TestDLQAlarmFiresAtFirstMessage(t *testing.T) {
	t.Parallel()
	c := newClock()
	sqs := queue.New(queue.Options{Now: c.Now})
	t.Cleanup(func() { require.NoError(t, sqs.Close()) })
	e := newEnv(t, alarm.Options{Now: c.Now, Queues: sqs})
	_, err := sqs.CreateQueue("tasks-dlq", nil, nil)
	require.NoError(t, err)
	_, err = sqs.CreateQueue("tasks", nil, nil)
	require.NoError(t, err)
	_, err = e.client.PutMetricAlarm(ctx(t), dlqAlarm("tasks-dlq-not-empty", "tasks-dlq"))
	require.NoError(t, err)

	// Empty DLQ: the sampled 0 is not breaching.
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateOK, e.svc.State("tasks-dlq-not-empty"))

	// A message on the other queue changes nothing.
	_, err = sqs.Send(ctx(t), "tasks", "work", nil)
	require.NoError(t, err)
	c.Advance(time.Minute)
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateOK, e.svc.State("tasks-dlq-not-empty"))

	_, err = sqs.Send(ctx(t), "tasks-dlq", `{"taskId":"t-1"}`, nil)
	require.NoError(t, err)
	c.Advance(time.Minute)
	e.svc.EvaluateNow()
	a := describeOne(t, e, "tasks-dlq-not-empty")
	require.Equal(t, types.StateValueAlarm, a.StateValue)
	require.Contains(t, aws.ToString(a.StateReason), "[1.0 (06/05/26 12:01:00)] was greater than or equal to the threshold (1.0)")
	require.Contains(t, e.console.String(), "alarm tasks-dlq-not-empty: OK -> ALARM: Threshold Crossed: 1 out of the last 1 datapoints")

	// Drain (receive + delete), one minute later: OK.
	msgs, err := sqs.Receive(ctx(t), "tasks-dlq", 10, 0, 30*time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.NoError(t, sqs.Delete("tasks-dlq", msgs[0].ReceiptHandle))
	c.Advance(time.Minute)
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateOK, e.svc.State("tasks-dlq-not-empty"))
	require.Contains(t, e.console.String(), "alarm tasks-dlq-not-empty: ALARM -> OK: Threshold Crossed: 1 out of the last 1 datapoints [0.0")

	// The sampled metrics are visible like CloudWatch's.
	list, err := e.client.ListMetrics(ctx(t), &cloudwatch.ListMetricsInput{Namespace: aws.String("AWS/SQS"),
		Dimensions: []types.DimensionFilter{{Name: aws.String("QueueName"), Value: aws.String("tasks-dlq")}}})
	require.NoError(t, err)
	var names []string
	for _, m := range list.Metrics {
		names = append(names, aws.ToString(m.MetricName))
	}
	require.Equal(t, []string{"ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessagesNotVisible",
		"ApproximateNumberOfMessagesVisible"}, names)
}

// TestInProcessMetrics feeds the sink the way the function emulator (EMF
// lines) and the Pipe runtime (AWS/EventBridge/Pipes) do.
func TestInProcessMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	var sink emu.MetricSink = e.svc
	_, err := e.client.PutMetricAlarm(ctx(t), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String("scrape-failures"), Namespace: aws.String("taskpipe"), MetricName: aws.String("ScrapeFailed"),
		Dimensions: []types.Dimension{{Name: aws.String("Function"), Value: aws.String("scraper")}},
		Statistic:  types.StatisticSum, Period: aws.Int32(300), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(3),
		ComparisonOperator: types.ComparisonOperatorGreaterThanOrEqualToThreshold, TreatMissingData: aws.String("notBreaching"),
	})
	require.NoError(t, err)
	_, err = e.client.PutMetricAlarm(ctx(t), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String("pipe-failed"), Namespace: aws.String("AWS/EventBridge/Pipes"), MetricName: aws.String("ExecutionFailed"),
		Dimensions: []types.Dimension{{Name: aws.String("PipeName"), Value: aws.String("tasks")}},
		Statistic:  types.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(0),
		ComparisonOperator: types.ComparisonOperatorGreaterThanThreshold, TreatMissingData: aws.String("notBreaching"),
	})
	require.NoError(t, err)

	emf := func(v float64, fn string) emu.Metric {
		return emu.Metric{Namespace: "taskpipe", Name: "ScrapeFailed", Dimensions: map[string]string{"Function": fn},
			Value: v, Unit: "Count", Time: e.clock.Now()}
	}
	sink.PutMetrics(emf(1, "scraper"), emf(1, "scraper"), emf(5, "enrich")) // another function: another metric
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateOK, e.svc.State("scrape-failures"))
	e.clock.Advance(time.Minute)
	sink.PutMetrics(emf(1, "scraper"))
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateAlarm, e.svc.State("scrape-failures"), "3 failures within the 5-minute period")

	sink.PutMetrics(emu.Metric{Namespace: "AWS/EventBridge/Pipes", Name: "ExecutionFailed",
		Dimensions: map[string]string{"PipeName": "tasks"}, Value: 1, Unit: "Count"}) // no time: stamped now
	e.svc.EvaluateNow()
	require.Equal(t, alarm.StateAlarm, e.svc.State("pipe-failed"))

	// Invalid datapoints are dropped, not stored.
	sink.PutMetrics(emu.Metric{Name: "no-namespace", Value: 1}, emu.Metric{Namespace: "taskpipe", Name: "nan", Value: nan()})
	list, err := e.client.ListMetrics(ctx(t), &cloudwatch.ListMetricsInput{MetricName: aws.String("nan")})
	require.NoError(t, err)
	require.Empty(t, list.Metrics)
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// fakeTicker is a Ticker the test ticks by hand.
type fakeTicker struct {
	c       chan time.Time
	mu      sync.Mutex
	stopped bool
}

func (f *fakeTicker) C() <-chan time.Time { return f.c }
func (f *fakeTicker) Stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

func TestLoopEvaluatesOnTicks(t *testing.T) {
	t.Parallel()
	tick := &fakeTicker{c: make(chan time.Time)}
	var gotInterval time.Duration
	e := newEnv(t, alarm.Options{Interval: 10 * time.Second, NewTicker: func(d time.Duration) alarm.Ticker {
		gotInterval = d
		return tick
	}})
	_, err := e.client.PutMetricAlarm(ctx(t), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String("hi-res"), Namespace: aws.String("taskpipe"), MetricName: aws.String("Queued"),
		Statistic: types.StatisticMaximum, Period: aws.Int32(10), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: types.ComparisonOperatorGreaterThanThreshold,
	})
	require.NoError(t, err)
	_, err = e.client.PutMetricData(ctx(t), &cloudwatch.PutMetricDataInput{Namespace: aws.String("taskpipe"),
		MetricData: []types.MetricDatum{{MetricName: aws.String("Queued"), Value: aws.Float64(9), StorageResolution: aws.Int32(1)}}})
	require.NoError(t, err)
	e.svc.Start()
	e.svc.Start() // idempotent
	require.Equal(t, 10*time.Second, gotInterval)
	require.Equal(t, alarm.StateInsufficientData, e.svc.State("hi-res"))
	tick.c <- e.clock.Now()
	require.Eventually(t, func() bool { return e.svc.State("hi-res") == alarm.StateAlarm }, 5*time.Second, time.Millisecond)
	e.clock.Advance(30 * time.Second)
	tick.c <- e.clock.Now()
	require.Eventually(t, func() bool { return e.svc.State("hi-res") == alarm.StateInsufficientData }, 5*time.Second, time.Millisecond)
	require.NoError(t, e.svc.Close())
	tick.mu.Lock()
	require.True(t, tick.stopped)
	tick.mu.Unlock()
}

func TestAdminHandler(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{})
	_, err := e.client.PutMetricAlarm(ctx(t), dlqAlarm("dlq", "dlq"))
	require.NoError(t, err)
	srv := httptest.NewServer(e.svc.AdminHandler())
	t.Cleanup(srv.Close)

	get := func(method, path string) (int, map[string][]alarm.AlarmStatus) {
		req, err := http.NewRequestWithContext(ctx(t), method, srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string][]alarm.AlarmStatus
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		}
		return resp.StatusCode, out
	}
	code, out := get(http.MethodGet, "/_taskpipe/alarms")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, out["alarms"], 1)
	require.Equal(t, alarm.StateInsufficientData, out["alarms"][0].State)
	code, out = get(http.MethodPost, "/_taskpipe/alarms/evaluate")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, alarm.StateOK, out["alarms"][0].State)
	require.True(t, strings.HasPrefix(out["alarms"][0].Reason, "Threshold Crossed: no datapoints"))
	code, _ = get(http.MethodDelete, "/_taskpipe/alarms")
	require.Equal(t, http.StatusMethodNotAllowed, code)
}
