package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taskpipe/taskpipe/internal/e2e/chaos"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
)

// shortSites is the size of taskpipe chaos --short, the run make test
// makes through the same code (internal/e2e/chaos TestChaosShort).
const shortSites = 300

// runChaos runs the demo with faults on (internal/e2e/chaos) and checks the
// invariants from the recorded history: no task lost, no result written
// twice, every transition legal, every poison message in the DLQ, every
// fault fired. It fails unless every invariant and check holds.
func runChaos(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("chaos", "[--sites N] [--seed S] [--short] [--history FILE] [rate flags] [--log FILE] [-v]", stderr)
	sites := fs.Int("sites", demo.DefaultSites, "input lines (and fixture sites); about 2% are invalid on purpose")
	seed := fs.Int64("seed", 0, "fixture web seed; the fault injector's seed is --fault-seed")
	faultSeed := fs.Uint64("fault-seed", 1, "seed of the fault injector's decisions")
	short := fs.Bool("short", false, fmt.Sprintf("the short run of make test: %d sites, every fault at a higher rate", shortSites))
	mix := fs.String("mix", "", `fixture web mix: "chaos" (fixtureweb's harsher mix), "demo", or behaviour=weight,... (default: 10% flaky, 2% fatal)`)
	poison := fs.Float64("poison", 0, "poison messages as a share of the input lines (default 0.01; --short 0.03)")
	throttle := fs.Float64("throttle", 0, "share of DynamoDB data-plane requests throttled (default 0.01; --short 0.03)")
	duplicate := fs.Float64("duplicate", 0, "share of SQS deliveries made twice (default 0.05; --short 0.1)")
	dropAck := fs.Float64("drop-ack", 0, "share of acknowledgements lost (default 0.01; --short 0.02)")
	kill := fs.Float64("kill", 0, "share of the scraper's claims after which it is killed (default 0.01; --short 0.03)")
	fnTimeout := fs.Float64("fn-timeout", 0, "share of the scraper's claims after which its process is frozen mid-fetch, so the invocation hits the function timeout (default 0.01; --short 0.03)")
	fnTimeoutAfter := fs.Duration("fn-timeout-after", chaos.DefaultTimeoutAfter, "how long after its claim a --fn-timeout scraper is frozen")
	ackDelay := fs.Duration("ack-delay", 0, "how long each acknowledgement is held (default 300ms; --short 200ms)")
	ddb5xx := fs.Float64("ddb-5xx", 0, "share of DynamoDB data-plane requests answered 500 InternalServerError (default 0.01; --short 0.02)")
	pipeFail := fs.Float64("pipe-fail", 0, "share of the Pipe's SendMessage calls to the work queue that fail (default 0.02; --short 0.05)")
	pipeRefuse := fs.Float64("pipe-refuse", 0, "share of work messages the Pipe can never send: bisect, pipe DLQ, reconciler re-dispatch (default 0.005; --short 0.02)")
	enrichErr := fs.Float64("enrich-error", 0, "share of the Pipe's enrichment invocations that fail (default 0.01; --short 0: its stack runs no enrichment)")
	enrichTimeout := fs.Float64("enrich-timeout", 0, "share of the Pipe's enrichment invocations that hang for --enrich-hang and time out (default 0.005; --short 0)")
	enrichHang := fs.Duration("enrich-hang", time.Second, "how long a timed-out enrichment invocation hangs")
	filterEdit := fs.Bool("filter-edit", true, "terraform apply a rewritten pipe filter mid-run, with the pipe's target down meanwhile")
	timeout := fs.Duration("timeout", chaos.DefaultTimeout, "how long to wait for every task to become terminal")
	tfDir := fs.String("tf-dir", demo.DefaultTFDir, "Terraform root module to apply (copied to a temporary directory)")
	concurrency := fs.Int("concurrency", 0, "scraper concurrency (maximum and reserved); 0 keeps the example's")
	history := fs.String("history", "", "file for the recorded history (stream, rows, DLQs, faults) as JSON (default: a new file in the temp directory)")
	logPath := fs.String("log", "", "file for the functions' output and the local cloud's and Terraform's logs (default: a new file in the temp directory)")
	verbose := fs.Bool("v", false, "log every local cloud request")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	plan := chaos.FullPlan()
	if *short {
		plan = chaos.ShortPlan()
		if !flagSet(fs, "sites") {
			*sites = shortSites
		}
	}
	if *mix != "" {
		m, err := fixtureweb.ParseMix(*mix)
		if err != nil {
			return &usageError{msg: err.Error()}
		}
		plan.Mix = m
	}
	// Only the flags given override the plan, so a negative rate is
	// reported by Validate rather than taken for "unset".
	for _, o := range []struct {
		name string
		v    float64
		dst  *float64
	}{{"poison", *poison, &plan.PoisonRate}, {"throttle", *throttle, &plan.ThrottleRate}, {"duplicate", *duplicate, &plan.DuplicateRate},
		{"drop-ack", *dropAck, &plan.DropAckRate}, {"kill", *kill, &plan.KillRate}, {"ddb-5xx", *ddb5xx, &plan.ServerErrorRate},
		{"pipe-fail", *pipeFail, &plan.PipeFailureRate}, {"pipe-refuse", *pipeRefuse, &plan.PipeRefuseRate},
		{"enrich-error", *enrichErr, &plan.EnrichErrorRate}, {"enrich-timeout", *enrichTimeout, &plan.EnrichTimeoutRate},
		{"fn-timeout", *fnTimeout, &plan.TimeoutRate}} {
		if flagSet(fs, o.name) {
			*o.dst = o.v
		}
	}
	if flagSet(fs, "ack-delay") {
		plan.AckDelay = *ackDelay
	}
	plan.EnrichTimeout = *enrichHang
	if flagSet(fs, "fn-timeout-after") {
		plan.TimeoutAfter = *fnTimeoutAfter
	}
	if flagSet(fs, "filter-edit") {
		plan.FilterEdit = *filterEdit
	}
	if err := plan.Validate(); err != nil {
		return &usageError{msg: err.Error()}
	}

	stamp := time.Now().UTC().Format("20060102T150405Z")
	if *logPath == "" {
		*logPath = filepath.Join(os.TempDir(), "taskpipe-chaos-"+stamp+".log")
	}
	if *history == "" {
		*history = filepath.Join(os.TempDir(), "taskpipe-chaos-"+stamp+".json")
	}
	logFile, err := os.Create(*logPath)
	if err != nil {
		return fmt.Errorf("chaos log: %w", err)
	}
	defer logFile.Close() // also closed below, where its error counts
	fmt.Fprintf(stdout, "taskpipe chaos: %d sites; function output and logs go to %s\n", *sites, demo.DisplayPath(*logPath))

	oc, runErr := chaos.Run(ctx, chaos.Config{
		Demo: demo.Config{
			Sites: *sites, Seed: *seed, Timeout: *timeout, TFDir: *tfDir, Concurrency: *concurrency,
			Verbose: *verbose, Out: stdout, Terminal: isTerminal(stdout), Log: logFile,
		},
		Plan: plan, FaultSeed: *faultSeed, HistoryPath: *history,
	})
	if oc != nil && oc.Report != nil {
		fmt.Fprintf(stdout, "\ntotal %s; log: %s\n", oc.Report.Total.Round(100*time.Millisecond), demo.DisplayPath(*logPath))
	}
	cerr := logFile.Close()
	if runErr != nil {
		if errors.Is(runErr, chaos.ErrInvariants) || errors.Is(runErr, demo.ErrChecksFailed) {
			return errors.New("invariants or checks failed (see above)")
		}
		return runErr
	}
	return cerr
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}
