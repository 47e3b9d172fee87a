package fixtureweb

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBehaviors(t *testing.T) {
	t.Parallel()
	require.Len(t, Behaviors(), numBehaviors)
	seen := map[Behavior]bool{}
	for _, b := range Behaviors() {
		require.True(t, b.Valid())
		require.False(t, seen[b])
		seen[b] = true
	}
	require.False(t, Behavior("Healthy").Valid())
	require.ElementsMatch(t, Behaviors(), keys(DemoMix()))
	require.ElementsMatch(t, Behaviors(), keys(ChaosMix()))
}

func keys(m Mix) []Behavior {
	var out []Behavior
	for b := range m {
		out = append(out, b)
	}
	return out
}

// TestDeterminism: the same seed gives the same sites, pages and input;
// another seed gives others.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	cfg := fastConfig(42)
	cfg.Sites, cfg.BaseURL = 500, "http://127.0.0.1:8099"
	cfg.SlowDelay = Span{Min: 1, Max: 2} // nanoseconds: only the bytes matter here
	cfg.DripDuration = Span{Min: 1, Max: 2}
	a, err := New(cfg)
	require.NoError(t, err)
	b, err := New(cfg)
	require.NoError(t, err)
	require.Equal(t, a.Sites(), b.Sites())
	require.Equal(t, a.URLs(700), b.URLs(700))
	for id := range 500 {
		pa, _ := a.Page(id)
		pb, _ := b.Page(id)
		require.Equal(t, pa, pb)
	}
	// Served bytes too, for several sites of each behaviour.
	for _, s := range a.Sites()[:60] {
		require.Equal(t, serve(t, a, sitePath(s.ID)), serve(t, b, sitePath(s.ID)), s.String())
	}

	cfg.Seed = 43
	c, err := New(cfg)
	require.NoError(t, err)
	require.NotEqual(t, a.Sites(), c.Sites())
	require.NotEqual(t, a.URLs(700), c.URLs(700))

	// A site does not depend on how many sites there are.
	cfg.Seed, cfg.Sites = 42, 100
	small, err := New(cfg)
	require.NoError(t, err)
	require.Equal(t, a.Sites()[:100], small.Sites())
}

// serve returns the status and body of one request, served in-process.
func serve(t *testing.T, w *Web, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://fixture"+path, nil))
	return fmt.Sprint(rec.Code, " ", rec.Body.Len(), " ", rec.Body.String())
}

// TestMixProportions: over the demo's 3,575 sites each behaviour's share
// is within 4.5 standard deviations of its weight (a binomial count), for
// several seeds and both named mixes.
func TestMixProportions(t *testing.T) {
	t.Parallel()
	for _, mix := range []struct {
		name string
		m    Mix
	}{{"demo", DemoMix()}, {"chaos", ChaosMix()}, {"even", evenMix()}} {
		for seed := range int64(4) {
			t.Run(fmt.Sprintf("%s/seed%d", mix.name, seed), func(t *testing.T) {
				t.Parallel()
				w, err := New(Config{Seed: seed, Sites: DefaultSites, Mix: mix.m})
				require.NoError(t, err)
				count := map[Behavior]int{}
				for _, s := range w.Sites() {
					count[s.Behavior]++
				}
				var sum float64
				for _, v := range mix.m {
					sum += v
				}
				n := float64(DefaultSites)
				for _, b := range Behaviors() {
					p := mix.m[b] / sum
					mean, sd := n*p, math.Sqrt(n*p*(1-p))
					require.InDelta(t, mean, float64(count[b]), 4.5*sd+1, "%s: %d sites, expected about %.0f", b, count[b], mean)
					if p > 0 {
						require.Positive(t, count[b], b)
					}
				}
			})
		}
	}
	w, err := New(Config{Sites: 1000, Mix: Mix{Healthy: 1, Slow: 0}})
	require.NoError(t, err)
	for _, s := range w.Sites() {
		require.Equal(t, Healthy, s.Behavior, "a zero weight is never drawn")
	}
}

// TestSiteParameters: every site's parameters lie in their configured
// ranges, and only the fields of its behaviour are set.
func TestSiteParameters(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Seed: 9, Mix: ChaosMix()})
	require.NoError(t, err)
	c := w.Config()
	failures := map[int]bool{}
	for _, s := range w.Sites() {
		zero := Site{ID: s.ID, Behavior: s.Behavior, Robots: s.Robots}
		switch s.Behavior {
		case Slow:
			require.GreaterOrEqual(t, s.Delay, c.SlowDelay.Min)
			require.LessOrEqual(t, s.Delay, c.SlowDelay.Max)
			zero.Delay = s.Delay
		case SlowDrip:
			require.GreaterOrEqual(t, s.Drip, c.DripDuration.Min)
			require.LessOrEqual(t, s.Drip, c.DripDuration.Max)
			zero.Drip = s.Drip
		case Flaky:
			require.True(t, s.Failures >= 1 && s.Failures <= c.FlakyFailures, s.String())
			failures[s.Failures] = true
			zero.Failures = s.Failures
		case RateLimited:
			require.True(t, s.Failures >= 1 && s.Failures <= c.RateLimitHits, s.String())
			zero.Failures = s.Failures
		case RedirectChain:
			require.True(t, s.Hops >= minHops && s.Hops <= maxHops, s.String())
			zero.Hops = s.Hops
		case ServerError:
			require.Contains(t, serverErrorStatuses, s.Status)
			zero.Status = s.Status
		}
		require.Equal(t, zero, s)
	}
	require.Len(t, failures, c.FlakyFailures, "every failure count occurs")
}

// TestPagesVary: the healthy pages differ in language, size, charset and
// compression, as real sites do.
func TestPagesVary(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Seed: 4, Sites: 2000, Mix: Mix{Healthy: 1}})
	require.NoError(t, err)
	langs := map[string]int{}
	charsets := map[string]int{}
	var gz int
	for id := range 2000 {
		p, _ := w.Page(id)
		langs[p.Lang]++
		charsets[p.Charset]++
		if p.Gzip {
			gz++
		}
		require.NotEmpty(t, p.Emails)
		require.NotEmpty(t, p.Title)
	}
	require.Len(t, langs, len(languages), "every language occurs")
	require.InDelta(t, 0.44, 1-float64(langs["en"])/2000, 0.06, "a little under half are not English")
	require.Positive(t, charsets["windows-1252"])
	require.InDelta(t, 0.3, float64(gz)/2000, 0.05)

	sizes := map[string]int{}
	for id := range 300 {
		body := serve(t, w, sitePath(id)+"")
		switch n := len(body); {
		case n < 30<<10:
			sizes["small"]++
		case n < 120<<10:
			sizes["medium"]++
		default:
			sizes["large"]++
		}
	}
	require.Len(t, sizes, 3, "%v", sizes)
}

// TestURLs checks the input list: the invalid share, every kind of
// invalid line, each site at most once, and a deterministic order.
func TestURLs(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Seed: 5, Sites: 1000, InvalidRate: 0.05, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(t, err)
	lines := w.URLs(1000)
	require.Len(t, lines, 1000)
	kinds := map[string]bool{}
	sites := map[int]bool{}
	var rejected int
	for _, l := range lines {
		e := w.Expect(l)
		if e.Outcome == Rejected {
			rejected++
			for _, k := range invalidLines {
				if k.line(w.BaseURL()) == l {
					kinds[k.name] = true
				}
			}
			continue
		}
		require.GreaterOrEqual(t, e.Site, 0, l)
		require.False(t, sites[e.Site], "site %d twice", e.Site)
		sites[e.Site] = true
		require.Equal(t, w.SiteURL(e.Site), l)
	}
	require.Equal(t, 50, rejected)
	require.Len(t, kinds, len(invalidLines), "every kind of invalid line occurs")
	require.Len(t, sites, 950)

	// More lines than sites: the sites come round again.
	more := w.URLs(2500)
	require.Len(t, more, 2500)
	require.Equal(t, lines[:1], more[:1], "the same seed starts the same way")

	require.Nil(t, w.URLs(0))
	input := w.Input(1000)
	require.Equal(t, strings.Join(lines, "\n")+"\n", string(input))
	require.Equal(t, 1000, bytes.Count(input, []byte("\n")))

	none, err := New(Config{Sites: 10, InvalidRate: -1, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(t, err)
	for _, l := range none.URLs(10) {
		require.NotEqual(t, Rejected, none.Expect(l).Outcome)
	}

	unstarted, err := New(Config{Sites: 10})
	require.NoError(t, err)
	require.PanicsWithValue(t, "fixtureweb: URLs needs a BaseURL: call Start or set Config.BaseURL",
		func() { unstarted.URLs(1) })
}
