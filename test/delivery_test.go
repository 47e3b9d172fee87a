package test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/s3store"
	sitedoc "github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Messages the scraper logs (internal/handler/scraper.go) that the
// scenarios look for.
const (
	logFinished      = "task finished"
	logDuplicateSkip = "task is terminal; duplicate delivery skipped"
	logClaimedSkip   = "task is claimed by another worker; delivery skipped"
)

// cliEnv runs the operator's commands (internal/cli) as a library against
// the deployment, with no environment of the developer leaking in.
func (d *deployment) cliEnv(stdin string) (*cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &cli.Env{
		Stdin:   strings.NewReader(stdin),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(string) string { return "" },
		LoadAWS: func(context.Context) (aws.Config, error) { return d.aws, nil },
		Now:     time.Now,
		Sleep:   cli.SleepContext,
	}, &out, &errb
}

// happyPath submits 200 healthy sites with taskpipe submit and checks every
// task's result.
func happyPath(t *testing.T, d *deployment) {
	const n = 200
	sites := d.target.Sites().Healthy(t, n)
	run := newRun("happy")
	env, out, errb := d.cliEnv(strings.Join(urlsOf(sites), "\n") + "\n")
	start := time.Now()
	err := env.Submit(testContext(t), []string{"--run", run, "--table", d.out.TableName,
		"--live-shards", strconv.Itoa(d.store.LiveShards())})
	require.NoError(t, err, "taskpipe submit: %s", errb.String())
	require.Equal(t, run, strings.TrimSpace(out.String()), "submit prints the run id")
	submitted := time.Since(start)

	tasks := d.waitRun(t, run, n, 3*time.Minute)
	elapsed := time.Since(start)
	retried := 0
	for _, tk := range tasks {
		line, err := strconv.Atoi(tk.ID[strings.LastIndexByte(tk.ID, '/')+1:])
		require.NoError(t, err, "task id %s", tk.ID)
		require.Equal(t, cli.TaskID(run, line), tk.ID)
		s := sites[line-1]
		require.Equal(t, task.StateFinished, tk.State, "task %s (%s): %s", tk.ID, s.URL, tk.LastError)
		require.Empty(t, tk.ErrorKind, "task %s", tk.ID)
		require.False(t, tk.FinishedAt.IsZero(), "task %s has no finishedAt", tk.ID)
		require.GreaterOrEqual(t, tk.Attempts, 1)
		if tk.Attempts > 1 {
			retried++
		}
		requireSummary(t, tk, s)
	}
	record(t, "tasks", "%d submitted in %s, all Finished after %s (%.1f tasks/s); %d needed more than one claim",
		n, submitted.Round(time.Millisecond), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), retried)
}

// requireSummary checks a Finished task's result: the scrape summary of
// the page, field by field against what the fixture page says when known.
func requireSummary(t *testing.T, tk task.Task, s site) {
	t.Helper()
	require.LessOrEqual(t, len(tk.Result), sitedoc.MaxSummaryBytes)
	var sum sitedoc.Summary
	dec := json.NewDecoder(bytes.NewReader(tk.Result))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&sum), "task %s result %s", tk.ID, tk.Result)
	require.Positive(t, sum.Pages, "task %s", tk.ID)
	// TextLength counts main content, which a page may lack (a contact
	// form, a link list): the document records it, the row only counts.
	require.NotEmpty(t, sum.Object, "task %s: the site document's object", tk.ID)
	require.Len(t, sum.SHA256, 64, "task %s", tk.ID)
	if s.Page == nil {
		require.NotEmpty(t, sum.Title, "task %s: a page with a title", tk.ID)
		return
	}
	p := s.Page
	require.Equal(t, p.Title, sum.Title, "task %s", tk.ID)
	require.Equal(t, p.Lang, sum.Language, "task %s", tk.ID)
	require.GreaterOrEqual(t, sum.Emails, len(p.Emails), "task %s: e-mails of every page", tk.ID)
}

// document reads the site document a Finished task's row names: the
// object in the result bucket, its digest checked against the row.
func (d *deployment) document(t *testing.T, tk task.Task) sitedoc.Document {
	t.Helper()
	var sum sitedoc.Summary
	require.NoError(t, json.Unmarshal(tk.Result, &sum), "task %s result %s", tk.ID, tk.Result)
	require.NotEmpty(t, sum.Object, "task %s: the site document's object", tk.ID)
	out, err := d.s3.GetObject(testContext(t), &s3.GetObjectInput{Bucket: aws.String(d.out.ResultBucket), Key: aws.String(sum.Object)})
	require.NoError(t, err, "task %s: get s3://%s/%s", tk.ID, d.out.ResultBucket, sum.Object)
	defer func() { require.NoError(t, out.Body.Close()) }()
	stored, err := io.ReadAll(out.Body)
	require.NoError(t, err, "task %s: read s3://%s/%s", tk.ID, d.out.ResultBucket, sum.Object)
	digest := sha256.Sum256(stored)
	require.Equal(t, sum.SHA256, hex.EncodeToString(digest[:]), "task %s: the object's digest", tk.ID)
	raw, err := s3store.Decompress(bytes.NewReader(stored))
	require.NoError(t, err, "task %s", tk.ID)
	var doc sitedoc.Document
	require.NoError(t, json.Unmarshal(raw, &doc), "task %s", tk.ID)
	return doc
}

// skippedFetches counts the URLs a document records as wanted but never
// sent because the crawl's budget ran out.
func skippedFetches(doc sitedoc.Document) int {
	n := 0
	for _, f := range doc.Fetches {
		if f.Outcome == sitedoc.FetchSkipped {
			n++
		}
	}
	return n
}

// duplicateDelivery inserts one task as Pending twice (the second write
// keeps it Pending, which the Pipe's "becomes Pending" filter must not
// dispatch), lets it finish, then sends a second copy of its work message.
func duplicateDelivery(t *testing.T, d *deployment) {
	ctx := testContext(t)
	s := d.target.Sites().Healthy(t, 1)[0]
	run := newRun("dup")

	// Both writes must land before the scraper claims the task; the
	// second is conditioned on Pending, so a claim in between is seen and
	// that attempt is abandoned for a fresh task id.
	var tk task.Task
	for try := 0; ; try++ {
		require.Less(t, try, 5, "the scraper claimed every task before its second insert")
		now := time.Now()
		tk = task.Task{ID: taskID(run, try), RunID: run, URL: s.URL, State: task.StatePending,
			MaxAttempts: task.DefaultMaxAttempts, CreatedAt: now, UpdatedAt: now}
		first, err := d.store.Item(tk)
		require.NoError(t, err)
		again := tk
		again.UpdatedAt = now.Add(time.Millisecond) // an unchanged item writes no stream record
		second, err := d.store.Item(again)
		require.NoError(t, err)
		_, err = d.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.out.TableName), Item: first})
		require.NoError(t, err, "first insert")
		_, err = d.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.out.TableName), Item: second,
			ConditionExpression:       aws.String("#status = :pending"),
			ExpressionAttributeNames:  map[string]string{"#status": task.AttrStatus},
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":pending": &ddbtypes.AttributeValueMemberS{Value: string(task.StatePending)}},
		})
		var ccf *ddbtypes.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			t.Logf("task %s was claimed before its second insert; trying a fresh task", tk.ID)
			continue
		}
		require.NoError(t, err, "second insert")
		break
	}
	tk = d.waitTasks(t, "task finished", time.Minute, func(x task.Task) bool { return x.State == task.StateFinished }, tk.ID)[tk.ID]
	firstResult := tk.Result

	// The second delivery: the compact work message, as the Pipe's
	// enrichment or the reconciler sends it.
	body, err := message.Message{Version: message.Version, TaskID: tk.ID, RunID: run, URL: s.URL}.Marshal()
	require.NoError(t, err)
	sent := time.Now().Add(-time.Second)
	_, err = d.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(d.out.WorkQueueURL), MessageBody: aws.String(string(body))})
	require.NoError(t, err)
	skipped := d.waitLog(t, "scraper", tk.ID, logDuplicateSkip, sent, time.Minute)
	took := skipped[0].At.Sub(sent.Add(time.Second))

	after := d.get(t, tk.ID)
	require.Equal(t, task.StateFinished, after.State)
	require.Equal(t, 1, after.Attempts, "one claim")
	require.JSONEq(t, string(firstResult), string(after.Result), "the result is not rewritten")
	require.Equal(t, tk.UpdatedAt, after.UpdatedAt, "the duplicate wrote nothing")

	// The stream shows every write to the row: two inserts (the second a
	// MODIFY Pending→Pending), one claim, one result.
	cs := d.streamChanges(t, tk.ID)[tk.ID]
	tr := countTransitions(cs)
	require.Equal(t, transitions{Inserts: 1, Claims: 1, Finishes: 1, Other: 1}, tr, "stream records: %s", joinLines(cs))
	require.Equal(t, "MODIFY", cs[1].Event)
	require.Equal(t, "Pending", cs[1].Old.Status)
	require.Equal(t, "Pending", cs[1].New.Status)

	// The scraper saw exactly two deliveries: the Pipe's (finished) and
	// ours (skipped). A dispatch of the Pending→Pending write would show
	// up as a third (skipped while claimed, or as a duplicate).
	lines, err := d.logLines(ctx, "scraper", tk.ID, sent.Add(-5*time.Minute))
	require.NoError(t, err)
	count := map[string]int{}
	for _, l := range lines {
		if l.TaskID == tk.ID {
			count[l.Msg]++
		}
	}
	require.Equal(t, 1, count[logFinished], "scraper log lines for %s: %v", tk.ID, count)
	require.Equal(t, 1, count[logDuplicateSkip], "scraper log lines for %s: %v", tk.ID, count)
	require.Zero(t, count[logClaimedSkip], "scraper log lines for %s: %v", tk.ID, count)
	record(t, "writes", "stream records %s", joinLines(cs))
	record(t, "duplicate", "second delivery acknowledged and skipped %s after it was sent; result written once", took.Round(time.Millisecond))
}

// spikeSize is the largest job of the production account (seed 001).
const spikeSize = 3575

// trafficSpike inserts 3,575 tasks in one go and measures the scraper's
// peak concurrency against its cap.
func trafficSpike(t *testing.T, d *deployment) {
	ctx := testContext(t)
	fn := d.fn("scraper")
	maps, err := d.lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{FunctionName: aws.String(fn)})
	require.NoError(t, err)
	require.Len(t, maps.EventSourceMappings, 1, "the scraper has one event source mapping")
	require.NotNil(t, maps.EventSourceMappings[0].ScalingConfig, "the mapping has a scaling config")
	capN := int(aws.ToInt32(maps.EventSourceMappings[0].ScalingConfig.MaximumConcurrency))
	conc, err := d.lambda.GetFunctionConcurrency(ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String(fn)})
	require.NoError(t, err)
	reserved := int(aws.ToInt32(conc.ReservedConcurrentExecutions))
	require.Positive(t, capN)
	require.GreaterOrEqual(t, reserved, capN, "reserved concurrency covers the mapping's maximum concurrency")

	sites := d.target.Sites().Spike(t, spikeSize)
	run := newRun("spike")
	tasks := newTasks(run, urlsOf(sites))
	require.NoError(t, d.target.ResetPeak(ctx, d))
	start := time.Now()
	d.create(t, tasks)
	inserted := time.Since(start)
	all := d.waitRun(t, run, spikeSize, 10*time.Minute)
	drained := time.Since(start)
	peak := d.target.PeakConcurrency(t, d, start)
	require.Positive(t, peak, "the scraper ran")
	require.LessOrEqual(t, peak, capN, "peak concurrency of the scraper")

	bySite := map[string]site{}
	for _, s := range sites {
		bySite[s.URL] = s
	}
	states := map[string]int{}
	retried := 0
	for _, tk := range all {
		states[string(tk.State)+kindSuffix(tk.ErrorKind)]++
		if tk.Attempts > 1 {
			retried++
		}
		s := bySite[tk.URL]
		if s.Expect == nil {
			continue
		}
		require.True(t, s.Expect.Matches(tk.State, tk.ErrorKind), "task %s (%s, %s): %s/%s, expected %s %s (%s)",
			tk.ID, tk.URL, s.Expect.Behavior, tk.State, tk.ErrorKind, s.Expect.Outcome, s.Expect.Kind, s.Expect.Reason)
		require.Equal(t, s.Expect.Claims, tk.Attempts, "task %s (%s): claims", tk.ID, s.Expect.Behavior)
	}
	visible, inFlight := d.queueDepth(t, d.out.WorkDLQURL)
	require.Zero(t, visible+inFlight, "nothing of the spike went to the work DLQ")
	record(t, "spike", "%d tasks inserted in %s, all terminal after %s (%.0f tasks/s): %v; %d needed a second claim",
		spikeSize, inserted.Round(time.Millisecond), drained.Round(time.Second), float64(spikeSize)/drained.Seconds(), states, retried)
	record(t, "concurrency", "peak %d concurrent scraper executions, cap %d (mapping maximum concurrency), reserved %d", peak, capN, reserved)
}

func kindSuffix(k task.ErrorKind) string {
	if k == "" {
		return ""
	}
	return fmt.Sprintf("(%s)", k)
}
