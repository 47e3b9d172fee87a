package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/gruntwork-io/terratest/modules/terraform"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/task"
)

// insertOnly is the edited filter: it dispatches INSERTs of Pending tasks
// only, so a task sent back to Pending (a MODIFY, the operator's retry) is
// no longer dispatched; the default "becomes Pending" filter dispatches
// both (docs/aws-behaviour.md §1.3).
const insertOnly = `{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`

// pipeAddress is the pipe's resource address in both examples.
const pipeAddress = "module.pipeline.module.dispatch.aws_pipes_pipe.this"

// functionCode is what a code deploy changes.
type functionCode struct {
	Sha, Modified string
}

func (d *deployment) functionCodes(t *testing.T) map[string]functionCode {
	t.Helper()
	out := map[string]functionCode{}
	for role, name := range d.out.Functions {
		f, err := d.lambda.GetFunction(testContext(t), &lambda.GetFunctionInput{FunctionName: aws.String(name)})
		require.NoError(t, err, "get function %s", name)
		out[role] = functionCode{Sha: aws.ToString(f.Configuration.CodeSha256), Modified: aws.ToString(f.Configuration.LastModified)}
	}
	return out
}

func (d *deployment) pipeFilters(t *testing.T) []string {
	t.Helper()
	p, err := d.pipes.DescribePipe(testContext(t), &pipes.DescribePipeInput{Name: aws.String(d.out.PipeName)})
	require.NoError(t, err)
	var out []string
	if p.SourceParameters != nil && p.SourceParameters.FilterCriteria != nil {
		for _, f := range p.SourceParameters.FilterCriteria.Filters {
			out = append(out, aws.ToString(f.Pattern))
		}
	}
	return out
}

// filterEdit applies the example with an edited pipe_filter_patterns,
// observes the new behaviour, and applies the original again.
func filterEdit(t *testing.T, d *deployment) {
	ctx := testContext(t)
	codes := d.functionCodes(t)
	filters := d.pipeFilters(t)
	require.NotEmpty(t, filters, "the pipe has a filter")

	// Terratest writes list variables into -var without escaping their
	// strings, so the JSON pattern goes through a variable file.
	varFile := filepath.Join(t.TempDir(), "filter-edit.tfvars.json")
	raw, err := json.Marshal(map[string]any{"pipe_filter_patterns": []string{insertOnly}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(varFile, raw, 0o644))
	edited, err := d.opts.Clone()
	require.NoError(t, err)
	edited.VarFiles = append(edited.VarFiles, varFile)

	planOpts, err := edited.Clone()
	require.NoError(t, err)
	planOpts.PlanFilePath = filepath.Join(t.TempDir(), "filter-edit.tfplan")
	plan, err := terraform.InitAndPlanAndShowWithStructE(t, planOpts)
	require.NoError(t, err, "plan the filter edit")
	changes := map[string][]string{}
	for addr, rc := range plan.ResourceChangesMap {
		if rc.Change == nil || rc.Change.Actions.NoOp() || rc.Change.Actions.Read() {
			continue
		}
		for _, a := range rc.Change.Actions {
			changes[addr] = append(changes[addr], string(a))
		}
	}
	require.Equal(t, map[string][]string{pipeAddress: {"update"}}, changes, "only the pipe changes, in place")

	// Whatever happens below, the shared deployment gets its filter back.
	reverted := false
	revert := func() {
		if reverted {
			return
		}
		reverted = true
		if _, err := terraform.ApplyE(t, d.opts); err != nil {
			t.Errorf("apply the original filter again: %v", err)
		}
	}
	t.Cleanup(revert)
	start := time.Now()
	_, err = terraform.ApplyE(t, edited)
	require.NoError(t, err, "apply the filter edit")
	applied := time.Since(start)
	time.Sleep(d.timing.PipeLag)
	got := d.pipeFilters(t)
	require.Len(t, got, 1)
	require.JSONEq(t, insertOnly, got[0])

	// The new behaviour: a task sent back to Pending is not dispatched, a
	// new one is.
	sites := d.target.Sites().Healthy(t, 2)
	run := newRun("filter")
	x, y := task.Task{ID: taskID(run, 0), RunID: run, URL: sites[0].URL}, task.Task{ID: taskID(run, 1), RunID: run, URL: sites[1].URL}
	finished := func(tk task.Task) bool { return tk.State == task.StateFinished }
	d.create(t, []task.Task{x})
	d.waitTasks(t, "new task finished under the edited filter", time.Minute, finished, x.ID)
	require.NoError(t, d.store.Retry(ctx, dynamostore.RetryParams{TaskID: x.ID, From: []task.State{task.StateFinished}, Now: time.Now()}))
	d.create(t, []task.Task{y})
	d.waitTasks(t, "second new task finished under the edited filter", time.Minute, finished, y.ID)
	// The retry was written before y, on the same shard, so a wrong dispatch
	// of it was sent before y's message; once the queue is empty it has been
	// handled, well within the reconciler's Pending grace.
	d.waitWorkQueueEmpty(t, "every dispatched message handled")
	tk := d.get(t, x.ID)
	require.Equal(t, task.StatePending, tk.State, "the edited filter must not dispatch a task sent back to Pending")
	require.Zero(t, tk.Attempts)

	// Back to the original: nothing else changed, and the original
	// behaviour returns.
	start = time.Now()
	revert()
	reapplied := time.Since(start)
	time.Sleep(d.timing.PipeLag)
	code, err := terraform.PlanExitCodeE(t, d.opts)
	require.NoError(t, err)
	require.Equal(t, 0, code, "after the revert, the plan is empty")
	require.ElementsMatch(t, filters, d.pipeFilters(t), "the original filter is back")
	require.NoError(t, d.store.Retry(ctx, dynamostore.RetryParams{TaskID: y.ID, From: []task.State{task.StateFinished}, Now: time.Now()}))
	d.waitTasks(t, "a task sent back to Pending is dispatched again", time.Minute, func(tk task.Task) bool {
		return tk.State == task.StateFinished && tk.Attempts == 1
	}, y.ID)
	require.Equal(t, codes, d.functionCodes(t), "no function was redeployed")

	// x was sent back to Pending under the edited filter and never
	// dispatched; remove it (a REMOVE is never dispatched) rather than
	// leave it for a later reconciler run.
	_, err = d.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(d.out.TableName),
		Key: map[string]ddbtypes.AttributeValue{task.AttrTaskID: &ddbtypes.AttributeValueMemberS{Value: x.ID}}})
	require.NoError(t, err)

	addrs := make([]string, 0, len(changes))
	for a := range changes {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	record(t, "plan", "filter edit changes %v (update in place); functions unchanged: %v", addrs, keys(codes))
	record(t, "apply", "edit applied in %s, reverted in %s", applied.Round(time.Millisecond), reapplied.Round(time.Millisecond))
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
