//go:build !aws

package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/gruntwork-io/terratest/modules/files"
	"github.com/gruntwork-io/terratest/modules/logger"
	"github.com/gruntwork-io/terratest/modules/terraform"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/task"
)

// TestIAMMutations is issue 13's mutation test of the modules' policies:
// each statement of each module policy (identity policies by Sid, trust
// policies by their service principal) is removed from a copy of the
// modules, one at a time, the copy is applied over a running deployment of
// examples/local on the local cloud (IAM enforced), and the pipeline is
// driven just far enough to show the failure, with an AccessDenied (or
// the service's own denial) that names the removed statement's action.
// A ListStreams grant scoped to the stream ARN, which grants nothing on
// AWS, must be caught too. Each mutation is then reverted.
//
// Three deployments share one local cloud and fixture web and run side by
// side (pipe, scraper, reconciler mutations); on each, the mutations run
// one after the other. A mutation applies only the changed policy (and,
// for checks AWS makes when a resource is created, replaces that resource:
// the pipe for its stream-read grants and trust, the event source mapping
// for ConsumeQueue), which takes seconds.
//
// A statement whose removal the local cloud does not catch yet is a gap
// entry: it asserts the removal is *not* caught, so the list cannot go
// stale (README, "Local cloud"; docs/local-cloud-validation.md).
func TestIAMMutations(t *testing.T) {
	tfprovidertest.SkipShort(t)
	t.Parallel()
	// Three stacks applied and driven at once load the 2 cores as much as
	// an exclusive scenario does: taking its turn keeps the traffic
	// spike's scrapers from running into their timeout meanwhile.
	suite.exclusive.Lock()
	t.Cleanup(suite.exclusive.Unlock)
	start := time.Now()
	m := newMutationCloud(t)
	for _, group := range mutationGroups() {
		t.Run(group.name, func(t *testing.T) {
			t.Parallel()
			s := m.stack(t, group.name)
			for _, mu := range group.mutations {
				t.Run(mu.name, func(t *testing.T) { s.run(t, mu) })
			}
		})
	}
	t.Cleanup(func() { t.Logf("TestIAMMutations: %s", time.Since(start).Round(time.Second)) })
}

// mutation is one change to a module policy and how its failure shows.
type mutation struct {
	name string
	// file is the module file, under terraform/; anchor finds the
	// statement (a Sid, or a trust policy's principal) and edit changes it
	// (default: removeStatement).
	file   string
	anchor string
	edit   func(src, anchor string) (string, error)
	// policies are the resources the change rewrites (-target), replace
	// those recreated so the checks AWS makes at creation run again.
	policies, replace []string
	// atApply: the apply fails with want; else the apply succeeds and
	// probe drives the pipeline and returns the evidence (console lines).
	atApply bool
	probe   func(t *testing.T, s *mutationStack, since int64, want []string) string
	want    []string
	// at names when a probe's failure shows (default "during the run").
	at string
	// gap, when set, says why the local cloud does not catch the change
	// yet: the test asserts the pipeline still works (probe returns "").
	gap string
}

type mutationGroup struct {
	name      string
	mutations []mutation
}

// Resource addresses of examples/local.
const (
	dispatchPolicy   = "module.pipeline.module.dispatch.aws_iam_role_policy.this"
	dispatchRole     = "module.pipeline.module.dispatch.aws_iam_role.this"
	dispatchPipe     = "module.pipeline.module.dispatch.aws_pipes_pipe.this"
	scraperPolicy    = "module.pipeline.module.scraper.aws_iam_role_policy.this"
	reconcilerPolicy = "module.pipeline.module.reconciler.aws_iam_role_policy.this"
	enrichPolicy     = "module.pipeline.module.enrich[0].aws_iam_role_policy.this"
	schedulerPolicy  = "module.pipeline.aws_iam_role_policy.scheduler"
	schedulerRole    = "module.pipeline.aws_iam_role.scheduler"
)

const (
	dispatchTF = "modules/dispatch/main.tf"
	lambdaTF   = "modules/go-lambda/main.tf"
	pipelineTF = "modules/pipeline/main.tf"
)

func sid(name string) string { return `(?i)\bsid\s*=\s*"` + name + `"` }

func principal(service string) string { return `Service\s*=\s*"` + regexp.QuoteMeta(service) + `"` }

// denied is the phrase of AWS's denial message for action.
func denied(action string) string { return "is not authorized to perform: " + action }

func mutationGroups() []mutationGroup {
	return []mutationGroup{
		{"pipe", []mutation{
			{name: "ReadStream", file: dispatchTF, anchor: sid("ReadStream"), policies: []string{dispatchPolicy},
				replace: []string{dispatchPipe}, atApply: true, want: []string{"CREATE_FAILED", denied("dynamodb:DescribeStream")}},
			{name: "ListStreams", file: dispatchTF, anchor: sid("ListStreams"), policies: []string{dispatchPolicy},
				replace: []string{dispatchPipe}, atApply: true, want: []string{"CREATE_FAILED", denied("dynamodb:ListStreams")}},
			{name: "ListStreamsScopedToStream", file: dispatchTF, anchor: sid("ListStreams"), edit: scopeToStream,
				policies: []string{dispatchPolicy}, replace: []string{dispatchPipe}, atApply: true,
				want: []string{"CREATE_FAILED", denied("dynamodb:ListStreams") + " on resource: *"}},
			{name: "PipeTrust", file: dispatchTF, anchor: principal("pipes.amazonaws.com"), policies: []string{dispatchRole},
				replace: []string{dispatchPipe}, atApply: true, want: []string{"CREATE_FAILED", "pipes.amazonaws.com " + denied("sts:AssumeRole")}},
			{name: "SendToTarget", file: dispatchTF, anchor: sid("SendToTarget"), policies: []string{dispatchPolicy},
				probe: probeDispatch, want: []string{denied("sqs:SendMessage") + " on resource: {work_queue_arn}"}},
			{name: "InvokeEnrichment", file: dispatchTF, anchor: sid("InvokeEnrichment"), policies: []string{dispatchPolicy},
				probe: probeDispatch, want: []string{denied("lambda:InvokeFunction") + " on resource: {enrich_arn}"}},
			{name: "SendToDeadLetterQueue", file: dispatchTF, anchor: sid("SendToDeadLetterQueue"), policies: []string{dispatchPolicy},
				probe: probeDeadLetter, want: []string{"could not send to its dead-letter queue", denied("sqs:SendMessage") + " on resource: {pipe_dlq_arn}"}},
			{name: "WriteLogs", file: dispatchTF, anchor: sid("WriteLogs"), policies: []string{dispatchPolicy},
				probe: probePipeLogs, want: []string{"pipe logs dropped", denied("logs:PutLogEvents") + " on resource: arn:aws:logs:"}},
		}},
		{"scraper", []mutation{
			// The apply's CreateEventSourceMapping is refused at once, but
			// the provider retries that message for its 5-minute IAM
			// propagation window (internal/localaws/tfprovider, as
			// hashicorp/terraform-provider-aws does): the probe makes the
			// apply's call itself.
			{name: "ConsumeQueue", file: lambdaTF, anchor: sid("ConsumeQueue"), policies: []string{scraperPolicy},
				at: "at the mapping's creation", probe: probeMapping, want: []string{"InvalidParameterValueException",
					"The provided execution role does not have permissions to call ReceiveMessage on SQS"}},
			{name: "ClaimAndFinishTasks", file: pipelineTF, anchor: sid("ClaimAndFinishTasks"), policies: []string{scraperPolicy},
				probe: probeScrape(healthy), want: []string{"{scraper}", denied("dynamodb:UpdateItem") + " on resource: {table_arn}"}},
			{name: "StoreSiteDocuments", file: pipelineTF, anchor: sid("StoreSiteDocuments"), policies: []string{scraperPolicy},
				probe: probeScrape(healthy), want: []string{"{scraper}", denied("s3:PutObject") + " on resource: arn:aws:s3:::{bucket}/"}},
			{name: "DelayRedelivery", file: pipelineTF, anchor: sid("DelayRedelivery"), policies: []string{scraperPolicy},
				probe: probeScrape(flaky), want: []string{"{scraper}", denied("sqs:ChangeMessageVisibility") + " on resource: {work_queue_arn}"}},
			{name: "ForwardPoisonMessages", file: pipelineTF, anchor: sid("ForwardPoisonMessages"), policies: []string{scraperPolicy},
				probe: probePoison, want: []string{"{scraper}", denied("sqs:SendMessage") + " on resource: {work_dlq_arn}"}},
			{name: "WriteLogs", file: lambdaTF, anchor: sid("WriteLogs"), policies: []string{scraperPolicy, reconcilerPolicy, enrichPolicy},
				probe: probeMute, want: []string{"function logs dropped", "{scraper}", denied("logs:PutLogEvents")}},
			{name: "EncryptSiteDocuments", file: pipelineTF, anchor: sid("EncryptSiteDocuments"), policies: []string{scraperPolicy},
				probe: probeNoKMS,
				gap:   "the statement exists only with result_kms_key_arn, and the local cloud emulates no KMS, so examples/local deploys no key"},
			// The result bucket's policy is a resource policy with one
			// Deny: removing it only allows more.
			{name: "DenyInsecureTransport", file: "modules/result-bucket/main.tf", anchor: sid("DenyInsecureTransport"),
				policies: []string{"module.pipeline.module.results.aws_s3_bucket_policy.this"}, probe: probeFinishes,
				gap: "a Deny: its removal allows more, so no run fails (on AWS neither); the local cloud stores bucket policies without evaluating them, and it serves plain HTTP, which this Deny would refuse"},
		}},
		{"reconciler", []mutation{
			{name: "ReadPipeState", file: pipelineTF, anchor: sid("ReadPipeState"), policies: []string{reconcilerPolicy},
				probe: probeReconcile(nil), want: []string{"{reconciler}", denied("pipes:DescribePipe") + " on resource: {pipe_arn}"}},
			{name: "ListLiveTasks", file: pipelineTF, anchor: sid("ListLiveTasks"), policies: []string{reconcilerPolicy},
				probe: probeReconcile(nil), want: []string{"{reconciler}", denied("dynamodb:Query") + " on resource: {table_arn}/index/"}},
			{name: "ReadLiveTasks", file: pipelineTF, anchor: sid("ReadLiveTasks"), policies: []string{reconcilerPolicy},
				probe: probeReconcile(stuckRunning(1)), want: []string{"{reconciler}", denied("dynamodb:BatchGetItem") + " on resource: {table_arn}"}},
			{name: "RedispatchTasks", file: pipelineTF, anchor: sid("RedispatchTasks"), policies: []string{reconcilerPolicy},
				probe: probeReconcile(stuckRunning(1)), want: []string{"{reconciler}", denied("sqs:SendMessage") + " on resource: {work_queue_arn}"}},
			{name: "FailStuckTasks", file: pipelineTF, anchor: sid("FailStuckTasks"), policies: []string{reconcilerPolicy},
				probe: probeReconcile(stuckRunning(task.DefaultMaxAttempts)), want: []string{"{reconciler}", denied("dynamodb:UpdateItem") + " on resource: {table_arn}"}},
			{name: "InvokeReconciler", file: pipelineTF, anchor: sid("InvokeReconciler"), policies: []string{schedulerPolicy},
				probe: probeFire, want: []string{denied("lambda:InvokeFunction") + " on resource: {reconciler_arn}"}},
			{name: "FunctionTrust", file: lambdaTF, anchor: principal("lambda.amazonaws.com"),
				policies: []string{"module.pipeline.module.scraper.aws_iam_role.this"},
				probe:    probeScrape(healthy), want: []string{"{scraper}", "api error AccessDeniedException: lambda.amazonaws.com " + denied("sts:AssumeRole")}},
			{name: "SchedulerTrust", file: pipelineTF, anchor: principal("scheduler.amazonaws.com"), policies: []string{schedulerRole},
				probe: probeFire, want: []string{"scheduler.amazonaws.com " + denied("sts:AssumeRole")}},
		}},
	}
}

// removeStatement deletes the object literal ({ … }) that encloses the
// first match of anchor, with the comma after it.
func removeStatement(src, anchor string) (string, error) {
	start, end, err := enclosingObject(src, anchor)
	if err != nil {
		return "", err
	}
	rest := src[end:]
	trimmed := strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(trimmed, ",") {
		rest = trimmed[1:]
	}
	return src[:start] + rest, nil
}

// scopeToStream grants the statement on the pipe's source stream instead
// of "*": on AWS that grants nothing, as ListStreams has no resource type.
func scopeToStream(src, anchor string) (string, error) {
	start, end, err := enclosingObject(src, anchor)
	if err != nil {
		return "", err
	}
	obj := src[start:end]
	re := regexp.MustCompile(`Resource\s*=\s*\["\*"\]`)
	if !re.MatchString(obj) {
		return "", fmt.Errorf("the statement at %s has no Resource = [\"*\"]", anchor)
	}
	return src[:start] + re.ReplaceAllString(obj, `Resource = [var.source_stream_arn]`) + src[end:], nil
}

// enclosingObject finds the braces around the anchor's first match. HCL
// strings interpolate with ${…}, whose braces balance, so counting every
// brace is enough for the modules' policies.
func enclosingObject(src, anchor string) (start, end int, err error) {
	loc := regexp.MustCompile(anchor).FindStringIndex(src)
	if loc == nil {
		return 0, 0, fmt.Errorf("no match for %s", anchor)
	}
	depth := 0
	start = -1
	for i := loc[0]; i >= 0; i-- {
		switch src[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				start = i
			} else {
				depth--
			}
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return 0, 0, fmt.Errorf("no object encloses %s", anchor)
	}
	// The principal sits in a nested object ({ Service = … }): go out to
	// the statement, the object that holds Effect.
	if !strings.Contains(src[start:loc[0]], "Effect") && strings.HasPrefix(anchor, "Service") {
		return enclosingAt(src, start-1)
	}
	return matchBrace(src, start)
}

func enclosingAt(src string, i int) (int, int, error) {
	depth := 0
	for ; i >= 0; i-- {
		switch src[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				return matchBrace(src, i)
			}
			depth--
		}
	}
	return 0, 0, errors.New("no enclosing object")
}

func matchBrace(src string, start int) (int, int, error) {
	depth := 0
	for i := start; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return start, i + 1, nil
			}
		}
	}
	return 0, 0, errors.New("unbalanced braces")
}

// mutationCloud is the local cloud and fixture web the stacks share.
type mutationCloud struct {
	target *localTarget
	vars   map[string]any
	env    map[string]string
	root   string
}

func newMutationCloud(t *testing.T) *mutationCloud {
	t.Helper()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	l := &localTarget{}
	vars, env := l.Prepare(t, "iam-mutations")
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close the local cloud: %v", err)
		}
	})
	return &mutationCloud{target: l, vars: vars, env: env, root: root}
}

// mutationStack is one deployment of examples/local in its own copy of
// terraform/, which the mutations edit and restore.
type mutationStack struct {
	m    *mutationCloud
	d    *deployment
	dir  string // the copy's terraform/
	opts *terraform.Options
	// facts substituted into the wanted phrases ({name}).
	facts map[string]string
	// console is the local cloud's console log (shared by the stacks).
	console string
}

func (m *mutationCloud) stack(t *testing.T, group string) *mutationStack {
	t.Helper()
	start := time.Now()
	tmp, err := files.CopyTerraformFolderToTemp(filepath.Join(m.root, "terraform"), "taskpipe-iam-"+group)
	require.NoError(t, err)
	t.Cleanup(func() {
		if !t.Failed() {
			_ = os.RemoveAll(filepath.Dir(tmp)) // best effort: a temporary folder
		}
	})
	dir := filepath.Join(tmp, "examples", "local")
	require.NoError(t, os.WriteFile(filepath.Join(dir, overrideFile), []byte(localTimings.override()), 0o644))
	vars := map[string]any{}
	for k, v := range m.vars {
		vars[k] = v
	}
	name := "iam-" + group
	vars["name"] = name
	opts := &terraform.Options{TerraformDir: dir, TerraformBinary: terraformBinary(t), Vars: vars,
		EnvVars: m.env, NoColor: true, Logger: logger.TestingT}
	t.Cleanup(func() {
		if _, err := terraform.DestroyE(t, opts); err != nil {
			t.Errorf("destroy the %s stack: %v", group, err)
		}
	})
	_, err = terraform.InitAndApplyE(t, opts)
	require.NoError(t, err, "apply examples/local for the %s mutations", group)
	d := connect(t, m.target, opts)
	acct := strings.Split(d.workQueueARN, ":")[4]
	region := strings.Split(d.workQueueARN, ":")[3]
	pipeDLQ := d.queueAttrs(t, d.out.PipeDLQURL)["QueueArn"]
	fnARN := func(role string) string {
		return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, acct, d.fn(role))
	}
	s := &mutationStack{m: m, d: d, dir: tmp, opts: opts, console: m.target.console.Name(), facts: map[string]string{
		"work_queue_arn": d.workQueueARN, "work_dlq_arn": d.workDLQARN, "pipe_dlq_arn": pipeDLQ,
		"table_arn": fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, acct, d.out.TableName),
		"pipe_arn":  fmt.Sprintf("arn:aws:pipes:%s:%s:pipe/%s", region, acct, d.out.PipeName),
		"bucket":    d.out.ResultBucket,
		"scraper":   d.fn("scraper"), "reconciler": d.fn("reconciler"), "enrich": d.fn("enrich"),
		"reconciler_arn": fnARN("reconciler"), "enrich_arn": fnARN("enrich"),
	}}
	record(t, "deploy", "%s stack: %s", group, time.Since(start).Round(time.Second))
	return s
}

// run applies one mutation, shows its failure, and reverts it.
func (s *mutationStack) run(t *testing.T, mu mutation) {
	start := time.Now()
	path := filepath.Join(s.dir, mu.file)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	edit := mu.edit
	if edit == nil {
		edit = removeStatement
	}
	changed, err := edit(string(orig), mu.anchor)
	require.NoError(t, err, "mutate %s at %s", mu.file, mu.anchor)
	require.NotEqual(t, string(orig), changed)
	require.NoError(t, os.WriteFile(path, []byte(changed), 0o644))

	since := s.consoleSize(t)
	out, applyErr := s.apply(t, mu)
	defer func() {
		// Revert: the original policy, and the replaced resources again
		// (a resource whose creation failed is tainted or gone).
		require.NoError(t, os.WriteFile(path, orig, 0o644))
		if _, err := s.apply(t, mu); err != nil {
			t.Fatalf("revert %s: %v", mu.name, err)
		}
		record(t, "mutation", "%s: %s", mu.name, time.Since(start).Round(100*time.Millisecond))
	}()
	if mu.atApply {
		require.Error(t, applyErr, "the apply of the mutated policy succeeded")
		msg := flatten(out + " " + applyErr.Error())
		for _, w := range mu.want {
			require.Contains(t, msg, s.fill(w), "the apply's error names the denial")
		}
		t.Logf("caught at apply: %s", excerpt(msg, s.fill(mu.want[len(mu.want)-1])))
		return
	}
	require.NoError(t, applyErr, "apply the mutated policy")
	evidence := mu.probe(t, s, since, mu.want)
	if mu.gap != "" {
		require.Empty(t, evidence, "a documented gap is caught now: remove it from the gap list (README, docs/local-cloud-validation.md) and assert the failure")
		t.Logf("not caught (a listed gap): %s", mu.gap)
		return
	}
	at := mu.at
	if at == "" {
		at = "during the run"
	}
	t.Logf("caught %s: %s", at, excerpt(evidence, s.fill(mu.want[len(mu.want)-1])))
}

// apply applies the changed resources only: they and what they depend on.
func (s *mutationStack) apply(t *testing.T, mu mutation) (string, error) {
	t.Helper()
	opts, err := s.opts.Clone()
	require.NoError(t, err)
	opts.Targets = append(append([]string{}, mu.policies...), mu.replace...)
	for _, r := range mu.replace {
		opts.ExtraArgs.Apply = append(opts.ExtraArgs.Apply, "-replace="+r)
	}
	return terraform.ApplyE(t, opts)
}

func (s *mutationStack) fill(w string) string {
	for k, v := range s.facts {
		w = strings.ReplaceAll(w, "{"+k+"}", v)
	}
	return w
}

// flatten joins Terraform's wrapped, boxed diagnostics into one line.
func flatten(s string) string {
	s = strings.ReplaceAll(s, "│", " ")
	return strings.Join(strings.Fields(s), " ")
}

func excerpt(s, around string) string {
	i := strings.Index(s, around)
	if i < 0 {
		return s
	}
	lo, hi := max(0, i-200), min(len(s), i+len(around)+200)
	return s[lo:hi]
}

func (s *mutationStack) consoleSize(t *testing.T) int64 {
	t.Helper()
	fi, err := os.Stat(s.console)
	require.NoError(t, err)
	return fi.Size()
}

// consoleLine waits for a line written to the console after since that
// holds every wanted phrase, and returns it.
func (s *mutationStack) consoleLine(t *testing.T, since int64, want []string, timeout time.Duration) string {
	t.Helper()
	want = append([]string{}, want...)
	for i := range want {
		want[i] = s.fill(want[i])
	}
	var found string
	s.d.waitFor(t, "a console line with "+strings.Join(want, " + "), timeout, time.Second, func() (bool, string, error) {
		b, err := os.ReadFile(s.console)
		if err != nil {
			return false, "", fmt.Errorf("read the console: %w", err)
		}
		if int64(len(b)) < since {
			since = 0
		}
		for _, line := range bytes.Split(b[since:], []byte("\n")) {
			ok := true
			for _, w := range want {
				ok = ok && bytes.Contains(line, []byte(w))
			}
			if ok {
				found = string(line)
				return true, "", nil
			}
		}
		return false, "not yet", nil
	})
	return found
}

// Probes. Each drives the pipeline to the call the removed statement
// allowed and waits for the denial in the local cloud's console (function
// output and the local cloud's own log), naming the stack's resources.

type pick func(t *testing.T, s *mutationStack) []site

func healthy(t *testing.T, s *mutationStack) []site { return s.m.target.sites.Healthy(t, 1) }
func flaky(t *testing.T, s *mutationStack) []site   { return s.m.target.sites.Retryable(t)[:1] }

// probeScrape creates a task for a site and waits for the scraper's denial.
func probeScrape(p pick) func(*testing.T, *mutationStack, int64, []string) string {
	return func(t *testing.T, s *mutationStack, since int64, want []string) string {
		run := newRun("iam")
		s.d.create(t, newTasks(run, urlsOf(p(t, s))))
		return s.consoleLine(t, since, want, 2*time.Minute)
	}
}

// probeDispatch creates a task: the pipe reads it and fails to enrich or
// deliver it.
func probeDispatch(t *testing.T, s *mutationStack, since int64, want []string) string {
	s.d.create(t, newTasks(newRun("iam"), urlsOf(healthy(t, s))))
	return s.consoleLine(t, since, append([]string{s.d.out.PipeName}, want...), 2*time.Minute)
}

// probeDeadLetter makes the pipe's target refuse the task's message, so
// that its retries run out and the batch goes to the pipe's DLQ, which the
// role may no longer send to.
func probeDeadLetter(t *testing.T, s *mutationStack, since int64, want []string) string {
	ctx := testContext(t)
	require.NoError(t, s.m.target.SetFaults(ctx, fault.Config{Pipes: fault.PipeFaults{TargetRefuseRate: 1, Pipes: []string{s.d.out.PipeName}}}))
	defer func() { require.NoError(t, s.m.target.SetFaults(context.Background(), fault.Config{})) }()
	s.d.create(t, newTasks(newRun("iam"), urlsOf(healthy(t, s))))
	return s.consoleLine(t, since, append([]string{s.d.out.PipeName}, want...), 2*time.Minute)
}

// probePoison sends an unparseable work message: the scraper forwards it
// to the work DLQ, which it may no longer send to.
func probePoison(t *testing.T, s *mutationStack, since int64, want []string) string {
	_, err := s.d.sqs.SendMessage(testContext(t), &sqs.SendMessageInput{QueueUrl: aws.String(s.d.out.WorkQueueURL),
		MessageBody: aws.String("not a work message")})
	require.NoError(t, err)
	return s.consoleLine(t, since, want, 2*time.Minute)
}

// probeMute runs a task through the pipeline (enrich, scraper) and the
// reconciler: each function still works, and its log group gets nothing.
func probeMute(t *testing.T, s *mutationStack, since int64, want []string) string {
	from := time.Now()
	tk := newTasks(newRun("iam"), urlsOf(healthy(t, s)))
	s.d.create(t, tk)
	got := s.d.waitTerminal(t, 2*time.Minute, tk[0].ID)
	require.Equal(t, task.StateFinished, got[tk[0].ID].State, "a function without its logs grant still runs")
	_, err := s.m.target.cloud.Schedules().Fire(testContext(t), "", s.d.out.ScheduleName)
	require.NoError(t, err)
	line := s.consoleLine(t, since, want, 2*time.Minute)
	s.consoleLine(t, since, []string{"function logs dropped", "{reconciler}"}, 2*time.Minute)
	for _, role := range []string{"scraper", "enrich", "reconciler"} {
		group := "/aws/lambda/" + s.d.fn(role)
		streams, err := s.m.target.cloud.Logs().Streams(group)
		require.NoError(t, err)
		for _, st := range streams {
			evs, err := s.m.target.cloud.Logs().Events(group, st)
			require.NoError(t, err)
			for _, ev := range evs {
				require.True(t, ev.Ingestion.Before(from), "the %s's log group got an event after its logs grant was removed: %s", role, ev.Message)
			}
		}
	}
	return line
}

// probePipeLogs makes the pipe's execution fail (its target refuses the
// message), which the pipe logs at its level, ERROR: the record is
// dropped, and the pipe's log group gets nothing.
func probePipeLogs(t *testing.T, s *mutationStack, since int64, want []string) string {
	from := time.Now()
	line := probeDeadLetter(t, s, since, want)
	group := "/aws/vendedlogs/pipes/" + s.d.out.PipeName
	streams, err := s.m.target.cloud.Logs().Streams(group)
	require.NoError(t, err)
	for _, st := range streams {
		evs, err := s.m.target.cloud.Logs().Events(group, st)
		require.NoError(t, err)
		for _, ev := range evs {
			require.True(t, ev.Ingestion.Before(from), "the pipe's log group got a record after its logs grant was removed: %s", ev.Message)
		}
	}
	return line
}

// probeFinishes (a gap) runs a task through the pipeline: it finishes.
func probeFinishes(t *testing.T, s *mutationStack, _ int64, _ []string) string {
	tk := newTasks(newRun("iam"), urlsOf(healthy(t, s)))
	s.d.create(t, tk)
	got := s.d.waitTerminal(t, 2*time.Minute, tk[0].ID)
	if got[tk[0].ID].State != task.StateFinished {
		return fmt.Sprintf("the task ended %s: %s", got[tk[0].ID].State, got[tk[0].ID].LastError)
	}
	return ""
}

// probeNoKMS (a gap) shows the statement is not in the deployed policy.
func probeNoKMS(t *testing.T, s *mutationStack, _ int64, _ []string) string {
	out, err := iam.NewFromConfig(s.d.aws).GetRolePolicy(testContext(t), &iam.GetRolePolicyInput{
		RoleName: aws.String(s.d.fn("scraper") + "-" + s.d.aws.Region), PolicyName: aws.String(s.d.fn("scraper"))})
	require.NoError(t, err)
	if strings.Contains(aws.ToString(out.PolicyDocument), "EncryptSiteDocuments") {
		return "the scraper's policy has EncryptSiteDocuments"
	}
	return ""
}

// stuckRunning writes a Running task whose lease ended long ago, with
// attempts taken: below the maximum the reconciler re-dispatches it, at
// the maximum it fails it as stuck.
func stuckRunning(attempts int) func(t *testing.T, s *mutationStack) {
	return func(t *testing.T, s *mutationStack) {
		run := newRun("iam")
		expired := time.Now().Add(-10 * time.Minute)
		s.d.putRow(t, task.Task{ID: taskID(run, 0), RunID: run, URL: urlsOf(healthy(t, s))[0], State: task.StateRunning,
			Attempts: attempts, MaxAttempts: task.DefaultMaxAttempts, ClaimToken: "dead-worker",
			LeaseExpiresAt: expired, CreatedAt: expired.Add(-time.Minute), UpdatedAt: expired.Add(-time.Minute)})
	}
}

// probeReconcile sets up what the reconciler must act on and fires it.
func probeReconcile(setup func(t *testing.T, s *mutationStack)) func(*testing.T, *mutationStack, int64, []string) string {
	return func(t *testing.T, s *mutationStack, since int64, want []string) string {
		if setup != nil {
			setup(t, s)
		}
		_, err := s.m.target.cloud.Schedules().Fire(testContext(t), "", s.d.out.ScheduleName)
		require.NoError(t, err)
		return s.consoleLine(t, since, want, 2*time.Minute)
	}
}

// probeMapping creates the scraper's event source mapping again, as the
// apply of a new mapping would: Lambda refuses it.
func probeMapping(t *testing.T, s *mutationStack, _ int64, want []string) string {
	out, err := s.d.lambda.CreateEventSourceMapping(testContext(t), &lambda.CreateEventSourceMappingInput{
		FunctionName: aws.String(s.d.fn("scraper")), EventSourceArn: aws.String(s.d.workQueueARN), Enabled: aws.Bool(false)})
	if err == nil {
		_, derr := s.d.lambda.DeleteEventSourceMapping(testContext(t), &lambda.DeleteEventSourceMappingInput{UUID: out.UUID})
		require.NoError(t, derr)
	}
	require.Error(t, err, "CreateEventSourceMapping without the queue grant")
	for _, w := range want {
		require.ErrorContains(t, err, w)
	}
	return err.Error()
}

// probeFire fires the schedule: Scheduler's invoke is refused.
func probeFire(t *testing.T, s *mutationStack, _ int64, want []string) string {
	_, err := s.m.target.cloud.Schedules().Fire(testContext(t), "", s.d.out.ScheduleName)
	require.ErrorIs(t, err, schedule.ErrInvokeRefused)
	for _, w := range want {
		require.ErrorContains(t, err, s.fill(w))
	}
	return err.Error()
}

// TestIAMMutationsCoverEveryStatement: every statement of every module
// policy (a Sid, or a trust policy's service principal) has its entry in
// TestIAMMutations, so a new statement cannot go untested.
func TestIAMMutationsCoverEveryStatement(t *testing.T) {
	t.Parallel()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, g := range mutationGroups() {
		for _, mu := range g.mutations {
			covered[mu.file+" "+mu.anchor] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "terraform", "modules", "*", "*.tf"))
	require.NoError(t, err)
	sidRE := regexp.MustCompile(`(?i)\bsid\s*=\s*"([A-Za-z0-9]+)"`)
	principalRE := regexp.MustCompile(`Service\s*=\s*"([a-z0-9.-]+\.amazonaws\.com)"`)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, err := filepath.Rel(filepath.Join(root, "terraform"), f)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		for _, m := range sidRE.FindAllStringSubmatch(string(b), -1) {
			n++
			require.True(t, covered[rel+" "+sid(m[1])], "%s: statement %s has no entry in TestIAMMutations", rel, m[1])
		}
		for _, m := range principalRE.FindAllStringSubmatch(string(b), -1) {
			n++
			require.True(t, covered[rel+" "+principal(m[1])], "%s: the trust policy of %s has no entry in TestIAMMutations", rel, m[1])
		}
	}
	require.Greater(t, n, 20, "the modules' statements were found")
}
