package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// ExitRejected is the exit status of a submit that rejected some input
// lines and wrote every other one.
const ExitRejected = 3

// Env is everything a command takes from its surroundings. Tests fill it
// with buffers, a fixed clock and a client configuration for the local
// cloud; OSEnv fills it from the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// LoadAWS returns the SDK configuration (config.LoadDefaultConfig,
	// which honours AWS_ENDPOINT_URL for the local cloud).
	LoadAWS func(ctx context.Context) (aws.Config, error)
	// Now is the clock.
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning ctx.Err() then.
	Sleep func(ctx context.Context, d time.Duration) error
	// Terminal says Stdout is a terminal (status --watch draws a bar).
	Terminal bool
	// TerraformOutputs reads `terraform output -json` of dir; nil means
	// ReadTerraformOutputs with the binary FindTerraform picks.
	TerraformOutputs func(ctx context.Context, dir string) (map[string][]byte, error)
	// Rand fills b with random bytes, for generated run ids (crypto/rand
	// Read when nil).
	Rand func(b []byte) (int, error)
}

// OSEnv returns an Env on the process: os.Stdin, the given writers, the
// real environment, clock and terminal check.
func OSEnv(stdout, stderr io.Writer) *Env {
	return &Env{
		Stdin:   os.Stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Getenv:  os.Getenv,
		LoadAWS: func(ctx context.Context) (aws.Config, error) { return config.LoadDefaultConfig(ctx) },
		Now:     time.Now,
		Sleep:   SleepContext,
		Terminal: func() bool {
			f, ok := stdout.(*os.File)
			if !ok {
				return false
			}
			fi, err := f.Stat()
			return err == nil && fi.Mode()&os.ModeCharDevice != 0
		}(),
	}
}

// SleepContext waits d or until ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// UsageError is a command-line mistake: the caller prints it and exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitError asks for a specific exit status; the message has been printed
// already when Err is nil.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// help is the text of one command's help page.
type help struct {
	name     string // "submit", "dlq list"
	synopsis string // after the name
	text     string // paragraphs after the synopsis
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints the help page for -h.
func (e *Env) newFlagSet(h help) *flag.FlagSet {
	fs := flag.NewFlagSet("taskpipe "+h.name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: taskpipe %s %s\n\n", h.name, h.synopsis)
		if h.text != "" {
			fmt.Fprintln(w, strings.TrimSpace(h.text))
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args. A parse failure is a UsageError (flag has printed the
// message and usage); -h returns flag.ErrHelp. Positional arguments are
// returned; flags may follow them ("status RUN --json").
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &UsageError{Msg: err.Error()}
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil // "--" ends the flags
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// out and errw are the streams, never nil.
func (e *Env) out() io.Writer {
	if e.Stdout == nil {
		return io.Discard
	}
	return e.Stdout
}

func (e *Env) errw() io.Writer {
	if e.Stderr == nil {
		return io.Discard
	}
	return e.Stderr
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e *Env) sleep(ctx context.Context, d time.Duration) error {
	if e.Sleep == nil {
		return SleepContext(ctx, d)
	}
	return e.Sleep(ctx, d)
}
