package fixtureweb

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// Outcome is where an input line ends up. Finished and Failed are the
// task.State values of the terminal task.
type Outcome string

// The outcomes.
const (
	// Finished: the task ends Finished with a result.
	Finished Outcome = Outcome(task.StateFinished)
	// Failed: the task ends Failed, with Expectation.Kind.
	Failed Outcome = Outcome(task.StateFailed)
	// Rejected: weburl.Normalize refuses the line, so submitting it
	// creates no task.
	Rejected Outcome = "Rejected"
	// Unknown: a valid URL that is not a page of this web (another host,
	// another path); nothing can be predicted about it.
	Unknown Outcome = "Unknown"
)

// Expectation is the predicted end of one input line, derived from the
// site's behaviour and Config.Limits under the rules of package scrape and
// the scraper's decision table (package handler): a fatal fetch error
// fails the task at once; a retryable one releases it for another claim,
// and a claim beyond the task's MaxAttempts fails it as exhausted.
//
// The prediction assumes a run without injected faults and the first
// visit to the site: a flaky or rate-limited site that has healed stays
// healed, so a second task for it needs fewer requests.
type Expectation struct {
	Line    string
	Outcome Outcome
	// Kind is task.KindFatal, task.KindRobots or task.KindExhausted for
	// Failed, "" otherwise.
	Kind task.ErrorKind
	// Site is the site's id, -1 for a line that names no site.
	Site     int
	Behavior Behavior
	// Truncated is the expected Summary.Truncated of a Finished task.
	Truncated bool
	// Claims is the task's final attempts count: the claims that run a
	// fetch, plus the lost ones of ExpectLosing.
	Claims int
	// Requests is the number of HTTP requests the web receives for the
	// line's site pages, redirects and key pages included.
	Requests int
	// KeyPages is the number of key pages a Finished task fetches.
	KeyPages int
	// RobotsRequests is the number of requests for the robots.txt of the
	// site's origin: one per claim that fetches (a crawl reads it first),
	// or the client's attempts when it answers 503.
	RobotsRequests int
	// Reason says why, in a few words.
	Reason string
}

// Matches reports whether a task that ended in state with kind meets the
// expectation. A site that never heals matches Failed with KindExhausted,
// and also with KindStuck: when the work queue's maxReceiveCount is not
// above the task's MaxAttempts, the queue gives up on the message before
// the claim that would mark it exhausted, and the reconciler fails it as
// stuck instead (docs/design.md §3).
func (e Expectation) Matches(state task.State, kind task.ErrorKind) bool {
	switch {
	case e.Outcome == Finished:
		return state == task.StateFinished
	case e.Outcome == Failed && (e.Kind == task.KindFatal || e.Kind == task.KindRobots):
		return state == task.StateFailed && kind == e.Kind
	case e.Outcome == Failed && e.Kind == task.KindExhausted:
		return state == task.StateFailed && (kind == task.KindExhausted || kind == task.KindStuck)
	}
	return false
}

// Expect predicts the outcome of one input line. Lines are judged the way
// the submitter judges them: weburl.Normalize first, so a line it rejects
// never becomes a task.
func (w *Web) Expect(line string) Expectation {
	return w.ExpectLosing(line, 0)
}

// ExpectLosing predicts the outcome of one input line when a number
// (lost) of the task's claims end before they fetch anything (a worker killed right
// after its claim): those claims count against the task's attempts and
// send no request, and the fetching claims follow the rules of Expect. A
// task whose claims are all lost fails as exhausted without a request.
func (w *Web) ExpectLosing(line string, lost int) Expectation {
	e := Expectation{Line: line, Site: -1}
	u, err := weburl.Normalize(line)
	if err != nil {
		e.Outcome, e.Reason = Rejected, err.Error()
		return e
	}
	id, ok := w.siteOf(u)
	if !ok {
		e.Outcome, e.Reason = Unknown, "not a home page of this fixture web ("+w.BaseURL()+")"
		return e
	}
	s := w.sites[id]
	e.Site, e.Behavior = id, s.Behavior
	w.expectSite(&e, s, max(0, lost))
	return e
}

// siteOf returns the site whose home page u is, on this web's origin.
func (w *Web) siteOf(u *url.URL) (int, bool) {
	base := w.BaseURL()
	if base == "" {
		return 0, false
	}
	id, rest, ok := w.parseSitePath(u.Path)
	if !ok || rest != "/" {
		return 0, false
	}
	bu, err := weburl.Normalize(w.origin(w.sites[id].Robots))
	if err != nil || bu.Scheme != u.Scheme || bu.Host != u.Host {
		return 0, false
	}
	return id, true
}

// keyPages is the number of key pages a crawl of site s fetches: the
// scraper's own choice (site.ChooseKeyPages) from the links every page of
// the site has (one product link stands for all: they differ only in
// their query; a home page cut at the body cap has lost its footer and
// the footer's link), less those its robots.txt disallows.
func (w *Web) keyPages(s Site, homePath string, cut bool) int {
	c := newContent(w.cfg.Seed, s.ID)
	start := &url.URL{Scheme: "http", Host: "fixture.invalid", Path: homePath}
	var links []site.Link
	nav := c.links()
	if cut {
		nav = nav[:len(nav)-1]
	}
	for _, l := range append(nav, link{sitePath(s.ID) + "contact?item=1", c.lang.contact}) {
		if u, err := start.Parse(l.href); err == nil {
			links = append(links, site.Link{URL: u.String(), Text: l.text})
		}
	}
	n := 0
	for _, k := range site.ChooseKeyPages(start, links, w.cfg.Limits.MaxPages) {
		if u, err := url.Parse(k.URL); err == nil && !s.Robots.disallows(u.Path) {
			n++
		}
	}
	return n
}

// expectSite fills in the outcome of a first visit to s when lost claims
// fetch nothing. Lost claims are counted first: which of the claims were
// lost changes no count, since a claim after the one that ends the task
// never happens.
func (w *Web) expectSite(e *Expectation, s Site, lost int) {
	l := w.cfg.Limits
	fetching := max(0, l.Claims-lost)
	if fetching == 0 {
		e.Outcome, e.Kind, e.Requests, e.Claims = Failed, task.KindExhausted, 0, l.Claims
		e.Reason = fmt.Sprintf("all %d claims lost before a fetch", l.Claims)
		return
	}
	lostNote := ""
	if lost > 0 {
		lostNote = fmt.Sprintf(" (%d claims lost before a fetch)", lost)
	}
	// A crawl reads robots.txt before anything else, once per claim.
	perClaimRobots := 1
	if s.Robots == RobotsServerError {
		perClaimRobots = l.FetchAttempts
	}
	defer func() { e.RobotsRequests = perClaimRobots * max(0, e.Claims-lost) }()
	if s.Robots == RobotsDisallowAll || s.Robots == RobotsServerError {
		e.Outcome, e.Kind, e.Requests, e.Claims = Failed, task.KindRobots, 0, 1+lost
		e.Reason = "robots.txt " + string(s.Robots) + ": the start URL is disallowed" + lostNote
		return
	}
	homePath := sitePath(s.ID)
	if s.Behavior == RedirectChain {
		homePath += "final"
	}
	done := func(requests, claims int, why string) {
		e.KeyPages = w.keyPages(s, homePath, e.Truncated)
		e.Outcome, e.Requests, e.Claims = Finished, requests+e.KeyPages, claims+lost
		e.Reason = fmt.Sprintf("%s, %d key pages%s", why, e.KeyPages, lostNote)
	}
	fatal := func(requests int, why string) {
		e.Outcome, e.Kind, e.Requests, e.Claims, e.Reason = Failed, task.KindFatal, requests, 1+lost, why+lostNote
	}
	// Every claim fetches perClaim times and fails retryably, until the
	// task runs out of claims.
	exhausted := func(perClaim int, why string) {
		e.Outcome, e.Kind = Failed, task.KindExhausted
		e.Requests, e.Claims = perClaim*fetching, l.Claims
		e.Reason = fmt.Sprintf("%s: retryable on every fetch, %d claims of %d fetches%s", why, fetching, perClaim, lostNote)
	}
	// A site that fails its first k home-page requests retryably and then
	// answers: it heals if the task's fetches outnumber its failures.
	heal := func(k, perClaim int, why string) {
		if k < perClaim*fetching {
			done(k+1, k/perClaim+1, fmt.Sprintf("%s %d times, 200 on request %d", why, k, k+1))
			return
		}
		exhausted(perClaim, fmt.Sprintf("%s %d times", why, k))
	}
	// New made sure d is either within or beyond the timeout.
	timed := func(d time.Duration, what string) {
		if within(d, l.FetchTimeout) {
			done(1, 1, fmt.Sprintf("%s %v, within the %v fetch timeout", what, d, l.FetchTimeout))
			return
		}
		exhausted(l.FetchAttempts, fmt.Sprintf("%s %v, beyond the %v fetch timeout", what, d, l.FetchTimeout))
	}

	switch s.Behavior {
	case Healthy:
		done(1, 1, "200 with an HTML page")
	case Slow:
		timed(s.Delay, "answers after")
	case SlowDrip:
		timed(s.Drip, "body trickles over")
	case Flaky:
		heal(s.Failures, l.FetchAttempts, "503")
	case RateLimited:
		// A Retry-After the client will not wait for ends the claim's
		// fetches at once (scrape.Options.MaxRetryAfter).
		per, why := l.FetchAttempts, "429 with Retry-After "+w.cfg.RetryAfter.String()
		if w.cfg.RetryAfter > l.MaxRetryAfter {
			per, why = 1, why+" (longer than the client waits)"
		}
		heal(s.Failures, per, why)
	case ServerError:
		exhausted(l.FetchAttempts, "status "+strconv.Itoa(s.Status))
	case NotFound:
		fatal(1, "status 404 is fatal")
	case NotHTML:
		fatal(1, "application/pdf is not HTML: fatal")
	case RedirectChain:
		if s.Hops <= l.MaxRedirects {
			done(s.Hops+1, 1, fmt.Sprintf("%d redirects to a healthy page", s.Hops))
			return
		}
		fatal(l.MaxRedirects+1, fmt.Sprintf("%d redirects, more than %d is fatal", s.Hops, l.MaxRedirects))
	case RedirectLoop:
		fatal(l.MaxRedirects+1, fmt.Sprintf("redirect loop: more than %d redirects is fatal", l.MaxRedirects))
	case Huge:
		e.Truncated = w.cfg.HugeBytes > l.MaxBodyBytes
		why := fmt.Sprintf("%d-byte page", w.cfg.HugeBytes)
		if e.Truncated {
			why += fmt.Sprintf(", cut at %d bytes", l.MaxBodyBytes)
		}
		done(1, 1, why)
	default:
		// Unreachable: New draws only known behaviours.
		e.Outcome, e.Reason = Unknown, "unknown behaviour "+string(s.Behavior)
	}
}

// Tally is the expected count of each outcome over a list of lines.
type Tally struct {
	Lines    int
	Rejected int
	Unknown  int
	// Tasks is the number of lines that become tasks: Lines - Rejected.
	Tasks           int
	Finished        int
	Truncated       int
	FailedFatal     int
	FailedRobots    int
	FailedExhausted int
	// Requests is the number of requests the web should see, summed over
	// the lines that name a site.
	Requests int
	// KeyPages and RobotsRequests add up the lines' expectations.
	KeyPages       int
	RobotsRequests int
	ByBehavior     map[Behavior]int
}

// Tally adds up the expectations of lines, each predicted as a first
// visit (see Expectation).
func (w *Web) Tally(lines []string) Tally {
	t := Tally{Lines: len(lines), ByBehavior: make(map[Behavior]int)}
	for _, line := range lines {
		e := w.Expect(line)
		switch {
		case e.Outcome == Rejected:
			t.Rejected++
			continue
		case e.Outcome == Unknown:
			t.Unknown++
		case e.Outcome == Finished:
			t.Finished++
		case e.Kind == task.KindFatal:
			t.FailedFatal++
		case e.Kind == task.KindRobots:
			t.FailedRobots++
		default:
			t.FailedExhausted++
		}
		t.Tasks++
		if e.Truncated {
			t.Truncated++
		}
		if e.Site >= 0 {
			t.ByBehavior[e.Behavior]++
			t.Requests += e.Requests
			t.KeyPages += e.KeyPages
			t.RobotsRequests += e.RobotsRequests
		}
	}
	return t
}

// String reports the tally on one line, for logs.
func (t Tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines: %d rejected, %d tasks (%d finished of which %d truncated, %d failed fatal, %d failed robots, %d failed exhausted",
		t.Lines, t.Rejected, t.Tasks, t.Finished, t.Truncated, t.FailedFatal, t.FailedRobots, t.FailedExhausted)
	if t.Unknown > 0 {
		fmt.Fprintf(&b, ", %d unknown", t.Unknown)
	}
	fmt.Fprintf(&b, "), %d requests (%d key pages), %d robots.txt requests", t.Requests, t.KeyPages, t.RobotsRequests)
	return b.String()
}
