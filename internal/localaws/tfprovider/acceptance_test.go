package tfprovider_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/task"
)

// insertOnly is the edited filter of the acceptance test: it dispatches
// INSERTs of Pending tasks only, so a task sent back to Pending (a MODIFY)
// is no longer dispatched; the default filter dispatches both
// (modules/dispatch variables.tf; docs/aws-behaviour.md §1.3).
const insertOnly = `{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`

// TestAcceptanceLocalExample is issue 6, acceptance 1: terraform apply of
// terraform/examples/local into a local cloud started in-process brings the
// pipeline to life; a second plan shows no changes; editing only the filter
// variable updates only the pipe, in place, and the new filter's behaviour
// is observed in the local cloud; terraform destroy leaves it empty.
func TestAcceptanceLocalExample(t *testing.T) {
	t.Parallel()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	arch := demo.LambdaArch()
	dist := ensureZips(t, root, arch)

	cloud := startCloud(t)
	requireServices(t, cloud)

	// The example refers to ../../modules; copy both, keeping the layout.
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "terraform", "modules"), filepath.Join(dir, "terraform", "modules"))
	copyTree(t, filepath.Join(root, "terraform", "examples", "local"), filepath.Join(dir, "terraform", "examples", "local"))
	const name = "accept"
	e := initEnv(t, cloud, filepath.Join(dir, "terraform", "examples", "local"), tfprovidertest.CLIConfig(t),
		"local_endpoint="+cloud.URL(), "dist_dir="+dist, "architecture="+arch, "name="+name)

	e.apply()
	st := e.state()
	require.NotEmpty(t, st)
	e.requireNoChanges()

	// A site for the scraper: every task ends Finished.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>acceptance</title></head><body><p>hello</p></body></html>")
	}))
	t.Cleanup(site.Close)
	db := dynamodb.NewFromConfig(e.cfg)
	store, err := dynamostore.New(db, dynamostore.Options{Table: name + "-tasks"})
	require.NoError(t, err)
	bg := context.Background()

	// The default filter dispatches a new task and a task sent back to
	// Pending alike.
	require.NoError(t, store.Create(bg, []task.Task{{ID: "a", RunID: "r1", URL: site.URL + "/a"}}))
	waitState(t, store, "a", task.StateFinished)
	require.NoError(t, store.Retry(bg, dynamostore.RetryParams{TaskID: "a", From: []task.State{task.StateFinished}, Now: time.Now()}))
	waitState(t, store, "a", task.StateFinished)

	// Editing only the filter updates only the pipe, in place.
	edit := fmt.Sprintf(`pipe_filter_patterns=[%q]`, insertOnly)
	p := e.plan(edit)
	require.Equal(t, map[string]tfjson.Actions{"module.pipeline.module.dispatch.aws_pipes_pipe.this": {tfjson.ActionUpdate}}, changes(p))
	e.apply(edit)
	e.requireNoChanges(edit)
	got, err := pipes.NewFromConfig(e.cfg).DescribePipe(bg, &pipes.DescribePipeInput{Name: aws.String(name + "-dispatch")})
	require.NoError(t, err)
	require.Len(t, got.SourceParameters.FilterCriteria.Filters, 1)
	require.JSONEq(t, insertOnly, aws.ToString(got.SourceParameters.FilterCriteria.Filters[0].Pattern))

	// Now a task sent back to Pending is not dispatched, a new one is.
	require.NoError(t, store.Retry(bg, dynamostore.RetryParams{TaskID: "a", From: []task.State{task.StateFinished}, Now: time.Now()}))
	require.NoError(t, store.Create(bg, []task.Task{{ID: "b", RunID: "r1", URL: site.URL + "/b"}}))
	waitState(t, store, "b", task.StateFinished)
	// a's record precedes b's on the stream's one shard, so had the filter
	// let it through, the pipe sent its message before b's. Once the work
	// queue holds nothing, visible or in flight, every message sent so far
	// has been handled, so a is still Pending only if it was never
	// dispatched (the reconciler's 60 s Pending grace is far off).
	waitQueueEmpty(t, sqs.NewFromConfig(e.cfg), name+"-work")
	a, err := store.Get(bg, "a")
	require.NoError(t, err)
	require.Equal(t, task.StatePending, a.State, "the edited filter no longer dispatches a task sent back to Pending")

	// Destroy leaves the local cloud empty.
	roles := stateValues(st, "aws_iam_role", "name")
	e.destroy(edit)
	requireEmptyCloud(t, e, roles)
}

// ensureZips returns the dist directory holding the functions' zips for
// arch (this machine's: lambdaArch), running make build first when one is
// missing.
func ensureZips(t *testing.T, root, arch string) string {
	t.Helper()
	require.Equal(t, demo.LambdaArch(), arch, "make build writes this machine's architecture")
	tfprovidertest.EnsureZips(t, root)
	return filepath.Join(root, "dist")
}

// requireServices fails, naming what is pending, when the local cloud does
// not serve every service the local example uses.
func requireServices(t *testing.T, cloud *localcloud.Cloud) {
	t.Helper()
	served := map[string]bool{}
	for _, s := range cloud.Services() {
		served[s] = true
	}
	var missing []string
	for _, s := range []string{emu.ServiceDynamoDB, emu.ServiceStreams, emu.ServiceSQS, emu.ServiceIAM, emu.ServiceSTS,
		emu.ServiceLambda, emu.ServiceLogs, emu.ServicePipes, emu.ServiceScheduler, emu.ServiceMonitoring} {
		if !served[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("pending: the local cloud (internal/localaws/localcloud) does not serve %s yet; the acceptance test needs every service of terraform/examples/local",
			strings.Join(missing, ", "))
	}
}

// waitState waits until the task reaches want.
func waitState(t *testing.T, store *dynamostore.Store, id string, want task.State) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last task.Task
	for time.Now().Before(deadline) {
		got, err := store.Get(context.Background(), id)
		require.NoError(t, err)
		if got.State == want {
			return
		}
		last = got
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("task %s did not become %s within 90 s; last: %+v", id, want, last)
}

// waitQueueEmpty waits until the queue holds no message, visible, in
// flight or delayed.
func waitQueueEmpty(t *testing.T, client *sqs.Client, name string) {
	t.Helper()
	ctx := context.Background()
	url, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	require.NoError(t, err)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl,
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		require.NoError(c, err)
		for _, a := range []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed} {
			assert.Equal(c, "0", out.Attributes[string(a)], "%s of %s", a, name)
		}
	}, 90*time.Second, 100*time.Millisecond)
}

// stateValues collects attribute values of every resource of a type.
func stateValues(st map[string]*tfjson.StateResource, typ, attr string) []string {
	var out []string
	for _, r := range st {
		if r.Type == typ {
			if v, ok := r.AttributeValues[attr].(string); ok {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

// requireEmptyCloud checks, with the SDK, that no table, queue, function,
// mapping, pipe, schedule, alarm, dashboard, log group or role is left.
func requireEmptyCloud(t *testing.T, e *applyEnv, roles []string) {
	t.Helper()
	ctx := context.Background()
	tables, err := dynamodb.NewFromConfig(e.cfg).ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Empty(t, tables.TableNames, "tables")
	queues, err := sqs.NewFromConfig(e.cfg).ListQueues(ctx, &sqs.ListQueuesInput{})
	require.NoError(t, err)
	require.Empty(t, queues.QueueUrls, "queues")
	lc := lambda.NewFromConfig(e.cfg)
	fns, err := lc.ListFunctions(ctx, &lambda.ListFunctionsInput{})
	require.NoError(t, err)
	require.Empty(t, fns.Functions, "functions")
	esms, err := lc.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{})
	require.NoError(t, err)
	require.Empty(t, esms.EventSourceMappings, "event source mappings")
	ps, err := pipes.NewFromConfig(e.cfg).ListPipes(ctx, &pipes.ListPipesInput{})
	require.NoError(t, err)
	require.Empty(t, ps.Pipes, "pipes")
	ss, err := scheduler.NewFromConfig(e.cfg).ListSchedules(ctx, &scheduler.ListSchedulesInput{})
	require.NoError(t, err)
	require.Empty(t, ss.Schedules, "schedules")
	cw := cloudwatch.NewFromConfig(e.cfg)
	alarms, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{})
	require.NoError(t, err)
	require.Empty(t, alarms.MetricAlarms, "alarms")
	dashes, err := cw.ListDashboards(ctx, &cloudwatch.ListDashboardsInput{})
	require.NoError(t, err)
	require.Empty(t, dashes.DashboardEntries, "dashboards")
	// The functions' own log groups were Terraform's; the Lambda runtime
	// writes into them, and a write after their deletion would recreate
	// none (CreateLogGroup is Terraform's job), so none may be left.
	lgs, err := cloudwatchlogs.NewFromConfig(e.cfg).DescribeLogGroups(ctx, &cloudwatchlogs.DescribeLogGroupsInput{})
	require.NoError(t, err)
	var left []string
	for _, g := range lgs.LogGroups {
		left = append(left, aws.ToString(g.LogGroupName))
	}
	require.Empty(t, left, "log groups")
	require.NotEmpty(t, roles)
	im := iam.NewFromConfig(e.cfg)
	for _, r := range roles {
		_, err := im.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(r)})
		require.ErrorContains(t, err, "NoSuchEntity", "role %s", r)
	}
}
