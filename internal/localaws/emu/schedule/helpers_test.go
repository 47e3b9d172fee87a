package schedule_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

const (
	waitLimit = 10 * time.Second
	roleARN   = "arn:aws:iam::000000000000:role/reconciler-schedule"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func lambdaARN(name string) string {
	return "arn:aws:lambda:us-east-1:000000000000:function:" + name
}

// invocation is one delivery attempt the fake Lambda saw.
type invocation struct {
	ARN     string
	Payload string
	Err     error
}

// fakeLambda is the in-package Invoker: it records every attempt and
// refuses those a test says to refuse.
type fakeLambda struct {
	mu       sync.Mutex
	refuse   func(arn string, payload string) error
	attempts chan invocation
}

func newFakeLambda() *fakeLambda {
	return &fakeLambda{attempts: make(chan invocation, 1000)}
}

func (f *fakeLambda) InvokeAsync(_ context.Context, arn string, payload []byte) error {
	f.mu.Lock()
	refuse := f.refuse
	f.mu.Unlock()
	inv := invocation{ARN: arn, Payload: string(payload)}
	if refuse != nil {
		inv.Err = refuse(arn, string(payload))
	}
	f.attempts <- inv
	return inv.Err
}

func (f *fakeLambda) setRefuse(fn func(arn, payload string) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = fn
}

// next waits for the next delivery attempt.
func (f *fakeLambda) next(t *testing.T) invocation {
	t.Helper()
	select {
	case inv := <-f.attempts:
		return inv
	case <-time.After(waitLimit):
		t.Fatal("no delivery within the wait limit")
		return invocation{}
	}
}

// none checks that no delivery attempt is pending.
func (f *fakeLambda) none(t *testing.T) {
	t.Helper()
	select {
	case inv := <-f.attempts:
		t.Fatalf("unexpected delivery %+v", inv)
	default:
	}
}

// payload is the JSON input the timer tests use: every context attribute.
type payload struct {
	ARN     string `json:"arn"`
	At      string `json:"at"`
	Attempt string `json:"attempt"`
	Exec    string `json:"exec"`
}

const contextInput = `{"arn":"<aws.scheduler.schedule-arn>","at":"<aws.scheduler.scheduled-time>",` +
	`"attempt":"<aws.scheduler.attempt-number>","exec":"<aws.scheduler.execution-id>"}`

func decodePayload(t *testing.T, inv invocation) payload {
	t.Helper()
	var p payload
	require.NoError(t, json.Unmarshal([]byte(inv.Payload), &p), "payload %s", inv.Payload)
	return p
}

// testBundle is the scheduler on a manual clock behind the local cloud's
// router, with the real aws-sdk-go-v2 scheduler client.
type testBundle struct {
	clock  *schedule.ManualClock
	lambda *fakeLambda
	queues *queue.Service
	svc    *schedule.Service
	client *scheduler.Client
	url    string
	ctx    context.Context
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	clock := schedule.NewManualClock(start)
	fl := newFakeLambda()
	queues := queue.New(queue.Options{Now: clock.Now})
	svc := schedule.New(schedule.Options{Clock: clock, Invoker: fl, Queues: queues, NewID: func() string { return "exec-1" }})
	admin := http.NewServeMux()
	admin.Handle(emu.AdminPrefix+"schedules/", svc.AdminHandler())
	router := emu.NewRouter()
	router.Handle(emu.ServiceScheduler, svc)
	router.Handle(emu.ServiceAdmin, admin)
	srv := httptest.NewServer(router)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, svc.Close())
		require.NoError(t, queues.Close())
	})
	client := scheduler.New(scheduler.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   srv.Client(),
	})
	return &testBundle{clock: clock, lambda: fl, queues: queues, svc: svc, client: client, url: srv.URL, ctx: context.Background()}
}

// createInput is a valid CreateSchedule request for the Lambda "reconciler".
func createInput(name, expr string) *scheduler.CreateScheduleInput {
	return &scheduler.CreateScheduleInput{
		Name:               aws.String(name),
		ScheduleExpression: aws.String(expr),
		FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeOff},
		Target:             &types.Target{Arn: aws.String(lambdaARN("reconciler")), RoleArn: aws.String(roleARN)},
	}
}

// asleepUntil waits until the timer sleeps until want (nothing else is
// due before), so that a following Advance is the only thing that can
// wake it.
func (b *testBundle) asleepUntil(t *testing.T, want time.Time) {
	t.Helper()
	require.Eventually(t, func() bool {
		at, ok := b.clock.Waiting()
		return ok && at.Equal(want)
	}, waitLimit, time.Millisecond, "the timer should wait for %v", want)
}

// requireAPIError checks an SDK error's code and HTTP status.
func requireAPIError(t *testing.T, err error, code string, status int) {
	t.Helper()
	require.Error(t, err)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, code, apiErr.ErrorCode(), "error code of %v", err)
	var respErr *awshttp.ResponseError
	require.True(t, errors.As(err, &respErr), "no HTTP response error in %v", err)
	require.Equal(t, status, respErr.HTTPStatusCode(), "status of %v", err)
}
