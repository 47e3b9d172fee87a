package demo

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taskpipe/taskpipe/internal/e2e/pricing"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Print writes the report: tasks, functions, requests per task, the cost
// of CostPer tasks, the checks and the phases.
func (r *Report) Print(w io.Writer) error {
	p := &printer{w: w}
	p.tasks(r)
	p.functions(r)
	p.requests(r)
	p.cost(r)
	p.checks(r)
	p.phases(r)
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) table(write func(tw *tabwriter.Writer)) {
	if p.err != nil {
		return
	}
	tw := tabwriter.NewWriter(p.w, 0, 0, 2, ' ', 0)
	write(tw)
	if err := tw.Flush(); err != nil {
		p.err = err
	}
}

func (p *printer) tasks(r *Report) {
	o, m := r.Outcomes, r.Metrics
	p.f("\nSummary of run %s (%d input lines, fixture web seed %d)\n", r.RunID, r.Lines, r.Seed)
	rejected := 0
	if r.Input != nil {
		rejected = len(r.Input.Rejected)
	}
	work, pipe := dlqCounts(r.DLQ)
	p.table(func(tw *tabwriter.Writer) {
		fmt.Fprintf(tw, "  input lines\t%d\t\n", r.Lines)
		fmt.Fprintf(tw, "  rejected at submit\t%d\t+ %d blank lines skipped (fixture web: %d invalid lines; line numbers in the demo log)\n", rejected, r.Blank, r.Expected.Rejected)
		fmt.Fprintf(tw, "  tasks submitted\t%d\t\n", r.Submitted)
		fmt.Fprintf(tw, "  Finished\t%d\t%s (expected %d)\n", o.Finished(), pct(o.Finished(), o.Tasks), r.Expected.Finished)
		fmt.Fprintf(tw, "  Failed\t%d\t%s\n", o.Failed(), pct(o.Failed(), o.Tasks))
		for _, k := range task.ErrorKinds() {
			n := o.FailedByKind[k]
			switch {
			case k == task.KindFatal:
				fmt.Fprintf(tw, "    %s\t%d\t(expected %d)\n", k, n, r.Expected.FailedFatal)
			case k == task.KindRobots:
				fmt.Fprintf(tw, "    %s\t%d\t(expected %d: robots.txt disallows the start URL or is unreachable)\n", k, n, r.Expected.FailedRobots)
			case k == task.KindExhausted:
				fmt.Fprintf(tw, "    %s\t%d\t(expected %d with stuck)\n", k, n, r.Expected.FailedExhausted)
			case n > 0 || k == task.KindStuck:
				fmt.Fprintf(tw, "    %s\t%d\t\n", k, n)
			}
		}
		if live := o.Live(); live > 0 {
			fmt.Fprintf(tw, "  still Pending/Running\t%d\t\n", live)
		}
		fmt.Fprintf(tw, "  in work DLQ\t%d\t%s\n", work, reasons(r.DLQ, "work"))
		fmt.Fprintf(tw, "  in pipe DLQ\t%d\t%s\n", pipe, reasons(r.DLQ, "pipe"))
		fmt.Fprintf(tw, "  retried (released)\t%.0f\tTasksReleased metric; table: %d claims for %d tasks\n", m.Released, o.Claims, o.Tasks)
		fmt.Fprintf(tw, "  duplicates skipped\t%.0f\tDuplicatesSkipped metric (%.0f deliveries skipped for a live lease)\n", m.DuplicatesSkipped, m.ClaimsSkipped)
		fmt.Fprintf(tw, "  reconciler\t%d runs\tredispatched %.0f, failed as stuck %.0f, incomplete runs %.0f (schedule rate(1 minute); fired on demand %d times, the last after the final task)\n",
			r.reconcilerRuns(), m.Redispatched, m.StuckFailed, m.ReconcileIncomplete, r.ReconcilerFired)
		fmt.Fprintf(tw, "  task latency\tp50 %s\tp95 %s, max %s (finishedAt - createdAt, %d tasks)\n",
			round(r.Latency.P50), round(r.Latency.P95), round(r.Latency.Max), r.Latency.N)
		fmt.Fprintf(tw, "  wall time\t%s\tsubmit until every task was terminal\n", round(r.Wall))
		fmt.Fprintf(tw, "  fixture web\t%d requests\t(expected %d)\n", r.Web.Requests, r.Expected.Requests)
		d := r.Documents
		fmt.Fprintf(tw, "  pages fetched\t%.2f per task\t%d pages for %d Finished tasks (start page + key pages, from the rows)\n",
			ratio(d.Pages, d.Finished), d.Pages, d.Finished)
		fmt.Fprintf(tw, "  with main text\t%d\t%s of Finished\n", d.WithText, pct(d.WithText, d.Finished))
		fmt.Fprintf(tw, "  with a phone\t%d\t%s of Finished\n", d.WithPhone, pct(d.WithPhone, d.Finished))
		fmt.Fprintf(tw, "  with an e-mail\t%d\t%s of Finished\n", d.WithEmail, pct(d.WithEmail, d.Finished))
		fmt.Fprintf(tw, "  robots.txt\t%d tasks failed\tstart page disallowed or robots.txt unreachable; in the stored documents: %s; %d key pages skipped as disallowed\n",
			r.Outcomes.FailedByKind[task.KindRobots], robotsSummary(d.Robots), d.Disallowed)
		fmt.Fprintf(tw, "  opt-out\t%d tasks failed\twithout a request to the site\n", r.Outcomes.FailedByKind[task.KindOptOut])
		fmt.Fprintf(tw, "  S3 objects\t%d\t%s in s3://%s/%sruns/%s/ (%.0f bytes per object; largest row summary %d bytes)\n",
			d.Objects, byteSize(d.Bytes), d.Bucket, d.Prefix, r.RunID, ratio(int(d.Bytes), d.Objects), d.MaxRowBytes)
	})
	if len(r.Stuck) > 0 {
		p.f("\nTasks still live at the timeout (%d):\n", len(r.Stuck))
		for i, t := range r.Stuck {
			if i == 20 {
				p.f("  ... and %d more\n", len(r.Stuck)-20)
				break
			}
			p.f("  %s %s attempts %d lease until %s: %s %s\n", t.ID, t.State, t.Attempts, t.LeaseExpiresAt.Format(time.TimeOnly), t.URL, oneLine(t.LastError, 80))
		}
	}
	if len(r.Mismatches) > 0 {
		p.f("\nOutcomes that differ from the fixture web's expectation (%d):\n", len(r.Mismatches))
		for i, mm := range r.Mismatches {
			if i == 20 {
				p.f("  ... and %d more\n", len(r.Mismatches)-20)
				break
			}
			p.f("  line %d %s [%s]: got %s, want %s %s\n", mm.Line, mm.URL, mm.Behavior, mm.Got, mm.Want, oneLine(mm.LastError, 80))
		}
	}
}

func (r *Report) reconcilerRuns() int64 {
	for _, f := range r.Functions {
		if f.Role == "reconciler" {
			return f.Stats.Invocations
		}
	}
	return 0
}

func dlqCounts(ms []DLQMessage) (work, pipe int) {
	for _, m := range ms {
		if m.Queue == "pipe" {
			pipe++
		} else {
			work++
		}
	}
	return work, pipe
}

// reasons summarises a DLQ's messages by reason.
func reasons(ms []DLQMessage, queue string) string {
	counts := map[string]int{}
	for _, m := range ms {
		if m.Queue == queue {
			counts[oneLine(m.Reason, 60)]++
		}
	}
	var parts []string
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%d× %s", n, reason))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func (p *printer) functions(r *Report) {
	p.f("\nFunctions: real bootstrap processes run through the Lambda Runtime API\n")
	p.table(func(tw *tabwriter.Writer) {
		fmt.Fprintf(tw, "  function\tarch\tmemory\tinvocations\terrors\tprocesses started\tpeak concurrency\tmax memory used\tbilled ms/invocation\n")
		for _, f := range r.Functions {
			avg := 0.0
			if f.Reports > 0 {
				avg = float64(f.BilledMS) / float64(f.Reports)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d MB\t%d\t%d\t%d\t%d\t%d MB\t%.0f\n", f.Name, f.Arch, f.MemoryMB, f.Stats.Invocations,
				f.Stats.Errors, f.Stats.ColdStarts, f.Stats.PeakConcurrent, f.MaxMemoryMB, avg)
		}
	})
	for _, f := range r.Functions {
		if f.SampleReport != "" {
			p.f("  %s REPORT (from its log group): %s\n", f.Role, strings.ReplaceAll(f.SampleReport, "\t", " "))
		}
	}
}

func (p *printer) requests(r *Report) {
	p.f("\nAWS requests of the run, as counted by the local cloud (per task = count / %d tasks)\n", r.Submitted)
	rows := append([]localcloud.CallerCount(nil), r.Requests...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Count > rows[j].Count })
	p.table(func(tw *tabwriter.Writer) {
		fmt.Fprintf(tw, "  service\toperation\tcaller\tcount\tper task\t\n")
		for _, c := range rows {
			caller := c.Caller
			if caller == localcloud.ClientCaller {
				caller = "client (submit, status polls)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%.3f\t\n", c.Service, c.Operation, caller, c.Count, r.perTask(float64(c.Count)))
		}
		for _, s := range r.ServiceSide() {
			est := ""
			if s.Estimated {
				est = "≈ " + s.Note
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s (in process)\t%.0f\t%.3f\t%s\n", s.Service, s.Operation, s.By, s.Count, r.perTask(s.Count), est)
		}
	})
	var http, inproc float64
	for _, c := range r.Requests {
		http += float64(c.Count)
	}
	for _, s := range r.ServiceSide() {
		inproc += s.Count
	}
	p.f("  total: %.2f requests per task (%.2f over HTTP, %.2f in process)\n", r.perTask(http+inproc), r.perTask(http), r.perTask(inproc))
	d := r.Dynamo
	p.f("  DynamoDB writes: %d stream records (%d inserts, %d modifies, %d removes) = %.0f table + %.0f index write units; %d conditional writes that lost (1 unit each)\n",
		d.StreamRecords(), d.Inserts, d.Modifies, d.Removes, d.TableWriteUnits, d.IndexWriteUnits, d.FailedWrites)
	p.f("  Not counted: the pipe's GetRecords on the table's stream (read in process; billed per call of up to 1,000 records).\n")
}

func (p *printer) cost(r *Report) {
	t := pricing.Default()
	p.f("\nCost of %s tasks on AWS (%s list prices, internal/e2e/pricing/prices.json; marginal cost, no free tiers)\n", commas(CostPer), t.Region)
	p.table(func(tw *tabwriter.Writer) {
		fmt.Fprintf(tw, "  item\tquantity\tUSD\tprice (as of, source)\n")
		for _, l := range r.Cost.Lines {
			fmt.Fprintf(tw, "  %s\t%s %s\t$%.6f\t$%s per %s %s (%s, %s)\n", l.Item, qty(l.Quantity), l.Unit, l.USD,
				strconv.FormatFloat(l.Price.USD, 'f', -1, 64), commas(int64(l.Price.Per)), l.Price.Unit, l.Price.AsOf, l.Price.Source)
		}
		fmt.Fprintf(tw, "  total\t\t$%.4f\tper %s tasks (all functions on arm64: $%.4f)\n", r.Cost.Total, commas(CostPer), r.CostARM.Total)
	})
	p.f("  Lambda GB-seconds use the configured memory and the billed durations of the REPORT lines, measured here on %s; durations on AWS differ.\n",
		archList(r))
}

func archList(r *Report) string {
	seen := map[string]bool{}
	var out []string
	for _, f := range r.Functions {
		if !seen[f.Arch] {
			seen[f.Arch] = true
			out = append(out, f.Arch)
		}
	}
	return strings.Join(out, ", ")
}

func (p *printer) checks(r *Report) {
	p.f("\nChecks\n")
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		p.f("  %s %s: %s\n", mark, c.Name, c.Detail)
	}
}

func (p *printer) phases(r *Report) {
	p.f("\nPhases\n")
	p.table(func(tw *tabwriter.Writer) {
		for _, ph := range r.Phases {
			fmt.Fprintf(tw, "  %s\t%s\n", ph.Name, round(ph.Duration))
		}
	})
}

// round keeps durations readable: ms below 10 s, tenths of seconds above.
func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// qty formats a quantity with a precision that suits its size.
func qty(q float64) string {
	switch {
	case q >= 1e6:
		return fmt.Sprintf("%.3g", q)
	case q >= 100:
		return commas(int64(q + 0.5))
	case q >= 1:
		return fmt.Sprintf("%.2f", q)
	default:
		return fmt.Sprintf("%.4g", q)
	}
}

// commas formats n with thousands separators.
func commas[T int | int64](n T) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// robotsSummary lists robots.txt verdicts by outcome, e.g. "allow 150,
// disallow-all 3".
func robotsSummary(m map[site.RobotsOutcome]int) string {
	if len(m) == 0 {
		return "no verdicts"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
