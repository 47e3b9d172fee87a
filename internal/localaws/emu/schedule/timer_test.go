package schedule_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

const scheduleARN = "arn:aws:scheduler:us-east-1:000000000000:schedule/default/reconcile"

// fireAdmin posts to the admin fire endpoint.
func (b *testBundle) fireAdmin(t *testing.T, group, name string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, b.url+"/_taskpipe/schedules/"+group+"/"+name+"/fire", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), "body %s", raw)
	return resp.StatusCode, out
}

// TestRateOneMinuteOnDemandAndOnTime: a rate(1 minute) schedule fires at
// creation, on demand, and then at every minute of the manual clock,
// asynchronously, with its input's context attributes filled in.
func TestRateOneMinuteOnDemandAndOnTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("reconcile", "rate(1 minute)")
	in.Target.Input = aws.String(contextInput)
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)

	// "starts invoking the target immediately".
	first := b.lambda.next(t)
	require.Equal(t, lambdaARN("reconciler"), first.ARN)
	require.Equal(t, payload{ARN: scheduleARN, At: "2026-03-01T12:00:00Z", Attempt: "1", Exec: "exec-1"}, decodePayload(t, first))
	b.asleepUntil(t, start.Add(time.Minute))

	// On demand, through the admin endpoint.
	b.clock.Advance(20 * time.Second)
	status, body := b.fireAdmin(t, "default", "reconcile")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "2026-03-01T12:00:20Z", body["scheduledTime"])
	require.Equal(t, lambdaARN("reconciler"), body["targetArn"])
	onDemand := b.lambda.next(t)
	require.Equal(t, "2026-03-01T12:00:20Z", decodePayload(t, onDemand).At)
	b.asleepUntil(t, start.Add(time.Minute)) // firing on demand does not move the timer

	// On time: nothing before the minute, then exactly at it.
	b.clock.Advance(39 * time.Second)
	b.lambda.none(t)
	b.clock.Advance(time.Second)
	require.Equal(t, "2026-03-01T12:01:00Z", decodePayload(t, b.lambda.next(t)).At)
	b.asleepUntil(t, start.Add(2*time.Minute))

	// A jump of several minutes delivers every missed minute, in order.
	b.clock.Advance(3*time.Minute + 30*time.Second)
	for _, want := range []string{"2026-03-01T12:02:00Z", "2026-03-01T12:03:00Z", "2026-03-01T12:04:00Z"} {
		require.Equal(t, want, decodePayload(t, b.lambda.next(t)).At)
	}
	b.asleepUntil(t, start.Add(5*time.Minute))
	b.lambda.none(t)
	b.clock.Advance(30 * time.Second)
	require.Equal(t, "2026-03-01T12:05:00Z", decodePayload(t, b.lambda.next(t)).At)

	st, ok := b.svc.Stats("default", "reconcile")
	require.True(t, ok)
	require.Equal(t, int64(7), st.Invocations)
	require.Equal(t, start.Add(6*time.Minute), st.Next)
	require.Equal(t, start.Add(5*time.Minute), st.LastScheduledTime)

	status, body = b.fireAdmin(t, "default", "nope")
	require.Equal(t, http.StatusNotFound, status)
	require.Contains(t, body["error"], "Schedule nope does not exist.")
}

// TestDefaultInput: without Input the target receives {}.
func TestDefaultInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.CreateSchedule(b.ctx, createInput("plain", "rate(1 hour)"))
	require.NoError(t, err)
	require.Equal(t, "{}", b.lambda.next(t).Payload)
}

func TestDisabledDoesNotFire(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("reconcile", "rate(1 minute)")
	in.State = types.ScheduleStateDisabled
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	// An enabled hourly schedule created afterwards: once it has fired and
	// the timer sleeps until its next hour, the disabled schedule (due
	// every minute if it counted) is proven out of the timer.
	sentinel := createInput("hourly", "rate(1 hour)")
	_, err = b.client.CreateSchedule(b.ctx, sentinel)
	require.NoError(t, err)
	require.Equal(t, "{}", b.lambda.next(t).Payload)
	b.asleepUntil(t, start.Add(time.Hour))
	b.lambda.none(t)
	b.clock.Advance(10 * time.Minute)

	// Enabling restarts the rate from now.
	up := &scheduler.UpdateScheduleInput{
		Name: in.Name, ScheduleExpression: in.ScheduleExpression, FlexibleTimeWindow: in.FlexibleTimeWindow,
		Target: &types.Target{Arn: in.Target.Arn, RoleArn: in.Target.RoleArn, Input: aws.String(contextInput)},
	}
	_, err = b.client.UpdateSchedule(b.ctx, up)
	require.NoError(t, err)
	require.Equal(t, "2026-03-01T12:10:00Z", decodePayload(t, b.lambda.next(t)).At)
}

func TestCronInTimeZone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.clock.Set(time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC)) // 10:00 in New York, Saturday
	in := createInput("morning", "cron(0 9 * * ? *)")
	in.ScheduleExpressionTimezone = aws.String("America/New_York")
	in.Target.Input = aws.String(contextInput)
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	// Sunday 8 March, 09:00 EDT (daylight saving time has begun) = 13:00 UTC.
	want := time.Date(2026, 3, 8, 13, 0, 0, 0, time.UTC)
	b.asleepUntil(t, want)
	b.clock.Set(want)
	require.Equal(t, "2026-03-08T13:00:00Z", decodePayload(t, b.lambda.next(t)).At)
	b.asleepUntil(t, time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC))
}

func TestStartAndEndDate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("window", "rate(10 minutes)")
	in.StartDate = aws.Time(start.Add(25 * time.Minute))
	in.EndDate = aws.Time(start.Add(50 * time.Minute))
	in.Target.Input = aws.String(contextInput)
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	b.asleepUntil(t, start.Add(25*time.Minute)) // the first occurrence is the StartDate
	b.clock.Advance(2 * time.Hour)
	for _, want := range []string{"2026-03-01T12:25:00Z", "2026-03-01T12:35:00Z", "2026-03-01T12:45:00Z"} {
		require.Equal(t, want, decodePayload(t, b.lambda.next(t)).At)
	}
	require.Eventually(t, func() bool {
		st, _ := b.svc.Stats("default", "window")
		return st.Next.IsZero() && st.Invocations == 3
	}, waitLimit, time.Millisecond, "nothing after the EndDate")
	b.lambda.none(t)
}

// TestOneTimeScheduleDeletesAfterCompletion: at() fires once, and
// ActionAfterCompletion DELETE removes the schedule afterwards.
func TestOneTimeScheduleDeletesAfterCompletion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, action := range []types.ActionAfterCompletion{types.ActionAfterCompletionDelete, types.ActionAfterCompletionNone} {
		in := createInput("once-"+string(action), "at(2026-03-01T12:10:00)")
		in.ActionAfterCompletion = action
		_, err := b.client.CreateSchedule(b.ctx, in)
		require.NoError(t, err)
	}
	b.asleepUntil(t, start.Add(10*time.Minute))
	b.clock.Advance(time.Hour)
	b.lambda.next(t)
	b.lambda.next(t)
	require.Eventually(t, func() bool {
		_, err := b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("once-DELETE")})
		return err != nil
	}, waitLimit, time.Millisecond, "the DELETE schedule is gone")
	_, err := b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("once-DELETE")})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	kept, err := b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("once-NONE")})
	require.NoError(t, err)
	require.Equal(t, "at(2026-03-01T12:10:00)", aws.ToString(kept.ScheduleExpression))
	b.clock.Advance(24 * time.Hour)
	b.lambda.none(t)
}

// TestRetriesThenDeadLetter: refused deliveries are retried per the retry
// policy, then the event goes to the dead-letter queue.
func TestRetriesThenDeadLetter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dlq, err := b.queues.CreateQueue("schedule-dlq", nil, nil)
	require.NoError(t, err)
	b.lambda.setRefuse(func(string, string) error { return errors.New("TooManyRequestsException: Rate exceeded") })
	in := createInput("reconcile", "rate(1 hour)")
	in.Target.Input = aws.String(contextInput)
	in.Target.RetryPolicy = &types.RetryPolicy{MaximumRetryAttempts: aws.Int32(2)}
	in.Target.DeadLetterConfig = &types.DeadLetterConfig{Arn: aws.String(dlq.ARN)}
	_, err = b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)

	first := b.lambda.next(t)
	require.Error(t, first.Err)
	require.Equal(t, "1", decodePayload(t, first).Attempt)
	b.asleepUntil(t, start.Add(time.Second))
	b.clock.Advance(time.Second)
	second := b.lambda.next(t)
	require.Equal(t, payload{ARN: scheduleARN, At: "2026-03-01T12:00:00Z", Attempt: "2", Exec: "exec-1"}, decodePayload(t, second))
	b.asleepUntil(t, start.Add(3*time.Second))
	b.clock.Advance(2 * time.Second)
	require.Equal(t, "3", decodePayload(t, b.lambda.next(t)).Attempt)

	msgs, err := b.queues.Receive(b.ctx, dlq.ARN, 10, waitLimit, queue.QueueDefault)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "2026-03-01T12:00:00Z", decodePayloadString(t, msgs[0].Body).At, "the dead letter carries the undelivered input")
	attrs := map[string]string{}
	for k, v := range msgs[0].MessageAttributes {
		attrs[k] = v.StringValue
	}
	require.Equal(t, map[string]string{
		"ERROR_CODE":                "InvocationFailed",
		"ERROR_MESSAGE":             "TooManyRequestsException: Rate exceeded",
		"EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttemptsExhausted",
		"RETRY_ATTEMPTS":            "2",
		"SCHEDULE_ARN":              scheduleARN,
		"TARGET_ARN":                lambdaARN("reconciler"),
	}, attrs)
	st, _ := b.svc.Stats("default", "reconcile")
	require.Equal(t, schedule.Stats{Failures: 3, Retries: 2, DeadLettered: 1, Next: start.Add(time.Hour), LastScheduledTime: start}, st)

	// The next occurrence is delivered normally once Lambda accepts it.
	b.lambda.setRefuse(nil)
	b.asleepUntil(t, start.Add(time.Hour))
	b.clock.Advance(time.Hour)
	require.NoError(t, b.lambda.next(t).Err)
}

func decodePayloadString(t *testing.T, s string) payload {
	t.Helper()
	return decodePayload(t, invocation{Payload: s})
}

// TestClockJumpSkipsExpiredEvents: after a long jump, occurrences older
// than MaximumEventAgeInSeconds are skipped; younger ones fire in order.
func TestClockJumpSkipsExpiredEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("reconcile", "rate(1 minute)")
	in.Target.Input = aws.String(contextInput)
	in.Target.RetryPolicy = &types.RetryPolicy{MaximumEventAgeInSeconds: aws.Int32(120)}
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	b.lambda.next(t) // 12:00, at creation
	b.asleepUntil(t, start.Add(time.Minute))
	b.clock.Advance(10 * time.Minute)
	for _, want := range []string{"2026-03-01T12:08:00Z", "2026-03-01T12:09:00Z", "2026-03-01T12:10:00Z"} {
		require.Equal(t, want, decodePayload(t, b.lambda.next(t)).At)
	}
	b.asleepUntil(t, start.Add(11*time.Minute))
	st, _ := b.svc.Stats("default", "reconcile")
	require.Equal(t, int64(1), st.Expired)
	require.Equal(t, int64(4), st.Invocations)
}

// TestFireRefused: an on-demand fire the target refuses is a 502 at the
// admin endpoint and ErrInvokeRefused from Fire.
func TestFireRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("reconcile", "rate(1 hour)")
	in.State = types.ScheduleStateDisabled
	_, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	b.lambda.setRefuse(func(string, string) error { return errors.New("ResourceNotFoundException: Function not found") })
	status, body := b.fireAdmin(t, "default", "reconcile")
	require.Equal(t, http.StatusBadGateway, status)
	require.Contains(t, body["error"], "Function not found")
	b.lambda.next(t)
	_, err = b.svc.Fire(b.ctx, "", "reconcile")
	require.ErrorIs(t, err, schedule.ErrInvokeRefused)
}
