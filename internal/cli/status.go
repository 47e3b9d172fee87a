package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/task"
)

// rateWindow is how far back the throughput estimate looks: long enough to
// smooth out bursts, short enough to follow a change of pace.
const rateWindow = 2 * time.Minute

// emptyPolls is how many polls --watch tolerates a run with no tasks (the
// indexes are eventually consistent right after a submit) before it
// decides the run id is wrong.
const emptyPolls = 3

var statusHelp = help{
	name:     "status",
	synopsis: "RUN [--watch] [--json] [--interval D]",
	text: `
Shows how many of RUN's tasks are in each state, the share done, the success
rate (Finished / done) and, with --watch, the throughput and an ETA.

--watch polls every --interval until every task is Finished or Failed, then
exits 0. On a terminal it redraws one progress bar line; otherwise it prints
one plain line per poll. --json prints one JSON object (per poll with
--watch): {"runId","time","total","pending","running","finished","failed",
"done","progress","successRate","failureRate","ratePerSecond","etaSeconds",
"complete"}; rates and ETA are absent until they can be estimated.

Counts come from the run's index (eventually consistent), never a scan.`,
}

// StatusReport is one status sample (the --json shape).
type StatusReport struct {
	RunID    string    `json:"runId"`
	Time     time.Time `json:"time"`
	Total    int       `json:"total"`
	Pending  int       `json:"pending"`
	Running  int       `json:"running"`
	Finished int       `json:"finished"`
	Failed   int       `json:"failed"`
	Done     int       `json:"done"`
	// Progress is Done / Total, 0..1.
	Progress float64 `json:"progress"`
	// SuccessRate and FailureRate are Finished / Done and Failed / Done,
	// absent while nothing is done.
	SuccessRate *float64 `json:"successRate,omitempty"`
	FailureRate *float64 `json:"failureRate,omitempty"`
	// RatePerSecond is the recent completion throughput; ETASeconds the
	// time left at that rate. Both need two samples (--watch).
	RatePerSecond *float64 `json:"ratePerSecond,omitempty"`
	ETASeconds    *float64 `json:"etaSeconds,omitempty"`
	// Complete says every task is Finished or Failed.
	Complete bool `json:"complete"`
}

type sample struct {
	at   time.Time
	done int
}

// rateTracker estimates throughput from the samples of the last rateWindow.
type rateTracker struct{ samples []sample }

func (r *rateTracker) add(s sample) {
	r.samples = append(r.samples, s)
	cut := 0
	for cut < len(r.samples)-2 && s.at.Sub(r.samples[cut+1].at) >= rateWindow {
		cut++
	}
	r.samples = r.samples[cut:]
}

// rate is tasks per second, or false when unknown (one sample, no time
// passed, or done went down because tasks were retried).
func (r *rateTracker) rate() (float64, bool) {
	if len(r.samples) < 2 {
		return 0, false
	}
	first, last := r.samples[0], r.samples[len(r.samples)-1]
	secs := last.at.Sub(first.at).Seconds()
	if secs <= 0 || last.done < first.done {
		return 0, false
	}
	return float64(last.done-first.done) / secs, true
}

func newReport(run string, at time.Time, counts map[task.State]int, rt *rateTracker) StatusReport {
	r := StatusReport{
		RunID: run, Time: at.UTC(),
		Pending: counts[task.StatePending], Running: counts[task.StateRunning],
		Finished: counts[task.StateFinished], Failed: counts[task.StateFailed],
	}
	r.Total = r.Pending + r.Running + r.Finished + r.Failed
	r.Done = r.Finished + r.Failed
	r.Complete = r.Total > 0 && r.Done == r.Total
	if r.Total > 0 {
		r.Progress = float64(r.Done) / float64(r.Total)
	}
	if r.Done > 0 {
		s, f := float64(r.Finished)/float64(r.Done), float64(r.Failed)/float64(r.Done)
		r.SuccessRate, r.FailureRate = &s, &f
	}
	if rt != nil {
		rt.add(sample{at: at, done: r.Done})
		if rate, ok := rt.rate(); ok {
			r.RatePerSecond = &rate
			if rate > 0 {
				eta := float64(r.Total-r.Done) / rate
				r.ETASeconds = &eta
			}
		}
	}
	return r
}

// Status runs "taskpipe status".
func (e *Env) Status(ctx context.Context, args []string) error {
	fs := e.newFlagSet(statusHelp)
	watch := fs.Bool("watch", false, "poll until every task is Finished or Failed")
	asJSON := fs.Bool("json", false, "print JSON (one object per poll with --watch)")
	interval := fs.Duration("interval", 5*time.Second, "time between polls with --watch (at least 100ms)")
	res := e.addResources(fs, OutputTable)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("want exactly one RUN, got %q", pos)
	case *interval < 100*time.Millisecond:
		return usagef("--interval %s: want at least 100ms", *interval)
	}
	run := pos[0]
	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	store, err := e.store(ctx, res, c)
	if err != nil {
		return err
	}
	if !*watch {
		counts, err := store.RunCounts(ctx, run)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		r := newReport(run, e.now(), counts, nil)
		if r.Total == 0 {
			return noTasks(run)
		}
		if *asJSON {
			return writeJSONLine(e.out(), r)
		}
		return writeStatusTable(e.out(), r)
	}
	return e.watch(ctx, store, run, *interval, *asJSON)
}

func noTasks(run string) error {
	return fmt.Errorf("status: run %s has no tasks (wrong run id? right after a submit the index may lag for a moment)", run)
}

// watch polls until the run is complete.
func (e *Env) watch(ctx context.Context, store *dynamostore.Store, run string, interval time.Duration, asJSON bool) error {
	rt := &rateTracker{}
	bar := e.Terminal && !asJSON
	for polls := 1; ; polls++ {
		counts, err := store.RunCounts(ctx, run)
		if err != nil {
			if bar {
				fmt.Fprintln(e.out())
			}
			return fmt.Errorf("status: %w", err)
		}
		r := newReport(run, e.now(), counts, rt)
		if r.Total == 0 && polls >= emptyPolls {
			return noTasks(run)
		}
		switch {
		case asJSON:
			if err := writeJSONLine(e.out(), r); err != nil {
				return err
			}
		case bar:
			fmt.Fprintf(e.out(), "\r\033[K%s %s", progressBar(r.Progress, 24), statusLine(r))
		default:
			fmt.Fprintf(e.out(), "%s %s\n", r.Time.Format(time.RFC3339), statusLine(r))
		}
		if r.Complete {
			if bar {
				fmt.Fprintln(e.out())
			}
			return nil
		}
		if err := e.sleep(ctx, interval); err != nil {
			if bar {
				fmt.Fprintln(e.out())
			}
			return fmt.Errorf("status: %w", err)
		}
	}
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// statusLine is the one-line summary used by --watch.
func statusLine(r StatusReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d/%d done | pending %d running %d finished %d failed %d",
		pct(r.Progress), r.Done, r.Total, r.Pending, r.Running, r.Finished, r.Failed)
	if r.SuccessRate != nil {
		fmt.Fprintf(&b, " | success %s", pct(*r.SuccessRate))
	}
	switch {
	case r.Complete:
		b.WriteString(" | complete")
	case r.RatePerSecond == nil:
		b.WriteString(" | rate: measuring")
	case r.ETASeconds == nil:
		fmt.Fprintf(&b, " | %.1f/s | ETA unknown", *r.RatePerSecond)
	default:
		fmt.Fprintf(&b, " | %.1f/s | ETA %s", *r.RatePerSecond, (time.Duration(*r.ETASeconds) * time.Second).Round(time.Second))
	}
	return b.String()
}

// progressBar draws [#####-----] of width cells.
func progressBar(p float64, width int) string {
	n := int(p*float64(width) + 0.5)
	n = max(0, min(width, n))
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", width-n) + "]"
}

func writeStatusTable(w io.Writer, r StatusReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "run %s at %s\n", r.RunID, r.Time.Format(time.RFC3339))
	share := func(n int) string { return pct(float64(n) / float64(r.Total)) }
	fmt.Fprintf(tw, "  total\t%d\t\t\n", r.Total)
	fmt.Fprintf(tw, "  pending\t%d\t%s\t\n", r.Pending, share(r.Pending))
	fmt.Fprintf(tw, "  running\t%d\t%s\t\n", r.Running, share(r.Running))
	fmt.Fprintf(tw, "  finished\t%d\t%s\t\n", r.Finished, share(r.Finished))
	fmt.Fprintf(tw, "  failed\t%d\t%s\t\n", r.Failed, share(r.Failed))
	fmt.Fprintf(tw, "  done\t%d\t%s\t\n", r.Done, share(r.Done))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if r.SuccessRate != nil {
		fmt.Fprintf(w, "success rate %s, failure rate %s (of done)\n", pct(*r.SuccessRate), pct(*r.FailureRate))
	}
	if r.Complete {
		fmt.Fprintln(w, "complete: every task is Finished or Failed")
	} else {
		fmt.Fprintln(w, "ETA: run with --watch to measure the throughput")
	}
	return nil
}
