package mapping_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// waitLimit bounds every wait for the poller; the events it waits for
// normally happen within milliseconds.
const waitLimit = 10 * time.Second

// fakeClock is a settable clock shared by the queue and the mappings.
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

// call is one invocation the fake Lambda received.
type call struct {
	FunctionARN string
	Raw         []byte
	Event       events.SQSEvent
}

// fakeLambda is the in-package Invoker: a few named functions whose
// behaviour a test sets, with a record of every invocation and of how
// many ran at once.
type fakeLambda struct {
	// handle decides each invocation's outcome (default: success, null).
	handle func(ctx context.Context, c call) (mapping.InvokeResult, error)
	// timeouts are function timeouts reported through FunctionTimeout.
	timeouts map[string]time.Duration

	calls chan call

	mu    sync.Mutex
	all   []call
	cur   int
	peak  int
	total atomic.Int64
}

func newFakeLambda() *fakeLambda {
	return &fakeLambda{calls: make(chan call, 10000), timeouts: map[string]time.Duration{}}
}

func functionARN(name string) string {
	return "arn:aws:lambda:" + emu.DefaultRegion + ":" + emu.DefaultAccountID + ":function:" + name
}

// FunctionARN knows the functions "worker", "other" and "slow", by name or ARN.
func (f *fakeLambda) FunctionARN(name string) (string, bool) {
	name = strings.TrimPrefix(name, functionARN(""))
	switch name {
	case "worker", "other", "slow":
		return functionARN(name), true
	}
	return "", false
}

func (f *fakeLambda) FunctionTimeout(arn string) (time.Duration, bool) {
	d, ok := f.timeouts[arn]
	return d, ok
}

func (f *fakeLambda) Invoke(ctx context.Context, arn string, payload []byte) (mapping.InvokeResult, error) {
	c := call{FunctionARN: arn, Raw: payload}
	if err := json.Unmarshal(payload, &c.Event); err != nil {
		return mapping.InvokeResult{}, err
	}
	f.mu.Lock()
	f.cur++
	f.peak = max(f.peak, f.cur)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.cur--
		f.mu.Unlock()
	}()
	var res mapping.InvokeResult
	var err error
	if f.handle != nil {
		res, err = f.handle(ctx, c)
	}
	if !errors.Is(err, mapping.ErrThrottled) {
		f.mu.Lock()
		f.all = append(f.all, c)
		f.mu.Unlock()
		f.total.Add(1)
		f.calls <- c
	}
	return res, err
}

func (f *fakeLambda) running() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

func (f *fakeLambda) peakConcurrency() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// next waits for the next completed invocation.
func (f *fakeLambda) next(t *testing.T) call {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(waitLimit):
		t.Fatal("no invocation within the wait limit")
		return call{}
	}
}

// testBundle is a local SQS, the mapping service over it, a fake Lambda,
// and the real aws-sdk-go-v2 Lambda client talking to the service through
// the local cloud's router.
type testBundle struct {
	clock  *fakeClock
	queues *queue.Service
	lambda *fakeLambda
	svc    *mapping.Service
	client *lambda.Client
	url    string
	ctx    context.Context
}

// setup builds a bundle; opts may set Faults, SleepFunc and the like.
func setup(t *testing.T, opts mapping.Options) *testBundle {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	queues := queue.New(queue.Options{Now: clock.Now})
	fl := newFakeLambda()
	opts.Queues = queues
	opts.Invoker = fl
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	svc := mapping.New(opts)

	// A stub Lambda endpoint that delegates the mapping paths, as the
	// function service does.
	lambdaStub := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, mapping.PathPrefix) {
			svc.ServeHTTP(w, r)
			return
		}
		emu.WriteJSONError(w, http.StatusNotFound, "UnknownOperationException", "not a mapping path")
	})
	router := emu.NewRouter()
	router.Handle(emu.ServiceLambda, lambdaStub)
	srv := httptest.NewServer(router)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, svc.Close())
		require.NoError(t, queues.Close())
	})
	client := lambda.New(lambda.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   srv.Client(),
	})
	return &testBundle{clock: clock, queues: queues, lambda: fl, svc: svc, client: client, url: srv.URL, ctx: context.Background()}
}

// queue creates a queue with the given visibility timeout and returns its ARN.
func (b *testBundle) queue(t *testing.T, name string, visibility int) string {
	t.Helper()
	info, err := b.queues.CreateQueue(name, map[string]string{"VisibilityTimeout": strconv.Itoa(visibility)}, nil)
	require.NoError(t, err)
	return info.ARN
}

// send sends bodies and returns their message ids in order.
func (b *testBundle) send(t *testing.T, queueARN string, bodies ...string) []string {
	t.Helper()
	ids := make([]string, 0, len(bodies))
	for _, body := range bodies {
		id, err := b.queues.Send(b.ctx, queueARN, body, nil)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	return ids
}

// create creates a mapping through the Go API.
func (b *testBundle) create(t *testing.T, req mapping.CreateRequest) mapping.Configuration {
	t.Helper()
	if req.FunctionName == nil {
		req.FunctionName = aws.String("worker")
	}
	cfg, err := b.svc.Create(req)
	require.NoError(t, err)
	return cfg
}

// counts returns the queue's visible and in-flight message counts.
func (b *testBundle) counts(t *testing.T, queueARN string) queue.Counts {
	t.Helper()
	c, err := b.queues.Counts(queueARN)
	require.NoError(t, err)
	return c
}

// stats returns a mapping's counters.
func (b *testBundle) stats(t *testing.T, id string) mapping.Stats {
	t.Helper()
	st, ok := b.svc.Stats(id)
	require.True(t, ok, "no stats for mapping %s", id)
	return st
}

// eventually waits until cond holds.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	require.Eventually(t, cond, waitLimit, 2*time.Millisecond, what)
}

// expire moves the clock past a visibility timeout and wakes the long
// polls, so in-flight messages are redelivered.
func (b *testBundle) expire(d time.Duration) {
	b.clock.Advance(d)
	b.queues.Wake()
}

func messageIDs(c call) []string {
	ids := make([]string, 0, len(c.Event.Records))
	for _, r := range c.Event.Records {
		ids = append(ids, r.MessageId)
	}
	return ids
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

// testFaults injects faults chosen by a test.
type testFaults struct {
	emu.NoFaults
	duplicate func() bool
	drop      func() bool
	delay     time.Duration
}

func (f *testFaults) DuplicateDelivery(string) bool { return f.duplicate != nil && f.duplicate() }
func (f *testFaults) DropAck(string) bool           { return f.drop != nil && f.drop() }
func (f *testFaults) AckDelay(string) time.Duration { return f.delay }

// once returns a func that is true on its first call only.
func once() func() bool {
	var done atomic.Bool
	return func() bool { return done.CompareAndSwap(false, true) }
}
