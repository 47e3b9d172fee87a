package scrape

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// homePage links the key pages a crawl should choose, a file, and an
// external site.
const homePage = `<!DOCTYPE html><html lang="de"><head><title>Bäckerei Müller</title>
<meta property="og:site_name" content="Bäckerei Müller GmbH">
<link rel="alternate" hreflang="en" href="/en/">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Bakery","name":"Bäckerei Müller GmbH",
 "telephone":"+49 30 1234567","address":{"@type":"PostalAddress","streetAddress":"Hauptstraße 1","postalCode":"10115","addressLocality":"Berlin","addressCountry":"DE"}}</script>
</head><body><nav><a href="/">Start</a> <a href="/ueber-uns">Über uns</a> <a href="/kontakt">Kontakt</a>
<a href="/impressum">Impressum</a> <a href="/karriere">Karriere</a> <a href="/preise.pdf">Preise</a>
<a href="https://other.example/kontakt">Partner</a></nav>
<main><h1>Frisches Brot</h1><p>Seit 1950 backen wir in Berlin jeden Morgen frisches Brot, Brötchen und Kuchen nach alten Rezepten.
Unsere Bäcker beginnen um drei Uhr nachts, damit Sie um sechs Uhr frische Ware bekommen.</p>
<p>Wir verwenden Mehl aus der Region und verzichten auf Zusatzstoffe.</p></main>
<footer>Tel.: 030 1234 5678 · <a href="tel:+49301234567">anrufen</a> · info@mueller-baeckerei.example</footer></body></html>`

func keyPageHTML(title string) string {
	return `<!DOCTYPE html><html lang="de"><title>` + title + `</title><body><main><h1>` + title + `</h1><p>` +
		strings.Repeat("Wir sind ein Familienbetrieb in dritter Generation und backen mit Leidenschaft. ", 5) +
		`</p></main><footer>Fax: 030 9999 9999 Telefon: 030 2222 3333</footer></body></html>`
}

// site is a test web site whose robots.txt handler a test chooses; it
// counts requests per path.
type testSite struct {
	*server
	mu   sync.Mutex
	hits map[string]int
}

func (s *testSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func newSite(t *testing.T, robots http.HandlerFunc, pages map[string]http.HandlerFunc) *testSite {
	t.Helper()
	ts := &testSite{hits: map[string]int{}}
	ts.server = serve(t, func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.hits[r.URL.Path]++
		ts.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			if robots == nil {
				http.NotFound(w, r)
				return
			}
			robots(w, r)
			return
		}
		if h, ok := pages[r.URL.Path]; ok {
			h(w, r)
			return
		}
		switch r.URL.Path {
		case "/":
			htmlHandler(homePage)(w, r)
		case "/ueber-uns", "/kontakt", "/impressum", "/karriere":
			htmlHandler(keyPageHTML(strings.TrimPrefix(r.URL.Path, "/")))(w, r)
		default:
			http.NotFound(w, r)
		}
	})
	return ts
}

func robotsText(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(body))
	}
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func roles(d *site.Document) []site.PageRole {
	var out []site.PageRole
	for _, p := range d.Pages {
		out = append(out, p.Role)
	}
	return out
}

func fetchOf(d *site.Document, suffix string) site.Fetch {
	for _, f := range d.Fetches {
		if strings.HasSuffix(f.URL, suffix) {
			return f
		}
	}
	return site.Fetch{}
}

// TestCrawlDocument: the start page and its key pages, chosen by link
// text and path in German, with their main content, contacts and
// structured data; the PDF and the other site are not fetched.
func TestCrawlDocument(t *testing.T) {
	t.Parallel()
	s := newSite(t, robotsText("User-agent: *\nAllow: /\n"), nil)
	c, _ := newClient(t, Options{}, s.server)
	d, err := c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Equal(t, []site.PageRole{site.RoleStart, site.RoleContact, site.RoleImprint, site.RoleAbout, site.RoleCareers}, roles(d))
	require.Equal(t, "Bäckerei Müller GmbH", d.Name)
	require.Equal(t, []string{"de"}, d.Languages)
	require.Contains(t, d.Text, "Seit 1950 backen wir")
	require.NotContains(t, d.Text, "Frisches Brot", "the headline has its own field")
	require.NotContains(t, d.Text, "Impressum", "navigation is boilerplate")
	require.Contains(t, d.Pages[0].Markdown, "Seit 1950")
	require.Equal(t, []string{"info@mueller-baeckerei.example"}, d.Contacts.Emails)
	var e164 []string
	for _, p := range d.Contacts.Phones {
		e164 = append(e164, p.E164+"/"+string(p.Source))
	}
	require.Equal(t, []string{"+49301234567/tel-link", "+493012345678/text", "+493022223333/text"}, e164,
		"tel: links first, then the text; the fax number is not a phone")
	require.Len(t, d.Organizations, 1)
	require.Equal(t, "Bakery", d.Organizations[0].Type)
	require.Equal(t, "+49301234567", d.Organizations[0].Telephone)
	require.Equal(t, []site.PostalAddress{{StreetAddress: "Hauptstraße 1", PostalCode: "10115", Locality: "Berlin", Country: "DE"}}, d.Contacts.Addresses)
	require.Equal(t, []site.Alternate{{Hreflang: "en", URL: s.URL + "/en/"}}, d.Alternates)
	require.Equal(t, site.RobotsRules, d.Robots[0].Outcome)
	require.Equal(t, 1, s.count("/robots.txt"), "robots.txt once per crawl")
	require.Zero(t, s.count("/preise.pdf"))
	require.Equal(t, 1, s.count("/kontakt"))
	b, err := d.Marshal()
	require.NoError(t, err)
	_, err = site.Unmarshal(b)
	require.NoError(t, err)
}

// TestCrawlRobots covers the outcomes of RFC 9309 §2.3.1 with a test
// server: rules, 4xx, 5xx, 429, a network error, redirects within and
// beyond five, and a file over 500 KiB.
func TestCrawlRobots(t *testing.T) {
	t.Parallel()
	redirects := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n), http.StatusMovedPermanently)
		}
	}
	hop := func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscanf(r.URL.Path, "/r/%d", &n)
		if n <= 1 {
			robotsText("User-agent: *\nDisallow: /kontakt\n")(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
	}
	reset := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.(*net.TCPConn).SetLinger(0)
			_ = conn.Close()
		}
	}
	hopPages := map[string]http.HandlerFunc{}
	for i := 1; i <= 7; i++ {
		hopPages[fmt.Sprintf("/r/%d", i)] = hop
	}
	tests := []struct {
		name        string
		robots      http.HandlerFunc
		wantKind    task.ErrorKind // "" for a document
		wantReason  string
		outcome     site.RobotsOutcome
		robotsHits  int
		wantSkipped string // key page disallowed
	}{
		{name: "disallow all", robots: robotsText("User-agent: *\nDisallow: /\n"), wantKind: task.KindRobots,
			wantReason: "rule Disallow: /", robotsHits: 1},
		{name: "our agent disallowed, others allowed", robots: robotsText("User-agent: *\nAllow: /\n\nUser-agent: taskpipe-scraper\nDisallow: /\n"),
			wantKind: task.KindRobots, wantReason: "for user-agent taskpipe-scraper (rule Disallow: /)", robotsHits: 1},
		{name: "a key page disallowed", robots: robotsText("User-agent: *\nDisallow: /kontakt\n"), outcome: site.RobotsRules,
			robotsHits: 1, wantSkipped: "/kontakt"},
		{name: "404 allows all", robots: status(404), outcome: site.RobotsAllowAll, robotsHits: 1},
		{name: "403 allows all", robots: status(403), outcome: site.RobotsAllowAll, robotsHits: 1},
		{name: "500 disallows all", robots: status(500), wantKind: task.KindRobots, wantReason: "unreachable", robotsHits: 3},
		{name: "429 disallows all", robots: status(429), wantKind: task.KindRobots, wantReason: "unreachable", robotsHits: 3},
		{name: "connection reset disallows all", robots: reset, wantKind: task.KindRobots, wantReason: "unreachable", robotsHits: 3},
		{name: "5 redirects are followed", robots: redirects(4), outcome: site.RobotsRules, robotsHits: 1, wantSkipped: "/kontakt"},
		{name: "more than 5 redirects: unavailable, allow all", robots: redirects(7), outcome: site.RobotsAllowAll, robotsHits: 1},
		{name: "over 500 KiB is cut and parsed", robots: robotsText("User-agent: *\nDisallow: /kontakt\n" + strings.Repeat("# padding\n", 60<<10)),
			outcome: site.RobotsRules, robotsHits: 1, wantSkipped: "/kontakt"},
		{name: "empty file allows all", robots: robotsText(""), outcome: site.RobotsRules, robotsHits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, tt.robots, hopPages)
			c, _ := newClient(t, Options{BackoffBase: time.Millisecond}, s.server)
			d, err := c.Crawl(context.Background(), s.URL+"/")
			require.Equal(t, tt.robotsHits, s.count("/robots.txt"), "robots.txt requests")
			if tt.wantKind != "" {
				require.Error(t, err)
				require.Equal(t, tt.wantKind, task.KindOf(err), "%v", err)
				require.Contains(t, err.Error(), tt.wantReason)
				require.Zero(t, s.count("/"), "no page request when the start URL is disallowed")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.outcome, d.Robots[0].Outcome)
			require.Equal(t, 1, s.count("/"))
			if tt.wantSkipped != "" {
				require.Zero(t, s.count(tt.wantSkipped))
				f := fetchOf(d, tt.wantSkipped)
				require.Equal(t, site.FetchDisallowed, f.Outcome)
				require.Contains(t, f.Error, "Disallow: "+tt.wantSkipped)
			} else {
				require.Equal(t, 1, s.count("/kontakt"))
			}
		})
	}
}

// TestCrawlDelay: a Crawl-delay spaces this crawl's page fetches of the
// origin; one that does not fit the time left skips the key pages.
func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	s := newSite(t, robotsText("User-agent: *\nCrawl-delay: 2\n"), nil)
	c, rec := newClient(t, Options{}, s.server)
	d, err := c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Len(t, d.Pages, 5)
	require.Equal(t, 2.0, d.Robots[0].CrawlDelaySeconds)
	waits := rec.get()
	require.Len(t, waits, 4, "one wait before each key page")
	for _, w := range waits {
		require.Greater(t, w, time.Second)
		require.LessOrEqual(t, w, 2*time.Second)
	}

	ctx, cancel := context.WithTimeout(context.Background(), DefaultCrawlReserve+time.Second)
	defer cancel()
	d, err = c.Crawl(ctx, s.URL)
	require.NoError(t, err, "a key page skipped for the budget never fails the crawl")
	require.Len(t, d.Pages, 1)
	require.Equal(t, site.FetchSkipped, fetchOf(d, "/kontakt").Outcome)
	require.Contains(t, fetchOf(d, "/kontakt").Error, "Crawl-delay")
	require.True(t, d.Truncated)
}

// TestCrawlKeyPageFailures: a key page that fails (a 500 on every attempt,
// a 404) is recorded and skipped; only the start page decides.
func TestCrawlKeyPageFailures(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil, map[string]http.HandlerFunc{"/kontakt": status(500), "/impressum": status(404)})
	c, _ := newClient(t, Options{BackoffBase: time.Millisecond}, s.server)
	d, err := c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Equal(t, []site.PageRole{site.RoleStart, site.RoleAbout, site.RoleCareers}, roles(d))
	require.Equal(t, site.FetchFailed, fetchOf(d, "/kontakt").Outcome)
	require.Equal(t, 3, fetchOf(d, "/kontakt").Attempts, "at most 3 fetches per URL")
	require.Equal(t, 3, s.count("/kontakt"))
	require.Equal(t, 404, fetchOf(d, "/impressum").Status)
	require.Equal(t, 1, s.count("/impressum"))
	require.Equal(t, site.RobotsAllowAll, d.Robots[0].Outcome)
}

// TestCrawlBudget: the byte budget and the page limit bound the crawl.
func TestCrawlBudget(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil, nil)
	c, _ := newClient(t, Options{MaxCrawlBytes: int64(len(homePage)) + 100}, s.server)
	d, err := c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Len(t, d.Pages, 1, "less than a key page's minimum is left")
	require.Equal(t, site.FetchSkipped, fetchOf(d, "/impressum").Outcome)

	c, _ = newClient(t, Options{MaxPages: 2}, s.server)
	d, err = c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Equal(t, []site.PageRole{site.RoleStart, site.RoleContact, site.RoleImprint}, roles(d))

	c, _ = newClient(t, Options{MaxPages: -1}, s.server)
	d, err = c.Crawl(context.Background(), s.URL)
	require.NoError(t, err)
	require.Len(t, d.Pages, 1)
}

// TestCrawlOptOut: a domain on the opt-out list, or a subdomain of one,
// fails with task.KindOptOut before any request.
func TestCrawlOptOut(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil, nil)
	c, _ := newClient(t, Options{OptOut: []string{"127.0.0.1", "optout.example"}}, s.server)
	for _, u := range []string{s.URL, "https://optout.example/", "https://www.shop.optout.example/x"} {
		_, err := c.Crawl(context.Background(), u)
		require.Equal(t, task.KindOptOut, task.KindOf(err), "%s: %v", u, err)
		require.Contains(t, err.Error(), "opt-out list")
	}
	require.Zero(t, s.server.hits.Load())
	_, err := New(Options{OptOut: []string{"Example.COM"}})
	require.ErrorContains(t, err, "not a lowercase domain")
}
