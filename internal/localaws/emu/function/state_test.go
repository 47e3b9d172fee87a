package function_test

import (
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

// stepClock is a test clock moved by hand.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestStateTransitions: a new function is Pending, then Active; an update
// leaves LastUpdateStatus InProgress, then Successful
// (https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html), so
// a client that does not wait is caught: invoking a Pending function and
// updating one that is still changing answer ResourceConflictException.
// It used to answer Active and Successful at once.
func TestStateTransitions(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	b := setup(t, func(o *function.Options) { o.Now, o.TransitionDelay = clk.Now, 2*time.Second })
	out := b.create(t, "fn", nil)
	require.Equal(t, lambdatypes.StatePending, out.State)
	require.Equal(t, lambdatypes.StateReasonCodeCreating, out.StateReasonCode)
	require.Equal(t, lambdatypes.LastUpdateStatusInProgress, out.LastUpdateStatus)

	_, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("fn")})
	requireAPIError(t, err, "ResourceConflictException")
	require.ErrorContains(t, err, "The function is currently in the following state: Pending")
	_, err = b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String("fn"), Timeout: aws.Int32(20)})
	requireAPIError(t, err, "ResourceConflictException")
	require.ErrorContains(t, err, "An update is in progress for resource: arn:aws:lambda:us-east-1:000000000000:function:fn")

	clk.Advance(2 * time.Second)
	cfg, err := b.lambda.GetFunctionConfiguration(b.ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("fn")})
	require.NoError(t, err)
	require.Equal(t, lambdatypes.StateActive, cfg.State)
	require.Equal(t, lambdatypes.LastUpdateStatusSuccessful, cfg.LastUpdateStatus)

	up, err := b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String("fn"), Timeout: aws.Int32(20)})
	require.NoError(t, err)
	require.Equal(t, lambdatypes.StateActive, up.State, "an update keeps the function Active")
	require.Equal(t, lambdatypes.LastUpdateStatusInProgress, up.LastUpdateStatus)
	_, err = b.lambda.UpdateFunctionCode(b.ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("fn"), ZipFile: b.zip})
	requireAPIError(t, err, "ResourceConflictException")
	got, err := b.lambda.GetFunction(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn")})
	require.NoError(t, err)
	require.Equal(t, lambdatypes.LastUpdateStatusInProgress, got.Configuration.LastUpdateStatus)

	clk.Advance(2 * time.Second)
	code, err := b.lambda.UpdateFunctionCode(b.ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("fn"), ZipFile: b.zip})
	require.NoError(t, err)
	require.Equal(t, lambdatypes.LastUpdateStatusInProgress, code.LastUpdateStatus)
	clk.Advance(2 * time.Second)
	cfg, err = b.lambda.GetFunctionConfiguration(b.ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("fn")})
	require.NoError(t, err)
	require.Equal(t, lambdatypes.LastUpdateStatusSuccessful, cfg.LastUpdateStatus)
	require.Equal(t, int32(20), aws.ToInt32(cfg.Timeout))
}

// TestStateWaiters: a client that waits with the SDK's waiters, as the
// Terraform provider does, gets through (real clock).
func TestStateWaiters(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *function.Options) { o.TransitionDelay = 300 * time.Millisecond })
	b.create(t, "fn", nil)
	fast := func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 100*time.Millisecond
	}
	require.NoError(t, lambda.NewFunctionActiveV2Waiter(b.lambda, fast).Wait(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn")}, 10*time.Second))
	_, err := b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String("fn"), MemorySize: aws.Int32(256)})
	require.NoError(t, err)
	require.NoError(t, lambda.NewFunctionUpdatedV2Waiter(b.lambda, func(o *lambda.FunctionUpdatedV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 100*time.Millisecond
	}).Wait(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn")}, 10*time.Second))
	_, err = b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("fn"), InvocationType: lambdatypes.InvocationTypeDryRun})
	require.NoError(t, err)
}
