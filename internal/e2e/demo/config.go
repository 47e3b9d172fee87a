package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
)

// Defaults of Config.
const (
	// DefaultSites is the size of the production job (seed 001).
	DefaultSites = fixtureweb.DefaultSites
	// DefaultTimeout bounds the wait for every task to become terminal.
	DefaultTimeout = 5 * time.Minute
	// DefaultName prefixes every resource the demo creates.
	DefaultName = "taskpipe-demo"
	// DefaultPollInterval is how often the progress line is refreshed.
	DefaultPollInterval = 2 * time.Second
	// DefaultTFDir is the root module the demo applies, relative to the
	// repository root.
	DefaultTFDir = "terraform/examples/local"
	// DefaultQuietTimeout bounds the wait, after the last task became
	// terminal, for the work queue to drain and the last invocations to
	// end, so that their metrics and REPORT lines are in before the counts
	// are read.
	DefaultQuietTimeout = 30 * time.Second
)

// modulePath is the Go module whose root the demo works from (dist/,
// .tfmirror/, terraform/).
const modulePath = "github.com/taskpipe/taskpipe"

// Config configures Run. The zero value of every field means its default.
type Config struct {
	// Sites is the number of input lines (DefaultSites); the fixture web
	// has as many sites, and about 2% of the lines are invalid on purpose.
	Sites int
	// Seed selects the fixture web (sites, behaviours, input order).
	Seed int64
	// Keep skips terraform destroy and leaves the local cloud serving
	// until ctx is done, for a look with taskpipe status/results/dlq.
	Keep bool
	// Timeout bounds the wait for every task to become terminal
	// (DefaultTimeout); past it, Run reports what is stuck and fails.
	Timeout time.Duration
	// Root is the repository root (default: found from the working
	// directory). Dist, TFDir and CLIConfig are relative to it.
	Root string
	// TFDir is the Terraform root module to apply (DefaultTFDir). It is
	// copied, with the modules it uses, to a temporary directory.
	TFDir string
	// Dist holds the Lambda zips of make build (default Root/dist).
	Dist string
	// CLIConfig is the Terraform CLI configuration that installs the
	// local provider (default Root/.tfmirror/terraform.rc, from make
	// provider).
	CLIConfig string
	// Terraform is the terraform binary (default: cli.FindTerraform).
	Terraform string
	// Addr is the local cloud's listen address (default 127.0.0.1:0, a
	// free port).
	Addr string
	// Concurrency overrides the example's scraper_concurrency (maximum
	// and reserved concurrency of the scraper); 0 keeps the example's.
	Concurrency int
	// Name prefixes the resources (DefaultName).
	Name string
	// PollInterval is the progress refresh interval (DefaultPollInterval).
	PollInterval time.Duration
	// Verbose logs every local cloud request to Log.
	Verbose bool
	// Out receives the progress and the summary (default os.Stdout).
	Out io.Writer
	// Terminal says Out is a terminal: the progress line redraws itself.
	Terminal bool
	// Log receives the functions' output, the local cloud's and
	// Terraform's logs and submit's per-line rejections (default:
	// discard). The terminal shows progress only.
	Log io.Writer
	// Mix weighs the fixture web's site behaviours (nil: the fixture
	// web's default, fixtureweb.DemoMix).
	Mix fixtureweb.Mix
	// QuietTimeout bounds the wait for the pipeline to go quiet after the
	// last task became terminal (DefaultQuietTimeout). A run whose
	// acknowledgements may be lost needs at least the queue's visibility
	// timeout: the lost ones come back only then.
	QuietTimeout time.Duration
	// Hooks let a caller act at fixed points of the run (the chaos run
	// injects faults and records the history through them).
	Hooks Hooks
	// Now is the demo's clock: the run id, the tasks' createdAt (through
	// submit), phase timings and the metric window (default time.Now).
	// The local cloud and the functions always run on real time, and task
	// latency compares createdAt with their finishedAt, so only a clock
	// that follows real time makes sense here.
	Now func() time.Time
}

func (c Config) withDefaults() (Config, error) {
	if c.Sites == 0 {
		c.Sites = DefaultSites
	}
	if c.Sites < 1 || c.Sites > fixtureweb.MaxSites {
		return c, fmt.Errorf("demo: sites %d outside 1..%d", c.Sites, fixtureweb.MaxSites)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Timeout < 0 {
		return c, fmt.Errorf("demo: negative timeout %s", c.Timeout)
	}
	if c.Concurrency < 0 || c.Concurrency == 1 || c.Concurrency > 1000 {
		// The pipeline module's validation: scraper_maximum_concurrency
		// is 2..1000 (Lambda's ScalingConfig minimum is 2).
		return c, fmt.Errorf("demo: concurrency %d outside 2..1000 (0 keeps the example's)", c.Concurrency)
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.QuietTimeout == 0 {
		c.QuietTimeout = DefaultQuietTimeout
	}
	if c.QuietTimeout < 0 {
		return c, fmt.Errorf("demo: negative quiet timeout %s", c.QuietTimeout)
	}
	if c.PollInterval == 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.PollInterval < 100*time.Millisecond {
		return c, fmt.Errorf("demo: poll interval %s below 100ms", c.PollInterval)
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.Out == nil {
		c.Out = os.Stdout
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Root == "" {
		root, err := RepoRoot()
		if err != nil {
			return c, err
		}
		c.Root = root
	}
	abs := func(p, def string) string {
		if p == "" {
			p = def
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Root, p)
		}
		return filepath.Clean(p)
	}
	c.TFDir = abs(c.TFDir, DefaultTFDir)
	c.Dist = abs(c.Dist, "dist")
	c.CLIConfig = abs(c.CLIConfig, filepath.Join(".tfmirror", "terraform.rc"))
	if c.Terraform == "" {
		tf, err := cli.FindTerraform(os.Getenv, c.Root)
		if err != nil {
			return c, fmt.Errorf("demo: %w", err)
		}
		c.Terraform = tf
	}
	return c, c.checkFiles()
}

// checkFiles fails early, naming the make target that fixes it, when a
// build output the demo needs is missing.
func (c Config) checkFiles() error {
	var errs []error
	if _, err := os.Stat(c.CLIConfig); err != nil {
		errs = append(errs, fmt.Errorf("no Terraform CLI config for the local provider (run make provider): %w", err))
	}
	for _, fn := range []string{"scraper", "reconciler", "enrich"} {
		zip := filepath.Join(c.Dist, fn+"-"+runtime.GOARCH+".zip")
		if _, err := os.Stat(zip); err != nil {
			errs = append(errs, fmt.Errorf("no Lambda zip for %s (run make build): %w", fn, err))
		}
	}
	if fi, err := os.Stat(filepath.Join(c.TFDir, "main.tf")); err != nil || fi.IsDir() {
		errs = append(errs, fmt.Errorf("%s is not a Terraform root module (no main.tf)", c.TFDir))
	}
	if len(errs) > 0 {
		return fmt.Errorf("demo: %w", errors.Join(errs...))
	}
	return nil
}

// LambdaArch is the Lambda architecture the local cloud runs natively:
// it executes bootstrap as a process of this machine.
func LambdaArch() string {
	if runtime.GOARCH == "arm64" {
		return "arm64"
	}
	return "x86_64"
}

// DisplayPath returns p as a transcript shows it: relative to the
// repository root when inside it, "$TMPDIR/…" when inside the temporary
// directory, else as given. The demo's and the chaos run's output is kept in
// docs/, where an absolute path of the machine it ran on means nothing.
func DisplayPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if root, err := RepoRoot(); err == nil {
		if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	if rel, err := filepath.Rel(os.TempDir(), abs); err == nil && filepath.IsLocal(rel) {
		return filepath.Join("$TMPDIR", rel)
	}
	return p
}

// RepoRoot walks up from the working directory to the directory whose
// go.mod declares the taskpipe module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("demo: repo root: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("demo: repo root: no go.mod for " + modulePath + " above the working directory (run from the repository, or set the root)")
		}
		dir = parent
	}
}
