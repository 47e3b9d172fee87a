package chaos

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/task"
)

// maxExamples bounds the offending items an invariant lists.
const maxExamples = 5

// Invariant is one evaluated invariant: how many things it examined and
// how many broke it.
type Invariant struct {
	Name string `json:"name"`
	// Checked is the number of items examined (tasks, stream records,
	// messages, decisions of the injector).
	Checked int `json:"checked"`
	// Violations is the number of items that break the invariant.
	Violations int `json:"violations"`
	// Detail gives the counts behind the verdict.
	Detail string `json:"detail"`
	// Examples name some of the offending items.
	Examples []string `json:"examples,omitempty"`
}

// OK reports whether the invariant holds.
func (i Invariant) OK() bool { return i.Violations == 0 }

// Result is the evaluation of a History.
type Result struct {
	Invariants []Invariant `json:"invariants"`
	// Summary are counts from the stream that other checks reuse.
	Summary Summary `json:"summary"`
}

// Summary are the stream's counts over every task.
type Summary struct {
	Tasks, Changes, Claims, Releases int
	// Abandoned are claims whose holder never wrote while it held the
	// lease; AbandonedByTask splits them by task.
	Abandoned       int
	AbandonedByTask map[string]int `json:"-"`
	// Exhausted and Stuck are failures written by a later claim and by
	// the reconciler, not by a holder.
	Exhausted, Stuck int
	// Open are claims still unresolved at the end of the stream; Reopens
	// are terminal → Pending records.
	Open, Reopens int
}

// OK reports whether every invariant holds.
func (r Result) OK() bool { return len(r.Failed()) == 0 }

// Failed names the invariants that do not hold.
func (r Result) Failed() []string {
	var out []string
	for _, i := range r.Invariants {
		if !i.OK() {
			out = append(out, i.Name)
		}
	}
	return out
}

// Get returns the invariant with that name.
func (r Result) Get(name string) (Invariant, bool) {
	for _, i := range r.Invariants {
		if i.Name == name {
			return i, true
		}
	}
	return Invariant{}, false
}

// The invariants' names, as the table prints them.
const (
	InvNoTaskLost      = "no task lost"
	InvOnlySubmitted   = "table holds only submitted tasks"
	InvAccounted       = "every task terminal or in a DLQ with a reason"
	InvFailedReason    = "every Failed task has errorKind and lastError"
	InvResultOnce      = "no result written twice"
	InvTransitions     = "every transition legal, continuous and fenced"
	InvNoReopen        = "no task re-opened but by an operator's retry"
	InvAttempts        = "attempts never above maxAttempts"
	InvPoisonInDLQ     = "every poison message in the work DLQ with its reason"
	InvDLQExplained    = "every DLQ message has a reason and an origin"
	InvKillsRecovered  = "every killed worker's claim recovered"
	InvFrozenTimedOut  = "every frozen worker's invocation timed out"
	InvFaultsConfigure = "faults configured"
	// InvFaultPrefix starts the name of each "fault fired" row.
	InvFaultPrefix = "fault fired: "
)

// Check evaluates every invariant over h. It never fails: a history that
// is malformed or incomplete breaks invariants, which the result names.
func Check(h *History) Result {
	c := newChecker(h)
	inv := []Invariant{
		c.noTaskLost(),
		c.onlySubmitted(),
		c.accounted(),
		c.failedReason(),
		c.resultOnce(),
		c.transitions(),
		c.noReopen(),
		c.attempts(),
		c.poisonInDLQ(),
		c.dlqExplained(),
	}
	inv = append(inv, c.pipeOnce()...)
	inv = append(inv, c.faults()...)
	return Result{Invariants: inv, Summary: c.summary()}
}

type checker struct {
	h         *History
	submitted map[string]bool
	rows      map[string]Row
	traces    map[string]*trace
	order     []string // task ids of the stream, first appearance order
	dlqByTask map[string][]DLQMessage
	// stray are stream records without a task id.
	stray []string
}

func newChecker(h *History) *checker {
	c := &checker{h: h, submitted: map[string]bool{}, rows: map[string]Row{}, traces: map[string]*trace{},
		dlqByTask: map[string][]DLQMessage{}}
	for _, id := range h.Submitted {
		c.submitted[id] = true
	}
	for _, r := range h.Rows {
		c.rows[r.TaskID] = r
	}
	byTask := map[string][]Change{}
	for _, ch := range h.Stream {
		if ch.TaskID == "" {
			c.stray = append(c.stray, "seq "+ch.Seq+": a stream record without a taskId")
			continue
		}
		if _, seen := byTask[ch.TaskID]; !seen {
			c.order = append(c.order, ch.TaskID)
		}
		byTask[ch.TaskID] = append(byTask[ch.TaskID], ch)
	}
	for id, chs := range byTask {
		c.traces[id] = walk(id, chs)
	}
	for _, m := range h.DLQ {
		if m.TaskID != "" {
			c.dlqByTask[m.TaskID] = append(c.dlqByTask[m.TaskID], m)
		}
	}
	return c
}

// examples collects offending items up to maxExamples.
type examples struct {
	n    int
	list []string
}

func (e *examples) add(s string) {
	e.n++
	if len(e.list) < maxExamples {
		e.list = append(e.list, s)
	}
}

func (c *checker) noTaskLost() Invariant {
	var lost examples
	for _, id := range c.h.Submitted {
		if _, ok := c.rows[id]; !ok {
			why := "no row at the end"
			if t := c.traces[id]; t == nil {
				why += " and no stream record"
			} else if last := t.changes[len(t.changes)-1]; last.Event == EventRemove {
				why += " (deleted: REMOVE seq " + last.Seq + ")"
			}
			lost.add(id + ": " + why)
		}
	}
	return Invariant{Name: InvNoTaskLost, Checked: len(c.h.Submitted), Violations: lost.n, Examples: lost.list,
		Detail: fmt.Sprintf("%d submitted, %d rows read back, %d missing", len(c.h.Submitted), len(c.h.Submitted)-lost.n, lost.n)}
}

func (c *checker) onlySubmitted() Invariant {
	var extra examples
	for _, r := range c.h.Rows {
		if !c.submitted[r.TaskID] {
			extra.add(r.TaskID + ": a row of the run nobody submitted")
		}
	}
	return Invariant{Name: InvOnlySubmitted, Checked: len(c.h.Rows), Violations: extra.n, Examples: extra.list,
		Detail: fmt.Sprintf("%d rows, %d not submitted", len(c.h.Rows), extra.n)}
}

func (c *checker) accounted() Invariant {
	var bad examples
	counts := map[string]int{}
	for _, id := range c.h.Submitted {
		r, ok := c.rows[id]
		switch {
		case !ok:
			bad.add(id + ": no row")
		case task.State(r.Status).Terminal():
			counts[r.Status]++
		case hasReason(c.dlqByTask[id]):
			counts["in a DLQ"]++
		default:
			bad.add(fmt.Sprintf("%s: %s (attempts %d of %d) and no DLQ message with a reason", id, r.Status, r.Attempts, r.MaxAttempts))
		}
	}
	return Invariant{Name: InvAccounted, Checked: len(c.h.Submitted), Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d Finished, %d Failed, %d live but in a DLQ, %d unaccounted",
			counts[string(task.StateFinished)], counts[string(task.StateFailed)], counts["in a DLQ"], bad.n)}
}

func hasReason(ms []DLQMessage) bool {
	for _, m := range ms {
		if strings.TrimSpace(m.Reason) != "" {
			return true
		}
	}
	return false
}

func (c *checker) failedReason() Invariant {
	var bad examples
	failed := 0
	kinds := map[string]int{}
	for _, r := range c.h.Rows {
		if r.Status != string(task.StateFailed) {
			continue
		}
		failed++
		k := task.ErrorKind(r.ErrorKind)
		switch {
		case !k.Valid() || k == task.KindRetryable:
			bad.add(fmt.Sprintf("%s: errorKind %q is not a failure kind", r.TaskID, r.ErrorKind))
		case strings.TrimSpace(r.LastError) == "":
			bad.add(r.TaskID + ": Failed (" + r.ErrorKind + ") without lastError")
		default:
			kinds[r.ErrorKind]++
		}
	}
	return Invariant{Name: InvFailedReason, Checked: failed, Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d Failed: %s", failed, countList(kinds))}
}

func (c *checker) resultOnce() Invariant {
	var bad examples
	checked, once := 0, 0
	for _, id := range c.h.Submitted {
		r, ok := c.rows[id]
		if !ok || !task.State(r.Status).Terminal() {
			continue // lost or live: other invariants report it
		}
		checked++
		t := c.traces[id]
		if t == nil {
			bad.add(id + ": " + r.Status + " but no stream record")
			continue
		}
		problem := ""
		for i, ep := range t.epochs {
			last := i == len(t.epochs)-1
			want := 0
			if last && r.Status == string(task.StateFinished) || !last && ep.end == string(task.StateFinished) {
				want = 1
			}
			if ep.finishes != want || ep.resultWrites != want {
				problem = fmt.Sprintf("%d Running → Finished transitions and %d result writes, want %d", ep.finishes, ep.resultWrites, want)
				if ep.finishes > 1 || ep.resultWrites > 1 {
					problem = "result written twice: " + problem
				}
			}
		}
		switch {
		case problem != "":
		case r.Status == string(task.StateFinished) && r.Result == "":
			problem = "Finished without a result"
		case r.Status == string(task.StateFailed) && r.Result != "":
			problem = "Failed with a result"
		}
		if problem != "" {
			bad.add(id + ": " + problem)
			continue
		}
		if r.Status == string(task.StateFinished) {
			once++
		}
	}
	return Invariant{Name: InvResultOnce, Checked: checked, Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d Finished tasks with exactly one finish and one result write, %d Failed with none, %d otherwise",
			once, checked-once-bad.n, bad.n)}
}

func (c *checker) transitions() Invariant {
	var bad examples
	for _, s := range c.stray {
		bad.add(s)
	}
	for _, id := range c.order {
		if !c.submitted[id] {
			bad.add(id + ": stream records of a task nobody submitted")
		}
		for _, s := range c.traces[id].illegal {
			bad.add(s)
		}
	}
	for _, id := range c.h.Submitted {
		t := c.traces[id]
		r, ok := c.rows[id]
		switch {
		case t == nil:
			bad.add(id + ": submitted, but the stream has no record of it")
		case ok && t.last != nil && !sameImage(*t.last, r.Image):
			// The row changed without a stream record, or the last record
			// is missing.
			bad.add(fmt.Sprintf("%s: the final row %s is not the stream's last image %s", id, r.brief(), t.last.brief()))
		}
	}
	return Invariant{Name: InvTransitions, Checked: len(c.h.Stream) + len(c.h.Submitted), Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d stream records of %d tasks and %d final rows, %d broken", len(c.h.Stream), len(c.traces), len(c.h.Submitted), bad.n)}
}

// noReopen counts terminal → Pending records beyond the operator's
// retries: a run that retries nothing (a chaos run) must have none, or a
// second pass could write a second result unnoticed by resultOnce, which
// judges each pass on its own.
func (c *checker) noReopen() Invariant {
	var bad examples
	reopens := 0
	for _, id := range c.order {
		if n := c.traces[id].reopens; n > 0 {
			reopens += n
			bad.add(fmt.Sprintf("%s: re-opened %d times", id, n))
		}
	}
	v := max(0, reopens-c.h.Retried)
	if v == 0 {
		bad.list = nil
	}
	return Invariant{Name: InvNoReopen, Checked: len(c.traces), Violations: v, Examples: bad.list,
		Detail: fmt.Sprintf("%d terminal → Pending records, %d operator retries", reopens, c.h.Retried)}
}

func (c *checker) attempts() Invariant {
	var bad examples
	images, most := 0, 0
	for _, id := range c.order {
		t := c.traces[id]
		images += t.images
		for _, s := range t.overAttempts {
			bad.add(s)
		}
	}
	for _, r := range c.h.Rows {
		images++
		most = max(most, r.Attempts)
		if p := attemptsProblem(r.Image); p != "" {
			bad.add(r.TaskID + " (final row): " + p)
		}
	}
	return Invariant{Name: InvAttempts, Checked: images, Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d images (stream and final rows), at most %d attempts used", images, most)}
}

func (c *checker) poisonInDLQ() Invariant {
	var bad examples
	byBody := map[string][]DLQMessage{}
	for _, m := range c.h.DLQ {
		if m.Queue == QueueWork {
			byBody[m.Body] = append(byBody[m.Body], m)
		}
	}
	found, copies := 0, 0
	for _, p := range c.h.Poison {
		ms := byBody[p.Body]
		if !hasReason(ms) {
			bad.add(fmt.Sprintf("message %s %q: not in the work DLQ with a reason", p.MessageID, clip(p.Body, 60)))
			continue
		}
		found++
		copies += len(ms)
	}
	return Invariant{Name: InvPoisonInDLQ, Checked: len(c.h.Poison), Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d injected, %d in the work DLQ with a reason (%d copies: a duplicate delivery or a lost ack forwards a message again)",
			len(c.h.Poison), found, copies)}
}

func (c *checker) dlqExplained() Invariant {
	var bad examples
	poison := map[string]bool{}
	for _, p := range c.h.Poison {
		poison[p.Body] = true
	}
	kinds := map[string]int{}
	for _, m := range c.h.DLQ {
		switch {
		case strings.TrimSpace(m.Reason) == "":
			bad.add(fmt.Sprintf("%s DLQ message %s: no reason", m.Queue, m.MessageID))
		case m.Queue == QueuePipe:
			kinds["pipe batch pointers"]++
		case m.Queue != QueueWork:
			bad.add(fmt.Sprintf("message %s: unknown queue %q", m.MessageID, m.Queue))
		case poison[m.Body]:
			kinds["poison"]++
		case c.submitted[m.TaskID]:
			kinds["work messages of run tasks"]++
		default:
			bad.add(fmt.Sprintf("work DLQ message %s %q: neither injected poison nor a task of the run", m.MessageID, clip(m.Body, 60)))
		}
	}
	return Invariant{Name: InvDLQExplained, Checked: len(c.h.DLQ), Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d messages: %s", len(c.h.DLQ), countList(kinds))}
}

// faults checks that every configured fault fired, and that killed
// workers' claims were taken over.
func (c *checker) faults() []Invariant {
	f := c.h.Faults
	cfg, st := f.Config, f.Stats
	var out []Invariant
	fired := func(name string, decisions, n int64, detail string) {
		v := 0
		if n <= 0 {
			v = 1
		}
		out = append(out, Invariant{Name: InvFaultPrefix + name, Checked: int(decisions), Violations: v, Detail: detail})
	}
	ratio := func(n, of int64, rate float64) string {
		if of == 0 {
			return fmt.Sprintf("%d of 0 decisions (configured %s)", n, pctf(rate))
		}
		return fmt.Sprintf("%d of %d (%s; configured %s)", n, of, pctf(float64(n)/float64(of)), pctf(rate))
	}
	if r := cfg.DynamoDB.ThrottleRate; r > 0 {
		fired("DynamoDB throttling", st.DynamoDBRequests, st.DynamoDBThrottles, ratio(st.DynamoDBThrottles, st.DynamoDBRequests, r)+" requests throttled; the SDKs retried")
	}
	if r := cfg.DynamoDB.ServerErrorRate; r > 0 {
		fired("DynamoDB server errors", st.DynamoDBRequests, st.DynamoDBServerErrors, ratio(st.DynamoDBServerErrors, st.DynamoDBRequests, r)+" requests answered 500")
	}
	if r := cfg.SQS.DuplicateRate; r > 0 {
		fired("SQS duplicate deliveries", st.SQSDeliveries, st.SQSDuplicates, ratio(st.SQSDuplicates, st.SQSDeliveries, r)+" deliveries made twice")
	}
	if r := cfg.SQS.DropAckRate; r > 0 {
		fired("SQS lost acknowledgements", st.SQSAcks, st.SQSDroppedAcks, ratio(st.SQSDroppedAcks, st.SQSAcks, r)+" deletes lost (the message came back)")
	}
	if d := time.Duration(cfg.SQS.AckDelay); d > 0 {
		fired("SQS slow acknowledgements", st.SQSDelayedAcks, st.SQSDelayedAcks, fmt.Sprintf("%d acknowledgements held %s", st.SQSDelayedAcks, d))
	}
	if r := cfg.Pipes.TargetFailureRate; r > 0 {
		fired("pipe target failures", st.PipeDeliveries, st.PipeTargetFailures, ratio(st.PipeTargetFailures, st.PipeDeliveries, r)+" sends failed")
	}
	if r := cfg.Pipes.TargetRefuseRate; r > 0 {
		fired("pipe target refusals", st.PipeDeliveries, st.PipeRefusedBodies,
			fmt.Sprintf("%d messages refused on every send (%d sends; configured %s of messages)", st.PipeRefusedBodies, st.PipeTargetRefusals, pctf(r)))
	}
	if r := cfg.Pipes.EnrichmentFailureRate; r > 0 {
		fired("pipe enrichment errors", st.PipeEnrichments, st.PipeEnrichmentErrors, ratio(st.PipeEnrichmentErrors, st.PipeEnrichments, r)+" enrichment invocations failed")
	}
	if r := cfg.Pipes.EnrichmentTimeoutRate; r > 0 {
		fired("pipe enrichment timeouts", st.PipeEnrichments, st.PipeEnrichmentTimeouts, ratio(st.PipeEnrichmentTimeouts, st.PipeEnrichments, r)+" enrichment invocations timed out")
	}
	if p := c.h.Pipe; p != nil && p.FilterEdit != nil {
		fired("pipe outage across the filter edit", st.PipeOutageFailures, st.PipeOutageFailures,
			fmt.Sprintf("%d sends failed while terraform apply ran", st.PipeOutageFailures))
	}
	kills, timeoutRules := int64(0), 0
	for i, k := range cfg.Kill {
		n := int64(0)
		if i < len(st.KillsByRule) {
			n = st.KillsByRule[i]
		}
		if k.Action == fault.KillAtTimeout {
			timeoutRules++
			fired(fmt.Sprintf("worker frozen until its timeout (rule %d)", i), st.KillCandidates, n,
				fmt.Sprintf("%d instances frozen %s after a successful request matching %s (rate %s); %d freezes found the invocation over",
					n, time.Duration(k.Delay), killName(k), pctf(k.Rate), st.FreezeMissed))
			continue
		}
		kills += n
		fired(fmt.Sprintf("worker killed (rule %d)", i), st.KillCandidates, n,
			fmt.Sprintf("%d instances killed after a successful request matching %s (rate %s)", n, killName(k), pctf(k.Rate)))
	}
	if timeoutRules > 0 {
		// The function platform's own count: a frozen process answers
		// nothing, so each freeze is an invocation that timed out.
		v := 0
		if f.ScraperTimeouts < st.Frozen {
			v = int(st.Frozen - f.ScraperTimeouts)
		}
		out = append(out, Invariant{Name: InvFrozenTimedOut, Checked: int(st.Frozen), Violations: v,
			Detail: fmt.Sprintf("%d instances frozen, %d scraper invocations timed out (REPORT Status: timeout)", st.Frozen, f.ScraperTimeouts)})
	}
	if f.PoisonPlanned > 0 {
		fired("poison messages", int64(f.PoisonPlanned), int64(len(c.h.Poison)),
			fmt.Sprintf("%d of %d unparseable messages sent to the work queue", len(c.h.Poison), f.PoisonPlanned))
		if missing := f.PoisonPlanned - len(c.h.Poison); missing > 0 && len(c.h.Poison) > 0 {
			out[len(out)-1].Violations = missing
		}
	}
	if f.Web.FlakySites > 0 {
		fired("flaky sites", int64(f.Web.FlakySites), f.Web.Flaky503s,
			fmt.Sprintf("%d flaky sites answered 503 %d times before they healed", f.Web.FlakySites, f.Web.Flaky503s))
	}
	if f.Web.FatalSites > 0 {
		fatal := 0
		for _, r := range c.h.Rows {
			if r.Status == string(task.StateFailed) && (r.ErrorKind == string(task.KindFatal) || r.ErrorKind == string(task.KindRobots)) {
				fatal++
			}
		}
		fired("fatal sites", int64(f.Web.FatalSites), int64(fatal),
			fmt.Sprintf("%d tasks failed fatal (%d fatal sites)", fatal, f.Web.FatalSites))
	}
	if len(out) == 0 {
		out = append(out, Invariant{Name: InvFaultsConfigure, Checked: 0, Violations: 1,
			Detail: "no fault was configured: a run without faults proves nothing about them"})
	}
	if kills > 0 || len(cfg.Kill) > 0 {
		s := c.summary()
		v := 0
		if int64(s.Abandoned) < kills {
			v = int(kills) - s.Abandoned
		}
		out = append(out, Invariant{Name: InvKillsRecovered, Checked: int(kills), Violations: v,
			Detail: fmt.Sprintf("%d kills, %d claims abandoned by their holder and later taken over or failed (the difference: holder writes that failed after the SDK's retries)",
				kills, s.Abandoned)})
	}
	return out
}

func killName(k fault.KillRule) string {
	var parts []string
	for _, p := range []struct{ name, v string }{{"function", k.Function}, {"service", k.Service},
		{"operation", k.Operation}, {"body containing", k.BodyContains}} {
		if p.v != "" {
			parts = append(parts, fmt.Sprintf("%s %q", p.name, p.v))
		}
	}
	return strings.Join(parts, ", ")
}

func (c *checker) summary() Summary {
	s := Summary{Tasks: len(c.traces), Changes: len(c.h.Stream), AbandonedByTask: map[string]int{}}
	for id, t := range c.traces {
		s.Claims += t.claims
		s.Releases += t.releases
		s.Abandoned += t.abandoned
		s.Exhausted += t.exhausted
		s.Stuck += t.stuck
		s.Open += t.open
		s.Reopens += t.reopens
		if t.abandoned > 0 {
			s.AbandonedByTask[id] = t.abandoned
		}
	}
	return s
}

// Print writes the result as an aligned table, then the offending
// examples of each failed invariant.
func (r Result) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  invariant\tchecked\tviolations\tresult\tdetail\n")
	for _, i := range r.Invariants {
		verdict := "PASS"
		if !i.OK() {
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\n", i.Name, i.Checked, i.Violations, verdict, i.Detail)
	}
	err := tw.Flush()
	for _, i := range r.Invariants {
		if err != nil || i.OK() {
			continue
		}
		_, err = fmt.Fprintf(w, "  FAIL %s:\n", i.Name)
		for _, e := range i.Examples {
			if err == nil {
				_, err = fmt.Fprintf(w, "    - %s\n", e)
			}
		}
		if more := i.Violations - len(i.Examples); err == nil && more > 0 {
			_, err = fmt.Fprintf(w, "    ... and %d more\n", more)
		}
	}
	if err != nil {
		return fmt.Errorf("chaos: print: %w", err)
	}
	return nil
}

// countList renders counts as "3 fatal, 2 exhausted", largest first.
func countList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

func pctf(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
