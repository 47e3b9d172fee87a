package test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	pipetypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/task"
)

// overdue is a creation time old enough that the reconciler treats a
// Pending task as lost: past its Pending grace.
func (d *deployment) overdue() time.Time {
	return time.Now().Add(-time.Duration(d.timing.PendingGrace+120) * time.Second)
}

// pipeTargetFailure makes every delivery of the pipe to the work queue
// fail while a few tasks are created.
func pipeTargetFailure(t *testing.T, d *deployment) {
	ft := d.faults(t, "AWS has no switch that makes a pipe's SQS target fail; revoking the pipe role's "+
		"sqs:SendMessage would, but IAM changes take minutes to apply and a failed run would leave the deployment broken")
	ctx := testContext(t)
	v, f := d.queueDepth(t, d.out.PipeDLQURL)
	require.Zero(t, v+f, "the pipe DLQ is empty before the scenario")

	const n = 3
	sites := d.target.Sites().Healthy(t, n)
	run := newRun("pipefail")
	tasks := newTasks(run, urlsOf(sites))
	ids := make([]string, n)
	for i := range tasks {
		// Created long enough ago to be past the reconciler's Pending
		// grace, so one reconciler run re-dispatches them (a real run
		// waits out the grace instead).
		tasks[i].CreatedAt = d.overdue()
		ids[i] = tasks[i].ID
	}
	require.NoError(t, ft.SetFaults(ctx, fault.Config{Pipes: fault.PipeFaults{TargetFailureRate: 1, Pipes: []string{d.out.PipeName}}}))
	start := time.Now()
	d.create(t, tasks)

	// AUTOMATIC_BISECT splits the failing batch down to single records;
	// each is retried, then parked as one pointer message.
	d.waitFor(t, "a pointer per record in the pipe DLQ", time.Minute, 500*time.Millisecond, func() (bool, string, error) {
		v, f := d.queueDepth(t, d.out.PipeDLQURL)
		return v+f >= n, fmt.Sprintf("%d visible, %d in flight", v, f), nil
	})
	parked := time.Since(start)
	require.NoError(t, ft.ClearFaults(ctx))
	for _, id := range ids {
		tk := d.get(t, id)
		require.Equal(t, task.StatePending, tk.State, "task %s was never dispatched", id)
		require.Zero(t, tk.Attempts, "task %s was never claimed", id)
	}
	d.waitAlarm(t, "pipe_dlq", cwtypes.StateValueAlarm, 2*time.Minute)

	// The pointers cover exactly our records: read their sequence ranges
	// against the stream.
	var pointers []queueMessage
	d.waitFor(t, "read the pipe DLQ", 30*time.Second, time.Second, func() (bool, string, error) {
		msgs, err := d.peekQueue(ctx, d.out.PipeDLQURL, 10, time.Minute)
		if err != nil {
			return false, "", err
		}
		pointers = append(pointers, msgs...)
		return len(pointers) >= n, fmt.Sprintf("%d pointers read", len(pointers)), nil
	})
	t.Cleanup(func() { d.deleteMessages(t, d.out.PipeDLQURL, pointers) })
	require.Len(t, pointers, n)
	inserts := map[string]string{} // sequence number → task id
	for id, cs := range d.streamChanges(t, ids...) {
		require.Equal(t, "INSERT", cs[0].Event)
		inserts[cs[0].Sequence] = id
	}
	var covered []string
	for _, m := range pointers {
		p, err := cli.ParsePipePointer([]byte(m.Body))
		require.NoError(t, err, "pointer %s", m.Body)
		require.Equal(t, "RetryAttemptsExhausted", p.Context.Condition, "pointer %s", m.Body)
		require.Equal(t, d.out.StreamARN, p.Batch.StreamArn)
		require.Equal(t, 1, p.Batch.BatchSize, "bisected down to one record")
		require.Equal(t, p.Batch.StartSequenceNumber, p.Batch.EndSequenceNumber)
		id, ok := inserts[p.Batch.StartSequenceNumber]
		require.True(t, ok, "pointer %s names a record of none of our tasks", m.Body)
		covered = append(covered, id)
	}
	sort.Strings(covered)
	require.Equal(t, ids, covered, "one pointer per task")

	// The reconciler is the recovery path (docs/design.md §3).
	rep := d.fireReconciler(t)
	require.GreaterOrEqual(t, rep.RedispatchedPending, n, "report: %+v", rep)
	got := d.waitTerminal(t, time.Minute, ids...)
	for _, id := range ids {
		require.Equal(t, task.StateFinished, got[id].State, "task %s: %s", id, got[id].LastError)
		require.Equal(t, 1, got[id].Attempts, "task %s", id)
	}
	record(t, "pipe", "%d records parked as %d pointers (condition RetryAttemptsExhausted, batch size 1) %s after the inserts",
		n, len(pointers), parked.Round(time.Millisecond))
	record(t, "reconciler", "re-dispatched %d Pending task(s); all %d Finished %s after the inserts",
		rep.RedispatchedPending, n, time.Since(start).Round(time.Millisecond))
}

// putRow writes a task row as it is, with its live-index attributes, for
// states Create cannot write (Running).
func (d *deployment) putRow(t *testing.T, tk task.Task) {
	t.Helper()
	item, err := d.store.Item(tk)
	require.NoError(t, err)
	_, err = d.db.PutItem(testContext(t), &dynamodb.PutItemInput{TableName: aws.String(d.out.TableName), Item: item})
	require.NoError(t, err, "put row %s", tk.ID)
}

// pipeState waits until the pipe's current state is want.
func (d *deployment) pipeState(t *testing.T, want pipetypes.PipeState) {
	t.Helper()
	ctx := testContext(t)
	d.waitFor(t, fmt.Sprintf("pipe %s %s", d.out.PipeName, want), 3*time.Minute, time.Second, func() (bool, string, error) {
		out, err := d.pipes.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(d.out.PipeName)})
		if err != nil {
			return false, "", fmt.Errorf("describe pipe: %w", err)
		}
		return out.CurrentState == want, string(out.CurrentState), nil
	})
}

// stuckTasks seeds a lost dispatch and two expired leases, then runs the
// reconciler.
func stuckTasks(t *testing.T, d *deployment) {
	ctx := testContext(t)
	sites := d.target.Sites().Healthy(t, 3)
	run := newRun("stuck")
	// Leases that ended ten minutes ago: far past the Running grace.
	expired := time.Now().Add(-10 * time.Minute)
	running := func(i, attempts int) task.Task {
		return task.Task{ID: taskID(run, i), RunID: run, URL: sites[i].URL, State: task.StateRunning,
			Attempts: attempts, MaxAttempts: task.DefaultMaxAttempts, ClaimToken: "dead-worker-" + strconv.Itoa(i),
			LeaseExpiresAt: expired, CreatedAt: expired.Add(-time.Minute), UpdatedAt: expired.Add(-time.Minute)}
	}
	// A worker died holding a task with attempts left, and another on its
	// last attempt. Rows inserted as Running are not dispatched (the
	// filter wants "becomes Pending").
	retry, last := running(0, 1), running(1, task.DefaultMaxAttempts)
	d.putRow(t, retry)
	d.putRow(t, last)

	// A Pending task whose dispatch is lost: written while the pipe is
	// stopped, and long enough ago to be past the Pending grace.
	_, err := d.pipes.StopPipe(ctx, &pipes.StopPipeInput{Name: aws.String(d.out.PipeName)})
	require.NoError(t, err)
	t.Cleanup(func() {
		// Never leave the shared pipe stopped.
		if _, err := d.pipes.StartPipe(context.Background(), &pipes.StartPipeInput{Name: aws.String(d.out.PipeName)}); err != nil {
			t.Errorf("start the pipe again: %v", err)
		}
	})
	d.pipeState(t, pipetypes.PipeStateStopped)
	time.Sleep(d.timing.PipeLag) // AWS: a stopped pipe may act for a while (PipeLag)
	// That the stopped pipe dispatched nothing is proven after the restart
	// below: it then delivers this record, which it could not if it had
	// delivered it while stopped.
	lost := task.Task{ID: taskID(run, 2), RunID: run, URL: sites[2].URL, CreatedAt: d.overdue()}
	d.create(t, []task.Task{lost})

	start := time.Now()
	rep := d.fireReconciler(t)
	require.GreaterOrEqual(t, rep.RedispatchedPending, 1, "report: %+v", rep)
	require.GreaterOrEqual(t, rep.RedispatchedRunning, 1, "report: %+v", rep)
	require.GreaterOrEqual(t, rep.FailedStuck, 1, "report: %+v", rep)
	got := d.waitTerminal(t, time.Minute, retry.ID, last.ID, lost.ID)
	recovered := time.Since(start)

	require.Equal(t, task.StateFinished, got[retry.ID].State, "expired lease with attempts left: %s", got[retry.ID].LastError)
	require.Equal(t, 2, got[retry.ID].Attempts, "the dead worker's attempt and the re-dispatched one")
	require.NotEqual(t, retry.ClaimToken, got[retry.ID].ClaimToken)
	require.Equal(t, task.StateFailed, got[last.ID].State, "expired lease on the last attempt")
	require.Equal(t, task.KindStuck, got[last.ID].ErrorKind)
	require.Equal(t, task.DefaultMaxAttempts, got[last.ID].Attempts, "failed without another claim")
	require.Equal(t, task.StateFinished, got[lost.ID].State, "lost dispatch: %s", got[lost.ID].LastError)
	require.Equal(t, 1, got[lost.ID].Attempts)

	// Started again, the pipe delivers what was written meanwhile (it
	// resumes from its checkpoint: the local cloud's Pipe runtime does;
	// AWS does not document it, and on AWS a failure here says so): a
	// duplicate of the finished task, acknowledged and skipped. The queue is
	// drained first, so a duplicate skipped after the restart can only be
	// that delivery, not the reconciler's message arriving late.
	d.waitWorkQueueEmpty(t, "the reconciler's messages handled before the restart")
	restarted := time.Now().Add(-time.Second)
	_, err = d.pipes.StartPipe(ctx, &pipes.StartPipeInput{Name: aws.String(d.out.PipeName)})
	require.NoError(t, err)
	d.pipeState(t, pipetypes.PipeStateRunning)
	d.waitFor(t, "after StartPipe, the record written while the pipe was stopped is delivered (the pipe resumes from its checkpoint) and skipped as a duplicate",
		2*time.Minute, time.Second, func() (bool, string, error) {
			lines, err := d.logLines(ctx, "scraper", lost.ID, restarted)
			if err != nil {
				return false, "", err
			}
			for _, l := range lines {
				if l.Msg == logDuplicateSkip {
					return true, "", nil
				}
			}
			return false, fmt.Sprintf("%d scraper lines for %s since the restart, none a skipped duplicate", len(lines), lost.ID), nil
		})

	cs := d.streamChanges(t, retry.ID, last.ID, lost.ID)
	require.Equal(t, 1, countTransitions(cs[retry.ID]).Finishes, "%s", joinLines(cs[retry.ID]))
	require.Equal(t, transitions{Inserts: 1, Fails: 1}, countTransitions(cs[last.ID]), "%s", joinLines(cs[last.ID]))
	require.Equal(t, transitions{Inserts: 1, Claims: 1, Finishes: 1}, countTransitions(cs[lost.ID]), "%s", joinLines(cs[lost.ID]))
	record(t, "reconciler", "report %+v", rep)
	record(t, "recovery", "expired lease → Finished at attempt 2, last attempt → Failed(stuck), lost dispatch → Finished, %s after the reconciler fired",
		recovered.Round(time.Millisecond))
}

// dlqRedrive sends a run to the work DLQ through an outage and redrives it.
func dlqRedrive(t *testing.T, d *deployment) {
	ctx := testContext(t)
	v, f := d.queueDepth(t, d.out.WorkDLQURL)
	require.Zero(t, v+f, "the work DLQ is empty before the scenario")
	const n = 10
	sites := d.target.Sites().Healthy(t, n)
	run := newRun("redrive")
	tasks := newTasks(run, urlsOf(sites))
	ids := make([]string, n)
	for i := range tasks {
		ids[i] = tasks[i].ID
	}

	// The outage: every delivery fails. While it lasts the work queue's
	// visibility timeout is cut to 2 s, so the maxReceiveCount deliveries
	// take seconds, not maxReceiveCount × the visibility timeout; it is
	// set back before the redrive.
	visibility := d.queueAttrs(t, d.out.WorkQueueURL)[string(sqstypes.QueueAttributeNameVisibilityTimeout)]
	restoreVisibility := func(ctx context.Context) error {
		_, err := d.sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(d.out.WorkQueueURL),
			Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): visibility}})
		return err
	}
	restore, err := d.target.StartOutage(ctx, d)
	require.NoError(t, err, "start the outage")
	restored := false
	t.Cleanup(func() {
		if !restored {
			if err := restore(context.Background()); err != nil {
				t.Errorf("end the outage: %v", err)
			}
		}
		if err := restoreVisibility(context.Background()); err != nil {
			t.Errorf("restore the work queue's visibility timeout: %v", err)
		}
	})
	_, err = d.sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(d.out.WorkQueueURL),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): "2"}})
	require.NoError(t, err)
	start := time.Now()
	d.create(t, tasks)
	d.waitFor(t, fmt.Sprintf("%d messages in the work DLQ after %d receives each", n, d.maxReceiveCount),
		3*time.Minute, time.Second, func() (bool, string, error) {
			v, f := d.queueDepth(t, d.out.WorkDLQURL)
			return v >= n, fmt.Sprintf("%d visible, %d in flight", v, f), nil
		})
	outage := time.Since(start)
	// Checked while the outage lasts: once it ends, a handler still in its
	// SDK's retries (its message already moved on by a later receive) may
	// claim its task at once, which at-least-once delivery allows.
	for _, id := range ids {
		tk := d.get(t, id)
		require.Equal(t, task.StatePending, tk.State, "task %s: no claim got through", id)
		require.Zero(t, tk.Attempts, "task %s", id)
	}
	restored = true
	require.NoError(t, restore(ctx), "end the outage")
	require.NoError(t, restoreVisibility(ctx))
	d.waitAlarm(t, "work_dlq", cwtypes.StateValueAlarm, 2*time.Minute)

	// The redrive, as an operator runs it: taskpipe dlq redrive --queue work.
	env, out, errb := d.cliEnv("")
	redriveStart := time.Now()
	require.NoError(t, env.DLQRedrive(ctx, []string{"--queue", "work", "--work-queue-url", d.out.WorkQueueURL,
		"--work-dlq-url", d.out.WorkDLQURL, "--interval", "500ms"}), "taskpipe dlq redrive: %s", errb.String())
	t.Logf("dlq redrive: %s%s", out.String(), errb.String())
	got := d.waitTerminal(t, 2*time.Minute, ids...)
	for _, id := range ids {
		require.Equal(t, task.StateFinished, got[id].State, "task %s: %s", id, got[id].LastError)
		require.Equal(t, 1, got[id].Attempts, "task %s", id)
	}
	finished := time.Since(redriveStart)
	v, f = d.queueDepth(t, d.out.WorkDLQURL)
	require.Zero(t, v+f, "the work DLQ is empty after the redrive")
	record(t, "outage", "%d messages in the work DLQ %s after the inserts (maxReceiveCount %d)", n, outage.Round(time.Millisecond), d.maxReceiveCount)
	record(t, "redrive", "moved back and all %d tasks Finished at attempt 1 %s after the redrive started", n, finished.Round(time.Millisecond))

	// What the operator read: the move task's count, and its progress.
	require.Contains(t, out.String(), fmt.Sprintf("work DLQ redrive completed: %d messages moved to the work queue", n))
	require.Contains(t, errb.String(), fmt.Sprintf("COMPLETED: moved %d of %d", n, n))
}
