package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
)

// command is one subcommand. To add one, write its run function in its own
// file and list it in commands.
type command struct {
	name    string
	summary string
	// run executes the subcommand. A flag.ErrHelp or *usageError return
	// means bad usage (exit 2); any other error is a failure (exit 1).
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands in the order "taskpipe help" lists them.
var commands = []command{
	{name: "local", summary: "run the local cloud: one AWS-compatible endpoint for SDKs, the CLI and Terraform", run: runLocal},
	{name: "demo", summary: "the whole pipeline on this machine: local cloud, terraform apply, a 3,575-site run, summary, cost, destroy", run: runDemo},
	{name: "chaos", summary: "the demo with faults on (throttling, duplicates, lost acks, killed workers, poison); checks nothing is lost", run: runChaos},
	{name: "submit", summary: "create one Pending task per URL of a file (lines or CSV); prints the run id", run: runSubmit},
	{name: "status", summary: "a run's counts per state, success rate, ETA; --watch draws progress until done", run: runStatus},
	{name: "results", summary: "export a run's outcomes and scraped summaries as JSON lines or CSV", run: runResults},
	{name: "retry", summary: "send a run's Failed (or Finished) tasks back to Pending, by error kind", run: runRetry},
	{name: "dlq", summary: "list the work and pipe DLQs without consuming them, or redrive them", run: runDLQ},
	{name: "optout", summary: "list or change the domains the scraper never fetches (the live scraper function's opt-out list)", run: runOptOut},
	{name: "filter", summary: "test Pipe filter patterns against DynamoDB stream records", run: runFilter},
	{name: "extract", summary: "print the site document the scraper would build from one saved HTML page", run: runExtract},
	{name: "scrape", summary: "crawl one website live under the production policy and print its site document", run: runScrape},
}

// usageError is a command-line mistake; run prints it and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run dispatches args to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			// "taskpipe help local" is "taskpipe local -h".
			return run(ctx, []string{rest[0], "-h"}, stdout, stdout)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, rest, stdout, stderr)
		var ue *usageError
		var ce *exitCodeError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &ce):
			fmt.Fprintf(stderr, "taskpipe %s: %v\n", name, err)
			return ce.code
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "taskpipe %s: %v\n", name, err)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "taskpipe %s: %v\n", name, err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "taskpipe: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: taskpipe <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	fmt.Fprintf(tw, "  %s\t%s\n", "help", "show this list, or a command's flags: taskpipe help <command>")
	_ = tw.Flush() // writing to stdout/stderr; nothing to do on failure
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("taskpipe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: taskpipe %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning a parse failure into a usage error
// (flag has already printed the message and the usage).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return &usageError{msg: fmt.Sprintf("unexpected arguments: %q", fs.Args())}
	}
	return nil
}
