package fault_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

func TestThrottleErrorsAsTheSDKSeesThem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   fault.DynamoDBFaults
		check func(*testing.T, error)
	}{
		{"provisioned throughput exceeded (default)", fault.DynamoDBFaults{ThrottleRate: 1}, func(t *testing.T, err error) {
			var e *ddbtypes.ProvisionedThroughputExceededException
			require.ErrorAs(t, err, &e)
			require.Contains(t, e.ErrorMessage(), "Throughput exceeds the current capacity")
			require.Equal(t, []ddbtypes.ThrottlingReason{{
				Reason:   aws.String("TableWriteKeyRangeThroughputExceeded"),
				Resource: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/tasks"),
			}}, e.ThrottlingReasons)
			require.True(t, retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err).Bool(), "the SDK treats it as a throttle")
		}},
		{"throttling exception", fault.DynamoDBFaults{ThrottleRate: 1, ThrottleError: fault.ErrThrottling}, func(t *testing.T, err error) {
			var e *ddbtypes.ThrottlingException
			require.ErrorAs(t, err, &e)
			require.True(t, retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err).Bool())
		}},
		{"internal server error", fault.DynamoDBFaults{ServerErrorRate: 1}, func(t *testing.T, err error) {
			var e *ddbtypes.InternalServerError
			require.ErrorAs(t, err, &e)
			var re *awshttp.ResponseError
			require.ErrorAs(t, err, &re)
			require.Equal(t, http.StatusInternalServerError, re.HTTPStatusCode())
			require.True(t, retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err).Bool(), "the SDK retries it")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCloud(t, fault.Config{}, 1)
			cl := ddb(c.plain, 1)
			createTasks(t, cl) // CreateTable is not a data-plane operation: never faulted
			require.NoError(t, c.inj.SetConfig(fault.Config{DynamoDB: tt.cfg}))
			_, err := cl.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("tasks"),
				Item: map[string]ddbtypes.AttributeValue{"taskId": s("t-1")}})
			require.Error(t, err)
			var re *awshttp.ResponseError
			require.ErrorAs(t, err, &re)
			if tt.cfg.ThrottleRate > 0 {
				require.Equal(t, http.StatusBadRequest, re.HTTPStatusCode())
			}
			tt.check(t, err)
			require.NoError(t, c.inj.SetConfig(fault.Config{}))
			out, err := cl.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("tasks"),
				Key: map[string]ddbtypes.AttributeValue{"taskId": s("t-1")}})
			require.NoError(t, err)
			require.Empty(t, out.Item, "a rejected write was not applied")
		})
	}
}

// TestThrottlingIsRetriedByTheSDK: at a 30 % throttle rate the SDK's
// retries make nearly every call succeed, and the observed rate matches.
func TestThrottlingIsRetriedByTheSDK(t *testing.T) {
	t.Parallel()
	const calls, rate = 300, 0.3
	c := newCloud(t, fault.Config{}, 7)
	cl := ddb(c.plain, 5)
	createTasks(t, cl)
	require.NoError(t, c.inj.SetConfig(fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleRate: rate, ServerErrorRate: 0.05}}))
	failed, retried := 0, 0
	for i := range calls {
		out, err := cl.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("tasks"),
			Item: map[string]ddbtypes.AttributeValue{"taskId": s(fmt.Sprint("t-", i))}})
		if err != nil {
			failed++
			continue
		}
		if res, ok := retry.GetAttemptResults(out.ResultMetadata); ok && len(res.Results) > 1 {
			retried++
		}
	}
	st := c.inj.Stats()
	observed := float64(st.DynamoDBThrottles) / float64(st.DynamoDBRequests)
	t.Logf("requests %d, throttles %d (%.3f), 5xx %d, calls retried %d, calls failed after 5 attempts %d",
		st.DynamoDBRequests, st.DynamoDBThrottles, observed, st.DynamoDBServerErrors, retried, failed)
	require.InDelta(t, rate, observed, 0.06)
	require.InDelta(t, 0.05, float64(st.DynamoDBServerErrors)/float64(st.DynamoDBRequests), 0.03)
	require.Greater(t, retried, calls/5, "the SDK retried the throttled calls")
	require.LessOrEqual(t, failed, 3, "with 5 attempts, (0.35)^5 ≈ 0.5 %% of calls fail")
	// Every attempt went through the injector, and every fault cost exactly
	// one more attempt, except the last fault of each call that gave up.
	faults := st.DynamoDBThrottles + st.DynamoDBServerErrors
	require.Equal(t, int64(calls)+faults-int64(failed), st.DynamoDBRequests)
}

func TestDynamoDBFaultScope(t *testing.T) {
	t.Parallel()
	c := newCloud(t, fault.Config{}, 1)
	plain := ddb(c.plain, 1)
	createTasks(t, plain)
	putTask(t, plain, "t-1", "Pending")
	require.NoError(t, c.inj.SetConfig(fault.Config{DynamoDB: fault.DynamoDBFaults{
		ThrottleRate: 1, Operations: []string{"UpdateItem"}, Functions: []string{"scraper"}}}))

	// Only the scraper's UpdateItems are throttled.
	require.Equal(t, "Pending", statusOf(t, plain, "t-1"))
	require.NoError(t, claim(ctx(t), plain, "t-1"), "not from a function")
	putTask(t, plain, "t-1", "Pending")
	fn := ddb(c.asFn, 1)
	c.setCaller(&emu.Caller{Function: "enrich", Instance: "i-1"})
	require.NoError(t, claim(ctx(t), fn, "t-1"), "another function")
	putTask(t, plain, "t-1", "Pending")
	c.setCaller(&emu.Caller{Function: "scraper", Instance: "i-2"})
	require.Equal(t, "Pending", statusOf(t, fn, "t-1"), "GetItem is not in scope")
	var e *ddbtypes.ProvisionedThroughputExceededException
	require.ErrorAs(t, claim(ctx(t), fn, "t-1"), &e)
	require.Equal(t, int64(1), c.inj.Stats().DynamoDBThrottles)
}

func TestKillRuleKillsRightAfterTheClaim(t *testing.T) {
	t.Parallel()
	c := newCloud(t, fault.Config{}, 1)
	plain := ddb(c.plain, 1)
	createTasks(t, plain)
	for _, id := range []string{"t-1", "t-2", "t-3"} {
		putTask(t, plain, id, "Pending")
	}
	require.NoError(t, c.inj.SetConfig(fault.Config{Kill: []fault.KillRule{{
		Function: "scraper", Service: emu.ServiceDynamoDB, Operation: "UpdateItem", BodyContains: `"Pending"`, Rate: 1, Times: 1,
	}}}))

	// The function's request context dies with the process, as a killed
	// worker's would.
	workerCtx, die := contextWithCancel(t)
	var kills atomic.Int32
	var (
		mu           sync.Mutex
		statusAtKill *dynamodb.GetItemOutput
		getErr       error
		killReason   string
	)
	c.setCaller(&emu.Caller{Function: "scraper", Instance: "i-1", Kill: func(reason string) {
		kills.Add(1)
		// The effect must be committed before the kill.
		out, err := plain.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("tasks"),
			Key: map[string]ddbtypes.AttributeValue{"taskId": s("t-1")}, ConsistentRead: aws.Bool(true)})
		mu.Lock()
		statusAtKill, getErr, killReason = out, err, reason
		mu.Unlock()
		die()
	}})
	fn := ddb(c.asFn, 3)

	// A matching request that fails (condition) kills nobody and gets its error.
	putTask(t, plain, "t-2", "Finished")
	var ccf *ddbtypes.ConditionalCheckFailedException
	require.ErrorAs(t, claim(ctx(t), fn, "t-2"), &ccf)
	require.Zero(t, kills.Load())

	// Requests that do not match kill nobody.
	require.Equal(t, "Pending", statusOf(t, fn, "t-1"))
	require.Zero(t, kills.Load())

	err := claim(workerCtx, fn, "t-1")
	require.Error(t, err, "the killed worker never learns that its claim succeeded")
	require.Equal(t, int32(1), kills.Load(), "killed exactly once, even though the SDK may have retried")
	mu.Lock()
	require.NoError(t, getErr)
	require.Equal(t, s("Running"), statusAtKill.Item["status"])
	require.Contains(t, killReason, "kill rule 0 after a successful dynamodb:UpdateItem")
	mu.Unlock()
	require.Equal(t, "Running", statusOf(t, plain, "t-1"))

	// Times: 1 — the rule is spent.
	c.setCaller(&emu.Caller{Function: "scraper", Instance: "i-2", Kill: func(string) { kills.Add(1) }})
	require.NoError(t, claim(ctx(t), fn, "t-3"))
	require.Equal(t, int32(1), kills.Load())

	st := c.inj.Stats()
	require.Equal(t, int64(1), st.Kills)
	require.Equal(t, []int64{1}, st.KillsByRule)
	require.Len(t, st.Killed, 1)
	require.Equal(t, "i-1", st.Killed[0].Instance)
	require.Equal(t, "UpdateItem", st.Killed[0].Operation)
}

// A KillAtTimeout rule answers the claim (the worker goes on to its
// fetches) and freezes the instance after the rule's delay; a freeze that
// finds the invocation over is counted as missed, not as a kill.
func TestKillAtTimeoutFreezesAfterTheAnswer(t *testing.T) {
	t.Parallel()
	c := newCloud(t, fault.Config{}, 1)
	plain := ddb(c.plain, 1)
	createTasks(t, plain)
	for _, id := range []string{"t-1", "t-2"} {
		putTask(t, plain, id, "Pending")
	}
	require.NoError(t, c.inj.SetConfig(fault.Config{Kill: []fault.KillRule{{
		Function: "scraper", Service: emu.ServiceDynamoDB, Operation: "UpdateItem", BodyContains: `"Pending"`, Rate: 1,
		Action: fault.KillAtTimeout, Delay: fault.Duration(20 * time.Millisecond),
	}}}))
	fn := ddb(c.asFn, 1)

	frozen := make(chan string, 1)
	c.setCaller(&emu.Caller{Function: "scraper", Instance: "i-1",
		Kill: func(string) { t.Error("a KillAtTimeout rule never kills at once") },
		Freeze: func(reason string) bool {
			frozen <- reason
			return true
		}})
	require.NoError(t, claim(ctx(t), fn, "t-1"), "the worker learns that its claim succeeded")
	select {
	case reason := <-frozen:
		require.Contains(t, reason, "kill rule 0, 20ms after a successful dynamodb:UpdateItem")
	case <-ctx(t).Done():
		t.Fatal("never frozen")
	}
	require.Eventually(t, func() bool { return c.inj.Stats().Frozen == 1 }, 5*time.Second, time.Millisecond)

	missed := make(chan struct{})
	c.setCaller(&emu.Caller{Function: "scraper", Instance: "i-2", Freeze: func(string) bool {
		close(missed)
		return false
	}})
	require.NoError(t, claim(ctx(t), fn, "t-2"))
	<-missed
	require.Eventually(t, func() bool { return c.inj.Stats().FreezeMissed == 1 }, 5*time.Second, time.Millisecond)

	st := c.inj.Stats()
	require.Zero(t, st.Kills)
	require.Equal(t, int64(1), st.Frozen)
	require.Equal(t, []int64{1}, st.KillsByRule, "only the freeze that took")
	require.Len(t, st.Killed, 1)
	require.Equal(t, fault.KillAtTimeout, st.Killed[0].Action)
	require.Equal(t, "i-1", st.Killed[0].Instance)
}

func TestKillRuleValidation(t *testing.T) {
	t.Parallel()
	base := fault.KillRule{Function: "scraper", Rate: 1}
	for _, tt := range []struct {
		name    string
		mutate  func(*fault.KillRule)
		wantErr string
	}{
		{"kill", func(*fault.KillRule) {}, ""},
		{"timeout with a delay", func(k *fault.KillRule) { k.Action, k.Delay = fault.KillAtTimeout, fault.Duration(time.Second) }, ""},
		{"delay without timeout", func(k *fault.KillRule) { k.Delay = fault.Duration(time.Second) }, "delay applies only"},
		{"negative delay", func(k *fault.KillRule) { k.Action, k.Delay = fault.KillAtTimeout, -1 }, "between 0 and 1m"},
		{"long delay", func(k *fault.KillRule) { k.Action, k.Delay = fault.KillAtTimeout, fault.Duration(2*time.Minute) }, "between 0 and 1m"},
		{"unknown action", func(k *fault.KillRule) { k.Action = "pause" }, `action must be "kill" or "timeout"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := base
			tt.mutate(&k)
			err := fault.Config{Kill: []fault.KillRule{k}}.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestKillWithoutHijackAbortsTheHandler(t *testing.T) {
	t.Parallel()
	c := newCloud(t, fault.Config{}, 1)
	plain := ddb(c.plain, 1)
	createTasks(t, plain)
	putTask(t, plain, "t-1", "Pending")
	require.NoError(t, c.inj.SetConfig(fault.Config{Kill: []fault.KillRule{{Service: emu.ServiceDynamoDB, Operation: "UpdateItem", Rate: 1}}}))
	killed := false
	body := `{"TableName":"tasks","Key":{"taskId":{"S":"t-1"}},"UpdateExpression":"SET #s = :r","ExpressionAttributeNames":{"#s":"status"},"ExpressionAttributeValues":{":r":{"S":"Running"}}}`
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.UpdateItem")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req = req.WithContext(emu.WithCaller(req.Context(), &emu.Caller{Function: "f", Instance: "i", Kill: func(string) { killed = true }}))
	rec := httptest.NewRecorder() // cannot be hijacked
	require.PanicsWithValue(t, http.ErrAbortHandler, func() { c.router.ServeHTTP(rec, req) })
	require.True(t, killed)
	require.Equal(t, "Running", statusOf(t, plain, "t-1"))
}

func TestFaultsMethodsHonourRatesAndScope(t *testing.T) {
	t.Parallel()
	const n = 20000
	inj, err := fault.New(fault.Config{
		SQS:   fault.SQSFaults{DuplicateRate: 0.1, DropAckRate: 0.25, AckDelay: fault.Duration(2 * time.Second), Queues: []string{"work"}},
		Pipes: fault.PipeFaults{TargetFailureRate: 0.4},
	}, 42)
	require.NoError(t, err)
	const work = "arn:aws:sqs:us-east-1:000000000000:work"
	var dup, drop, pipe int
	for range n {
		if inj.DuplicateDelivery(work) {
			dup++
		}
		if inj.DropAck(work) {
			drop++
		}
		if inj.PipeTargetFails("tasks", nil) {
			pipe++
		}
	}
	require.InDelta(t, 0.1, float64(dup)/n, 0.01)
	require.InDelta(t, 0.25, float64(drop)/n, 0.015)
	require.InDelta(t, 0.4, float64(pipe)/n, 0.015)
	require.Equal(t, 2*time.Second, inj.AckDelay(work))
	require.Equal(t, 2*time.Second, inj.AckDelay("work"), "queues are selected by name or ARN")
	for range 1000 {
		require.False(t, inj.DuplicateDelivery("arn:aws:sqs:us-east-1:000000000000:other"))
		require.False(t, inj.DropAck("arn:aws:sqs:us-east-1:000000000000:other"))
	}
	require.Zero(t, inj.AckDelay("arn:aws:sqs:us-east-1:000000000000:other"))
	st := inj.Stats()
	require.Equal(t, int64(dup), st.SQSDuplicates)
	require.Equal(t, int64(n), st.SQSDeliveries)
	require.Equal(t, int64(drop), st.SQSDroppedAcks)
	require.Equal(t, int64(pipe), st.PipeTargetFailures)

	off, err := fault.New(fault.Config{}, 42)
	require.NoError(t, err)
	var faults emu.Faults = off
	for range 1000 {
		require.False(t, faults.DuplicateDelivery(work))
		require.False(t, faults.DropAck(work))
		require.False(t, faults.PipeTargetFails("tasks", nil))
		require.Zero(t, faults.AckDelay(work))
	}
}

// A refused body fails on every send, whatever the transient rate says,
// so the pipe's retries cannot get it through; the share of bodies refused
// follows the rate, and the same seed refuses the same bodies.
func TestPipeTargetRefusesTheSameBodies(t *testing.T) {
	t.Parallel()
	refused := func(seed uint64) map[int]bool {
		inj, err := fault.New(fault.Config{Pipes: fault.PipeFaults{TargetRefuseRate: 0.1, Pipes: []string{"dispatch"}}}, seed)
		require.NoError(t, err)
		out := map[int]bool{}
		for i := range 5000 {
			body := []byte(fmt.Sprintf(`{"v":1,"taskId":"t-%d"}`, i))
			first := inj.PipeTargetFails("dispatch", body)
			for range 3 {
				require.Equal(t, first, inj.PipeTargetFails("dispatch", body), "body %d decided differently on a retry", i)
			}
			require.False(t, inj.PipeTargetFails("other", body), "out of scope")
			if first {
				out[i] = true
			}
		}
		st := inj.Stats()
		require.Equal(t, int64(len(out)), st.PipeRefusedBodies)
		require.Equal(t, 4*int64(len(out)), st.PipeTargetRefusals)
		require.Zero(t, st.PipeTargetFailures)
		return out
	}
	a := refused(7)
	require.InDelta(t, 0.1, float64(len(a))/5000, 0.015)
	require.Equal(t, a, refused(7))
	require.NotEqual(t, a, refused(8))
}

func TestDeterministicWithSeed(t *testing.T) {
	t.Parallel()
	cfg := fault.Config{SQS: fault.SQSFaults{DuplicateRate: 0.5}, Pipes: fault.PipeFaults{TargetFailureRate: 0.5}}
	sequence := func(seed uint64, interleave bool) string {
		inj, err := fault.New(cfg, seed)
		require.NoError(t, err)
		var b strings.Builder
		for i := range 200 {
			if interleave && i%3 == 0 {
				inj.PipeTargetFails("p", nil) // another kind's decisions do not shift this one's
			}
			fmt.Fprint(&b, map[bool]int{false: 0, true: 1}[inj.DuplicateDelivery("q")])
		}
		return b.String()
	}
	require.Equal(t, sequence(1, false), sequence(1, false))
	require.Equal(t, sequence(1, false), sequence(1, true))
	require.NotEqual(t, sequence(1, false), sequence(2, false))

	// Through the middleware: the same seed throttles the same requests.
	pattern := func(seed uint64) string {
		c := newCloud(t, fault.Config{}, seed)
		cl := ddb(c.plain, 1)
		createTasks(t, cl)
		require.NoError(t, c.inj.SetConfig(fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleRate: 0.5}}))
		var b strings.Builder
		for i := range 40 {
			_, err := cl.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("tasks"),
				Item: map[string]ddbtypes.AttributeValue{"taskId": s(fmt.Sprint(i))}})
			fmt.Fprint(&b, map[bool]int{false: 0, true: 1}[err != nil])
		}
		return b.String()
	}
	require.Equal(t, pattern(9), pattern(9))

	// Concurrent use is safe (run with -race) and loses no decision.
	inj, err := fault.New(cfg, 3)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				inj.DuplicateDelivery("q")
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(4000), inj.Stats().SQSDeliveries)
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  fault.Config
		want []string
	}{
		{"rates", fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleRate: 1.5, ServerErrorRate: -0.1},
			SQS: fault.SQSFaults{DropAckRate: 2}}, []string{"dynamodb.throttleRate must be between 0 and 1",
			"dynamodb.serverErrorRate must be between 0 and 1", "sqs.dropAckRate"}},
		{"rates add up over 1", fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleRate: 0.7, ServerErrorRate: 0.7}},
			[]string{"must not exceed 1"}},
		{"throttle error", fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleError: "SlowDown"}}, []string{"dynamodb.throttleError"}},
		{"empty operation", fault.Config{DynamoDB: fault.DynamoDBFaults{Operations: []string{""}}}, []string{"dynamodb.operations has an empty entry"}},
		{"negative ack delay", fault.Config{SQS: fault.SQSFaults{AckDelay: fault.Duration(-time.Second)}}, []string{"sqs.ackDelay"}},
		{"kill rule selects nothing, rate 0", fault.Config{Kill: []fault.KillRule{{}}},
			[]string{"kill[0] selects nothing", "kill[0].rate must be in (0, 1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.cfg.Validate()
			require.Error(t, err)
			for _, w := range tt.want {
				require.Contains(t, err.Error(), w)
			}
			_, err = fault.New(tt.cfg, 1)
			require.Error(t, err)
		})
	}
	require.NoError(t, fault.Config{}.Validate())
	_, err := fault.New(fault.Config{Kill: []fault.KillRule{{Service: "dynamodb", Rate: 1}}}, 1)
	require.ErrorContains(t, err, "fault.WithServices")
}

func TestAdminRoundTrip(t *testing.T) {
	t.Parallel()
	c := newCloud(t, fault.Config{}, 5)
	admin := httptest.NewServer(c.inj.AdminHandler())
	t.Cleanup(admin.Close)
	do := func(method, path, body string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(ctx(t), method, admin.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	code, out := do(http.MethodGet, "/_taskpipe/faults", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 5.0, out["seed"])
	require.Equal(t, map[string]any{}, out["dynamodb"], "off by default")

	cfg := `{"dynamodb":{"throttleRate":0.2,"throttleError":"ThrottlingException","operations":["UpdateItem"]},
	         "sqs":{"duplicateRate":0.1,"ackDelay":"1.5s","queues":["work"]},
	         "pipes":{"targetFailureRate":0.3},
	         "kill":[{"function":"scraper","service":"dynamodb","operation":"UpdateItem","bodyContains":"Pending","rate":1,"times":2}]}`
	code, out = do(http.MethodPut, "/_taskpipe/faults?seed=11", cfg)
	require.Equal(t, http.StatusOK, code, out)
	require.Equal(t, 11.0, out["seed"])
	got := c.inj.Config()
	require.InDelta(t, 0.2, got.DynamoDB.ThrottleRate, 0)
	require.Equal(t, fault.ErrThrottling, got.DynamoDB.ThrottleError)
	require.Equal(t, fault.Duration(1500*time.Millisecond), got.SQS.AckDelay)
	require.Equal(t, []fault.KillRule{{Function: "scraper", Service: "dynamodb", Operation: "UpdateItem",
		BodyContains: "Pending", Rate: 1, Times: 2}}, got.Kill)
	code, out = do(http.MethodGet, "/_taskpipe/faults/", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "1.5s", out["sqs"].(map[string]any)["ackDelay"])

	for _, bad := range []struct{ body, want string }{
		{`{"sqs":{"dropAckRate":3}}`, "sqs.dropAckRate"},
		{`{"dynamodb":{"throttleRat":0.2}}`, "unknown field"},
		{`{"sqs":{"ackDelay":5}}`, "duration"},
		{`not json`, "fault config"},
	} {
		code, out = do(http.MethodPut, "/_taskpipe/faults", bad.body)
		require.Equal(t, http.StatusBadRequest, code, bad.body)
		require.Contains(t, out["error"], bad.want)
	}
	require.InDelta(t, 0.2, c.inj.Config().DynamoDB.ThrottleRate, 0, "a rejected config changes nothing")

	c.inj.DuplicateDelivery("arn:aws:sqs:us-east-1:000000000000:work")
	code, out = do(http.MethodGet, "/_taskpipe/faults/stats", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 1.0, out["sqsDeliveries"])
	code, out = do(http.MethodDelete, "/_taskpipe/faults/stats", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 0.0, out["sqsDeliveries"])

	code, _ = do(http.MethodDelete, "/_taskpipe/faults", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, fault.Config{}, c.inj.Config())
	code, _ = do(http.MethodPost, "/_taskpipe/faults", "")
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, _ = do(http.MethodGet, "/_taskpipe/faults/nope", "")
	require.Equal(t, http.StatusNotFound, code)
}

func TestAdminRequestsAreNeverFaulted(t *testing.T) {
	t.Parallel()
	inj, err := fault.New(fault.Config{Kill: []fault.KillRule{{Rate: 1, BodyContains: "x"}}}, 1,
		fault.WithServices(func(string) http.Handler { return nil }))
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPut, "/_taskpipe/faults", strings.NewReader("x"))
	req = req.WithContext(emu.WithCaller(req.Context(), &emu.Caller{Function: "f", Kill: func(string) { t.Error("admin request killed") }}))
	require.False(t, inj.Middleware()(httptest.NewRecorder(), req, emu.Op{Service: emu.ServiceAdmin, Operation: "faults"}))
}

// A pipe outage fails every send of that pipe until it is switched off,
// whatever the configuration, and is counted on its own.
func TestPipeOutage(t *testing.T) {
	t.Parallel()
	inj, err := fault.New(fault.Config{}, 1)
	require.NoError(t, err)
	require.False(t, inj.PipeTargetFails("dispatch", nil))
	inj.SetPipeOutage("dispatch", true)
	for range 10 {
		require.True(t, inj.PipeTargetFails("dispatch", nil))
		require.False(t, inj.PipeTargetFails("other", nil))
	}
	inj.SetPipeOutage("dispatch", false)
	require.False(t, inj.PipeTargetFails("dispatch", nil))
	st := inj.Stats()
	require.Equal(t, int64(10), st.PipeOutageFailures)
	require.Zero(t, st.PipeTargetFailures)
}

// Enrichment faults split one draw between function errors and timeouts
// at the configured rates; a timeout hangs for EnrichmentTimeout.
func TestPipeEnrichmentFaults(t *testing.T) {
	t.Parallel()
	const n = 20000
	inj, err := fault.New(fault.Config{Pipes: fault.PipeFaults{EnrichmentFailureRate: 0.1, EnrichmentTimeoutRate: 0.05,
		EnrichmentTimeout: fault.Duration(3 * time.Second), Pipes: []string{"dispatch"}}}, 9)
	require.NoError(t, err)
	var errs, timeouts int
	for range n {
		fail, hang := inj.PipeEnrichmentFails("dispatch")
		switch {
		case fail && hang == 3*time.Second:
			timeouts++
		case fail && hang == 0:
			errs++
		case fail:
			t.Fatalf("unexpected hang %s", hang)
		}
		other, _ := inj.PipeEnrichmentFails("other")
		require.False(t, other)
	}
	require.InDelta(t, 0.1, float64(errs)/n, 0.01)
	require.InDelta(t, 0.05, float64(timeouts)/n, 0.01)
	st := inj.Stats()
	require.Equal(t, int64(n), st.PipeEnrichments)
	require.Equal(t, int64(errs), st.PipeEnrichmentErrors)
	require.Equal(t, int64(timeouts), st.PipeEnrichmentTimeouts)

	_, err = fault.New(fault.Config{Pipes: fault.PipeFaults{EnrichmentFailureRate: 0.7, EnrichmentTimeoutRate: 0.5}}, 1)
	require.ErrorContains(t, err, "enrichmentFailureRate + pipes.enrichmentTimeoutRate must not exceed 1")
}
