package demo

import (
	"fmt"
	"strings"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Reconcile checks that the run's counts add up, each against an
// independent record: the table against the submitted input, the fixture
// web's expectations, the functions' EMF metrics, the pipe's metrics, the
// event source mapping's and the function runtime's counters, and the
// fixture web's own request counter. A check that cannot fail is not
// listed: each compares two numbers that different parts of the system
// produced.
func Reconcile(r *Report) []Check {
	var cs []Check
	add := func(name string, ok bool, format string, args ...any) {
		cs = append(cs, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	o, m, exp := r.Outcomes, r.Metrics, r.Expected
	fin, fail := o.Finished(), o.Failed()

	add("every task terminal", o.Live() == 0 && len(r.Stuck) == 0 && o.Tasks == r.Submitted,
		"%d of %d submitted tasks read back, %d still Pending or Running", o.Tasks, r.Submitted, o.Live()+len(r.Stuck))
	add("finished + failed = submitted", fin+fail == r.Submitted,
		"%d + %d = %d, submitted %d", fin, fail, fin+fail, r.Submitted)
	rejected := 0
	if r.Input != nil {
		rejected = len(r.Input.Rejected)
	}
	// The fixture web's invalid lines include blank ones, which submit
	// skips rather than rejects.
	add("rejected + blank lines = fixture web's invalid lines", rejected+r.Blank == exp.Rejected && r.Submitted == exp.Tasks && r.Lines == exp.Lines,
		"%d rejected + %d blank of %d lines (expected %d invalid of %d), %d tasks (expected %d)",
		rejected, r.Blank, r.Lines, exp.Rejected, exp.Lines, r.Submitted, exp.Tasks)

	stuck := o.FailedByKind[task.KindStuck]
	countsMatch := fin == exp.Finished && o.FailedByKind[task.KindFatal] == exp.FailedFatal &&
		o.FailedByKind[task.KindRobots] == exp.FailedRobots && o.FailedByKind[task.KindExhausted]+stuck == exp.FailedExhausted
	add("outcomes = fixture web's expectations", countsMatch && len(r.Mismatches) == 0,
		"finished %d (expected %d), failed fatal %d (%d), robots %d (%d), exhausted+stuck %d (%d); %d tasks differ from their line's expectation",
		fin, exp.Finished, o.FailedByKind[task.KindFatal], exp.FailedFatal, o.FailedByKind[task.KindRobots], exp.FailedRobots,
		o.FailedByKind[task.KindExhausted]+stuck, exp.FailedExhausted, len(r.Mismatches))

	add("EMF metrics = table", int(m.Finished) == fin && int(m.Failed+m.StuckFailed) == fail &&
		int(m.FailedFatal) == o.FailedByKind[task.KindFatal] && int(m.FailedExhausted) == o.FailedByKind[task.KindExhausted] &&
		int(m.StuckFailed) == stuck,
		"TasksFinished %.0f (table %d), TasksFailed %.0f + StuckFailed %.0f (table %d; fatal %.0f/%d, exhausted %.0f/%d, stuck %.0f/%d)",
		m.Finished, fin, m.Failed, m.StuckFailed, fail, m.FailedFatal, o.FailedByKind[task.KindFatal],
		m.FailedExhausted, o.FailedByKind[task.KindExhausted], m.StuckFailed, stuck)
	add("retries: TasksReleased = claims - tasks", int(m.Released) == o.Released,
		"TasksReleased %.0f, table: %d claims for %d tasks = %d releases", m.Released, o.Claims, o.Tasks, o.Released)
	add("pipe dispatched each task once", int(m.PipeEvents) == r.Submitted && m.PipeFailed == 0 && m.EnrichDropped == 0,
		"pipe events %.0f for %d tasks, %.0f failed executions, %.0f records dropped by enrich", m.PipeEvents, r.Submitted, m.PipeFailed, m.EnrichDropped)
	var scraper *FunctionReport
	for i := range r.Functions {
		if r.Functions[i].Role == "scraper" {
			scraper = &r.Functions[i]
		}
	}
	if scraper != nil {
		add("scraper invocations = deliveries = REPORT lines", scraper.Stats.Invocations == r.Mapping.Batches && int64(scraper.Reports) == scraper.Stats.Invocations,
			"%d invocations, %d batches delivered by the event source mapping, %d REPORT lines", scraper.Stats.Invocations, r.Mapping.Batches, scraper.Reports)
		deliveries := int64(o.Claims) + int64(m.DuplicatesSkipped+m.ClaimsSkipped+m.PoisonForwarded)
		add("deliveries = claims + skipped", r.Mapping.Batches == deliveries,
			"%d deliveries; %d claims + %.0f duplicates + %.0f live-lease skips + %.0f poison = %d",
			r.Mapping.Batches, o.Claims, m.DuplicatesSkipped, m.ClaimsSkipped, m.PoisonForwarded, deliveries)
	} else {
		add("scraper invocations = deliveries = REPORT lines", false, "no scraper function in the report")
	}
	// A key page the crawl's budget left unfetched is recorded in the
	// document and counted (KeyPagesSkipped), and a loaded machine runs
	// out of budget sooner. So: no request beyond the expected ones (that
	// would be a repeated fetch), and no more missing than recorded skips.
	skipped := int64(m.KeyPagesSkipped)
	requestsOK := r.Web.Requests <= int64(exp.Requests) && r.Web.Requests+skipped >= int64(exp.Requests)
	add("fixture web requests = expected", requestsOK && r.Web.RobotsRequests == int64(exp.RobotsRequests),
		"%d requests to the sites + %d key pages skipped for the crawl's budget (%d key pages expected), expected %d; %d robots.txt requests, expected %d (extra ones would be fetches repeated by duplicate deliveries)",
		r.Web.Requests, skipped, exp.KeyPages, exp.Requests, r.Web.RobotsRequests, exp.RobotsRequests)
	var dlq []string
	for _, d := range r.DLQ {
		dlq = append(dlq, d.Queue+": "+d.Reason)
	}
	d := r.Documents
	// Object writes are idempotent, not unique: a retry or a duplicate
	// delivery rewrites the same key with the same bytes, so there may be
	// more PutObject calls than objects, never fewer.
	writes := 0
	for _, c := range r.Requests {
		if c.Service == "s3" && c.Operation == "PutObject" {
			writes += int(c.Count)
		}
	}
	add("one S3 document per Finished task, digests = rows", d.Objects == fin && d.Finished == fin && len(d.Unmatched) == 0 && len(d.BadRows) == 0 && writes >= d.Objects,
		"%d objects from %d object writes, %d Finished rows naming one (%d Finished); %d objects or rows unmatched%s, %d rows without a summary%s",
		d.Objects, writes, d.Finished, fin, len(d.Unmatched), listSuffix(d.Unmatched, 3), len(d.BadRows), listSuffix(d.BadRows, 3))
	add("DLQs empty", len(r.DLQ) == 0, "%d messages%s", len(r.DLQ), listSuffix(dlq, 3))
	add("pipeline quiet before counting", r.Quiet, "work queue drained and no invocation running: %v", r.Quiet)
	return cs
}

// emptyCheck is the check after terraform destroy.
func emptyCheck(left []string, err error) Check {
	switch {
	case err != nil:
		return Check{Name: "destroy leaves the local cloud empty", OK: false, Detail: err.Error()}
	case len(left) > 0:
		return Check{Name: "destroy leaves the local cloud empty", OK: false, Detail: "left: " + strings.Join(left, ", ")}
	}
	return Check{Name: "destroy leaves the local cloud empty", OK: true,
		Detail: "no table, queue, function, mapping, pipe, schedule, alarm, dashboard, log group or role left"}
}

func listSuffix(items []string, n int) string {
	if len(items) == 0 {
		return ""
	}
	more := ""
	if len(items) > n {
		more = fmt.Sprintf(", and %d more", len(items)-n)
		items = items[:n]
	}
	return ": " + strings.Join(items, "; ") + more
}
