package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gruntwork-io/terratest/modules/files"
	"github.com/gruntwork-io/terratest/modules/logger"
	"github.com/gruntwork-io/terratest/modules/random"
	"github.com/gruntwork-io/terratest/modules/terraform"
	test_structure "github.com/gruntwork-io/terratest/modules/test-structure"

	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/task"
)

// target is where the suite's pipeline runs. The scenario bodies use only
// this interface, the deployment's AWS SDK clients and the Terraform
// options; target_local_test.go (default) and target_aws_test.go (build
// tag aws) implement it.
type target interface {
	// Name is "local" or "aws".
	Name() string
	// Example is the folder under terraform/examples that is applied.
	Example() string
	// Timings are the timing variables the suite applies the example with.
	Timings() timings
	// Prepare starts whatever must run before Terraform (the local cloud
	// and fixture web) and returns the apply's variables and environment.
	Prepare(t *testing.T, name string) (vars map[string]any, env map[string]string)
	// AWS is the SDK configuration of the deployment's clients.
	AWS(ctx context.Context) (aws.Config, error)
	// Sites hands out websites for tasks; each call returns fresh sites.
	Sites() websites
	// FireReconciler runs the reconciler once, as its schedule would, waits
	// until the run is over and returns its report.
	FireReconciler(ctx context.Context, d *deployment) (handler.Report, error)
	// KillAfterClaim makes the first worker that claims tk die right after
	// its claim, then creates tk. The database must end up as a crashed
	// worker leaves it: Running, attempts 1, a lease that expires, and the
	// work message coming back after the visibility timeout.
	KillAfterClaim(t *testing.T, d *deployment, tk task.Task)
	// StartOutage makes the scraper fail every message until restore is
	// called (messages then exhaust maxReceiveCount into the work DLQ).
	StartOutage(ctx context.Context, d *deployment) (restore func(context.Context) error, err error)
	// ResetPeak starts a concurrency measurement of the scraper.
	ResetPeak(ctx context.Context, d *deployment) error
	// PeakConcurrency is the highest number of concurrent scraper
	// executions since ResetPeak was called at from.
	PeakConcurrency(t *testing.T, d *deployment, from time.Time) int
	// EvaluateAlarms makes alarms look at their metrics now where the
	// target can (local); elsewhere it does nothing and callers poll.
	EvaluateAlarms(ctx context.Context, d *deployment) error
	// Close stops what Prepare started.
	Close() error
}

// faultTarget is the optional capability of injecting the local cloud's
// faults (internal/localaws/emu/fault); scenarios that need it skip elsewhere.
type faultTarget interface {
	SetFaults(ctx context.Context, cfg fault.Config) error
	ClearFaults(ctx context.Context) error
	FaultStats(ctx context.Context) (fault.Stats, error)
}

// timings are the pipeline settings that decide how long recovery takes.
// The production numbers (420 s scraper timeout, 90 min visibility) would
// make each failure scenario last hours, so the suite applies the example
// with shorter ones through a Terraform override file (override). They
// keep every invariant the module and the handlers check: visibility ≥ 6 ×
// scraper timeout, lease > scraper timeout and > 2 × margin, running grace
// > visibility.
type timings struct {
	ScraperTimeout int // scraper_timeout_seconds
	Visibility     int // visibility_timeout_seconds
	Lease          int // lease_seconds
	Margin         int // MARGIN_SECONDS: time the scraper keeps to write its outcome
	RunningGrace   int // running_grace_seconds
	PendingGrace   int // pending_grace_seconds (the module's minimum is 60)
	RetryBackoff   int // scraper_retry_backoff_seconds
	// Schedule is the reconciler's schedule. The suite fires the reconciler
	// itself when a scenario needs it, so the schedule is long: an
	// unplanned run would re-dispatch tasks behind a scenario's back.
	Schedule string
	// Patience scales every wait: 1 for the local cloud, more for AWS.
	Patience float64
	// PipeLag is how long a pipe may still act on its old state after it
	// reports a change: still deliver after STOPPED (AWS: "typically less
	// than two minutes" for stream sources, EventBridge User Guide,
	// "Starting or stopping an Amazon EventBridge pipe"), or filter with
	// the old pattern after an update (assumed alike). The local cloud
	// applies both at once.
	PipeLag time.Duration
}

// overrideFile is the name of the override file written into the copy of
// the example; Terraform merges *_override.tf files into the
// configuration (https://developer.hashicorp.com/terraform/language/files/override).
const overrideFile = "taskpipe_test_override.tf"

// override renders the module arguments of tm as an override file.
func (tm timings) override() string {
	return fmt.Sprintf(`# Written by the integration suite (test/target_test.go) into its copy of
# the example: timings in seconds instead of minutes, so that failures and
# their recovery happen within a test run.
module "pipeline" {
  scraper_timeout_seconds                = %d
  visibility_timeout_seconds     = %d
  lease_seconds                  = %d
  running_grace_seconds          = %d
  pending_grace_seconds          = %d
  scraper_retry_backoff_seconds  = %d
  reconciler_schedule_expression = %q

  lambda_environment = {
    MARGIN_SECONDS = "%d"
  }
}
`, tm.ScraperTimeout, tm.Visibility, tm.Lease, tm.RunningGrace, tm.PendingGrace, tm.RetryBackoff, tm.Schedule, tm.Margin)
}

// wait scales d by the target's patience.
func (tm timings) wait(d time.Duration) time.Duration {
	if tm.Patience <= 1 {
		return d
	}
	return time.Duration(float64(d) * tm.Patience)
}

// suite is the one deployment the scenarios share: applying the example
// takes longer than most scenarios, and scenarios keep apart by run id.
var suite struct {
	once sync.Once
	d    *deployment
	// ready is set once the deployment is usable; a deploy that failed
	// leaves it false and every later scenario fails fast.
	ready bool
	// opts and target are kept as soon as they exist, so the teardown
	// destroys whatever a failed apply left.
	opts   *terraform.Options
	dir    string
	target target
	// scratch are files and folders of the run (the example's copy, the
	// local cloud's console log): removed after a passing run, kept and
	// named after a failing one.
	scratch []string

	// sharedPending counts the shared scenarios of this run that have not
	// finished; exclusive scenarios wait for it to drop to zero.
	sharedPending sync.WaitGroup
	// exclusive lets one exclusive scenario run at a time.
	exclusive sync.Mutex
}

// sharedScenario marks a scenario that can run next to the other shared
// ones (it uses its own run id and sites, and changes nothing global),
// runs it in parallel and returns the deployment. It registers before
// t.Parallel: go test runs every test up to t.Parallel before it resumes
// any, so by the time an exclusive scenario checks, every shared scenario
// of the run is counted.
func sharedScenario(t *testing.T) *deployment {
	t.Helper()
	tfprovidertest.SkipShort(t)
	suite.sharedPending.Add(1)
	t.Cleanup(suite.sharedPending.Done)
	t.Parallel()
	return deploy(t)
}

// exclusiveScenario is for scenarios that change the whole pipeline
// (faults on every message, a stopped pipe, a filter edit, a flood of
// tasks): they run after every shared scenario, one at a time.
func exclusiveScenario(t *testing.T) *deployment {
	t.Helper()
	tfprovidertest.SkipShort(t)
	t.Parallel()
	suite.sharedPending.Wait()
	d := deploy(t)
	suite.exclusive.Lock()
	t.Cleanup(suite.exclusive.Unlock)
	return d
}

func deploy(t *testing.T) *deployment {
	t.Helper()
	suite.once.Do(func() { suite.d = setUp(t) })
	if !suite.ready {
		t.Fatal("the shared deployment is not available: its deploy failed (see the first scenario's log)")
	}
	return suite.d
}

// setUp copies the example, applies it and connects the clients. It runs
// inside the first scenario; a failure there stops that scenario and
// leaves suite.ready false.
func setUp(t *testing.T) *deployment {
	t.Helper()
	start := time.Now()
	tgt := newTarget(t)
	suite.target = tgt
	root, err := tfprovidertest.RepoRoot()
	if err != nil {
		t.Fatalf("find the repository: %v", err)
	}
	// The copy holds terraform/ whole, so the example's ../../modules
	// resolve.
	dir := copyExample(t, tgt, root)
	suite.dir = dir

	test_structure.RunTestStage(t, "deploy", func() {
		name := "tp-" + strings.ToLower(random.UniqueId())
		if err := os.WriteFile(filepath.Join(dir, overrideFile), []byte(tgt.Timings().override()), 0o644); err != nil {
			t.Fatalf("write the override file: %v", err)
		}
		vars, env := tgt.Prepare(t, name)
		vars["name"] = name
		opts := terraform.WithDefaultRetryableErrors(t, &terraform.Options{
			TerraformDir:    dir,
			TerraformBinary: terraformBinary(t),
			Vars:            vars,
			EnvVars:         env,
			NoColor:         true,
			Logger:          logger.TestingT,
		})
		// CreatePipe answers "Cannot access stream" until a new table's
		// stream and the pipe role's policy have propagated, which takes
		// a minute or two on AWS
		// (https://github.com/hashicorp/terraform-provider-aws/issues/40572):
		// apply again (the failed pipe is tainted and replaced) for up to
		// 4 minutes.
		opts.RetryableTerraformErrors[`Cannot access stream`] = "the pipe's source stream or role has not propagated yet"
		opts.MaxRetries = 8
		opts.TimeBetweenRetries = 30 * time.Second
		suite.opts = opts
		test_structure.SaveTerraformOptions(t, dir, opts)
		if _, err := terraform.InitAndApplyE(t, opts); err != nil {
			t.Fatalf("deploy: terraform apply of examples/%s on the %s target: %v", tgt.Example(), tgt.Name(), err)
		}
	})
	if suite.opts == nil {
		// SKIP_deploy: reuse the deployment of an earlier staged run.
		suite.opts = test_structure.LoadTerraformOptions(t, dir)
	}
	d := connect(t, tgt, suite.opts)
	suite.ready = true
	record(t, "deploy", "terraform init+apply of examples/%s: %s", tgt.Example(), time.Since(start).Round(time.Second))
	return d
}

// copyExample copies the example to a temporary folder. On the AWS
// target it is test_structure.CopyTerraformFolderToTemp, which, with a
// SKIP_* variable set, returns the example folder itself so that state
// survives between staged runs. The local cloud lives in the test
// process, so there is no later stage to keep state for: the local target
// always works in a fresh copy and never writes into the repository.
func copyExample(t *testing.T, tgt target, root string) string {
	t.Helper()
	src, example := filepath.Join(root, "terraform"), filepath.Join("examples", tgt.Example())
	if tgt.Name() != "local" {
		return test_structure.CopyTerraformFolderToTemp(t, src, example)
	}
	if os.Getenv(test_structure.SkipStageEnvVarPrefix+"deploy") != "" {
		t.Fatal("SKIP_deploy: the local cloud lives inside the test process, so there is no earlier deployment to reuse")
	}
	tmp, err := files.CopyTerraformFolderToTemp(src, "taskpipe-"+t.Name())
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	// tmp is <a fresh temporary folder>/terraform.
	suite.scratch = append(suite.scratch, filepath.Dir(tmp))
	return filepath.Join(tmp, example)
}

// terraformBinary is $TERRAFORM or the repository's bin/terraform (make
// tools), else terraform on PATH.
func terraformBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TERRAFORM"); p != "" {
		return p
	}
	root, err := tfprovidertest.RepoRoot()
	if err == nil {
		if p := filepath.Join(root, "bin", "terraform"); fileExists(p) {
			return p
		}
	}
	return "terraform"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tearDown is the "teardown" stage, run by TestMain after every scenario:
// terraform destroy of whatever the deploy stage created, then the
// target's own shutdown. It returns what went wrong.
func tearDown() error {
	if suite.target == nil {
		return nil // no scenario ran
	}
	mt := &mainT{name: "teardown"}
	func() {
		defer mt.recover()
		test_structure.RunTestStage(mt, "teardown", func() {
			if suite.opts != nil {
				start := time.Now()
				opts, err := suite.opts.Clone()
				if err != nil {
					mt.Fatalf("teardown: %v", err)
				}
				// An apply still in flight (the run was interrupted or ran
				// out of time) holds the state lock until it stops.
				opts.LockTimeout = "15m"
				if !testing.Verbose() {
					// No *testing.T holds the output back here: keep
					// terraform's log out of a quiet run.
					opts.Logger = logger.Discard
				}
				if _, err := terraform.DestroyE(mt, opts); err != nil {
					mt.Errorf("teardown: terraform destroy: %v", err)
				} else {
					fmt.Fprintf(os.Stderr, "teardown: terraform destroy: %s\n", time.Since(start).Round(time.Second))
				}
				if suite.dir != "" && test_structure.SkipStageEnvVarSet() && suite.target.Name() != "local" {
					// Staged runs work in the example folder itself: leave
					// it as it was.
					for _, p := range []string{overrideFile, ".test-data"} {
						if err := os.RemoveAll(filepath.Join(suite.dir, p)); err != nil {
							mt.Errorf("teardown: remove %s: %v", p, err)
						}
					}
				}
			}
		})
	}()
	if err := suite.target.Close(); err != nil {
		mt.Errorf("teardown: close the %s target: %v", suite.target.Name(), err)
	}
	return mt.err()
}

// mainT is the terratest TestingT of the teardown, which runs in TestMain
// where no *testing.T exists. Fatal stops the teardown with a panic that
// recover turns into an error.
type mainT struct {
	name string
	errs []string
}

type mainTStop struct{}

func (m *mainT) Fail()                             { m.errs = append(m.errs, "failed") }
func (m *mainT) FailNow()                          { m.Fail(); panic(mainTStop{}) }
func (m *mainT) Fatal(args ...any)                 { m.Error(args...); panic(mainTStop{}) }
func (m *mainT) Fatalf(format string, args ...any) { m.Errorf(format, args...); panic(mainTStop{}) }
func (m *mainT) Error(args ...any)                 { m.errs = append(m.errs, fmt.Sprint(args...)) }
func (m *mainT) Errorf(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
}
func (m *mainT) Name() string { return m.name }
func (m *mainT) Helper()      {}

func (m *mainT) recover() {
	if r := recover(); r != nil {
		if _, ok := r.(mainTStop); !ok {
			m.errs = append(m.errs, fmt.Sprint("panic: ", r))
		}
	}
}

func (m *mainT) err() error {
	if len(m.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(m.errs, "; "))
}

// outputs are the example's Terraform outputs the scenarios use.
type outputs struct {
	TableName    string            `json:"table_name"`
	StreamARN    string            `json:"table_stream_arn"`
	WorkQueueURL string            `json:"work_queue_url"`
	WorkDLQURL   string            `json:"work_dlq_url"`
	PipeName     string            `json:"pipe_name"`
	PipeDLQURL   string            `json:"pipe_dlq_url"`
	ScheduleName string            `json:"schedule_name"`
	Functions    map[string]string `json:"function_names"`
	Alarms       map[string]string `json:"alarm_names"`
	LambdaEnv    map[string]string `json:"lambda_environment"`
	ResultBucket string            `json:"result_bucket_name"`
}

// readOutputs decodes terraform output -json into outputs.
func readOutputs(t *testing.T, opts *terraform.Options) outputs {
	t.Helper()
	all, err := terraform.OutputAllE(t, opts)
	if err != nil {
		t.Fatalf("terraform output: %v", err)
	}
	raw, err := json.Marshal(all)
	if err != nil {
		t.Fatalf("encode the outputs: %v", err)
	}
	var out outputs
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode the outputs: %v", err)
	}
	for what, v := range map[string]string{"table_name": out.TableName, "work_queue_url": out.WorkQueueURL,
		"work_dlq_url": out.WorkDLQURL, "pipe_name": out.PipeName, "pipe_dlq_url": out.PipeDLQURL,
		"schedule_name": out.ScheduleName, "function_names.scraper": out.Functions["scraper"],
		"function_names.reconciler": out.Functions["reconciler"], "table_stream_arn": out.StreamARN,
		"result_bucket_name": out.ResultBucket} {
		if v == "" {
			t.Fatalf("terraform output %s is empty", what)
		}
	}
	return out
}
