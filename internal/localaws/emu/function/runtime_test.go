package function_test

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

func TestInvokeEchoAndWarmReuse(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "echo", nil)

	first := b.invoke(t, "echo", event{Value: "hello"})
	require.Empty(t, first.FunctionError)
	require.True(t, first.ColdStart)
	require.Equal(t, "$LATEST", first.ExecutedVersion)
	r1 := decodeReply(t, first.Payload)
	require.Equal(t, "hello", r1.Value)
	require.Equal(t, first.PID, r1.PID, "the result names the process that ran it")
	require.Equal(t, first.RequestID, r1.RequestID, "the runtime got Lambda-Runtime-Aws-Request-Id")
	require.Equal(t, "arn:aws:lambda:us-east-1:000000000000:function:echo", r1.FunctionARN)
	require.InDelta(t, 10_000, r1.RemainingMS, 2_000, "the deadline header is the 10 s timeout from now")

	second := b.invoke(t, "echo", event{Value: "again"})
	require.False(t, second.ColdStart)
	require.Equal(t, first.PID, decodeReply(t, second.Payload).PID, "a sequential call reuses the warm process")
	require.Equal(t, first.Instance, second.Instance)

	st, err := b.svc.Stats("echo")
	require.NoError(t, err)
	require.Equal(t, int64(2), st.Invocations)
	require.Equal(t, int64(1), st.ColdStarts)
	require.Equal(t, 1, st.PeakConcurrent)
	require.Zero(t, st.Errors)
}

func TestInvokeWithoutPayloadSendsEmptyObject(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "nopayload", nil)
	res, err := b.svc.Invoke(b.ctx, "nopayload", nil, function.InvokeOptions{})
	require.NoError(t, err)
	require.Empty(t, res.FunctionError, "payload %s", res.Payload)

	_, err = b.svc.Invoke(b.ctx, "nopayload", []byte("not json"), function.InvokeOptions{})
	require.ErrorIs(t, err, function.ErrInvalidRequestContent)
}

func TestFunctionErrorKeepsTheProcess(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "fails", nil)

	res := b.invoke(t, "fails", event{Action: "error", Value: "page not found"})
	require.Equal(t, "Unhandled", res.FunctionError)
	doc := decodeError(t, res.Payload)
	require.Equal(t, "page not found", doc.ErrorMessage)
	require.Equal(t, "errorString", doc.ErrorType, "aws-lambda-go names the Go error type")
	require.Equal(t, "errorString", res.ErrorType)

	next := b.invoke(t, "fails", event{})
	require.Empty(t, next.FunctionError)
	require.Equal(t, res.PID, next.PID, "a returned error does not end the process")
	st, err := b.svc.Stats("fails")
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Errors)
	require.Zero(t, st.Crashes)
}

func TestPanicReplacesTheProcess(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "panics", nil)

	res := b.invoke(t, "panics", event{Action: "panic", Value: "boom"})
	require.Equal(t, "Unhandled", res.FunctionError)
	doc := decodeError(t, res.Payload)
	require.Equal(t, "boom", doc.ErrorMessage)
	require.NotEmpty(t, doc.StackTrace, "aws-lambda-go reports a panic with its stack")

	next := b.invoke(t, "panics", event{})
	require.Empty(t, next.FunctionError, "payload %s", next.Payload)
	require.True(t, next.ColdStart, "aws-lambda-go exits after a panic, so the next call starts a process")
	require.NotEqual(t, res.PID, next.PID)
	require.NotEqual(t, res.Instance, next.Instance)
}

func TestTimeoutKillsTheProcess(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "slow", func(in *lambda.CreateFunctionInput) { in.Timeout = aws.Int32(1) })

	start := time.Now()
	res := b.invoke(t, "slow", event{Action: "sleep", SleepMS: 5000})
	elapsed := time.Since(start)
	require.Equal(t, "Unhandled", res.FunctionError)
	require.Equal(t, "Sandbox.Timedout", res.ErrorType)
	doc := decodeError(t, res.Payload)
	require.Equal(t, "Sandbox.Timedout", doc.ErrorType)
	require.Regexp(t, `^RequestId: `+regexp.QuoteMeta(res.RequestID)+` Error: Task timed out after 1\.\d\d seconds$`, doc.ErrorMessage)
	require.Less(t, elapsed, 4*time.Second, "killed at the deadline, not after the 5 s sleep")

	lines := b.logMessages(t, "/aws/lambda/slow")
	require.True(t, containsLine(lines, res.RequestID+" Task timed out after 1."), "log: %q", lines)
	require.True(t, containsLine(lines, "Status: timeout"), "REPORT says the status: %q", lines)

	next := b.invoke(t, "slow", event{})
	require.Empty(t, next.FunctionError, "payload %s", next.Payload)
	require.NotEqual(t, res.PID, next.PID, "the timed-out process was replaced")
	st, err := b.svc.Stats("slow")
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Timeouts)
	require.Equal(t, int64(2), st.ColdStarts)
}

func TestProcessExitIsRuntimeExitError(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "exits", nil)

	res := b.invoke(t, "exits", event{Action: "exit"})
	require.Equal(t, "Unhandled", res.FunctionError)
	doc := decodeError(t, res.Payload)
	require.Equal(t, "Runtime.ExitError", doc.ErrorType)
	require.Equal(t, "RequestId: "+res.RequestID+" Error: Runtime exited with error: exit status 3", doc.ErrorMessage)

	lines := b.logMessages(t, "/aws/lambda/exits")
	require.True(t, containsLine(lines, "exiting on purpose"), "output printed before the exit is logged: %q", lines)
	require.True(t, containsLine(lines, "RequestId: "+res.RequestID+" Error: Runtime exited with error: exit status 3\nRuntime.ExitError"), "%q", lines)

	next := b.invoke(t, "exits", event{})
	require.Empty(t, next.FunctionError)
	require.NotEqual(t, res.PID, next.PID)
	st, err := b.svc.Stats("exits")
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Crashes)
}

func TestEMFLinesBecomeMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "metrics", nil)

	res := b.invoke(t, "metrics", event{Action: "emf"})
	require.Empty(t, res.FunctionError)
	got := b.metrics.find("taskpipe", "TasksFailed")
	require.Len(t, got, 1)
	require.Equal(t, 2.0, got[0].Value)
	require.Equal(t, "Count", got[0].Unit)
	require.Equal(t, map[string]string{"ErrorKind": "fatal"}, got[0].Dimensions)

	for _, name := range []string{"Invocations", "Errors", "Duration", "ConcurrentExecutions"} {
		ms := b.metrics.find("AWS/Lambda", name)
		require.NotEmpty(t, ms, name)
		require.Equal(t, map[string]string{"FunctionName": "metrics"}, ms[0].Dimensions, name)
	}
	require.Equal(t, 1.0, b.metrics.find("AWS/Lambda", "Invocations")[0].Value)
	require.Equal(t, 0.0, b.metrics.find("AWS/Lambda", "Errors")[0].Value)
}

// denyLogs is an execution role without the logs grants.
type denyLogs struct{}

func (denyLogs) Authorize(_ context.Context, s emu.RoleSession, action, resource string) error {
	if strings.HasPrefix(action, "logs:") {
		return &emu.AccessDeniedError{Message: "not authorized to perform: " + action + " on resource: " + resource}
	}
	return nil
}

// A role that may not write its logs loses them, and with them the EMF
// metrics CloudWatch would have extracted; the function runs on.
func TestDroppedLogsCarryNoMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *function.Options) { o.Authorizer = denyLogs{} })
	b.create(t, "nologs", nil)

	res := b.invoke(t, "nologs", event{Action: "emf"})
	require.Empty(t, res.FunctionError, "payload %s", res.Payload)
	require.Empty(t, b.metrics.find("taskpipe", "TasksFailed"), "no EMF metric from a dropped log event")
	streams, err := b.logs.Streams("/aws/lambda/nologs")
	require.True(t, err != nil || len(streams) == 0, "no event reached the group: %v", streams)
	require.NotEmpty(t, b.metrics.find("AWS/Lambda", "Invocations"), "Lambda's own metrics do not come from the logs")
}

func TestAWSCallsCarryTheCaller(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "caller", nil)

	res := b.invoke(t, "caller", event{Action: "call"})
	require.Empty(t, res.FunctionError, "payload %s", res.Payload)
	require.Equal(t, 1, decodeReply(t, res.Payload).QueueCount, "the SDK call reached the local cloud's SQS")
	calls := b.sqs.recorded()
	require.Len(t, calls, 1)
	require.Equal(t, "AmazonSQS.ListQueues", calls[0].op)
	require.NotNil(t, calls[0].caller, "the call carries emu.Caller")
	require.Equal(t, "caller", calls[0].caller.Function)
	require.Equal(t, res.Instance, calls[0].caller.Instance)

	t.Run("KillTheCaller", func(t *testing.T) {
		b.sqs.mu.Lock()
		b.sqs.killNext = true
		b.sqs.mu.Unlock()
		res := b.invoke(t, "caller", event{Action: "call"})
		require.Equal(t, "Unhandled", res.FunctionError)
		doc := decodeError(t, res.Payload)
		require.Equal(t, "Runtime.ExitError", doc.ErrorType)
		require.Contains(t, doc.ErrorMessage, "Runtime exited with error: signal: killed")

		next := b.invoke(t, "caller", event{})
		require.NotEqual(t, res.PID, next.PID)
	})
}

// A process frozen in the middle of its invocation (a fault rule's
// KillAtTimeout) answers nothing: the invocation ends at the function's
// timeout as Lambda ends one stuck past its deadline, and the process is
// replaced. With no invocation in flight there is nothing to freeze.
func TestFreezeEndsTheInvocationAtItsTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "frozen", func(in *lambda.CreateFunctionInput) { in.Timeout = aws.Int32(1) })

	b.sqs.mu.Lock()
	b.sqs.freezeNext = true
	b.sqs.mu.Unlock()
	res := b.invoke(t, "frozen", event{Action: "call"})
	b.sqs.mu.Lock()
	froze := b.sqs.froze
	b.sqs.mu.Unlock()
	require.True(t, froze, "the call came from an invocation in flight")
	require.Equal(t, "Unhandled", res.FunctionError, "payload %s", res.Payload)
	doc := decodeError(t, res.Payload)
	require.Equal(t, "Sandbox.Timedout", doc.ErrorType, "the answer to the call never reached the frozen process")
	lines := b.logMessages(t, "/aws/lambda/frozen")
	require.True(t, containsLine(lines, res.RequestID+" Task timed out after 1."), "log: %q", lines)

	next := b.invoke(t, "frozen", event{Action: "call"})
	require.Empty(t, next.FunctionError, "payload %s", next.Payload)
	require.NotEqual(t, res.PID, next.PID, "the frozen process was killed at the timeout and replaced")
	st, err := b.svc.Stats("frozen")
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Timeouts)

	// The caller of a finished invocation has nothing in flight.
	calls := b.sqs.recorded()
	last := calls[len(calls)-1].caller
	require.NotNil(t, last)
	require.False(t, last.Freeze("test: after the invocation"), "no invocation in flight")
	again := b.invoke(t, "frozen", event{})
	require.Empty(t, again.FunctionError, "payload %s", again.Payload)
	require.Equal(t, next.PID, again.PID, "the idle process was not frozen")
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "env", func(in *lambda.CreateFunctionInput) {
		in.MemorySize = aws.Int32(256)
		in.Environment = &lambdatypes.Environment{Variables: map[string]string{"TABLE_NAME": "tasks", "AWS_ENDPOINT_URL": "http://elsewhere"}}
	})
	names := []string{
		"TABLE_NAME", "AWS_LAMBDA_RUNTIME_API", "AWS_ENDPOINT_URL", "AWS_LAMBDA_FUNCTION_NAME",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_LOG_GROUP_NAME",
		"AWS_LAMBDA_LOG_STREAM_NAME", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID",
		"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "_HANDLER", "LAMBDA_TASK_ROOT", "LAMBDA_RUNTIME_DIR",
		"TZ", "PATH", "_LAMBDA_SERVER_PORT", "HOME", "GOPATH",
	}
	res := b.invoke(t, "env", event{Action: "env", Env: names})
	env := decodeReply(t, res.Payload).Env

	require.Equal(t, "tasks", env["TABLE_NAME"])
	host, port, err := net.SplitHostPort(env["AWS_LAMBDA_RUNTIME_API"])
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)
	_, err = strconv.Atoi(port)
	require.NoError(t, err)
	require.Equal(t, "http://"+env["AWS_LAMBDA_RUNTIME_API"], env["AWS_ENDPOINT_URL"], "AWS calls go through the instance's own listener")
	require.Equal(t, "env", env["AWS_LAMBDA_FUNCTION_NAME"])
	require.Equal(t, "256", env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
	require.Equal(t, "$LATEST", env["AWS_LAMBDA_FUNCTION_VERSION"])
	require.Equal(t, "/aws/lambda/env", env["AWS_LAMBDA_LOG_GROUP_NAME"])
	require.Regexp(t, `^\d{4}/\d{2}/\d{2}/\[\$LATEST\]`+res.Instance+`$`, env["AWS_LAMBDA_LOG_STREAM_NAME"])
	require.Equal(t, "us-east-1", env["AWS_REGION"])
	require.Equal(t, "us-east-1", env["AWS_DEFAULT_REGION"])
	require.NotEmpty(t, env["AWS_ACCESS_KEY_ID"])
	require.NotEmpty(t, env["AWS_SECRET_ACCESS_KEY"])
	require.NotEmpty(t, env["AWS_SESSION_TOKEN"])
	require.Equal(t, "bootstrap", env["_HANDLER"])
	require.DirExists(t, env["LAMBDA_TASK_ROOT"])
	require.NotEmpty(t, env["LAMBDA_RUNTIME_DIR"])
	require.Equal(t, ":UTC", env["TZ"])
	require.NotEmpty(t, env["PATH"])
	for _, absent := range []string{"_LAMBDA_SERVER_PORT", "HOME", "GOPATH"} {
		_, ok := env[absent]
		require.False(t, ok, "%s must not leak into the function", absent)
	}
}

func TestReservedConcurrencyCapsAndThrottles(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "capped", nil)
	_, err := b.lambda.PutFunctionConcurrency(b.ctx, &lambda.PutFunctionConcurrencyInput{
		FunctionName: aws.String("capped"), ReservedConcurrentExecutions: aws.Int32(2),
	})
	require.NoError(t, err)

	const holders = 2
	done := make(chan function.InvokeResult, holders)
	for range holders {
		go func() {
			res, err := b.svc.Invoke(b.ctx, "capped", payload(t, event{Action: "sleep", SleepMS: 1500}), function.InvokeOptions{})
			if err != nil {
				res.FunctionError = err.Error()
			}
			done <- res
		}()
	}
	eventually(t, func() bool {
		st, err := b.svc.Stats("capped")
		return err == nil && st.Concurrent == holders
	}, "both slots taken")

	// Every invocation beyond the reservation is throttled, through the Go
	// API and through the SDK.
	for range 3 {
		_, err := b.svc.Invoke(b.ctx, "capped", payload(t, event{}), function.InvokeOptions{})
		require.ErrorIs(t, err, function.ErrThrottled)
		var fe *function.Error
		require.True(t, errors.As(err, &fe))
		require.Equal(t, "ReservedFunctionConcurrentInvocationLimitExceeded", fe.Reason)
	}
	_, err = b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("capped"), Payload: []byte(`{}`)})
	var tooMany *lambdatypes.TooManyRequestsException
	require.ErrorAs(t, err, &tooMany)
	require.Equal(t, "ReservedFunctionConcurrentInvocationLimitExceeded", string(tooMany.Reason))

	for range holders {
		res := <-done
		require.Empty(t, res.FunctionError, "payload %s", res.Payload)
	}
	st, err := b.svc.Stats("capped")
	require.NoError(t, err)
	require.Equal(t, 2, st.PeakConcurrent)
	require.Equal(t, int64(4), st.Throttles)
	require.Equal(t, int64(2), st.Invocations)
	require.Len(t, b.metrics.find("AWS/Lambda", "Throttles"), 4)

	t.Run("Burst", func(t *testing.T) {
		require.NoError(t, b.svc.ResetPeak("capped"))
		const n = 6
		results := make(chan error, n)
		for range n {
			go func() {
				res, err := b.svc.Invoke(b.ctx, "capped", payload(t, event{Action: "sleep", SleepMS: 800}), function.InvokeOptions{})
				if err == nil && res.FunctionError != "" {
					err = errors.New(string(res.Payload))
				}
				results <- err
			}()
		}
		ok, throttled := 0, 0
		for range n {
			err := <-results
			switch {
			case err == nil:
				ok++
			case errors.Is(err, function.ErrThrottled):
				throttled++
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		require.Equal(t, n, ok+throttled)
		require.GreaterOrEqual(t, ok, 1)
		require.GreaterOrEqual(t, throttled, 1)
		st, err := b.svc.Stats("capped")
		require.NoError(t, err)
		require.LessOrEqual(t, st.PeakConcurrent, 2, "the reservation is never exceeded")
		require.LessOrEqual(t, st.Instances, 2)
	})
}

func TestZeroReservedConcurrencyThrottlesEverything(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "off", nil)
	require.NoError(t, b.svc.PutConcurrency("off", 0))
	_, err := b.svc.Invoke(b.ctx, "off", nil, function.InvokeOptions{})
	require.ErrorIs(t, err, function.ErrThrottled)
	st, err := b.svc.Stats("off")
	require.NoError(t, err)
	require.Zero(t, st.ColdStarts)
}

func TestMaxInstancesWithoutReservation(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *function.Options) { o.MaxInstancesPerFunction = 1 })
	b.create(t, "one", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = b.svc.Invoke(b.ctx, "one", payload(t, event{Action: "sleep", SleepMS: 1000}), function.InvokeOptions{})
	}()
	eventually(t, func() bool { st, _ := b.svc.Stats("one"); return st.Concurrent == 1 }, "slot taken")
	_, err := b.svc.Invoke(b.ctx, "one", nil, function.InvokeOptions{})
	var fe *function.Error
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "ConcurrentInvocationLimitExceeded", fe.Reason)
	<-done
}

func TestAsyncInvocationRunsAndRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "async", nil)

	res, err := b.svc.Invoke(b.ctx, "async", payload(t, event{Action: "print", Value: "async-ran"}), function.InvokeOptions{Type: function.Async})
	require.NoError(t, err)
	require.Equal(t, 202, res.StatusCode)
	require.NotEmpty(t, res.RequestID)
	eventually(t, func() bool { return strings.Contains(b.console.String(), "[async] async-ran") }, "the queued event ran")

	_, err = b.svc.Invoke(b.ctx, "async", payload(t, event{Action: "error", Value: "always"}), function.InvokeOptions{Type: function.Async})
	require.NoError(t, err)
	eventually(t, func() bool {
		st, _ := b.svc.Stats("async")
		return st.AsyncDropped == 1
	}, "the failing event is dropped after its retries")
	st, err := b.svc.Stats("async")
	require.NoError(t, err)
	require.Equal(t, int64(3), st.Errors, "one attempt and two retries")
	require.Equal(t, int64(4), st.Invocations)

	big := make([]byte, 300*1024)
	for i := range big {
		big[i] = 'a'
	}
	big[0], big[len(big)-1] = '"', '"'
	_, err = b.svc.Invoke(b.ctx, "async", big, function.InvokeOptions{Type: function.Async})
	require.ErrorIs(t, err, function.ErrRequestTooLarge, "async events are limited to 256 KB")
}

func TestAsyncEventsWaitForCapacity(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "queued", nil)
	require.NoError(t, b.svc.PutConcurrency("queued", 1))
	for i := range 3 {
		_, err := b.svc.Invoke(b.ctx, "queued", payload(t, event{Action: "print", Value: "event-" + strconv.Itoa(i)}), function.InvokeOptions{Type: function.Async})
		require.NoError(t, err)
	}
	eventually(t, func() bool { st, _ := b.svc.Stats("queued"); return st.Invocations == 3 }, "every queued event ran")
	st, err := b.svc.Stats("queued")
	require.NoError(t, err)
	require.Equal(t, 1, st.PeakConcurrent)
	require.Zero(t, st.Throttles, "async events wait instead of being throttled")
	require.Equal(t, int64(1), st.ColdStarts, "one warm process ran them all")
}

func TestResponseTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "big", nil)
	res := b.invoke(t, "big", event{Action: "big", Size: 7 << 20})
	require.Equal(t, "Unhandled", res.FunctionError)
	require.Equal(t, "Function.ResponseSizeTooLarge", res.ErrorType)
}

func TestSIGTERMBeforeShutdown(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "graceful", nil)
	b.invoke(t, "graceful", event{})
	// A configuration change retires the warm process; its runtime
	// registered the SIGTERM extension, so it gets SIGTERM first.
	_, err := b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("graceful"), MemorySize: aws.Int32(256),
	})
	require.NoError(t, err)
	eventually(t, func() bool { return strings.Contains(b.console.String(), "[graceful] SIGTERM received") }, "console: %s", b.console.String())
}

func TestInvokeTail(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "tail", nil)
	res, err := b.svc.Invoke(b.ctx, "tail", payload(t, event{Action: "print", Value: "first line|second line"}), function.InvokeOptions{LogTail: true})
	require.NoError(t, err)
	require.Contains(t, res.LogTail, "START RequestId: "+res.RequestID)
	require.Contains(t, res.LogTail, "first line\nsecond line\n")
	require.Contains(t, res.LogTail, "REPORT RequestId: "+res.RequestID)
	require.Less(t, strings.Index(res.LogTail, "second line"), strings.Index(res.LogTail, "END RequestId"), "output printed before the response precedes END")
}

func TestIdleProcessesAreReaped(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *function.Options) { o.IdleTimeout = 200 * time.Millisecond })
	b.create(t, "reaped", nil)
	b.invoke(t, "reaped", event{})
	eventually(t, func() bool { st, _ := b.svc.Stats("reaped"); return st.Instances == 0 }, "the idle process is stopped")
	res := b.invoke(t, "reaped", event{})
	require.True(t, res.ColdStart)
}
