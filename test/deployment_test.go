package test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/gruntwork-io/terratest/modules/random"
	"github.com/gruntwork-io/terratest/modules/retry"
	"github.com/gruntwork-io/terratest/modules/terraform"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/shard"
	"github.com/taskpipe/taskpipe/internal/task"
)

// deployment is the applied example and the SDK clients that reach it.
type deployment struct {
	target target
	opts   *terraform.Options
	out    outputs
	timing timings

	aws     aws.Config
	db      *dynamodb.Client
	sqs     *sqs.Client
	lambda  *lambda.Client
	pipes   *pipes.Client
	cw      *cloudwatch.Client
	logs    *cloudwatchlogs.Client
	streams *dynamodbstreams.Client
	s3      *s3.Client
	// shards reads the table's stream: one read per shard at a time, the
	// Pipe being the other reader AWS allows (package shard).
	shards *shard.Reader
	store  *dynamostore.Store

	// queue facts read once after the apply
	workQueueARN    string
	workDLQARN      string
	maxReceiveCount int
}

// connect reads the outputs and builds the clients.
func connect(t *testing.T, tgt target, opts *terraform.Options) *deployment {
	t.Helper()
	ctx := context.Background()
	cfg, err := tgt.AWS(ctx)
	if err != nil {
		t.Fatalf("AWS configuration of the %s target: %v", tgt.Name(), err)
	}
	d := &deployment{target: tgt, opts: opts, out: readOutputs(t, opts), timing: tgt.Timings(), aws: cfg}
	d.db = dynamodb.NewFromConfig(cfg)
	d.sqs = sqs.NewFromConfig(cfg)
	d.lambda = lambda.NewFromConfig(cfg)
	d.pipes = pipes.NewFromConfig(cfg)
	d.cw = cloudwatch.NewFromConfig(cfg)
	d.logs = cloudwatchlogs.NewFromConfig(cfg)
	d.streams = dynamodbstreams.NewFromConfig(cfg)
	d.s3 = s3.NewFromConfig(cfg)
	d.shards = &shard.Reader{API: d.streams, Budget: d.timing.wait(3 * time.Second)}
	shards := 0
	if v := d.out.LambdaEnv["LIVE_SHARDS"]; v != "" {
		if shards, err = strconv.Atoi(v); err != nil {
			t.Fatalf("LIVE_SHARDS %q in lambda_environment: %v", v, err)
		}
	}
	if d.store, err = dynamostore.New(d.db, dynamostore.Options{Table: d.out.TableName, LiveShards: shards}); err != nil {
		t.Fatalf("store: %v", err)
	}
	attrs := d.queueAttrs(t, d.out.WorkQueueURL)
	d.workQueueARN = attrs[string(sqstypes.QueueAttributeNameQueueArn)]
	d.workDLQARN = d.queueAttrs(t, d.out.WorkDLQURL)[string(sqstypes.QueueAttributeNameQueueArn)]
	d.maxReceiveCount = redriveCount(t, attrs[string(sqstypes.QueueAttributeNameRedrivePolicy)])
	return d
}

// fn names a function by role: scraper, reconciler, enrich.
func (d *deployment) fn(role string) string { return d.out.Functions[role] }

// testContext is a context that ends 30 s before the test's deadline, if it
// has one, so a wait fails with its own message rather than a panic.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		c, cancel := context.WithDeadline(ctx, dl.Add(-30*time.Second))
		t.Cleanup(cancel)
		ctx = c
	}
	return ctx
}

// newRun returns a fresh run id: prefix plus a unique suffix, so scenarios
// sharing the deployment never see each other's tasks.
func newRun(prefix string) string {
	return prefix + "-" + strings.ToLower(random.UniqueId())
}

// taskID names the i-th task of a run. Ids keep to letters, digits and
// '-', so a CloudWatch Logs term pattern finds them.
func taskID(run string, i int) string { return fmt.Sprintf("%s-%04d", run, i) }

// newTasks builds Pending tasks for urls in run.
func newTasks(run string, urls []string) []task.Task {
	ts := make([]task.Task, len(urls))
	for i, u := range urls {
		ts[i] = task.Task{ID: taskID(run, i), RunID: run, URL: u}
	}
	return ts
}

// create writes tasks as Pending through the store (BatchWriteItem, the
// submitter's path); the Pipe dispatches them.
func (d *deployment) create(t *testing.T, tasks []task.Task) {
	t.Helper()
	if err := d.store.Create(testContext(t), tasks); err != nil {
		t.Fatalf("create %d tasks: %v", len(tasks), err)
	}
}

// get reads one task (a consistent read).
func (d *deployment) get(t *testing.T, id string) task.Task {
	t.Helper()
	tk, err := d.store.Get(testContext(t), id)
	if err != nil {
		t.Fatalf("get task %s: %v", id, err)
	}
	return tk
}

// waitFor polls until done reports true, through retry.DoWithRetryE, for
// at most timeout (scaled by the target's patience); every poll's state is
// described by done's string, and the last one is in the failure.
func (d *deployment) waitFor(t *testing.T, what string, timeout, every time.Duration, done func() (bool, string, error)) {
	t.Helper()
	timeout = d.timing.wait(timeout)
	tries := int(timeout/every) + 1
	last := ""
	_, err := retry.DoWithRetryE(t, what, tries, every, func() (string, error) {
		ok, state, err := done()
		if err != nil {
			return "", retry.FatalError{Underlying: err}
		}
		last = state
		if !ok {
			return "", errors.New(state)
		}
		return state, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s: %v (last: %s)", what, timeout, err, last)
	}
}

// waitTasks waits until every id satisfies ok and returns the tasks as
// they were then.
func (d *deployment) waitTasks(t *testing.T, what string, timeout time.Duration, ok func(task.Task) bool, ids ...string) map[string]task.Task {
	t.Helper()
	ctx := testContext(t)
	got := make(map[string]task.Task, len(ids))
	d.waitFor(t, what, timeout, 500*time.Millisecond, func() (bool, string, error) {
		var pending []string
		for _, id := range ids {
			if prev, seen := got[id]; seen && ok(prev) {
				continue
			}
			tk, err := d.store.Get(ctx, id)
			if err != nil {
				return false, "", fmt.Errorf("get task %s: %w", id, err)
			}
			got[id] = tk
			if !ok(tk) {
				pending = append(pending, fmt.Sprintf("%s %s (attempts %d)", id, tk.State, tk.Attempts))
			}
		}
		if len(pending) > 0 {
			if len(pending) > 5 {
				pending = append(pending[:5], fmt.Sprintf("and %d more", len(pending)-5))
			}
			return false, strings.Join(pending, ", "), nil
		}
		return true, "", nil
	})
	return got
}

// terminal reports whether a task has ended.
func terminal(tk task.Task) bool { return tk.State.Terminal() }

// waitTerminal waits until every id is Finished or Failed.
func (d *deployment) waitTerminal(t *testing.T, timeout time.Duration, ids ...string) map[string]task.Task {
	t.Helper()
	return d.waitTasks(t, fmt.Sprintf("%d task(s) terminal", len(ids)), timeout, terminal, ids...)
}

// waitRun waits until all n tasks of run are terminal, counting through
// the run's indexes, and returns every task of the run.
func (d *deployment) waitRun(t *testing.T, run string, n int, timeout time.Duration) []task.Task {
	t.Helper()
	ctx := testContext(t)
	d.waitFor(t, fmt.Sprintf("run %s: %d tasks terminal", run, n), timeout, time.Second, func() (bool, string, error) {
		counts, err := d.store.RunCounts(ctx, run)
		if err != nil {
			return false, "", fmt.Errorf("run counts: %w", err)
		}
		done := counts[task.StateFinished] + counts[task.StateFailed]
		return done == n, fmt.Sprintf("%v", counts), nil
	})
	return d.runTasks(t, run, n)
}

// runTasks reads every task of a run, each with a consistent GetItem
// after listing the ids from the (eventually consistent) indexes.
func (d *deployment) runTasks(t *testing.T, run string, n int) []task.Task {
	t.Helper()
	ctx := testContext(t)
	var out []task.Task
	cursor := ""
	for {
		page, err := d.store.RunTasks(ctx, run, cursor, 1000)
		if err != nil {
			t.Fatalf("list run %s: %v", run, err)
		}
		out = append(out, page.Tasks...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(out) != n {
		t.Fatalf("run %s lists %d tasks, want %d", run, len(out), n)
	}
	return out
}

// queueAttrs reads every attribute of a queue.
func (d *deployment) queueAttrs(t *testing.T, url string) map[string]string {
	t.Helper()
	out, err := d.sqs.GetQueueAttributes(testContext(t), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatalf("get attributes of %s: %v", url, err)
	}
	return out.Attributes
}

// queueDepth is ApproximateNumberOfMessages (visible) plus NotVisible.
func (d *deployment) queueDepth(t *testing.T, url string) (visible, inFlight int) {
	t.Helper()
	a := d.queueAttrs(t, url)
	v, _ := strconv.Atoi(a[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	f, _ := strconv.Atoi(a[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return v, f
}

// waitWorkQueueEmpty waits until the work queue holds no message, visible
// or in flight, so every work message sent before the call has been handled.
// It is the barrier before asserting that something was not dispatched (the
// counts are exact in the local cloud and approximate on AWS).
func (d *deployment) waitWorkQueueEmpty(t *testing.T, why string) {
	t.Helper()
	d.waitFor(t, "work queue empty: "+why, time.Minute, time.Second, func() (bool, string, error) {
		v, f := d.queueDepth(t, d.out.WorkQueueURL)
		return v+f == 0, fmt.Sprintf("%d visible, %d in flight", v, f), nil
	})
}

// redriveCount reads maxReceiveCount from a RedrivePolicy attribute.
func redriveCount(t *testing.T, policy string) int {
	t.Helper()
	const key = `"maxReceiveCount":`
	i := strings.Index(policy, key)
	if i < 0 {
		t.Fatalf("the work queue's RedrivePolicy %q has no maxReceiveCount", policy)
	}
	rest := strings.TrimLeft(policy[i+len(key):], ` "`)
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil || n < 1 {
		t.Fatalf("the work queue's RedrivePolicy %q: bad maxReceiveCount", policy)
	}
	return n
}

// fireReconciler runs the reconciler once and returns its report.
func (d *deployment) fireReconciler(t *testing.T) handler.Report {
	t.Helper()
	rep, err := d.target.FireReconciler(testContext(t), d)
	if err != nil {
		t.Fatalf("fire the reconciler: %v", err)
	}
	t.Logf("reconciler report: %+v", rep)
	return rep
}

// faults returns the fault-injecting target, or skips the test with why
// on a target that cannot inject faults.
func (d *deployment) faults(t *testing.T, why string) faultTarget {
	t.Helper()
	ft, ok := d.target.(faultTarget)
	if !ok {
		t.Skipf("the %s target cannot inject this fault: %s", d.target.Name(), why)
	}
	t.Cleanup(func() {
		if err := ft.ClearFaults(context.Background()); err != nil {
			t.Errorf("clear the faults: %v", err)
		}
	})
	return ft
}
