package chaos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Names of the demo's checks (demo.Reconcile) that faults change.
const (
	demoOutcomes   = "outcomes = fixture web's expectations"
	demoRetries    = "retries: TasksReleased = claims - tasks"
	demoDeliveries = "deliveries = claims + skipped"
	demoWeb        = "fixture web requests = expected"
	demoEMF        = "EMF metrics = table"
	demoDLQ        = "DLQs empty"
	demoPipe       = "pipe dispatched each task once"
)

// adjustChecks rewrites the demo's reconciliation checks whose
// expectation changes under faults, each still comparing two records that
// different parts of the system produced; the other checks stand as they
// are (a killed worker's task still finishes; outcomes still match the
// fixture web). It appends one check for the invariant table.
//
//   - Outcomes: a killed claim fetches nothing but uses an attempt, so a
//     task whose claims were killed may run out of them; each task is
//     judged against fixtureweb.ExpectLosing with its killed claims, and
//     the report's expected counts and mismatches are redone to match.
//   - Retries: a killed worker's claim is neither released nor finished,
//     so "releases = claims - tasks" no longer holds; instead the
//     TasksReleased metric must equal the releases in the stream, and the
//     claims in the stream the attempts in the table.
//   - Deliveries: a claim that finds the attempts used up (after a killed
//     last attempt) is a delivery without a claim, and a claim whose
//     DynamoDB call failed after the SDK's retries is retried without
//     one. The gap must be at least the former and at most the former
//     plus the retried messages that were not releases.
//   - Fixture web requests: a killed claim fetches nothing, so a site
//     that never heals sees one claim's fetches fewer for each; the
//     expectation is a range when some abandoned claims were not kills
//     (see rejudge).
//   - DLQs: the work DLQ holds the poison messages, and may hold messages
//     of terminal tasks (a lost acknowledgement or a killed worker used up
//     the message's receives after the task ended); the pipe DLQ holds
//     pointers only when the run failed the pipe's target, and then
//     exactly the records the pipe says it dead-lettered.
//   - Pipe: failed executions are retried and bisected, so the pipe's
//     EventCount exceeds the tasks; the pipe's own account
//     (InvPipeOnce) must show each record handled once instead.
func adjustChecks(rep *demo.Report, h *History, res Result, st *demo.Stage) {
	s := res.Summary
	o, m := rep.Outcomes, rep.Metrics
	replace := func(old string, c demo.Check) {
		for i := range rep.Checks {
			if rep.Checks[i].Name == old {
				rep.Checks[i] = c
				return
			}
		}
		rep.Checks = append(rep.Checks, c)
	}

	replace(demoRetries, demo.Check{Name: "retries: TasksReleased = releases in the stream; claims in the stream = attempts in the table",
		OK: int(m.Released) == s.Releases && s.Claims == o.Claims,
		Detail: fmt.Sprintf("TasksReleased %.0f, stream releases %d; stream claims %d, table attempts %d (%d claims abandoned: killed or timed-out workers)",
			m.Released, s.Releases, s.Claims, o.Claims, s.Abandoned)})

	accounted := int64(o.Claims) + int64(m.DuplicatesSkipped+m.ClaimsSkipped+m.PoisonForwarded) + int64(s.Exhausted)
	gap := rep.Mapping.Batches - accounted
	slack := int64(m.MessagesRetried - m.Released)
	replace(demoDeliveries, demo.Check{Name: "deliveries = claims + skipped + refused as exhausted (+ retried without a claim)",
		OK: gap >= 0 && gap <= slack,
		Detail: fmt.Sprintf("%d deliveries; %d claims + %.0f duplicates + %.0f live-lease skips + %.0f poison + %d refused as exhausted = %d; the %d left must be within the %d messages retried for other reasons than a release",
			rep.Mapping.Batches, o.Claims, m.DuplicatesSkipped, m.ClaimsSkipped, m.PoisonForwarded, s.Exhausted, accounted, gap, slack)})

	// A scraper frozen for a timeout fault after its outcome write (a
	// quick task can end inside the freeze's delay) never delivers the
	// EMF line it writes next, as a Lambda that times out after its write
	// loses what it had not logged yet: each freeze can hide at most one
	// task's metric, never add one.
	if frozen := h.Faults.Stats.Frozen; frozen > 0 {
		fin, stuck := o.Finished(), o.FailedByKind[task.KindStuck]
		fatal, exhausted := o.FailedByKind[task.KindFatal], o.FailedByKind[task.KindExhausted]
		failed := o.Failed() - stuck
		missing := (fin - int(m.Finished)) + (failed - int(m.Failed))
		replace(demoEMF, demo.Check{Name: "EMF metrics = table, less the metrics of frozen scrapers",
			OK: int(m.Finished) <= fin && int(m.Failed) <= failed && int(m.FailedFatal) <= fatal && int(m.FailedExhausted) <= exhausted &&
				int(m.StuckFailed) == stuck && missing >= 0 && int64(missing) <= frozen,
			Detail: fmt.Sprintf("TasksFinished %.0f (table %d), TasksFailed %.0f (table %d; fatal %.0f/%d, exhausted %.0f/%d), StuckFailed %.0f (table %d); %d metrics missing, at most %d scrapers frozen",
				m.Finished, fin, m.Failed, failed, m.FailedFatal, fatal, m.FailedExhausted, exhausted, m.StuckFailed, stuck, missing, frozen)})
	}

	const outcomesName = "outcomes = fixture web's expectations, given the claims killed"
	const webName = "fixture web requests = expected, less the fetches of killed claims"
	plain := rep.Expected.Requests
	if rr, err := rejudge(st.Web, rep, h, s); err != nil {
		replace(demoOutcomes, demo.Check{Name: outcomesName, OK: false, Detail: err.Error()})
		replace(demoWeb, demo.Check{Name: webName, OK: false, Detail: err.Error()})
	} else {
		e, stuck := rep.Expected, o.FailedByKind[task.KindStuck]
		fin, fatal, exhausted := o.Finished(), o.FailedByKind[task.KindFatal], o.FailedByKind[task.KindExhausted]+stuck
		robots := o.FailedByKind[task.KindRobots]
		replace(demoOutcomes, demo.Check{Name: outcomesName,
			OK: fin == e.Finished && fatal == e.FailedFatal && robots == e.FailedRobots && exhausted == e.FailedExhausted && len(rep.Mismatches) == 0,
			Detail: fmt.Sprintf("finished %d (expected %d), failed fatal %d (%d), robots %d (%d), exhausted+stuck %d (%d); %d tasks differ from their line's expectation",
				fin, e.Finished, fatal, e.FailedFatal, robots, e.FailedRobots, exhausted, e.FailedExhausted, len(rep.Mismatches))})
		want := strconv.Itoa(rr.min)
		if rr.max != rr.min {
			want = fmt.Sprintf("%d to %d (%d claims abandoned without a kill: fetched or not)", rr.min, rr.max, s.Abandoned-int(h.Faults.Stats.Kills))
		}
		// As in the demo: a key page the crawl's budget skipped is
		// recorded and counted, never an extra fetch.
		skipped := int64(m.KeyPagesSkipped)
		replace(demoWeb, demo.Check{Name: webName, OK: rep.Web.Requests+skipped >= int64(rr.min) && rep.Web.Requests <= int64(rr.max),
			Detail: fmt.Sprintf("%d requests to the sites + %d key pages skipped for the crawl's budget, expected %s (%d for a run without faults)", rep.Web.Requests, skipped, want, plain)})
	}

	poison := map[string]bool{}
	for _, p := range h.Poison {
		poison[p.Body] = true
	}
	terminal := map[string]bool{}
	for _, r := range h.Rows {
		terminal[r.TaskID] = task.State(r.Status).Terminal()
	}
	pf := h.Faults.Config.Pipes
	pipeFaults := pf.TargetFailureRate > 0 || pf.TargetRefuseRate > 0 || pf.EnrichmentFailureRate > 0 || pf.EnrichmentTimeoutRate > 0 ||
		(h.Pipe != nil && h.Pipe.FilterEdit != nil)
	pipeOnce, tracked := res.Get(InvPipeOnce)
	if tracked && pipeFaults {
		replace(demoPipe, demo.Check{Name: "pipe handled each task's record once (its own account), retries and bisect aside",
			OK: pipeOnce.OK() && m.EnrichDropped == 0,
			Detail: fmt.Sprintf("%s; %.0f pipe events, %.0f failed executions (retried or bisected), %.0f records dropped by enrich",
				pipeOnce.Detail, m.PipeEvents, m.PipeFailed, m.EnrichDropped)})
	}
	var nPoison, nTerminal, nPipe int
	var other []string
	for _, d := range h.DLQ {
		switch {
		case d.Queue == QueuePipe && pipeFaults && tracked && pipeOnce.OK():
			nPipe++
		case d.Queue == QueuePipe:
			nPipe++
			other = append(other, "pipe: "+d.Reason)
		case poison[d.Body]:
			nPoison++
		case terminal[d.TaskID]:
			nTerminal++
		default:
			other = append(other, d.Queue+": "+d.Reason)
		}
	}
	replace(demoDLQ, demo.Check{Name: "DLQs hold only the poison and messages of terminal tasks",
		OK: len(other) == 0,
		Detail: fmt.Sprintf("work DLQ: %d poison copies, %d messages of terminal tasks; pipe DLQ: %d; unexplained %d%s",
			nPoison, nTerminal, nPipe, len(other), list(other, 3))})

	detail := fmt.Sprintf("all %d hold (table below)", len(res.Invariants))
	if !res.OK() {
		detail = "broken: " + strings.Join(res.Failed(), "; ")
	}
	rep.Checks = append(rep.Checks, demo.Check{Name: "chaos invariants", OK: res.OK(), Detail: detail})
}

// requestRange is the span of fixture web requests a run may have caused.
type requestRange struct{ min, max int }

// rejudge redoes the report's expectations (rep.Expected's outcome and
// request counts) and its task mismatches with each task's killed claims
// taken into account (fixtureweb.ExpectLosing); the rejected lines'
// mismatches stand.
//
// A claim abandoned without a kill (its holder fetched, then its write
// failed after the SDK's retries) looks in the stream like a killed one.
// When the stream's abandoned claims outnumber the injector's kills by n,
// a task with a abandoned claims may have lost anywhere from a-n to a of
// them before a fetch: its outcome matches if any of those counts
// predicts it, and the requests are only known within a range.
func rejudge(web *fixtureweb.Web, rep *demo.Report, h *History, s Summary) (requestRange, error) {
	var rr requestRange
	if web == nil || rep.Input == nil {
		return rr, fmt.Errorf("no fixture web or input to predict from")
	}
	lines := web.URLs(rep.Lines)
	for _, u := range rep.Input.URLs {
		if u.Line < 1 || u.Line > len(lines) {
			return rr, fmt.Errorf("input line %d outside the fixture web's %d lines", u.Line, len(lines))
		}
	}
	surplus := max(0, s.Abandoned-int(h.Faults.Stats.Kills))
	e := &rep.Expected
	e.Finished, e.FailedFatal, e.FailedRobots, e.FailedExhausted, e.Requests = 0, 0, 0, 0, 0
	var mismatches []demo.Mismatch
	for _, m := range rep.Mismatches {
		if m.TaskID == "" {
			mismatches = append(mismatches, m)
		}
	}
	rows := map[string]Row{}
	for _, r := range h.Rows {
		rows[r.TaskID] = r
	}
	var extra []int
	for _, u := range rep.Input.URLs {
		id := cli.TaskID(rep.RunID, u.Line)
		a := s.AbandonedByTask[id]
		r, ok := rows[id]
		// The most lost claims first: exact when nothing is ambiguous.
		x := web.ExpectLosing(lines[u.Line-1], a)
		matched := ok && x.Matches(task.State(r.Status), task.ErrorKind(r.ErrorKind))
		rr.min += x.Requests
		for lost := a - 1; lost >= max(0, a-surplus); lost-- {
			y := web.ExpectLosing(lines[u.Line-1], lost)
			if !matched && ok && y.Matches(task.State(r.Status), task.ErrorKind(r.ErrorKind)) {
				x, matched = y, true
			}
		}
		rr.max += web.ExpectLosing(lines[u.Line-1], max(0, a-surplus)).Requests
		// An ambiguous claim may also have fetched part of a crawl before
		// it was lost (a scraper frozen mid-fetch until its timeout): at
		// most one fault-free run of the task's requests each.
		for range min(a, surplus) {
			extra = append(extra, web.Expect(lines[u.Line-1]).Requests)
		}
		switch {
		case x.Outcome == fixtureweb.Finished:
			e.Finished++
		case x.Kind == task.KindFatal:
			e.FailedFatal++
		case x.Kind == task.KindRobots:
			e.FailedRobots++
		default:
			e.FailedExhausted++
		}
		e.Requests += x.Requests
		if matched {
			continue
		}
		got := "no row"
		if ok {
			got = r.Status
			if r.ErrorKind != "" {
				got += " (" + r.ErrorKind + ")"
			}
		}
		want := string(x.Outcome)
		if x.Kind != "" {
			want += " (" + string(x.Kind) + ")"
		}
		mismatches = append(mismatches, demo.Mismatch{TaskID: id, Line: u.Line, URL: u.URL, Behavior: string(x.Behavior),
			Got: got, Want: want + ": " + x.Reason, LastError: r.LastError})
	}
	rep.Mismatches = mismatches
	// Only surplus claims are ambiguous in all: the largest partial
	// crawls they may have made bound the extra requests.
	slices.Sort(extra)
	slices.Reverse(extra)
	for _, n := range extra[:min(len(extra), surplus)] {
		rr.max += n
	}
	return rr, nil
}

func list(items []string, n int) string {
	if len(items) == 0 {
		return ""
	}
	more := ""
	if len(items) > n {
		more = ", and " + strconv.Itoa(len(items)-n) + " more"
		items = items[:n]
	}
	return ": " + strings.Join(items, "; ") + more
}
