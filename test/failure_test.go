package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
)

// claimTokens lists the distinct claim tokens a task's Running images
// carried, in order: one per claim (a task seeded as Running counts its
// seeded claim).
func claimTokens(cs []change) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		if c.New.Status == "Running" && c.New.ClaimToken != "" && !seen[c.New.ClaimToken] {
			seen[c.New.ClaimToken] = true
			out = append(out, c.New.ClaimToken)
		}
	}
	return out
}

// workerFails kills the worker that claims a task; the task must be
// claimed again once the lease has expired and the message comes back, and
// finish on that second attempt.
func workerFails(t *testing.T, d *deployment) {
	s := d.target.Sites().Healthy(t, 1)[0]
	run := newRun("crash")
	tk := task.Task{ID: taskID(run, 0), RunID: run, URL: s.URL}
	start := time.Now()
	d.target.KillAfterClaim(t, d, tk)

	// The message comes back after the visibility timeout (it exceeds the
	// lease, so the lease has expired by then).
	wait := time.Duration(d.timing.Visibility+d.timing.Lease)*time.Second + time.Minute
	got := d.waitTasks(t, "task finished after its worker died", wait, terminal, tk.ID)[tk.ID]
	recovered := time.Since(start)
	require.Equal(t, task.StateFinished, got.State, "task %s: %s", tk.ID, got.LastError)
	require.Equal(t, 2, got.Attempts, "the dead worker's claim and the second one")
	requireSummary(t, got, s)
	require.GreaterOrEqual(t, recovered, time.Duration(d.timing.Lease)*time.Second,
		"the second claim cannot come before the first lease expired")

	cs := d.streamChanges(t, tk.ID)[tk.ID]
	tokens := claimTokens(cs)
	require.Len(t, tokens, 2, "two claims, two tokens: %s", joinLines(cs))
	require.Equal(t, tokens[1], got.ClaimToken, "the second claim finished the task")
	require.Equal(t, 1, countTransitions(cs).Finishes, "one result: %s", joinLines(cs))

	if ft, ok := d.target.(faultTarget); ok {
		st, err := ft.FaultStats(testContext(t))
		require.NoError(t, err)
		require.Equal(t, []int64{1}, st.KillsByRule, "the kill rule killed one scraper instance")
		record(t, "kill", "scraper instance %s killed after its claim (%s %s)",
			st.Killed[len(st.Killed)-1].Instance, st.Killed[len(st.Killed)-1].Service, st.Killed[len(st.Killed)-1].Operation)
	}
	record(t, "recovery", "finished on attempt %d, %s after the task was created (lease %d s, visibility %d s)",
		got.Attempts, recovered.Round(time.Second), d.timing.Lease, d.timing.Visibility)
}

// poisonMessage sends an unparseable work message next to a run of
// healthy tasks.
func poisonMessage(t *testing.T, d *deployment) {
	ctx := testContext(t)
	const n = 20
	sites := d.target.Sites().Healthy(t, n)
	run := newRun("poison")
	tasks := newTasks(run, urlsOf(sites))
	d.create(t, tasks)

	body := fmt.Sprintf("this is not a work message (%s) {", run)
	sent, err := d.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(d.out.WorkQueueURL), MessageBody: aws.String(body)})
	require.NoError(t, err)
	start := time.Now()

	// The DLQ alarm fires at the first message.
	d.waitFor(t, "poison message in the work DLQ", time.Minute, time.Second, func() (bool, string, error) {
		v, f := d.queueDepth(t, d.out.WorkDLQURL)
		return v+f >= 1, fmt.Sprintf("%d visible, %d in flight", v, f), nil
	})
	inDLQ := time.Since(start)
	d.waitAlarm(t, "work_dlq", cwtypes.StateValueAlarm, 2*time.Minute)
	alarmed := time.Since(start)

	// The message is there once, byte for byte, with its reason.
	var ours []queueMessage
	d.waitFor(t, "read the poison message", 30*time.Second, time.Second, func() (bool, string, error) {
		msgs, err := d.peekQueue(ctx, d.out.WorkDLQURL, 10, 20*time.Second)
		if err != nil {
			return false, "", err
		}
		for _, m := range msgs {
			if strings.Contains(m.Body, run) {
				ours = append(ours, m)
			}
		}
		return len(ours) > 0, fmt.Sprintf("%d messages read, none of run %s", len(msgs), run), nil
	})
	t.Cleanup(func() { d.deleteMessages(t, d.out.WorkDLQURL, ours) })
	require.Len(t, ours, 1, "one DLQ message of the run: the poison one")
	m := ours[0]
	require.Equal(t, body, m.Body)
	require.NotEmpty(t, m.Attributes[sqsqueue.AttrReason], "the DLQ message says why")
	require.Equal(t, aws.ToString(sent.MessageId), m.Attributes[sqsqueue.AttrSourceMessageID])
	require.Equal(t, d.workQueueARN, m.Attributes[sqsqueue.AttrSourceQueueARN])
	require.Equal(t, "1", m.Attributes[sqsqueue.AttrReceiveCount], "forwarded at its first receive, never retried")

	// Nothing else is affected: every task of the run finishes at its
	// first attempt.
	all := d.waitRun(t, run, n, 2*time.Minute)
	for _, tk := range all {
		require.Equal(t, task.StateFinished, tk.State, "task %s: %s", tk.ID, tk.LastError)
		require.Equal(t, 1, tk.Attempts, "task %s", tk.ID)
	}
	visible, _ := d.queueDepth(t, d.out.WorkQueueURL)
	record(t, "poison", "in the work DLQ %s after it was sent, alarm %s in ALARM after %s; reason %q",
		inDLQ.Round(time.Millisecond), d.out.Alarms["work_dlq"], alarmed.Round(time.Millisecond), m.Attributes[sqsqueue.AttrReason])
	record(t, "others", "%d tasks of the run all Finished at attempt 1; work queue visible depth now %d", n, visible)

	// Once the message is handled (deleted), the alarm clears.
	d.deleteMessages(t, d.out.WorkDLQURL, ours)
	ours = nil
	d.waitAlarm(t, "work_dlq", cwtypes.StateValueOk, 5*time.Minute)
}

// fatalAndRetryable runs the fatal and the retryable sites in one run.
func fatalAndRetryable(t *testing.T, d *deployment) {
	fatal := d.target.Sites().Fatal(t)
	retryable := d.target.Sites().Retryable(t)
	run := newRun("errors")
	sites := append(append([]site(nil), fatal...), retryable...)
	tasks := newTasks(run, urlsOf(sites))
	ids := make([]string, len(tasks))
	for i, tk := range tasks {
		ids[i] = tk.ID
	}
	start := time.Now()
	d.create(t, tasks)
	// A retryable task takes up to maxAttempts claims, each after the
	// retry backoff (doubling) and up to three fetches.
	got := d.waitTerminal(t, 3*time.Minute, ids...)
	elapsed := time.Since(start)
	cs := d.streamChanges(t, ids...)

	for i, s := range fatal {
		tk := got[tasks[i].ID]
		require.Equal(t, task.StateFailed, tk.State, "fatal %s: %s", s.URL, tk.LastError)
		require.Equal(t, task.KindFatal, tk.ErrorKind, "fatal %s: %s", s.URL, tk.LastError)
		require.Equal(t, 1, tk.Attempts, "fatal %s: no retry", s.URL)
		require.NotEmpty(t, tk.LastError)
		tr := countTransitions(cs[tk.ID])
		require.Equal(t, transitions{Inserts: 1, Claims: 1, Fails: 1}, tr, "fatal %s: %s", s.URL, joinLines(cs[tk.ID]))
		if n, ok := s.requests(); ok {
			require.EqualValues(t, s.Expect.Requests, n, "fatal %s (%s): requests", s.URL, s.Expect.Behavior)
		}
		record(t, "fatal", "%s: Failed(fatal) at attempt %d: %s", s.URL, tk.Attempts, tk.LastError)
	}
	for i, s := range retryable {
		tk := got[tasks[len(fatal)+i].ID]
		require.GreaterOrEqual(t, tk.Attempts, 2, "retryable %s was retried", s.URL)
		require.LessOrEqual(t, tk.Attempts, tk.MaxAttempts, "retryable %s", s.URL)
		switch tk.State {
		case task.StateFinished:
			requireSummary(t, tk, s)
		case task.StateFailed:
			require.Equal(t, task.KindExhausted, tk.ErrorKind, "retryable %s: %s", s.URL, tk.LastError)
			require.Equal(t, tk.MaxAttempts, tk.Attempts, "retryable %s: exhausted", s.URL)
		}
		tr := countTransitions(cs[tk.ID])
		require.Equal(t, tk.Attempts, tr.Claims, "retryable %s: one claim per attempt: %s", s.URL, joinLines(cs[tk.ID]))
		require.Equal(t, tk.Attempts-1, tr.Releases, "retryable %s: released after each failed claim but the last: %s", s.URL, joinLines(cs[tk.ID]))
		require.Equal(t, 1, tr.Finishes+tr.Fails, "retryable %s: one outcome", s.URL)
		if s.Expect != nil {
			require.True(t, s.Expect.Matches(tk.State, tk.ErrorKind), "retryable %s (%s): %s/%s, expected %s %s (%s)",
				s.URL, s.Expect.Behavior, tk.State, tk.ErrorKind, s.Expect.Outcome, s.Expect.Kind, s.Expect.Reason)
			require.Equal(t, s.Expect.Claims, tk.Attempts, "retryable %s: claims", s.URL)
			n, _ := s.requests()
			want := int64(s.Expect.Requests)
			var skipped int64
			if tk.State == task.StateFinished {
				// A key page the crawl's time budget skipped (a loaded
				// machine) is recorded in the document, never fetched.
				skipped = int64(skippedFetches(d.document(t, tk)))
			}
			require.True(t, n <= want && n+skipped >= want, "retryable %s (%s): %d requests + %d skipped for the crawl's budget, expected %d",
				s.URL, s.Expect.Behavior, n, skipped, want)
		}
		record(t, "retryable", "%s: %s%s after %d attempts (%s)", s.URL, tk.State, kindSuffix(tk.ErrorKind), tk.Attempts, lastErrorOr(tk))
	}
	record(t, "elapsed", "%d tasks terminal after %s", len(tasks), elapsed.Round(time.Millisecond))
}

func lastErrorOr(tk task.Task) string {
	if tk.LastError == "" {
		return "no error"
	}
	return tk.LastError
}
