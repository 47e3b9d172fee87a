package main

import (
	"context"
	"errors"
	"io"

	"github.com/taskpipe/taskpipe/internal/cli"
)

// The operator commands (submit, status, results, retry, dlq, filter) keep
// their logic, flags and help in internal/cli; these functions adapt them
// to the dispatch table.

// exitCodeError asks run for a specific exit status (submit's "some lines
// rejected").
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }

// operator adapts a cli command to a dispatch-table run function.
func operator(cmd func(*cli.Env, context.Context, []string) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return adaptErr(cmd(cli.OSEnv(stdout, stderr), ctx, args))
	}
}

// adaptErr maps cli's error types onto the ones run understands.
func adaptErr(err error) error {
	var ue *cli.UsageError
	if errors.As(err, &ue) {
		return &usageError{msg: ue.Msg}
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return &exitCodeError{code: ee.Code, err: err}
	}
	return err
}

var (
	runSubmit  = operator((*cli.Env).Submit)
	runStatus  = operator((*cli.Env).Status)
	runResults = operator((*cli.Env).Results)
	runRetry   = operator((*cli.Env).Retry)
	runDLQ     = operator((*cli.Env).DLQ)
	runFilter  = operator((*cli.Env).Filter)
	runExtract = operator((*cli.Env).Extract)
	runScrape  = operator((*cli.Env).Scrape)
	runOptOut  = operator((*cli.Env).OptOut)
)
