//go:build !aws

package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/task"
)

// localTimings keep each recovery path to seconds on the local cloud.
// The scraper gets 8 s, of which 6 s are for fetching (MARGIN 2 s): three
// fetches of a fixture site plus the client's backoffs (at most 1 s + 2 s)
// fit even on a loaded machine, so the fixture web's predicted request
// counts hold. The lease is the module's minimum (above 30 s); the
// visibility timeout exceeds it, so a dead worker's message comes back
// after its lease has expired.
// teardownReserve is how long before go test's -timeout the suite stops
// and destroys the local deployment (guardTeardown); a destroy takes
// seconds.
const teardownReserve = 2 * time.Minute

var localTimings = timings{
	ScraperTimeout: 8,
	Visibility:     48, // 6 × 8
	Lease:          32,
	Margin:         2,
	RunningGrace:   60,
	PendingGrace:   60,
	RetryBackoff:   1,
	Schedule:       "rate(1 hour)",
	Patience:       1,
}

// pipeRetryBackoff is the local Pipe runtime's first retry delay (default
// 1 s, doubling): a failing pipe exhausts its three retries per record in
// 1.4 s instead of 7 s. AWS does not document its own backoff.
const pipeRetryBackoff = 200 * time.Millisecond

// fixtureSeed selects the fixture web.
const fixtureSeed = 20260101

// localTarget runs the pipeline on the local cloud and the fixture web,
// both inside the test process.
type localTarget struct {
	cloud   *localcloud.Cloud
	web     *fixtureweb.Web
	sites   *fixtureSites
	console *os.File
}

func newTarget(*testing.T) target { return &localTarget{} }

func (*localTarget) Name() string      { return "local" }
func (*localTarget) Example() string   { return "local" }
func (*localTarget) Timings() timings  { return localTimings }
func (l *localTarget) Sites() websites { return l.sites }

// Prepare starts the local cloud on a free port and the fixture web, and
// points the example at them through the local provider's mirror.
func (l *localTarget) Prepare(t *testing.T, name string) (map[string]any, map[string]string) {
	t.Helper()
	root, err := tfprovidertest.RepoRoot()
	if err != nil {
		t.Fatalf("find the repository: %v", err)
	}
	arch, goarch := "x86_64", "amd64"
	if runtime.GOARCH == "arm64" {
		arch, goarch = "arm64", "arm64"
	}
	dist := filepath.Join(root, "dist")
	for _, fn := range []string{"scraper", "reconciler", "enrich"} {
		zip := filepath.Join(dist, fn+"-"+goarch+".zip")
		if !fileExists(zip) {
			t.Fatalf("the local target runs the real Lambda zips, and %s is missing: run make build", zip)
		}
	}
	cli := tfprovidertest.CLIConfig(t)

	// Function output and the cloud's log go to a file next to the copied
	// example, for reading after a failure.
	if l.console, err = os.CreateTemp("", "taskpipe-test-"+name+"-*.log"); err != nil {
		t.Fatalf("console log: %v", err)
	}
	suite.scratch = append(suite.scratch, l.console.Name())
	t.Logf("local cloud console: %s", l.console.Name())
	w := &lockedWriter{w: l.console}
	l.cloud = localcloud.New(localcloud.Config{
		Addr:             "127.0.0.1:0",
		Console:          w,
		Logger:           slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})),
		PipeRetryBackoff: pipeRetryBackoff,
		FaultSeed:        fixtureSeed,
		IAM:              localcloud.IAMEnforce,
	})
	if err := l.cloud.Start(context.Background()); err != nil {
		t.Fatalf("start the local cloud: %v", err)
	}
	if l.web, err = fixtureweb.New(fixtureweb.Config{
		Seed:  fixtureSeed,
		Sites: fixtureSiteCount,
		// Up to 5 failures: a flaky site with 3 or more needs a second claim.
		FlakyFailures: 5,
		InvalidRate:   -1,
	}); err != nil {
		t.Fatalf("fixture web: %v", err)
	}
	if err := l.web.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("start the fixture web: %v", err)
	}
	l.sites = newFixtureSites(l.web)
	t.Logf("local cloud %s, fixture web %s", l.cloud.URL(), l.web.BaseURL())
	return map[string]any{
			"local_endpoint": l.cloud.URL(),
			"dist_dir":       dist,
			"architecture":   arch,
		}, map[string]string{
			"TF_CLI_CONFIG_FILE": cli,
			"CHECKPOINT_DISABLE": "1",
		}
}

// AWS configures clients for the local cloud: its endpoint and dummy
// credentials.
func (l *localTarget) AWS(context.Context) (aws.Config, error) {
	return aws.Config{
		Region:       emu.DefaultRegion,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(l.cloud.URL()),
	}, nil
}

// FireReconciler fires the reconciler's schedule through the admin API
// (the scheduler invokes the function asynchronously, with the schedule's
// role and input, as it would on time) and waits for the run's "reconcile
// run done" log line, which carries the report.
func (l *localTarget) FireReconciler(ctx context.Context, d *deployment) (handler.Report, error) {
	since := time.Now().Add(-time.Second)
	if _, err := l.admin(ctx, http.MethodPost, "schedules/default/"+d.out.ScheduleName+"/fire", nil); err != nil {
		return handler.Report{}, err
	}
	return waitReconcileReport(ctx, d, since)
}

// KillAfterClaim arms a kill rule: the scraper instance whose UpdateItem
// names the task (its claim is the first) is killed right after DynamoDB
// applied it, before it sees the response.
func (l *localTarget) KillAfterClaim(t *testing.T, d *deployment, tk task.Task) {
	t.Helper()
	if err := l.SetFaults(testContext(t), fault.Config{Kill: []fault.KillRule{{
		Function: d.fn("scraper"), Service: emu.ServiceDynamoDB, Operation: "UpdateItem",
		BodyContains: tk.ID, Rate: 1, Times: 1,
	}}}); err != nil {
		t.Fatalf("arm the kill rule: %v", err)
	}
	t.Cleanup(func() { _ = l.ClearFaults(context.Background()) })
	d.create(t, []task.Task{tk})
}

// StartOutage throttles every DynamoDB request of the scraper (after the
// SDK's own retries the claim fails and the message is retried).
func (l *localTarget) StartOutage(ctx context.Context, d *deployment) (func(context.Context) error, error) {
	err := l.SetFaults(ctx, fault.Config{DynamoDB: fault.DynamoDBFaults{ThrottleRate: 1, Functions: []string{d.fn("scraper")}}})
	if err != nil {
		return nil, err
	}
	return l.ClearFaults, nil
}

func (l *localTarget) ResetPeak(_ context.Context, d *deployment) error {
	return l.cloud.Functions().ResetPeak(d.fn("scraper"))
}

// PeakConcurrency is the function runtime's own count: the most
// invocation slots in use at once since ResetPeak.
func (l *localTarget) PeakConcurrency(t *testing.T, d *deployment, _ time.Time) int {
	t.Helper()
	st, err := l.cloud.Functions().Stats(d.fn("scraper"))
	if err != nil {
		t.Fatalf("scraper stats: %v", err)
	}
	return st.PeakConcurrent
}

func (l *localTarget) EvaluateAlarms(ctx context.Context, _ *deployment) error {
	_, err := l.admin(ctx, http.MethodPost, "alarms/evaluate", nil)
	return err
}

// SetFaults replaces the fault configuration (PUT /_taskpipe/faults).
func (l *localTarget) SetFaults(ctx context.Context, cfg fault.Config) error {
	body, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode faults: %w", err)
	}
	_, err = l.admin(ctx, http.MethodPut, "faults", body)
	return err
}

// ClearFaults turns every fault off.
func (l *localTarget) ClearFaults(ctx context.Context) error {
	_, err := l.admin(ctx, http.MethodDelete, "faults", nil)
	return err
}

// FaultStats reads the injector's counters.
func (l *localTarget) FaultStats(ctx context.Context) (fault.Stats, error) {
	var st fault.Stats
	b, err := l.admin(ctx, http.MethodGet, "faults/stats", nil)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("decode fault stats: %w", err)
	}
	return st, nil
}

// admin calls the local cloud's admin API.
func (l *localTarget) admin(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, l.cloud.URL()+emu.AdminPrefix+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("admin %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := l.cloud.AdminClient().Do(req)
	if err != nil {
		return nil, fmt.Errorf("admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("admin %s %s: read: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("admin %s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// closeTimeout bounds the local cloud's Close: it waits for every
// function process to stop, and a hang there must fail the suite, not
// hold it until go test's timeout.
const closeTimeout = 30 * time.Second

func (l *localTarget) Close() error {
	var errs []error
	if l.cloud != nil {
		closed := make(chan error, 1)
		go func() { closed <- l.cloud.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				errs = append(errs, err)
			}
		case <-time.After(closeTimeout):
			errs = append(errs, fmt.Errorf("localcloud: Close did not return within %s (internal/localaws/emu/function Service.Close "+
				"waits for a function instance whose process was never stopped)", closeTimeout))
		}
	}
	if l.web != nil {
		if err := l.web.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if l.console != nil {
		if err := l.console.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("close the local target: %v", errs)
	}
	return nil
}

// lockedWriter serialises writes from the cloud's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

// fixtureSiteCount is the number of fixture sites: the traffic spike takes
// 3,575 of the fast ones, the other scenarios a few hundred more.
const fixtureSiteCount = 12000

// spikeBehaviors are the behaviours the traffic spike draws from: every
// kind of site that ends within one claim and answers at once (slow,
// dripping, huge and always-failing sites would measure the fixture web,
// not the pipeline's cap).
var spikeBehaviors = []fixtureweb.Behavior{fixtureweb.Healthy, fixtureweb.NotFound, fixtureweb.NotHTML,
	fixtureweb.RedirectChain, fixtureweb.RedirectLoop}

// fixtureSites hands out fixture sites, each at most once per run of the
// suite: flaky and rate-limited sites heal by request count, so a site
// reused by two scenarios would not behave as predicted.
type fixtureSites struct {
	web  *fixtureweb.Web
	mu   sync.Mutex
	used map[int]bool
}

func newFixtureSites(web *fixtureweb.Web) *fixtureSites {
	return &fixtureSites{web: web, used: map[int]bool{}}
}

// take returns the next n unused sites that pick accepts, in id order.
func (f *fixtureSites) take(t *testing.T, n int, pick func(fixtureweb.Site, fixtureweb.Expectation) bool) []site {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []site
	for _, s := range f.web.Sites() {
		if len(out) == n {
			break
		}
		if f.used[s.ID] {
			continue
		}
		u := f.web.SiteURL(s.ID)
		exp := f.web.Expect(u)
		// A site whose robots.txt disallows the scraper fails with kind
		// robots whatever its behaviour: the scenarios pick by behaviour.
		if exp.Kind == task.KindRobots || !pick(s, exp) {
			continue
		}
		f.used[s.ID] = true
		page, _ := f.web.Page(s.ID)
		out = append(out, site{URL: u, Expect: &exp, Page: &page, fixture: f.web, id: s.ID})
	}
	if len(out) < n {
		t.Fatalf("the fixture web has only %d more sites of the kind asked for, want %d", len(out), n)
	}
	return out
}

func isBehavior(bs ...fixtureweb.Behavior) func(fixtureweb.Site, fixtureweb.Expectation) bool {
	return func(s fixtureweb.Site, _ fixtureweb.Expectation) bool {
		for _, b := range bs {
			if s.Behavior == b {
				return true
			}
		}
		return false
	}
}

func (f *fixtureSites) Healthy(t *testing.T, n int) []site {
	t.Helper()
	return f.take(t, n, isBehavior(fixtureweb.Healthy))
}

func (f *fixtureSites) Spike(t *testing.T, n int) []site {
	t.Helper()
	return f.take(t, n, isBehavior(spikeBehaviors...))
}

// Fatal: a 404, a PDF and a redirect loop, each failing on its first
// fetch, plus a URL that is not a website at all.
func (f *fixtureSites) Fatal(t *testing.T) []site {
	t.Helper()
	var out []site
	for _, b := range []fixtureweb.Behavior{fixtureweb.NotFound, fixtureweb.NotHTML, fixtureweb.RedirectLoop} {
		out = append(out, f.take(t, 1, isBehavior(b))...)
	}
	return append(out, site{URL: notAWebsite})
}

// Retryable: a flaky site that heals only in its second claim, and a site
// that answers 5xx forever (exhausted after maxAttempts claims).
func (f *fixtureSites) Retryable(t *testing.T) []site {
	t.Helper()
	heals := f.take(t, 1, func(s fixtureweb.Site, e fixtureweb.Expectation) bool {
		return s.Behavior == fixtureweb.Flaky && e.Outcome == fixtureweb.Finished && e.Claims == 2
	})
	never := f.take(t, 1, isBehavior(fixtureweb.ServerError))
	return append(heals, never...)
}
