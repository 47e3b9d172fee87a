package cli_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/task"
)

// urlsOf maps task id → URL for comparing rows.
func urlsOf(tasks []task.Task) map[string]string {
	m := map[string]string{}
	for _, t := range tasks {
		m[t.ID] = t.URL
	}
	return m
}

func TestSubmitLinesRejectsMalformedAndWritesTheRest(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	input := strings.Join([]string{
		"# sites for the test",         // 1
		"https://example.com/a",        // 2
		"",                             // 3
		"example.org",                  // 4
		"ftp://example.com/file",       // 5 rejected
		"https://user:pw@example.com/", // 6 rejected
		"HTTPS://EXAMPLE.com/a#frag",   // 7 duplicate of 2
		"http://[::1",                  // 8 rejected
		"  https://example.net:443/x ", // 9
	}, "\n")
	res := tc.run(t, (*cli.Env).Submit, input, "--max-attempts", "5")
	require.Equal(t, cli.ExitRejected, exitCode(res.err), "stderr: %s", res.stderr)
	require.ErrorContains(t, res.err, "3 input lines rejected")

	run := "20260101T120000Z-a0a1a2" // fake clock and random bytes
	require.Equal(t, run+"\n", res.stdout.String(), "the run id alone on stdout")
	stderr := res.stderr.String()
	for _, want := range []string{
		`line 5: normalize "ftp://example.com/file": invalid website url: scheme "ftp" is not http or https`,
		`line 6: normalize "https://user:pw@example.com/": invalid website url: credentials in the url are not allowed`,
		"line 8: ",
		"line 7: duplicate of line 2 (https://example.com/a)",
	} {
		require.Contains(t, stderr, want)
	}
	require.NotContains(t, stderr, "line 1:")
	require.NotContains(t, stderr, "line 3:")

	tasks := tc.runTasks(t, run)
	require.Equal(t, map[string]string{
		run + "/0000002": "https://example.com/a",
		run + "/0000004": "https://example.org/",
		run + "/0000009": "https://example.net/x",
	}, urlsOf(tasks))
	for _, tk := range tasks {
		require.Equal(t, task.StatePending, tk.State)
		require.Equal(t, 5, tk.MaxAttempts)
		require.Equal(t, 0, tk.Attempts)
		require.Equal(t, run, tk.RunID)
		require.Equal(t, tc.clock.Now(), tk.CreatedAt)
	}
}

func TestSubmitCSV(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	input := strings.Join([]string{
		"# exported from the CRM",            // 1
		`name,URL,notes`,                     // 2 header; URL in any case
		`"Acme, Inc.",acme.example.com,"two`, // 3 quoted comma, a note
		`lines"`,                             // 4 ... spanning two lines
		`Broken,mailto:someone@example.com,`, // 5 rejected
		`Short`,                              // 6 rejected: no url field
		``,                                   // 7 blank
		`Empty,,`,                            // 8 rejected: empty url
		`"Quoted ""Name""","https://example.com/p?q=1",`, // 9
	}, "\n")
	dir := t.TempDir()
	file := filepath.Join(dir, "sites.csv")
	require.NoError(t, os.WriteFile(file, []byte(input), 0o600))

	res := tc.run(t, (*cli.Env).Submit, "", "--run", "crm-1", file)
	require.Equal(t, cli.ExitRejected, exitCode(res.err), "stderr: %s", res.stderr)
	require.Equal(t, "crm-1\n", res.stdout.String())
	stderr := res.stderr.String()
	require.Contains(t, stderr, "line 5: normalize")
	require.Contains(t, stderr, "line 6: csv: no url column (the row has 1 fields, url is field 2)")
	require.Contains(t, stderr, "line 8: csv: empty url")
	require.Equal(t, map[string]string{
		"crm-1/0000003": "https://acme.example.com/",
		"crm-1/0000009": "https://example.com/p?q=1",
	}, urlsOf(tc.runTasks(t, "crm-1")))
}

func TestSubmitExistingRunNeedsResume(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	first := "a.example.com\nb.example.com\n"
	res := tc.run(t, (*cli.Env).Submit, first, "--run", "r1")
	require.NoError(t, res.err, "stderr: %s", res.stderr)

	// Same run again: refused, nothing overwritten.
	res = tc.run(t, (*cli.Env).Submit, first+"c.example.com\n", "--run", "r1")
	require.Equal(t, 2, exitCode(res.err))
	require.ErrorContains(t, res.err, "run r1 already has tasks; pass --resume")
	require.Empty(t, res.stdout.String())
	require.Len(t, tc.runTasks(t, "r1"), 2)

	// Move line 1's task on, so a rewrite would show.
	_, err := tc.store.Claim(context.Background(), task.ClaimParams{TaskID: "r1/0000001", Token: "tok", Now: tc.clock.Now(), Lease: 60e9})
	require.NoError(t, err)

	res = tc.run(t, (*cli.Env).Submit, first+"c.example.com\n", "--run", "r1", "--resume")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Equal(t, "r1\n", res.stdout.String())
	require.Contains(t, res.stderr.String(), "2 of 3 tasks exist already")
	tasks := tc.runTasks(t, "r1")
	require.Len(t, tasks, 3)
	require.Equal(t, task.StateRunning, tasks[0].State, "resume left the existing task alone")
	require.Equal(t, "https://c.example.com/", tasks[2].URL)
}

// failNthBatchWrite fails the n-th BatchWriteItem call and every later
// one, before it is sent (so no SDK retry).
func failNthBatchWrite(n int32) func(*middleware.Stack) error {
	var calls atomic.Int32
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("failBatch",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if awsmiddleware.GetOperationName(ctx) == "BatchWriteItem" && calls.Add(1) >= n {
					return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("injected outage")
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	}
}

func TestSubmitReportsExactlyTheUnwrittenIDs(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("https://site%d.example.com/", i))
	}
	env, stdout, stderr := tc.env(strings.Join(lines, "\n"))
	env.LoadAWS = func(context.Context) (aws.Config, error) {
		cfg := tc.cfg.Copy()
		cfg.APIOptions = append(cfg.APIOptions, failNthBatchWrite(2)) // batches of 25: the first is written
		return cfg, nil
	}
	err := env.Submit(context.Background(), []string{"--run", "out"})
	require.Equal(t, 1, exitCode(err))
	require.ErrorContains(t, err, "wrote 25 of 60 tasks; 35 not written")
	require.ErrorContains(t, err, "--run out --resume")
	require.Equal(t, "out\n", stdout.String(), "the run exists: its id is printed for the resume")

	written := tc.runTasks(t, "out")
	require.Len(t, written, 25)
	for i, tk := range written {
		require.Equal(t, cli.TaskID("out", i+1), tk.ID)
	}
	notWritten := 0
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "not written: line ") {
			notWritten++
		}
	}
	require.Equal(t, 35, notWritten, "stderr: %s", stderr)
	require.Contains(t, stderr.String(), "not written: line 26: task out/0000026 (https://site26.example.com/)")
	require.Contains(t, stderr.String(), "not written: line 60: task out/0000060")
	require.NotContains(t, stderr.String(), "line 25: task")

	// The advertised resume writes exactly the rest.
	res := tc.run(t, (*cli.Env).Submit, strings.Join(lines, "\n"), "--run", "out", "--resume")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Len(t, tc.runTasks(t, "out"), 60)
}

func TestSubmitNothingWritten(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	res := tc.run(t, (*cli.Env).Submit, "a.example.com\n", "--table", "no-such-table")
	require.Equal(t, 1, exitCode(res.err))
	require.ErrorContains(t, res.err, "wrote 0 of 1 tasks")
	require.Empty(t, res.stdout.String(), "no run id when nothing was written")
	require.Contains(t, res.stderr.String(), "not written: line 1: task ")
}

func TestSubmitUsageAndInputErrors(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"TwoFiles", "", []string{"a", "b"}, 2, "at most one FILE"},
		{"BadRun", "x.com", []string{"--run", "has space"}, 2, "--run"},
		{"SlashInRun", "x.com", []string{"--run", "a/b"}, 2, "--run"},
		{"BadMaxAttempts", "x.com", []string{"--max-attempts", "-1"}, 2, "--max-attempts -1"},
		{"ResumeWithoutRun", "x.com", []string{"--resume"}, 2, "--resume needs --run"},
		{"NoValidURLs", "ftp://x\n# only a comment\n", nil, 1, "no valid URLs (1 lines rejected)"},
		{"Empty", "", nil, 1, "no valid URLs"},
		{"MissingFile", "", []string{"/no/such/file"}, 1, "no such file"},
		{"DryRun", "a.com\nftp://b\n", []string{"--dry-run"}, cli.ExitRejected, "1 input lines rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := tc.run(t, (*cli.Env).Submit, tt.stdin, tt.args...)
			require.Equal(t, tt.code, exitCode(res.err), "err %v", res.err)
			require.ErrorContains(t, res.err, tt.want)
		})
	}
	// The dry run wrote nothing.
	res := tc.run(t, (*cli.Env).Submit, "a.com\n", "--dry-run", "--run", "dry")
	require.NoError(t, res.err)
	require.Empty(t, tc.runTasks(t, "dry"))
}

func TestSubmitMissingTable(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	env, _, _ := tc.env("a.com\n")
	env.Getenv = func(string) string { return "" }
	err := env.Submit(context.Background(), nil)
	require.Equal(t, 2, exitCode(err))
	require.ErrorContains(t, err, "missing the table name: set --table or TASKPIPE_TABLE, or point --tf-dir (or TASKPIPE_TF_DIR) at the Terraform root that outputs table_name")
}

func TestSubmitProgressForLargeInputs(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	var b strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&b, "https://s%d.example.com/\n", i)
	}
	res := tc.run(t, (*cli.Env).Submit, b.String(), "--run", "big")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	for _, want := range []string{"wrote 500 of 1200", "wrote 1000 of 1200", "wrote 1200 of 1200", "wrote 1200 tasks"} {
		require.Contains(t, res.stderr.String(), want)
	}
	counts, err := tc.store.RunCounts(context.Background(), "big")
	require.NoError(t, err)
	require.Equal(t, 1200, counts[task.StatePending])
}

// BenchmarkSubmit submits a production-sized run (3,575 sites) to the
// local cloud and reports tasks written per second (parsing, batching,
// HTTP and the emulated table included).
func BenchmarkSubmit(b *testing.B) {
	tc := newTestCloud(b)
	var sb strings.Builder
	for i := range 3575 {
		fmt.Fprintf(&sb, "https://www.site-%d.example.com/\n", i)
	}
	input := sb.String()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		env, _, stderr := tc.env(input)
		if err := env.Submit(context.Background(), []string{"--run", fmt.Sprintf("bench-%d", i)}); err != nil {
			b.Fatalf("%v: %s", err, stderr)
		}
	}
	b.ReportMetric(float64(3575*b.N)/b.Elapsed().Seconds(), "tasks/s")
}
