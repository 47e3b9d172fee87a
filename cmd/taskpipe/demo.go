package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
)

// runDemo runs the whole pipeline on this machine (internal/e2e/demo): local
// cloud, fixture web, terraform apply of the local example, a run of
// --sites tasks, a summary with the AWS requests and cost per task, the
// reconciliation checks, terraform destroy. It fails unless every check
// passes.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[--sites N] [--seed S] [--concurrency N] [--timeout D] [--keep] [--tf-dir DIR] [--log FILE] [-v]", stderr)
	sites := fs.Int("sites", demo.DefaultSites, "input lines (and fixture sites); about 2% are invalid on purpose")
	seed := fs.Int64("seed", 0, "fixture web seed: sites, behaviours and input order")
	keep := fs.Bool("keep", false, "skip terraform destroy and keep the local cloud up until Ctrl-C")
	timeout := fs.Duration("timeout", demo.DefaultTimeout, "how long to wait for every task to become terminal")
	tfDir := fs.String("tf-dir", demo.DefaultTFDir, "Terraform root module to apply (copied to a temporary directory)")
	concurrency := fs.Int("concurrency", 0, "scraper concurrency (maximum and reserved); 0 keeps the example's")
	addr := fs.String("addr", "127.0.0.1:0", "local cloud listen address (port 0 picks a free port)")
	interval := fs.Duration("interval", demo.DefaultPollInterval, "progress refresh interval")
	logPath := fs.String("log", "", "file for the functions' output and the local cloud's and Terraform's logs (default: a new file in the temp directory)")
	verbose := fs.Bool("v", false, "log every local cloud request")
	if err := parseFlags(fs, args); err != nil {
		return err
	}

	if *logPath == "" {
		*logPath = filepath.Join(os.TempDir(), "taskpipe-demo-"+time.Now().UTC().Format("20060102T150405Z")+".log")
	}
	logFile, err := os.Create(*logPath)
	if err != nil {
		return fmt.Errorf("demo log: %w", err)
	}
	defer logFile.Close() // also closed below, where its error counts
	fmt.Fprintf(stdout, "taskpipe demo: %d sites; function output and logs go to %s\n", *sites, demo.DisplayPath(*logPath))

	rep, runErr := demo.Run(ctx, demo.Config{
		Sites: *sites, Seed: *seed, Keep: *keep, Timeout: *timeout, TFDir: *tfDir, Concurrency: *concurrency,
		Addr: *addr, PollInterval: *interval, Verbose: *verbose,
		Out: stdout, Terminal: isTerminal(stdout), Log: logFile,
	})
	if rep != nil {
		fmt.Fprintf(stdout, "\ntotal %s; log: %s\n", rep.Total.Round(100*time.Millisecond), demo.DisplayPath(*logPath))
	}
	cerr := logFile.Close()
	if runErr != nil {
		if errors.Is(runErr, demo.ErrChecksFailed) {
			return errors.New("some checks failed (see above)")
		}
		return runErr
	}
	return cerr
}

// isTerminal reports whether w is a character device (the progress line
// redraws itself there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
