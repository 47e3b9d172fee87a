package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/task"
)

// submitChunk is how many tasks one Create call writes; progress is
// reported after each chunk.
const submitChunk = 500

// maxRunIDBytes keeps run ids (and so task ids) short; DynamoDB allows
// 2,048 bytes per key.
const maxRunIDBytes = 128

// maxAttemptsLimit bounds --max-attempts: each attempt fetches a URL up to
// three times, so more than this is a mistake.
const maxAttemptsLimit = 100

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

var submitHelp = help{
	name:     "submit",
	synopsis: "[--run ID] [--max-attempts N] [--resume] [--dry-run] [FILE|-]",
	text: `
Creates one Pending task per URL in FILE (or standard input, also for "-");
the Pipe dispatches them. FILE holds URLs one per line, or CSV with a header
that has a "url" column (quoted fields allowed). Blank lines and lines that
start with # are ignored. A CSV row with more fields than the header is
rejected: quote a URL that has a comma. FILE must be UTF-8 (not UTF-16)
with LF or CRLF line endings, at most 256 MiB and 9,999,999 lines.

Each URL is normalized (https:// is assumed; fragments, default ports and
credentials are not kept). A line that is not a website URL is reported on
stderr with its line number and reason and is not written; the other lines
are. A URL repeated in the same input is written once, for its first line.

Task ids are <run>/<line, 7 digits>. The run id is printed on stdout, alone
on its line, so scripts can capture it: RUN=$(taskpipe submit urls.txt).
Without --run a new id is generated (UTC time plus a random suffix, so ids
sort by submission time). --run with an id that already has tasks is refused
unless --resume is given, which writes only the lines whose task is missing
(after a partial failure, re-run the same command with --resume).

Exit status: 0 every line written; 3 some lines rejected, all others
written; 1 nothing or not everything written (the ids not written are
listed on stderr); 2 bad usage.`,
}

// Submit runs "taskpipe submit".
func (e *Env) Submit(ctx context.Context, args []string) error {
	fs := e.newFlagSet(submitHelp)
	runID := fs.String("run", "", "run id (default: generated, sortable, unique)")
	maxAttempts := fs.Int("max-attempts", 0, fmt.Sprintf("claims each task gets before it fails as exhausted (1..%d; default %d)", maxAttemptsLimit, task.DefaultMaxAttempts))
	resume := fs.Bool("resume", false, "with --run: write only the lines whose task the run does not have yet")
	dryRun := fs.Bool("dry-run", false, "check the input and report; write nothing")
	res := e.addResources(fs, OutputTable)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return usagef("want at most one FILE, got %q", pos)
	case *maxAttempts < 0 || *maxAttempts > maxAttemptsLimit:
		return usagef("--max-attempts %d out of range 1..%d", *maxAttempts, maxAttemptsLimit)
	case *runID != "" && (len(*runID) > maxRunIDBytes || !runIDPattern.MatchString(*runID)):
		return usagef("--run %q: want 1 to %d letters, digits, '.', '_', ':' or '-', starting with a letter or digit", *runID, maxRunIDBytes)
	case *resume && *runID == "":
		return usagef("--resume needs --run (the run to complete)")
	}

	in, name, err := e.readInput(pos)
	if err != nil {
		return err
	}
	for _, r := range in.Rejected {
		fmt.Fprintf(e.errw(), "submit: %s: rejected: %s\n", name, r)
	}
	for _, d := range in.Duplicates {
		fmt.Fprintf(e.errw(), "submit: %s: line %d: duplicate of line %d (%s), not written again\n", name, d.Line, d.First, d.URL)
	}
	if len(in.URLs) == 0 {
		return fmt.Errorf("submit: %s: no valid URLs (%d lines rejected)", name, len(in.Rejected))
	}
	if *dryRun {
		fmt.Fprintf(e.errw(), "submit: dry run: %d URLs would be written (%s input, %d rejected, %d duplicates)\n",
			len(in.URLs), in.Format, len(in.Rejected), len(in.Duplicates))
		return e.rejectedExit(in, len(in.URLs))
	}

	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	store, err := e.store(ctx, res, c)
	if err != nil {
		return err
	}
	run := *runID
	if run == "" {
		if run, err = e.newRunID(); err != nil {
			return err
		}
	}
	tasks := make([]task.Task, 0, len(in.URLs))
	lines := make(map[string]InputURL, len(in.URLs))
	now := e.now()
	for _, u := range in.URLs {
		t := task.Task{ID: TaskID(run, u.Line), RunID: run, URL: u.URL, MaxAttempts: *maxAttempts, CreatedAt: now}
		tasks = append(tasks, t)
		lines[t.ID] = u
	}
	if *runID != "" {
		if tasks, err = e.checkExistingRun(ctx, store, run, tasks, *resume); err != nil {
			return err
		}
	}

	written, err := e.writeTasks(ctx, store, run, tasks, lines)
	if written > 0 || len(tasks) == 0 {
		fmt.Fprintln(e.out(), run)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.errw(), "submit: run %s: wrote %d tasks (%d lines rejected, %d duplicates not written)\n",
		run, written, len(in.Rejected), len(in.Duplicates))
	return e.rejectedExit(in, written)
}

func (e *Env) rejectedExit(in *Input, written int) error {
	if len(in.Rejected) == 0 {
		return nil
	}
	return &ExitError{Code: ExitRejected, Err: fmt.Errorf("%d input lines rejected (listed above); the other %d written", len(in.Rejected), written)}
}

// readInput parses FILE, or stdin for none or "-".
func (e *Env) readInput(pos []string) (*Input, string, error) {
	if len(pos) == 0 || pos[0] == "-" {
		if e.Stdin == nil {
			return nil, "", errors.New("submit: no standard input")
		}
		in, err := ParseInput(e.Stdin)
		if err != nil {
			return nil, "", fmt.Errorf("submit: stdin: %w", err)
		}
		return in, "stdin", nil
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return nil, "", fmt.Errorf("submit: %w", err)
	}
	defer f.Close() // read-only: a close error loses nothing
	in, err := ParseInput(f)
	if err != nil {
		return nil, "", fmt.Errorf("submit: %s: %w", pos[0], err)
	}
	return in, pos[0], nil
}

// TaskID is the id submit gives the task of line (1-based) in run.
func TaskID(run string, line int) string {
	return fmt.Sprintf("%s/%07d", run, line)
}

// newRunID returns a run id: UTC time to the second and six random hex
// digits, e.g. "20260101T120000Z-3fa9c2"; ids sort by time.
func (e *Env) newRunID() (string, error) {
	b := make([]byte, 3)
	read := e.Rand
	if read == nil {
		read = rand.Read
	}
	if _, err := read(b); err != nil {
		return "", fmt.Errorf("submit: run id: %w", err)
	}
	return e.now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b), nil
}

// checkExistingRun refuses to overwrite a run's tasks: without resume a
// run that has tasks is an error; with resume the tasks it has are dropped
// from the list.
func (e *Env) checkExistingRun(ctx context.Context, store *dynamostore.Store, run string, tasks []task.Task, resume bool) ([]task.Task, error) {
	existing := map[string]bool{}
	cursor := ""
	for {
		page, err := store.RunTasks(ctx, run, cursor, 0)
		if err != nil {
			return nil, fmt.Errorf("submit: read run %s: %w", run, err)
		}
		for _, t := range page.Tasks {
			existing[t.ID] = true
		}
		if !resume && len(existing) > 0 {
			return nil, usagef("run %s already has tasks; pass --resume to write only the missing lines, or choose another --run", run)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(existing) == 0 {
		return tasks, nil
	}
	left := tasks[:0:0]
	for _, t := range tasks {
		if !existing[t.ID] {
			left = append(left, t)
		}
	}
	fmt.Fprintf(e.errw(), "submit: run %s: %d of %d tasks exist already and are left alone\n", run, len(tasks)-len(left), len(tasks))
	return left, nil
}

// writeTasks writes in chunks, reporting progress for large inputs. On a
// failure it lists every id not written, with its line, and stops.
func (e *Env) writeTasks(ctx context.Context, store *dynamostore.Store, run string, tasks []task.Task, lines map[string]InputURL) (int, error) {
	written := 0
	for start := 0; start < len(tasks); start += submitChunk {
		chunk := tasks[start:min(start+submitChunk, len(tasks))]
		err := store.Create(ctx, chunk)
		if err == nil {
			written += len(chunk)
			if len(tasks) > submitChunk {
				fmt.Fprintf(e.errw(), "submit: wrote %d of %d tasks\n", written, len(tasks))
			}
			continue
		}
		var unwritten []string
		var ce *dynamostore.CreateError
		if errors.As(err, &ce) {
			unwritten = ce.Unwritten
		} else {
			for _, t := range chunk {
				unwritten = append(unwritten, t.ID)
			}
		}
		written += len(chunk) - len(unwritten)
		for _, t := range tasks[start+len(chunk):] {
			unwritten = append(unwritten, t.ID)
		}
		for _, id := range unwritten {
			u := lines[id]
			fmt.Fprintf(e.errw(), "submit: not written: line %d: task %s (%s)\n", u.Line, id, u.URL)
		}
		return written, fmt.Errorf("submit: wrote %d of %d tasks; %d not written (listed above; to write them, repeat the command with --run %s --resume): %w",
			written, len(tasks), len(unwritten), run, err)
	}
	return written, nil
}
