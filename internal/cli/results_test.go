package cli_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/task"
)

// seedResults writes a run with a finished task whose result is the
// scraper's own summary type, a failed one, a pending one and a finished one
// whose result is not an object.
func seedResults(t *testing.T, tc *testCloud) {
	t.Helper()
	now := tc.clock.Now()
	sum := scrape.Summary{
		URL: "https://www.example.com/", Status: 200, Title: "=HYPERLINK(\"x\")", Description: "Widgets, made well",
		Canonical: "https://www.example.com/", Lang: "en", H1: "Welcome", InternalLinks: 12, ExternalLinks: 3,
		Emails:     []string{"info@example.com", "sales@example.com"},
		Socials:    []scrape.Social{{Network: "x", URL: "https://x.com/example"}, {Network: "linkedin", URL: "https://www.linkedin.com/company/example"}},
		TextLength: 4200, Bytes: 9000,
	}
	result, err := sum.MarshalBounded()
	require.NoError(t, err)
	done := mkTask("res", 1, task.StateFinished, now)
	done.Result = result
	failed := mkTask("res", 2, task.StateFailed, now.Add(time.Second))
	odd := mkTask("res", 4, task.StateFinished, now)
	odd.Result = []byte(`[1,2]`)
	tc.seed(t, done, failed, mkTask("res", 3, task.StatePending, now), odd)
}

func TestResultsJSONL(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	seedResults(t, tc)
	res := tc.run(t, (*cli.Env).Results, "", "res")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stderr.String(), "4 tasks exported")

	lines := strings.Split(strings.TrimSpace(res.stdout.String()), "\n")
	require.Len(t, lines, 4)
	var rows []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		rows = append(rows, m)
	}
	require.Equal(t, map[string]any{
		"id": "res/0000001", "url": "https://s1.example.com/", "state": "Finished", "attempts": 1.0,
		"finishedAt": "2026-01-01T12:00:00Z", "finalUrl": "https://www.example.com/", "httpStatus": 200.0,
		"title": "=HYPERLINK(\"x\")", "description": "Widgets, made well", "canonical": "https://www.example.com/",
		"lang": "en", "h1": "Welcome", "internalLinks": 12.0, "externalLinks": 3.0,
		"emails": []any{"info@example.com", "sales@example.com"},
		"socials": []any{
			map[string]any{"network": "x", "url": "https://x.com/example"},
			map[string]any{"network": "linkedin", "url": "https://www.linkedin.com/company/example"},
		},
		"textLength": 4200.0,
	}, rows[0])
	require.Equal(t, map[string]any{
		"id": "res/0000002", "url": "https://s2.example.com/", "state": "Failed", "attempts": 1.0,
		"errorKind": "fatal", "lastError": "http 404", "finishedAt": "2026-01-01T12:00:01Z",
	}, rows[1])
	require.Equal(t, "Pending", rows[2]["state"])
	require.Equal(t, "result is not a JSON object", rows[3]["resultError"])

	// --state filters.
	res = tc.run(t, (*cli.Env).Results, "", "res", "--state", "failed,Pending")
	require.NoError(t, res.err)
	require.Equal(t, 2, strings.Count(res.stdout.String(), "\n"))
	require.Contains(t, res.stdout.String(), `"id":"res/0000002"`)
	require.Contains(t, res.stdout.String(), `"id":"res/0000003"`)
}

func TestResultsCSV(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	seedResults(t, tc)
	res := tc.run(t, (*cli.Env).Results, "", "res", "--format", "csv")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	recs, err := csv.NewReader(strings.NewReader(res.stdout.String())).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 5)
	header := recs[0]
	col := func(row []string, name string) string {
		for i, h := range header {
			if h == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s in %v", name, header)
		return ""
	}
	first := recs[1]
	require.Equal(t, "res/0000001", col(first, "id"))
	require.Equal(t, "'=HYPERLINK(\"x\")", col(first, "title"), "formula defused")
	require.Equal(t, "Widgets, made well", col(first, "description"))
	require.Equal(t, "info@example.com sales@example.com", col(first, "emails"))
	require.Equal(t, "x=https://x.com/example linkedin=https://www.linkedin.com/company/example", col(first, "socials"))
	require.Equal(t, "12", col(first, "internalLinks"))
	require.Equal(t, "200", col(first, "httpStatus"))
	require.Equal(t, "http 404", col(recs[2], "lastError"))
	require.Equal(t, "fatal", col(recs[2], "errorKind"))
	require.Equal(t, "", col(recs[3], "internalLinks"), "no result, no count")
}

func TestResultsPaginates(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	for i := 1; i <= 130; i++ { // three pages of 50
		tc.seed(t, mkTask("many", i, task.StatePending, tc.clock.Now()))
	}
	res := tc.run(t, (*cli.Env).Results, "", "many", "--format", "csv")
	require.NoError(t, res.err)
	recs, err := csv.NewReader(strings.NewReader(res.stdout.String())).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 131)
	for i, r := range recs[1:] {
		require.Equal(t, cli.TaskID("many", i+1), r[0], "task-id (line) order")
	}
}

func TestResultsUsage(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	for _, args := range [][]string{{}, {"r", "--format", "xml"}, {"r", "--state", "Done"}} {
		res := tc.run(t, (*cli.Env).Results, "", args...)
		require.Equal(t, 2, exitCode(res.err), "args %q: %v", args, res.err)
	}
	res := tc.run(t, (*cli.Env).Results, "", "ghost")
	require.ErrorContains(t, res.err, "run ghost has no tasks")
}

func TestRetryMovesChosenFailedTasks(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	now := tc.clock.Now()
	kinds := []task.ErrorKind{task.KindFatal, task.KindExhausted, task.KindStuck, task.KindFatal}
	for i, k := range kinds {
		f := mkTask("rt", i+1, task.StateFailed, now)
		f.ErrorKind = k
		tc.seed(t, f)
	}
	tc.seed(t, mkTask("rt", 5, task.StateFinished, now), mkTask("rt", 6, task.StateRunning, now))

	// Dry run: lists, changes nothing.
	res := tc.run(t, (*cli.Env).Retry, "", "rt", "--kind", "fatal,stuck", "--dry-run")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stdout.String(), "would retry 3 of 6 tasks of run rt")
	counts, err := tc.store.RunCounts(context.Background(), "rt")
	require.NoError(t, err)
	require.Equal(t, 4, counts[task.StateFailed])

	tc.clock.Advance(time.Minute)
	res = tc.run(t, (*cli.Env).Retry, "", "rt", "--kind", "fatal")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stdout.String(), "retried 2 of 2 chosen tasks of run rt")
	want := map[string]task.State{
		"rt/0000001": task.StatePending, "rt/0000002": task.StateFailed, "rt/0000003": task.StateFailed,
		"rt/0000004": task.StatePending, "rt/0000005": task.StateFinished, "rt/0000006": task.StateRunning,
	}
	for id, st := range want {
		tk, err := tc.store.Get(context.Background(), id)
		require.NoError(t, err)
		require.Equal(t, st, tk.State, id)
		if st == task.StatePending {
			require.Equal(t, 0, tk.Attempts)
			require.Empty(t, tk.ErrorKind)
			require.Equal(t, tc.clock.Now(), tk.UpdatedAt)
		}
	}
	// The retried rows are back in the live index, where the reconciler
	// and the pipe DLQ fallback look.
	page, err := tc.store.ListLive(context.Background(), task.ListLiveParams{State: task.StatePending, DueBefore: tc.clock.Now().Add(time.Second)})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 2)

	// Finished and all remaining Failed.
	res = tc.run(t, (*cli.Env).Retry, "", "rt", "--state", "Failed,Finished")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stdout.String(), "retried 3 of 3 chosen tasks")
	counts, err = tc.store.RunCounts(context.Background(), "rt")
	require.NoError(t, err)
	require.Equal(t, map[task.State]int{task.StatePending: 5, task.StateRunning: 1, task.StateFailed: 0, task.StateFinished: 0}, counts)
}

// TestRetryReportsPerTaskErrors: a task that changed between the listing
// and its write is named on stderr, the others are retried, and the exit
// status is 1.
func TestRetryReportsPerTaskErrors(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	now := tc.clock.Now()
	tc.seed(t, mkTask("rc", 1, task.StateFailed, now), mkTask("rc", 2, task.StateFailed, now), mkTask("rc", 3, task.StateFailed, now))
	env, stdout, stderr := tc.env("")
	env.LoadAWS = func(context.Context) (aws.Config, error) {
		cfg := tc.cfg.Copy()
		// Someone else re-queues task 2 just before our write reaches it.
		cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("race",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if u, ok := in.Parameters.(*dynamodb.UpdateItemInput); ok {
						if id, _ := u.Key[task.AttrTaskID].(*ddbtypes.AttributeValueMemberS); id != nil && id.Value == "rc/0000002" {
							if err := tc.store.Retry(ctx, dynamostore.RetryParams{TaskID: id.Value, From: []task.State{task.StateFailed}, Now: now}); err != nil {
								t.Errorf("concurrent retry: %v", err) // not FailNow: a worker goroutine
							}
						}
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
		return cfg, nil
	}
	err := env.Retry(context.Background(), []string{"rc"})
	require.Equal(t, 1, exitCode(err))
	require.ErrorContains(t, err, "1 tasks not retried")
	require.Contains(t, stdout.String(), "retried 2 of 3 chosen tasks of run rc")
	require.Contains(t, stderr.String(), "retry: task rc/0000002 not retried (changed since the listing)")
	require.Contains(t, stderr.String(), "task is Pending, want one of [Failed]")
	require.Equal(t, 1, strings.Count(stderr.String(), "not retried"))
}

func TestRetryUsage(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "exactly one RUN"},
		{[]string{"r", "--state", "Pending"}, "only Failed and Finished"},
		{[]string{"r", "--state", "Finished", "--kind", "fatal"}, "add Failed to --state"},
		{[]string{"r", "--kind", "bogus"}, `unknown kind "bogus"`},
		{[]string{"r", "--state", ","}, "name at least one state"},
	}
	for _, tt := range tests {
		res := tc.run(t, (*cli.Env).Retry, "", tt.args...)
		require.Equal(t, 2, exitCode(res.err), "args %q: %v", tt.args, res.err)
		require.ErrorContains(t, res.err, tt.want)
	}
	res := tc.run(t, (*cli.Env).Retry, "", "ghost")
	require.ErrorContains(t, res.err, "run ghost has no tasks")
}

// TestResultRowReadsCompactSummary: the row summary the scraper writes
// since documents moved to S3 (site.Summary) fills the count and object
// columns.
func TestResultRowReadsCompactSummary(t *testing.T) {
	t.Parallel()
	tk := task.Task{ID: "r/0000001", URL: "https://example.com/", State: task.StateFinished, Attempts: 1,
		Result: json.RawMessage(`{"title":"Acme","language":"de","pages":3,"emails":2,"phones":1,"addresses":0,"socials":4,"textLength":1200,"object":"runs/r/0000001.json.gz","sha256":"ab12"}`)}
	r := cli.NewResultRow(tk)
	require.Equal(t, "Acme", r.Title)
	require.Equal(t, "de", r.Language)
	require.Equal(t, 3, *r.Pages)
	require.Equal(t, 2, *r.EmailsN)
	require.Equal(t, 1, *r.Phones)
	require.Equal(t, 4, *r.SocialsN)
	require.Equal(t, 1200, *r.TextLength)
	require.Equal(t, "runs/r/0000001.json.gz", r.Object)
	require.Equal(t, "ab12", r.SHA256)
	require.Empty(t, r.Emails)
	require.Empty(t, r.ResultError)
}

// TestResultsDocumentsFromS3: jsonl carries each stored site document,
// checked against the row's digest; --download writes the objects as
// stored; a changed object or an unknown bucket is an error that names the
// way out.
func TestResultsDocumentsFromS3(t *testing.T) {
	t.Parallel()
	tc := newTestCloud(t)
	ctx := context.Background()
	client := s3.NewFromConfig(tc.cfg, func(o *s3.Options) { o.UsePathStyle = true })
	_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("docs")})
	require.NoError(t, err)
	store, err := s3store.New(client, "docs", "")
	require.NoError(t, err)
	doc := []byte(`{"schemaVersion":1,"url":"https://www.example.com/","pages":[{"text":"Widgets, made well"}]}`)
	done := mkTask("docs", 1, task.StateFinished, tc.clock.Now())
	key, sum, err := store.Put(ctx, done.RunID, done.ID, doc)
	require.NoError(t, err)
	done.Result = []byte(`{"title":"Widgets","pages":1,"object":"` + key + `","sha256":"` + sum + `"}`)
	tc.seed(t, done, mkTask("docs", 2, task.StateFailed, tc.clock.Now()))

	res := tc.run(t, (*cli.Env).Results, "", "docs", "--bucket", "docs")
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	require.Contains(t, res.stderr.String(), "2 tasks exported, 1 documents read")
	lines := strings.Split(strings.TrimSpace(res.stdout.String()), "\n")
	require.Len(t, lines, 2)
	var row struct {
		Object   string          `json:"object"`
		Document json.RawMessage `json:"document"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &row))
	require.Equal(t, key, row.Object)
	require.JSONEq(t, string(doc), string(row.Document))
	require.NotContains(t, lines[1], `"document"`, "a failed task has no document")

	dir := t.TempDir()
	res = tc.run(t, (*cli.Env).Results, "", "docs", "--bucket", "docs", "--format", "csv", "--download", dir)
	require.NoError(t, res.err, "stderr: %s", res.stderr)
	stored, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
	require.NoError(t, err)
	got, err := s3store.Decompress(bytes.NewReader(stored))
	require.NoError(t, err)
	require.Equal(t, doc, got)

	res = tc.run(t, (*cli.Env).Results, "", "docs")
	require.ErrorContains(t, res.err, "--documents=false", "no bucket known")
	res = tc.run(t, (*cli.Env).Results, "", "docs", "--documents=false")
	require.NoError(t, res.err)

	_, _, err = store.Put(ctx, done.RunID, done.ID, []byte(`{"changed":true}`))
	require.NoError(t, err)
	res = tc.run(t, (*cli.Env).Results, "", "docs", "--bucket", "docs")
	require.ErrorContains(t, res.err, "the object changed after the task finished")
}
