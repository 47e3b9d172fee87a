package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/task"
)

// mkTask builds a row of run in state st.
func mkTask(run string, n int, st task.State, now time.Time) task.Task {
	t := task.Task{ID: cli.TaskID(run, n), RunID: run, URL: fmt.Sprintf("https://s%d.example.com/", n), State: st,
		MaxAttempts: 3, CreatedAt: now, UpdatedAt: now}
	switch st {
	case task.StateRunning:
		t.Attempts, t.ClaimToken, t.LeaseExpiresAt = 1, "tok", now.Add(time.Minute)
	case task.StateFinished:
		t.Attempts, t.ClaimToken, t.FinishedAt = 1, "tok", now
	case task.StateFailed:
		t.Attempts, t.ClaimToken, t.FinishedAt, t.ErrorKind, t.LastError = 1, "tok", now, task.KindFatal, "http 404"
	}
	return t
}

func decodeReports(t *testing.T, out string) []cli.StatusReport {
	t.Helper()
	var reps []cli.StatusReport
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r cli.StatusReport
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		reps = append(reps, r)
	}
	return reps
}

func TestStatusJSONCounts(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	now := tc.clock.Now()
	states := []task.State{task.StatePending, task.StatePending, task.StateRunning,
		task.StateFinished, task.StateFinished, task.StateFinished, task.StateFailed}
	for i, st := range states {
		tc.seed(t, mkTask("r", i+1, st, now))
	}
	tc.seed(t, mkTask("other", 1, task.StateFailed, now)) // another run is not counted

	res := tc.run(t, (*cli.Env).Status, "", "r", "--json")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	reps := decodeReports(t, res.stdout.String())
	require.Len(t, reps, 1)
	r := reps[0]
	require.Equal(t, "r", r.RunID)
	require.Equal(t, now, r.Time)
	require.Equal(t, [6]int{7, 2, 1, 3, 1, 4}, [6]int{r.Total, r.Pending, r.Running, r.Finished, r.Failed, r.Done})
	require.InDelta(t, 4.0/7, r.Progress, 1e-9)
	require.InDelta(t, 0.75, *r.SuccessRate, 1e-9)
	require.InDelta(t, 0.25, *r.FailureRate, 1e-9)
	require.Nil(t, r.RatePerSecond, "one sample has no rate")
	require.False(t, r.Complete)

	// The human form says the same.
	res = tc.run(t, (*cli.Env).Status, "", "r")
	require.NoError(t, res.err)
	out := res.stdout.String()
	require.Regexp(t, `finished\s+3\s+42\.9%`, out)
	require.Contains(t, out, "success rate 75.0%, failure rate 25.0%")

	res = tc.run(t, (*cli.Env).Status, "", "nope", "--json")
	require.ErrorContains(t, res.err, "run nope has no tasks")
}

// finishOnSleep returns a Sleep that advances the clock and finishes the
// next Pending task of run, as the scrapers would between two polls.
func finishOnSleep(t *testing.T, tc *testCloud, run string, n int) func(context.Context, time.Duration) error {
	next := 1
	return func(ctx context.Context, d time.Duration) error {
		tc.clock.Advance(d)
		if next <= n {
			tc.seed(t, mkTask(run, next, task.StateFinished, tc.clock.Now()))
			next++
		}
		return ctx.Err()
	}
}

func TestStatusWatchEndsWhenTerminal(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	for i := 1; i <= 4; i++ {
		tc.seed(t, mkTask("w", i, task.StatePending, tc.clock.Now()))
	}
	env, stdout, stderr := tc.env("")
	env.Sleep = finishOnSleep(t, tc, "w", 4)
	err := env.Status(context.Background(), []string{"w", "--watch", "--json", "--interval", "10s"})
	require.NoError(t, err, "stderr: %s", stderr)

	reps := decodeReports(t, stdout.String())
	require.Len(t, reps, 5, "one report per poll, the last one complete")
	for i, r := range reps {
		require.Equal(t, i, r.Done)
		require.Equal(t, i == 4, r.Complete)
	}
	require.Nil(t, reps[0].RatePerSecond)
	require.InDelta(t, 0.1, *reps[1].RatePerSecond, 1e-9, "one task per 10 s")
	require.InDelta(t, 30, *reps[1].ETASeconds, 1e-9, "3 tasks left at 0.1/s")
	require.InDelta(t, 10, *reps[3].ETASeconds, 1e-9)
}

func TestStatusWatchDisplays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		terminal bool
		check    func(t *testing.T, out string)
	}{
		{"Terminal", true, func(t *testing.T, out string) {
			require.Equal(t, 3, strings.Count(out, "\r\033[K["), "the bar is redrawn in place: %q", out)
			require.Contains(t, out, "[------------------------] 0.0% 0/2 done")
			require.Contains(t, out, "[########################] 100.0% 2/2 done")
			require.Contains(t, out, "| 0.2/s | ETA 5s")
			require.True(t, strings.HasSuffix(out, "complete\n"))
			require.Equal(t, 1, strings.Count(out, "\n"))
		}},
		{"Plain", false, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 3)
			require.True(t, strings.HasPrefix(lines[0], "2026-01-01T12:00:00Z 0.0% 0/2 done | pending 2 running 0 finished 0 failed 0 | rate: measuring"), lines[0])
			require.Contains(t, lines[1], "50.0% 1/2 done")
			require.NotContains(t, out, "\r")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc := newTestCloud(t)
			for i := 1; i <= 2; i++ {
				tc.seed(t, mkTask("d", i, task.StatePending, tc.clock.Now()))
			}
			env, stdout, _ := tc.env("")
			env.Terminal = tt.terminal
			env.Sleep = finishOnSleep(t, tc, "d", 2)
			require.NoError(t, env.Status(context.Background(), []string{"d", "--watch", "--interval", "5s"}))
			tt.check(t, stdout.String())
		})
	}
}

func TestStatusWatchGivesUpOnAnEmptyRun(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	env, stdout, _ := tc.env("")
	err := env.Status(context.Background(), []string{"ghost", "--watch", "--json", "--interval", "1s"})
	require.ErrorContains(t, err, "run ghost has no tasks")
	require.Len(t, decodeReports(t, stdout.String()), 2, "two empty polls shown; the third gives up")
}

func TestStatusUsage(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	for _, args := range [][]string{{}, {"a", "b"}, {"r", "--interval", "1ms"}, {"r", "--bogus"}} {
		res := tc.run(t, (*cli.Env).Status, "", args...)
		require.Equal(t, 2, exitCode(res.err), "args %q: %v", args, res.err)
	}
}
