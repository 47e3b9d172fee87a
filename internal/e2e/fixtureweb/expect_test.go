package fixtureweb

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// outcome is how a task ended in runTask.
type outcome struct {
	state   task.State
	kind    task.ErrorKind
	claims  int
	summary scrape.Summary
	doc     *site.Document
	err     error
}

// runTask plays the scraper's decision table (package handler) for one
// task with a real scrape.Client: each claim scrapes; success finishes
// the task, a fatal error fails it, a retryable one releases it for the
// next claim; a claim beyond maxAttempts fails it as exhausted. The first
// lost claims end before they scrape, as a worker killed right after its
// claim does.
func runTask(ctx context.Context, c *scrape.Client, url string, maxAttempts, lost int) outcome {
	var last error
	for claim := 1; claim <= maxAttempts; claim++ {
		if claim <= lost {
			continue
		}
		doc, err := c.Crawl(ctx, url)
		switch k := task.KindOf(err); {
		case err == nil:
			return outcome{state: task.StateFinished, claims: claim, summary: scrape.SummaryOf(doc), doc: doc}
		case k == task.KindFatal || k == task.KindRobots:
			return outcome{state: task.StateFailed, kind: k, claims: claim, err: err}
		}
		last = err
	}
	return outcome{state: task.StateFailed, kind: task.KindExhausted, claims: maxAttempts, err: last}
}

// tightOptions are scraper limits under which flaky and rate-limited sites
// can run out of claims, chains are too long and the huge page fits;
// tightConfig tells a web about them.
var tightOptions = scrape.Options{MaxAttempts: 1, FetchTimeout: time.Minute,
	MaxRetryAfter: 500 * time.Millisecond, MaxBodyBytes: 2 << 20, MaxRedirects: 2}

func tightConfig(seed int64, flakyFailures, rateLimitHits int) Config {
	c := fastConfig(seed)
	c.FlakyFailures, c.RateLimitHits = flakyFailures, rateLimitHits
	c.HugeBytes = 1 << 20
	c.Limits = Limits{FetchAttempts: 1, Claims: 2, FetchTimeout: time.Minute,
		MaxRetryAfter: 500 * time.Millisecond, MaxBodyBytes: 2 << 20, MaxRedirects: 2}
	// robots.txt variants would hide behaviours from these scenarios;
	// the defaults scenario crosses them with every behaviour.
	c.Robots = map[Robots]int{RobotsNone: 1}
	return c
}

// TestExpectationsMatchScraper is the cross-check: every site of a small
// web, one behaviour after another, is scraped with a real scrape.Client
// under the limits the web was told about, and the outcome, the claims,
// the requests the site received and the summary must be what Expect
// predicted. Three configurations: the scraper's defaults (with a shorter
// timeout); tight limits under which flaky and rate-limited sites can run
// out of claims, chains are too long and the huge page fits; and a
// slow-drip beyond the timeout; and the tight limits again with claims
// lost before they fetch (ExpectLosing), 0, 1 or 2 of them by site.
func TestExpectationsMatchScraper(t *testing.T) {
	t.Parallel()
	scenarios := []struct {
		name string
		cfg  func() Config
		opts scrape.Options
		// lost is the number of a site's claims lost before a fetch.
		lost func(site int) int
	}{
		{
			name: "defaults",
			cfg: func() Config {
				c := fastConfig(21)
				// The huge page and the body cap are scaled down from 6 and
				// 5 MiB: extracting 5 MiB takes seconds under -race.
				c.HugeBytes = 3 << 19
				c.Limits = Limits{FetchTimeout: time.Minute, MaxBodyBytes: 1 << 20}
				return c
			},
			opts: scrape.Options{FetchTimeout: time.Minute, MaxBodyBytes: 1 << 20},
		},
		{
			name: "tight",
			cfg:  func() Config { return tightConfig(22, 3, 2) },
			opts: tightOptions,
		},
		{
			// Slow and slow-drip sites beyond the timeout. A scenario of its
			// own because its timeout must be short to keep the test fast,
			// and a short timeout would make a page that should finish
			// fail on a loaded machine under -race. Here nothing can
			// finish early.
			name: "beyond",
			cfg: func() Config {
				c := fastConfig(23)
				c.Sites, c.Mix = 6, Mix{SlowDrip: 1, Slow: 1}
				c.SlowDelay = Span{Min: 2400 * time.Millisecond, Max: 2600 * time.Millisecond}
				c.DripDuration = c.SlowDelay
				c.Limits = Limits{FetchAttempts: 1, Claims: 1, FetchTimeout: 1600 * time.Millisecond}
				return c
			},
			opts: scrape.Options{MaxAttempts: 1, FetchTimeout: 1600 * time.Millisecond},
		},
		{
			name: "lost",
			cfg:  func() Config { return tightConfig(24, 1, 1) },
			opts: tightOptions,
			lost: func(site int) int { return site % 3 },
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			w := startWeb(t, sc.cfg())
			o := sc.opts
			o.AllowPrivateNetworks = true
			o.BackoffBase, o.BackoffMax = time.Millisecond, 2*time.Millisecond
			// Retry-After waits are skipped: the rate-limited sites heal by
			// count, not by time, so waiting would only slow the test.
			o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
			c, err := scrape.New(o)
			require.NoError(t, err)
			require.Equal(t, w.cfg.Limits, LimitsOf(o, w.cfg.Limits.Claims).withDefaults(),
				"the web predicts for this scraper")

			// Scrape 16 sites at a time (subtests would run only GOMAXPROCS
			// at a time, and most of the sites wait), then check each.
			sites := w.Sites()
			lost := func(site int) int {
				if sc.lost == nil {
					return 0
				}
				return sc.lost(site)
			}
			got := make([]outcome, len(sites))
			var wg sync.WaitGroup
			slots := make(chan struct{}, 16)
			for i, s := range sites {
				wg.Go(func() {
					slots <- struct{}{}
					defer func() { <-slots }()
					got[i] = runTask(t.Context(), c, w.SiteURL(s.ID), w.cfg.Limits.Claims, lost(s.ID))
				})
			}
			wg.Wait()

			seen := map[Behavior]map[Outcome]int{}
			for i, s := range sites {
				e := w.ExpectLosing(w.SiteURL(s.ID), lost(s.ID))
				if seen[s.Behavior] == nil {
					seen[s.Behavior] = map[Outcome]int{}
				}
				seen[s.Behavior][e.Outcome]++
				t.Run(s.String(), func(t *testing.T) {
					got := got[i]
					require.Equal(t, s.ID, e.Site)
					require.Truef(t, e.Matches(got.state, got.kind), "expected %s %s (%s), got %s %s: %v",
						e.Outcome, e.Kind, e.Reason, got.state, got.kind, got.err)
					require.Equal(t, string(e.Outcome), string(got.state))
					require.Equal(t, e.Kind, got.kind)
					require.Equal(t, e.Claims, got.claims, "claims")
					require.Equal(t, int64(e.Requests), w.Requests(s.ID), "requests to the site")
					if got.state == task.StateFinished {
						requireSummary(t, w, s, e, got.summary)
						require.Len(t, got.doc.Pages, 1+e.KeyPages, "key pages")
						require.NotEmpty(t, got.doc.Text, "main content of the home page")
						require.NotEmpty(t, got.doc.Contacts.Phones, "phone numbers")
					}
				})
			}
			wantRobots := 0
			for _, s := range sites {
				wantRobots += w.ExpectLosing(w.SiteURL(s.ID), lost(s.ID)).RobotsRequests
			}
			require.Equal(t, int64(wantRobots), w.Stats().RobotsRequests, "robots.txt requests")
			// Both scenarios must reach the interesting branches, or the
			// cross-check proves less than it claims.
			t.Logf("%s: outcomes by behaviour %v", sc.name, seen)
			switch sc.name {
			case "defaults":
				for _, b := range Behaviors() {
					require.NotEmpty(t, seen[b], "no %s site", b)
				}
			case "tight":
				for _, b := range []Behavior{Flaky, RateLimited, RedirectChain} {
					require.Positive(t, seen[b][Finished], "%s: no site that finishes", b)
					require.Positive(t, seen[b][Failed], "%s: no site that fails", b)
				}
			case "beyond":
				require.Equal(t, map[Behavior]map[Outcome]int{
					SlowDrip: {Failed: seen[SlowDrip][Failed]},
					Slow:     {Failed: seen[Slow][Failed]},
				}, seen)
				require.Positive(t, seen[SlowDrip][Failed])
				require.Positive(t, seen[Slow][Failed])
			case "lost":
				// Healthy sites finish after lost claims and fail once
				// every claim was lost; a flaky one needs both claims.
				require.Positive(t, seen[Healthy][Finished])
				require.Positive(t, seen[Healthy][Failed])
				require.Positive(t, seen[Flaky][Failed])
			}
		})
	}
}

// requireSummary checks a finished scrape against the page the site
// serves.
func requireSummary(t *testing.T, w *Web, s Site, e Expectation, sum scrape.Summary) {
	t.Helper()
	page, ok := w.Page(s.ID)
	require.True(t, ok)
	require.Equal(t, 200, sum.Status)
	require.Equal(t, e.Truncated, sum.Truncated, "truncated")
	require.Equal(t, page.Title, sum.Title)
	require.Equal(t, page.Description, sum.Description)
	require.Equal(t, page.Lang, sum.Lang)
	require.Equal(t, page.H1, sum.H1)
	require.Equal(t, w.SiteURL(s.ID), sum.Canonical)
	if s.Behavior == RedirectChain {
		require.Equal(t, w.SiteURL(s.ID)+"final", sum.URL)
	} else {
		require.Equal(t, w.SiteURL(s.ID), sum.URL)
	}
	// Every address: the home page's top and footer, and the contact
	// page, which lists them all, also when the home page was cut.
	require.Equal(t, page.Emails, sum.Emails)
	if sum.Truncated {
		return
	}
	require.Len(t, sum.Socials, len(page.Socials), "profiles, without the share button")
	require.GreaterOrEqual(t, sum.InternalLinks, 4)
	require.Positive(t, sum.ExternalLinks)
}

// TestInvalidLinesRejected checks every kind of invalid line against
// weburl.Normalize directly, and that the scraper would refuse them too.
func TestInvalidLinesRejected(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Sites: 10, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(t, err)
	c, err := scrape.New(scrape.Options{AllowPrivateNetworks: true})
	require.NoError(t, err)
	for _, k := range invalidLines {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			line := k.line(w.BaseURL())
			_, err := weburl.Normalize(line)
			require.ErrorIs(t, err, weburl.ErrInvalid)
			e := w.Expect(line)
			require.Equal(t, Rejected, e.Outcome)
			require.Equal(t, -1, e.Site)
			require.False(t, e.Matches(task.StateFailed, task.KindFatal))
			res, err := c.Scrape(t.Context(), line)
			require.Equal(t, task.KindFatal, task.KindOf(err))
			require.Zero(t, res.Attempts)
		})
	}
}

func TestExpectOtherLines(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Sites: 10, Mix: Mix{Healthy: 1}, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(t, err)
	tests := []struct {
		line    string
		outcome Outcome
		site    int
	}{
		{"http://127.0.0.1:8099/site/3/", Finished, 3},
		{"  HTTP://127.0.0.1:8099/site/3/#top  ", Finished, 3}, // normalized like the submitter does
		{"http://127.0.0.1:8099/site/3", Finished, 3},
		{"http://127.0.0.1:8099/site/3/?utm=x", Finished, 3},
		{"http://127.0.0.1:8099/site/3/about", Unknown, -1},
		{"http://127.0.0.1:8099/site/10/", Unknown, -1},
		{"http://127.0.0.1:8098/site/3/", Unknown, -1},
		{"https://127.0.0.1:8099/site/3/", Unknown, -1},
		{"https://example.com/", Unknown, -1},
		{"example.com", Unknown, -1},
		{"", Rejected, -1},
	}
	for _, tt := range tests {
		e := w.Expect(tt.line)
		require.Equal(t, tt.outcome, e.Outcome, tt.line)
		require.Equal(t, tt.site, e.Site, tt.line)
		require.Equal(t, tt.line, e.Line)
		require.NotEmpty(t, e.Reason)
	}

	unstarted, err := New(Config{Sites: 10})
	require.NoError(t, err)
	require.Equal(t, Unknown, unstarted.Expect("http://127.0.0.1:8099/site/3/").Outcome,
		"without a BaseURL no line is a site")
}

func TestMatches(t *testing.T) {
	t.Parallel()
	fin := Expectation{Outcome: Finished}
	fatal := Expectation{Outcome: Failed, Kind: task.KindFatal}
	exh := Expectation{Outcome: Failed, Kind: task.KindExhausted}
	rej := Expectation{Outcome: Rejected}
	tests := []struct {
		e     Expectation
		state task.State
		kind  task.ErrorKind
		want  bool
	}{
		{fin, task.StateFinished, "", true},
		{fin, task.StateFailed, task.KindFatal, false},
		{fin, task.StateRunning, "", false},
		{fatal, task.StateFailed, task.KindFatal, true},
		{fatal, task.StateFailed, task.KindExhausted, false},
		{fatal, task.StateFinished, "", false},
		{exh, task.StateFailed, task.KindExhausted, true},
		{exh, task.StateFailed, task.KindStuck, true},
		{exh, task.StateFailed, task.KindFatal, false},
		{exh, task.StatePending, "", false},
		{rej, task.StateFailed, task.KindFatal, false},
		{rej, task.StateFinished, "", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.e.Matches(tt.state, tt.kind), "%+v vs %s %s", tt.e, tt.state, tt.kind)
	}
}

// TestTallyDemo checks the demo's numbers: 3,575 lines with the default
// configuration, counted per outcome, and that the counts add up.
func TestTallyDemo(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Seed: 1, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(t, err)
	lines := w.URLs(DefaultSites)
	tally := w.Tally(lines)
	t.Log(tally)
	require.Equal(t, DefaultSites, tally.Lines)
	require.Equal(t, 72, tally.Rejected, "round(3575 × 2%)")
	require.Equal(t, tally.Lines-tally.Rejected, tally.Tasks)
	require.Zero(t, tally.Unknown)
	require.Equal(t, tally.Tasks, tally.Finished+tally.FailedFatal+tally.FailedExhausted)
	var byBehavior, requests int
	for _, n := range tally.ByBehavior {
		byBehavior += n
	}
	for _, l := range lines {
		requests += w.Expect(l).Requests
	}
	require.Equal(t, tally.Tasks, byBehavior)
	require.Equal(t, requests, tally.Requests)
	require.Equal(t, tally.ByBehavior[Huge], tally.Truncated, "every huge page is cut at 5 MiB")
	// With the defaults every failure is predictable from the behaviour.
	require.Equal(t, tally.ByBehavior[ServerError], tally.FailedExhausted)
	require.Equal(t, tally.ByBehavior[NotFound]+tally.ByBehavior[NotHTML]+tally.ByBehavior[RedirectLoop], tally.FailedFatal)
	require.True(t, strings.HasPrefix(tally.String(), "3575 lines: 72 rejected, 3503 tasks"), tally.String())
}
