package fixtureweb

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"
)

// TestBehaviorsServed fetches the home page of one site of each behaviour
// with a plain client and checks the response against the behaviour's
// definition.
func TestBehaviorsServed(t *testing.T) {
	t.Parallel()
	w := startWeb(t, fastConfig(11))
	c := noRedirects()
	home := func(s Site) string { return w.SiteURL(s.ID) }

	tests := []struct {
		b     Behavior
		check func(t *testing.T, s Site)
	}{
		{Healthy, func(t *testing.T, s Site) {
			r := get(t, c, home(s))
			requireHTMLPage(t, w, s, r)
		}},
		{Slow, func(t *testing.T, s Site) {
			r := get(t, c, home(s))
			requireHTMLPage(t, w, s, r)
			// A lower bound only: the answer cannot come before the delay.
			require.GreaterOrEqual(t, r.elapsed, s.Delay)
		}},
		{Flaky, func(t *testing.T, s Site) {
			for range s.Failures {
				require.Equal(t, http.StatusServiceUnavailable, get(t, c, home(s)).status)
			}
			requireHTMLPage(t, w, s, get(t, c, home(s)))
			requireHTMLPage(t, w, s, get(t, c, home(s)))
		}},
		{ServerError, func(t *testing.T, s Site) {
			require.Contains(t, serverErrorStatuses, s.Status)
			for _, path := range []string{"", "about", "contact", "x"} {
				r := get(t, c, home(s)+path)
				require.Equal(t, s.Status, r.status, path)
				require.Empty(t, r.header.Get("Retry-After"))
			}
		}},
		{NotFound, func(t *testing.T, s Site) {
			for _, path := range []string{"", "about", "contact"} {
				require.Equal(t, http.StatusNotFound, get(t, c, home(s)+path).status, path)
			}
		}},
		{RedirectChain, func(t *testing.T, s Site) {
			require.GreaterOrEqual(t, s.Hops, minHops)
			require.LessOrEqual(t, s.Hops, maxHops)
			url, hops := home(s), 0
			for {
				r := get(t, c, url)
				if r.status == http.StatusOK {
					requireHTMLPage(t, w, s, r)
					require.True(t, strings.HasSuffix(url, "/final"), url)
					break
				}
				require.Contains(t, redirectCodes, r.status)
				hops++
				require.LessOrEqual(t, hops, s.Hops)
				url = w.origin(s.Robots) + r.header.Get("Location")
			}
			require.Equal(t, s.Hops, hops)
		}},
		{RedirectLoop, func(t *testing.T, s Site) {
			url := home(s)
			for range 6 {
				r := get(t, c, url)
				require.Contains(t, redirectCodes, r.status)
				next := w.origin(s.Robots) + r.header.Get("Location")
				require.NotEqual(t, url, next)
				url = next
			}
			require.Equal(t, home(s), url, "an even number of hops returns home")
		}},
		{Huge, func(t *testing.T, s Site) {
			r := get(t, c, home(s))
			require.Equal(t, http.StatusOK, r.status)
			require.Equal(t, int(w.cfg.HugeBytes), len(r.body))
			require.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"))
			require.True(t, bytes.HasSuffix(bytes.TrimSpace(r.body), []byte("</html>")))
			page, _ := w.Page(s.ID)
			requireHas(t, string(decode(t, r)[:4096]), "<title>"+htmlText(page.Title)+"</title>")
		}},
		{NotHTML, func(t *testing.T, s Site) {
			r := get(t, c, home(s))
			require.Equal(t, http.StatusOK, r.status)
			require.Equal(t, "application/pdf", r.header.Get("Content-Type"))
			require.True(t, bytes.HasPrefix(r.body, []byte("%PDF-")))
			require.Equal(t, "application/pdf", http.DetectContentType(r.body))
		}},
		{SlowDrip, func(t *testing.T, s Site) {
			r := get(t, c, home(s))
			requireHTMLPage(t, w, s, r)
			require.GreaterOrEqual(t, r.elapsed, s.Drip)
		}},
		{RateLimited, func(t *testing.T, s Site) {
			for range s.Failures {
				r := get(t, c, home(s))
				require.Equal(t, http.StatusTooManyRequests, r.status)
				require.Equal(t, "1", r.header.Get("Retry-After"))
			}
			requireHTMLPage(t, w, s, get(t, c, home(s)))
		}},
	}
	require.Len(t, tests, len(Behaviors()), "one case per behaviour")
	for _, tt := range tests {
		t.Run(string(tt.b), func(t *testing.T) {
			t.Parallel()
			tt.check(t, firstOf(t, w, tt.b))
		})
	}
}

// requireHTMLPage checks a 200 response carrying site s's home page.
func requireHTMLPage(t *testing.T, w *Web, s Site, r response) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status)
	require.True(t, strings.HasPrefix(r.header.Get("Content-Type"), "text/html"), r.header.Get("Content-Type"))
	page, ok := w.Page(s.ID)
	require.True(t, ok)
	text := string(decode(t, r))
	require.True(t, strings.HasSuffix(text, "</html>\n"), "the page is served whole")
	requireHas(t, text, `<html lang="`+page.Lang+`">`)
	requireHas(t, text, "<title>"+htmlText(page.Title)+"</title>")
	requireHas(t, text, `<meta name="description" content="`+htmlText(page.Description)+`">`)
	requireHas(t, text, `<link rel="canonical" href="`+w.origin(s.Robots)+page.Canonical+`">`)
	requireHas(t, text, "<h1>"+htmlText(page.H1)+"</h1>")
	requireHas(t, text, `href="`+sitePath(s.ID)+`about"`)
	requireHas(t, text, `href="`+sitePath(s.ID)+`contact"`)
	for _, e := range page.Emails {
		requireHas(t, text, "mailto:"+e)
	}
	for _, so := range page.Socials {
		requireHas(t, text, `href="`+so+`"`)
	}
}

// decode undoes the gzip and the charset of a page.
func decode(t *testing.T, r response) []byte {
	t.Helper()
	body := r.body
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err)
		body, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	if bytes.Contains(body[:min(len(body), 1024)], []byte(`charset="windows-1252"`)) {
		var err error
		body, err = charmap.Windows1252.NewDecoder().Bytes(body)
		require.NoError(t, err)
	}
	return body
}

// requireHas is require.Contains for long pages: on failure it prints the
// missing piece, not the page.
func requireHas(t *testing.T, text, piece string) {
	t.Helper()
	if !strings.Contains(text, piece) {
		require.Failf(t, "missing from the page", "%q (page of %d bytes begins %q)", piece, len(text), text[:min(len(text), 300)])
	}
}

func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}

// TestPageVariants checks the encodings: gzip for clients that accept it,
// windows-1252 declared in the page only, and the internal pages.
func TestPageVariants(t *testing.T) {
	t.Parallel()
	w := startWeb(t, Config{Seed: 3, Sites: 400, Mix: Mix{Healthy: 1}})
	c := noRedirects()
	var gz, latin, plain int
	for id := range 400 {
		page, _ := w.Page(id)
		switch {
		case page.Gzip && gz < 3:
			gz++
			r := get(t, c, w.SiteURL(id), "Accept-Encoding", "gzip, deflate")
			require.Equal(t, "gzip", r.header.Get("Content-Encoding"))
			requireHTMLPage(t, w, w.sites[id], r)
			// Without gzip in Accept-Encoding the same page comes plain.
			r = get(t, c, w.SiteURL(id), "Accept-Encoding", "gzip;q=0, deflate")
			require.Empty(t, r.header.Get("Content-Encoding"))
			requireHTMLPage(t, w, w.sites[id], r)
		case page.Charset == "windows-1252" && latin < 3:
			latin++
			r := get(t, c, w.SiteURL(id))
			require.Equal(t, "text/html", r.header.Get("Content-Type"))
			requireHas(t, string(r.body[:1024]), `<meta charset="windows-1252">`)
			requireHTMLPage(t, w, w.sites[id], r)
		case plain < 3:
			plain++
			for _, sub := range []string{"about", "contact"} {
				r := get(t, c, w.SiteURL(id)+sub)
				require.Equal(t, http.StatusOK, r.status)
				text := string(decode(t, r))
				requireHas(t, text, `<link rel="canonical" href="`+w.SiteURL(id)+sub+`">`)
				if sub == "contact" {
					for _, e := range page.Emails {
						requireHas(t, text, "mailto:"+e)
					}
				}
			}
		}
	}
	require.Equal(t, []int{3, 3, 3}, []int{gz, latin, plain})
}

// TestLatinLanguagesFitWindows1252 proves that the languages served as
// windows-1252 have no character that charset lacks, so the encoder's
// replacement never changes their text.
func TestLatinLanguagesFitWindows1252(t *testing.T) {
	t.Parallel()
	for _, l := range languages {
		if !l.latin {
			continue
		}
		t.Run(l.code, func(t *testing.T) {
			t.Parallel()
			all := []string{l.home, l.about, l.contact, l.products, l.item, l.emailLabel, l.phoneLabel,
				l.welcome, l.description, l.phone, "– · ©"}
			for _, pairs := range [][][2]string{l.brands, l.trades} {
				for _, p := range pairs {
					all = append(all, p[0], p[1])
				}
			}
			all = append(append(append(all, l.legal...), l.taglines...), l.sentences...)
			_, err := charmap.Windows1252.NewEncoder().String(strings.Join(all, "\n"))
			require.NoError(t, err)
		})
	}
}

// TestFlakyConcurrent hits one flaky and one rate-limited site from many
// goroutines at once: exactly k requests fail, whatever the interleaving.
// Run with -race.
func TestFlakyConcurrent(t *testing.T) {
	t.Parallel()
	cfg := fastConfig(5)
	cfg.FlakyFailures, cfg.RateLimitHits = 9, 9
	w, err := New(cfg)
	require.NoError(t, err)
	for _, b := range []Behavior{Flaky, RateLimited} {
		s := firstOf(t, w, b)
		const n = 64
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				rec := httptest.NewRecorder()
				w.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://fixture"+sitePath(s.ID), nil))
				codes[i] = rec.Code
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, c := range codes {
			count[c]++
		}
		want := http.StatusServiceUnavailable
		if b == RateLimited {
			want = http.StatusTooManyRequests
		}
		require.Equal(t, map[int]int{want: s.Failures, http.StatusOK: n - s.Failures}, count, s.String())
		require.Equal(t, int64(n), w.Requests(s.ID))
	}
}

// TestRouting covers the paths and methods that are not a site's pages.
func TestRouting(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Seed: 1, Sites: 10, Mix: Mix{Healthy: 1}})
	require.NoError(t, err)
	tests := []struct {
		method, path string
		status       int
		site         bool // counted as a request to site 3
	}{
		{"GET", "/", http.StatusOK, false},
		{"GET", "/site/3/", http.StatusOK, true},
		{"GET", "/site/3", http.StatusOK, true}, // no trailing slash: still the home page
		{"HEAD", "/site/3/", http.StatusOK, true},
		{"GET", "/site/3/about", http.StatusOK, true},
		{"GET", "/site/3/contact", http.StatusOK, true},
		{"GET", "/site/3/about/", http.StatusNotFound, true},
		{"GET", "/site/3/final", http.StatusNotFound, true}, // only redirect chains have one
		{"GET", "/site/3/hop/1", http.StatusNotFound, true},
		{"GET", "/site/3/loop", http.StatusNotFound, true},
		{"GET", "/site/03/", http.StatusNotFound, false}, // one address per site
		{"GET", "/site/+3/", http.StatusNotFound, false},
		{"GET", "/site/10/", http.StatusNotFound, false},
		{"GET", "/site/-1/", http.StatusNotFound, false},
		{"GET", "/site/", http.StatusNotFound, false},
		{"GET", "/sites/3/", http.StatusNotFound, false},
		{"POST", "/site/3/", http.StatusMethodNotAllowed, false},
		{"DELETE", StatsPath, http.StatusMethodNotAllowed, false},
	}
	var site int64
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest(tt.method, "http://fixture"+tt.path, nil))
		require.Equal(t, tt.status, rec.Code, "%s %s", tt.method, tt.path)
		if tt.site {
			site++
		}
		require.Equal(t, site, w.Requests(3), "%s %s", tt.method, tt.path)
	}
	st := w.Stats()
	require.Equal(t, site, st.Requests)
	require.Equal(t, int64(len(tests))-site, st.Other)
}

// TestStatsEndpoint checks the counters and their JSON form.
func TestStatsEndpoint(t *testing.T) {
	t.Parallel()
	w := startWeb(t, fastConfig(8))
	c := noRedirects()
	flaky, healthy, missing := firstOf(t, w, Flaky), firstOf(t, w, Healthy), firstOf(t, w, NotFound)
	for range flaky.Failures + 2 {
		get(t, c, w.SiteURL(flaky.ID))
	}
	get(t, c, w.SiteURL(healthy.ID))
	get(t, c, w.SiteURL(healthy.ID)+"about")
	get(t, c, w.SiteURL(missing.ID))
	get(t, c, w.BaseURL()+"/nowhere")

	r := get(t, c, w.BaseURL()+StatsPath)
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	var st Stats
	require.NoError(t, json.Unmarshal(r.body, &st))
	require.Equal(t, w.Stats(), st, "the endpoint shows Stats, and does not count itself")

	want := Stats{
		Requests:   int64(flaky.Failures + 2 + 3),
		ByBehavior: map[Behavior]int64{Flaky: int64(flaky.Failures + 2), Healthy: 2, NotFound: 1},
		BySite:     map[int]int64{flaky.ID: int64(flaky.Failures + 2), healthy.ID: 2, missing.ID: 1},
		HomeBySite: map[int]int64{flaky.ID: int64(flaky.Failures + 2), healthy.ID: 1},
		ByStatus: map[int]int64{
			http.StatusServiceUnavailable: int64(flaky.Failures),
			http.StatusOK:                 4,
			http.StatusNotFound:           2,
		},
		Other: 1,
	}
	require.Equal(t, want, st)
}

// TestCloseCutsSlowRequests checks that Close does not wait for a slow
// page, and that the cut request counts as aborted.
func TestCloseCutsSlowRequests(t *testing.T) {
	t.Parallel()
	cfg := fastConfig(2)
	cfg.SlowDelay = Span{Min: time.Hour, Max: time.Hour}
	cfg.Limits.FetchTimeout = time.Hour * 2
	w, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, w.Start(""))
	s := firstOf(t, w, Slow)
	errc := make(chan error, 1)
	go func() {
		resp, err := noRedirects().Get(w.SiteURL(s.ID))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	require.Eventually(t, func() bool { return w.Requests(s.ID) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, w.Close())
	require.Error(t, <-errc, "the request was cut")
	require.Eventually(t, func() bool { return w.Stats().Aborted == 1 }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, w.Close(), "a second Close is harmless")
}

func TestStartTwice(t *testing.T) {
	t.Parallel()
	w := startWeb(t, Config{Sites: 1})
	require.ErrorContains(t, w.Start(""), "already started")
	require.True(t, strings.HasPrefix(w.BaseURL(), "http://127.0.0.1:"), w.BaseURL())

	other, err := New(Config{Sites: 1})
	require.NoError(t, err)
	require.ErrorContains(t, other.Start("127.0.0.1:notaport"), "fixtureweb: start")
	require.Empty(t, other.BaseURL())
	require.NoError(t, other.Close(), "Close without Start does nothing")
}
