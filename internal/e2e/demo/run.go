package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/task"
)

// ErrChecksFailed is returned (wrapped) by Run when the run completed but
// a reconciliation check failed; the report names the checks.
var ErrChecksFailed = errors.New("demo: checks failed")

// stallAfter is how long the run may make no progress before the demo
// fires the reconciler's schedule instead of waiting for its next run;
// refireAfter spaces further fires: the reconciler acts only on tasks
// overdue by its grace periods, so firing it more often finds nothing new.
const (
	stallAfter  = 15 * time.Second
	refireAfter = time.Minute
)

// terraformTimeout bounds each terraform command.
const terraformTimeout = 5 * time.Minute

// runner holds one demo run's moving parts.
type runner struct {
	cfg     Config
	log     *slog.Logger
	cloud   *localcloud.Cloud
	web     *fixtureweb.Web
	aws     aws.Config
	stack   *stack
	outputs Outputs
	rawOuts map[string][]byte
	roles   []string
	store   *dynamostore.Store
	report  *Report
	started time.Time
}

// Run runs the demo (see the package documentation), prints its report
// to Config.Out and returns it. The error is non-nil when the run could
// not complete, a task stayed live past Config.Timeout, or a
// reconciliation check failed (wrapping ErrChecksFailed); the report is
// returned whenever Run got far enough to start one.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, report: &Report{Sites: cfg.Sites, Seed: cfg.Seed, Name: cfg.Name}, started: cfg.Now()}
	level := slog.LevelInfo
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	r.log = slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: level}))
	err = r.run(ctx)
	r.report.Total = r.cfg.Now().Sub(r.started)
	return r.report, err
}

func (r *runner) run(ctx context.Context) (err error) {
	// Everything started is stopped, whatever happens; the first error wins.
	var cleanup []func() error
	defer func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			if cerr := cleanup[i](); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()

	phase := r.phase("start local cloud and fixture web")
	if err := r.startCloud(ctx); err != nil {
		return err
	}
	cleanup = append(cleanup, r.cloud.Close)
	if err := r.startWeb(); err != nil {
		return err
	}
	cleanup = append(cleanup, r.web.Close)
	phase()

	tmp, err := os.MkdirTemp("", "taskpipe-demo-")
	if err != nil {
		return fmt.Errorf("demo: temp dir: %w", err)
	}
	cleanup = append(cleanup, func() error {
		if r.cfg.Keep {
			return nil // the state lives there
		}
		return os.RemoveAll(tmp)
	})

	phase = r.phase("terraform init + apply")
	if err := r.apply(ctx, tmp); err != nil {
		return err
	}
	phase()
	destroyed := false
	if !r.cfg.Keep {
		// Destroy even when the run fails, so the local cloud stops
		// clean; the normal path destroys (and checks) explicitly.
		cleanup = append(cleanup, func() error {
			if destroyed {
				return nil
			}
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), terraformTimeout)
			defer cancel()
			return r.stack.destroy(dctx)
		})
	}

	runErr := r.runTasks(ctx)
	if runErr != nil && r.report.RunID == "" {
		return runErr
	}

	phase = r.phase("collect and reconcile")
	collectErr := r.collect(ctx)
	r.report.Checks = Reconcile(r.report)
	if h := r.cfg.Hooks.AfterRun; h != nil {
		if err := h(ctx, r.stage(), r.report); err != nil {
			collectErr = errors.Join(collectErr, fmt.Errorf("demo: after-run hook: %w", err))
		}
	}
	phase()

	if !r.cfg.Keep {
		phase = r.phase("terraform destroy + check empty")
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), terraformTimeout)
		derr := r.stack.destroy(dctx)
		cancel()
		destroyed = true
		if derr == nil {
			left, lerr := leftovers(context.WithoutCancel(ctx), r.aws, r.roles)
			r.report.Leftovers = left
			derr = lerr
		}
		r.report.Checks = append(r.report.Checks, emptyCheck(r.report.Leftovers, derr))
		phase()
	}

	r.report.Total = r.cfg.Now().Sub(r.started)
	printErr := r.report.Print(r.cfg.Out)
	if err := errors.Join(runErr, collectErr, printErr); err != nil {
		return err
	}
	if failed := r.report.FailedChecks(); len(failed) > 0 {
		return fmt.Errorf("%w: %s", ErrChecksFailed, strings.Join(failed, "; "))
	}
	if r.cfg.Keep {
		r.keep(ctx)
	}
	return nil
}

// phase starts timing a phase; the returned func records it.
func (r *runner) phase(name string) func() {
	start := r.cfg.Now()
	fmt.Fprintf(r.cfg.Out, "==> %s\n", name)
	return func() {
		r.report.Phases = append(r.report.Phases, Phase{Name: name, Duration: r.cfg.Now().Sub(start)})
	}
}

func (r *runner) startCloud(ctx context.Context) error {
	r.cloud = localcloud.New(localcloud.Config{
		Addr:    r.cfg.Addr,
		Logger:  r.log,
		Console: r.cfg.Log,
		// The demo and chaos run with IAM enforced, so a module policy
		// missing a grant fails here as it would on AWS.
		IAM: localcloud.IAMEnforce,
	})
	if err := r.cloud.Start(ctx); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	r.aws = aws.Config{
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(r.cloud.URL()),
	}
	fmt.Fprintf(r.cfg.Out, "    local cloud at %s (function output and logs: see the demo log)\n", r.cloud.URL())
	return nil
}

func (r *runner) startWeb() error {
	web, err := fixtureweb.New(fixtureweb.Config{Seed: r.cfg.Seed, Sites: r.cfg.Sites, Mix: r.cfg.Mix})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := web.Start(""); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	r.web = web
	fmt.Fprintf(r.cfg.Out, "    fixture web at %s: %d sites, seed %d, mix %s\n", web.BaseURL(), r.cfg.Sites, r.cfg.Seed, web.Config().Mix)
	return nil
}

// apply copies the root module to tmp, applies it against the local cloud
// and reads its outputs.
func (r *runner) apply(ctx context.Context, tmp string) error {
	dir, err := copyStack(r.cfg.Root, r.cfg.TFDir, tmp)
	if err != nil {
		return err
	}
	vars := []string{
		"name=" + r.cfg.Name,
		"local_endpoint=" + r.cloud.URL(),
		"dist_dir=" + r.cfg.Dist,
		"architecture=" + LambdaArch(),
	}
	if r.cfg.Concurrency > 0 {
		vars = append(vars, "scraper_concurrency="+strconv.Itoa(r.cfg.Concurrency))
	}
	r.report.TFVars = vars
	r.stack, err = newStack(dir, r.cfg.Terraform, r.cfg.CLIConfig, r.cfg.Log, vars)
	if err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, terraformTimeout)
	defer cancel()
	if err := r.stack.init(tctx); err != nil {
		return err
	}
	if err := r.stack.apply(tctx); err != nil {
		return err
	}
	if r.rawOuts, err = r.stack.outputs(tctx); err != nil {
		return err
	}
	if r.outputs, err = parseOutputs(r.rawOuts); err != nil {
		return err
	}
	st, err := r.stack.tf.Show(tctx)
	if err != nil {
		return fmt.Errorf("demo: terraform show: %w", err)
	}
	r.roles = stateRoles(st)
	shards, err := r.outputs.liveShards()
	if err != nil {
		return err
	}
	r.store, err = dynamostore.New(dynamodb.NewFromConfig(r.aws), dynamostore.Options{Table: r.outputs.TableName, LiveShards: shards})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(r.cfg.Out, "    applied %s (copy in %s): table %s, functions %s\n", DisplayPath(r.cfg.TFDir), DisplayPath(dir), r.outputs.TableName, r.functionList())
	return nil
}

func (r *runner) functionList() string {
	var names []string
	for _, role := range []string{"scraper", "reconciler", "enrich"} {
		if n := r.outputs.Functions[role]; n != "" {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// env is a cli.Env on the demo's stack: resource names from the outputs,
// AWS clients on the local cloud.
func (r *runner) env(stdin io.Reader, stdout, stderr io.Writer) *cli.Env {
	return &cli.Env{
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		Getenv: func(k string) string {
			switch k {
			case cli.EnvTable:
				return r.outputs.TableName
			case cli.EnvWorkQueueURL:
				return r.outputs.WorkQueueURL
			case cli.EnvWorkDLQURL:
				return r.outputs.WorkDLQURL
			case cli.EnvPipeDLQURL:
				return r.outputs.PipeDLQURL
			case cli.EnvLiveShards:
				return r.outputs.LambdaEnv["LIVE_SHARDS"]
			}
			return ""
		},
		LoadAWS:  func(context.Context) (aws.Config, error) { return r.aws, nil },
		Now:      r.cfg.Now,
		Sleep:    cli.SleepContext,
		Terminal: r.cfg.Terminal,
		TerraformOutputs: func(context.Context, string) (map[string][]byte, error) {
			return r.rawOuts, nil
		},
	}
}

// runTasks submits the input, watches the run until every task is
// terminal (or the timeout), and snapshots the counters once the pipeline
// is quiet.
func (r *runner) runTasks(ctx context.Context) error {
	// Counts cover the run only, not terraform apply.
	r.cloud.ResetCounts()
	input := r.web.Input(r.cfg.Sites)
	lines := strings.Split(strings.TrimSuffix(string(input), "\n"), "\n")
	r.report.Expected = r.web.Tally(lines)
	parsed, err := cli.ParseInput(bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("demo: parse input: %w", err)
	}
	runID := "demo-" + r.cfg.Now().UTC().Format("20060102T150405Z")
	if h := r.cfg.Hooks.BeforeSubmit; h != nil {
		st := r.stage()
		st.RunID = runID
		if err := h(ctx, st); err != nil {
			return fmt.Errorf("demo: before-submit hook: %w", err)
		}
	}

	phase := r.phase(fmt.Sprintf("submit %d lines (taskpipe submit --run %s)", len(lines), runID))
	start := r.cfg.Now()
	var stdout bytes.Buffer
	subErr := r.env(bytes.NewReader(input), &stdout, r.cfg.Log).Submit(ctx, []string{"--run", runID, "-"})
	var ee *cli.ExitError
	if errors.As(subErr, &ee) && ee.Code == cli.ExitRejected {
		subErr = nil // rejected lines are expected: the input has invalid lines on purpose
	}
	if subErr != nil {
		return fmt.Errorf("demo: submit: %w", subErr)
	}
	r.report.RunID = strings.TrimSpace(stdout.String())
	if r.report.RunID != runID {
		return fmt.Errorf("demo: submit printed run id %q, want %q", r.report.RunID, runID)
	}
	r.report.Lines = len(lines)
	r.report.Blank = ignoredLines(lines)
	r.report.Input = parsed
	r.report.Submitted = len(parsed.URLs)
	fmt.Fprintf(r.cfg.Out, "    %d tasks written, %d lines rejected at submit, %d blank lines skipped, %d duplicates (details in the demo log)\n",
		len(parsed.URLs), len(parsed.Rejected), r.report.Blank, len(parsed.Duplicates))
	for i, rej := range parsed.Rejected {
		if i == 3 {
			fmt.Fprintf(r.cfg.Out, "      ... and %d more\n", len(parsed.Rejected)-3)
			break
		}
		fmt.Fprintf(r.cfg.Out, "      rejected %s\n", oneLine(rej.String(), 100))
	}
	phase()

	phase = r.phase("run: pipe → queue → scraper (taskpipe status --watch)")
	wctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	watchErr := r.watch(wctx, runID)
	cancel()
	r.report.Wall = r.cfg.Now().Sub(start)
	if watchErr != nil {
		stuck, serr := r.stuckTasks(context.WithoutCancel(ctx), runID)
		r.report.Stuck = stuck
		if serr != nil {
			watchErr = errors.Join(watchErr, serr)
		}
		if errors.Is(watchErr, context.DeadlineExceeded) && ctx.Err() == nil {
			watchErr = fmt.Errorf("demo: %d tasks still live after %s (listed in the report): %w", len(stuck), r.cfg.Timeout, watchErr)
		}
	}
	if watchErr == nil {
		// A last reconciler pass: on a finished run it must find nothing
		// overdue (its metrics say so), and it shows the recovery path
		// runs even when the schedule's next minute has not come.
		if err := r.fireReconciler(ctx); err != nil {
			r.log.Warn("demo: final reconciler pass", "err", err)
		} else {
			r.report.ReconcilerFired++
		}
	}
	r.report.Quiet = r.quiesce(context.WithoutCancel(ctx))
	r.snapshot()
	phase()
	return watchErr
}

// watch runs taskpipe status --watch until the run is complete, and fires
// the reconciler's schedule when the run stalls.
func (r *runner) watch(ctx context.Context, runID string) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.nudge(ctx, runID, done)
	}()
	err := r.env(nil, r.cfg.Out, r.cfg.Out).Status(ctx, []string{runID, "--watch", "--interval", r.cfg.PollInterval.String()})
	close(done)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("demo: watch: %w", err)
	}
	return nil
}

// nudge fires the reconciler when no task became terminal for stallAfter:
// the recovery path for anything the stream, the pipe or the queue lost.
// The schedule (rate(1 minute)) would get there too, later.
func (r *runner) nudge(ctx context.Context, runID string, done <-chan struct{}) {
	t := time.NewTicker(stallAfter)
	defer t.Stop()
	last := -1
	var fired time.Time
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		counts, err := r.store.RunCounts(ctx, runID)
		if err != nil {
			r.log.Warn("demo: stall check", "err", err)
			continue
		}
		terminal := counts[task.StateFinished] + counts[task.StateFailed]
		if terminal == last && r.cfg.Now().Sub(fired) >= refireAfter {
			fired = r.cfg.Now()
			if err := r.fireReconciler(ctx); err != nil {
				r.log.Warn("demo: fire reconciler", "err", err)
			} else {
				r.report.ReconcilerFired++
				r.log.Info("demo: no progress; fired the reconciler's schedule", "terminal", terminal)
			}
		}
		last = terminal
	}
}

// fireReconciler asks the local cloud's admin API to fire the reconciler
// schedule now (one asynchronous invocation, as EventBridge Scheduler
// makes).
func (r *runner) fireReconciler(ctx context.Context) error {
	url := r.cloud.URL() + emu.AdminPrefix + "schedules/default/" + r.outputs.ScheduleName + "/fire"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := r.cloud.AdminClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096)) // for the error message only
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fire schedule: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// quiesce waits until the work queue is empty and no scraper runs, so the
// last invocations' REPORT lines and metrics are in. It reports whether
// the pipeline went quiet in time.
func (r *runner) quiesce(ctx context.Context) bool {
	deadline := r.cfg.Now().Add(r.cfg.QuietTimeout)
	for {
		c, err := r.cloud.Queue().Counts(r.outputs.WorkQueueURL)
		busy := 0
		for _, role := range []string{"scraper", "reconciler", "enrich"} {
			if name := r.outputs.Functions[role]; name != "" {
				if st, err := r.cloud.Functions().Stats(name); err == nil {
					busy += st.Concurrent + st.AsyncQueued
				}
			}
		}
		if err == nil && c.Visible+c.InFlight+c.Delayed == 0 && busy == 0 {
			return true
		}
		if r.cfg.Now().After(deadline) || ctx.Err() != nil {
			r.log.Warn("demo: pipeline not quiet", "queue", c, "busy", busy, "err", err)
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stuckTasks lists the run's tasks that are not terminal.
func (r *runner) stuckTasks(ctx context.Context, runID string) ([]task.Task, error) {
	var out []task.Task
	err := r.eachTask(ctx, runID, func(t task.Task) {
		if !t.State.Terminal() {
			out = append(out, t)
		}
	})
	return out, err
}

// eachTask calls f for every task of the run, in task-id order.
func (r *runner) eachTask(ctx context.Context, runID string, f func(task.Task)) error {
	cursor := ""
	for {
		page, err := r.store.RunTasks(ctx, runID, cursor, 1000)
		if err != nil {
			return fmt.Errorf("demo: read tasks: %w", err)
		}
		for _, t := range page.Tasks {
			f(t)
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
}

// keep leaves the stack running for inspection until ctx is done.
func (r *runner) keep(ctx context.Context) {
	fmt.Fprintf(r.cfg.Out, "\n--keep: the stack stays up until Ctrl-C. Terraform state: %s\n", r.stack.dir)
	fmt.Fprintf(r.cfg.Out, "For the operator commands:\n")
	for _, kv := range r.cloud.Env() {
		fmt.Fprintf(r.cfg.Out, "  export %s\n", kv)
	}
	fmt.Fprintf(r.cfg.Out, "  export %s=%s\n  taskpipe status %s\n", cli.EnvTable, r.outputs.TableName, r.report.RunID)
	<-ctx.Done()
}

// ignoredLines counts the lines submit skips without a word: blank ones
// and # comments (cli.ParseInput).
func ignoredLines(lines []string) int {
	n := 0
	for _, l := range lines {
		if t := strings.TrimSpace(l); t == "" || t[0] == '#' {
			n++
		}
	}
	return n
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
