package fixtureweb

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// Defaults of Config. They keep a 3,575-site demo run to about a minute of
// scraping on 2 cores: the slow and dripping sites cost under 2 s each, the
// flaky and rate-limited ones heal inside one claim.
const (
	DefaultSites         = 3575
	DefaultFlakyFailures = 2
	DefaultRateLimitHits = 1
	DefaultRetryAfter    = 1 * time.Second
	DefaultHugeBytes     = 6 << 20
	DefaultInvalidRate   = 0.02
	// MaxSites bounds Config.Sites: the web keeps a few dozen bytes of
	// state per site.
	MaxSites = 100_000
)

// Defaults of the Span fields of Config.
var (
	DefaultSlowDelay    = Span{Min: 300 * time.Millisecond, Max: 800 * time.Millisecond}
	DefaultDripDuration = Span{Min: 1 * time.Second, Max: 2 * time.Second}
)

// Span is a closed range of durations; each site draws its own value from
// it.
type Span struct {
	Min, Max time.Duration
}

// String returns "300ms–800ms".
func (s Span) String() string { return s.Min.String() + "–" + s.Max.String() }

// Config describes a fixture web. The zero value of every field means its
// default, so Config{Seed: 7} is a complete demo configuration.
type Config struct {
	// Seed selects the web: the same seed gives the same sites, behaviours,
	// pages and input lines.
	Seed int64
	// Sites is the number of sites, ids 0..Sites-1. 0 means DefaultSites.
	Sites int
	// Mix weighs the behaviours; nil means DemoMix().
	Mix Mix
	// SlowDelay is how long a slow site waits before it answers.
	SlowDelay Span
	// DripDuration is how long a slow-drip site takes to send its body.
	// Within the scraper's per-attempt timeout (the default) the page is
	// scraped; beyond it every attempt times out. New rejects a span that
	// comes close to the timeout from either side (see Limits).
	DripDuration Span
	// FlakyFailures is the most 503s a flaky site sends before it answers
	// 200; each flaky site draws its own count from 1..FlakyFailures.
	FlakyFailures int
	// RateLimitHits is the most 429s a rate-limited site sends before it
	// answers 200; each draws its own count from 1..RateLimitHits.
	RateLimitHits int
	// RetryAfter is the Retry-After of a 429, in whole seconds (rounded up).
	RetryAfter time.Duration
	// HugeBytes is the body size of a huge page. The default is above the
	// scraper's 5 MiB cap, so the page is cut and Summary.Truncated is set.
	HugeBytes int64
	// InvalidRate is the share of deliberately invalid lines in Input; 0
	// means DefaultInvalidRate, a negative value means none.
	InvalidRate float64
	// BaseURL is where the web is reachable, "http://127.0.0.1:8099", for
	// a caller that serves the handler itself. Start sets it otherwise.
	// With BaseURL set every site has RobotsNone: the variants need the
	// listeners of their own that Start opens.
	BaseURL string
	// Robots weighs the robots.txt variants; nil means DefaultRobots().
	Robots map[Robots]int
	// Limits describe the scraper whose outcomes Expect predicts.
	Limits Limits
}

// Limits are the scraper settings that decide a site's outcome. Zero
// fields mean the scraper's defaults (scrape.Default*, task.DefaultMaxAttempts).
// LimitsOf builds them from a scrape.Options.
type Limits struct {
	// FetchAttempts is scrape.Options.MaxAttempts: fetches per claim.
	FetchAttempts int
	// Claims is the task's MaxAttempts: claims before it fails as exhausted.
	Claims int
	// FetchTimeout is scrape.Options.FetchTimeout.
	FetchTimeout time.Duration
	// MaxRetryAfter is scrape.Options.MaxRetryAfter.
	MaxRetryAfter time.Duration
	// MaxBodyBytes is scrape.Options.MaxBodyBytes.
	MaxBodyBytes int64
	// MaxRedirects is scrape.Options.MaxRedirects.
	MaxRedirects int
	// MaxPages is scrape.Options.MaxPages: key pages per crawl.
	MaxPages int
}

// LimitsOf returns the Limits of a scraper built with o whose tasks have
// maxAttempts claims (0 means task.DefaultMaxAttempts).
func LimitsOf(o scrape.Options, maxAttempts int) Limits {
	return Limits{
		FetchAttempts: o.MaxAttempts,
		Claims:        maxAttempts,
		FetchTimeout:  o.FetchTimeout,
		MaxRetryAfter: o.MaxRetryAfter,
		MaxBodyBytes:  o.MaxBodyBytes,
		MaxRedirects:  o.MaxRedirects,
		MaxPages:      o.MaxPages,
	}
}

func (l Limits) withDefaults() Limits {
	l.FetchAttempts = orDefault(l.FetchAttempts, scrape.DefaultMaxAttempts)
	l.Claims = orDefault(l.Claims, task.DefaultMaxAttempts)
	l.FetchTimeout = orDefault(l.FetchTimeout, scrape.DefaultFetchTimeout)
	l.MaxRetryAfter = orDefault(l.MaxRetryAfter, scrape.DefaultMaxRetryAfter)
	l.MaxBodyBytes = orDefault(l.MaxBodyBytes, scrape.DefaultMaxBodyBytes)
	l.MaxRedirects = orDefault(l.MaxRedirects, scrape.DefaultMaxRedirects)
	switch {
	case l.MaxPages == 0:
		l.MaxPages = site.DefaultMaxPages
	case l.MaxPages < 0:
		l.MaxPages = 0
	}
	return l
}

// Timing bands around Limits.FetchTimeout. A slow or dripping site is
// "within" the timeout when it needs at most 3/4 of it and "beyond" it when
// it needs at least 3/2 of it. In between, the outcome would depend on the
// machine's load, so New refuses such a configuration rather than let
// Expect guess.
const (
	withinNum, withinDen = 3, 4
	beyondNum, beyondDen = 3, 2
)

func within(d, timeout time.Duration) bool { return d*withinDen <= timeout*withinNum }
func beyond(d, timeout time.Duration) bool { return d*beyondDen >= timeout*beyondNum }

// withDefaults validates c and fills in the defaults.
func (c Config) withDefaults() (Config, error) {
	var errs []error
	check := func(bad bool, format string, args ...any) {
		if bad {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.Sites < 0 || c.Sites > MaxSites, "Sites %d outside 0..%d", c.Sites, MaxSites)
	check(c.FlakyFailures < 0, "FlakyFailures %d is negative", c.FlakyFailures)
	check(c.RateLimitHits < 0, "RateLimitHits %d is negative", c.RateLimitHits)
	check(c.RetryAfter < 0, "RetryAfter %v is negative", c.RetryAfter)
	check(c.HugeBytes < 0 || c.HugeBytes > 1<<30, "HugeBytes %d outside 0..1 GiB", c.HugeBytes)
	check(math.IsNaN(c.InvalidRate) || c.InvalidRate >= 1, "InvalidRate %v must be below 1", c.InvalidRate)
	for name, s := range map[string]Span{"SlowDelay": c.SlowDelay, "DripDuration": c.DripDuration} {
		check(s.Min < 0 || s.Max < s.Min, "%s %v is not a range of durations", name, s)
	}
	l := c.Limits
	check(l.FetchAttempts < 0 || l.Claims < 0 || l.FetchTimeout < 0 || l.MaxRetryAfter < 0 ||
		l.MaxBodyBytes < 0 || l.MaxRedirects < 0, "Limits %+v has a negative field", l)
	if c.BaseURL != "" {
		if err := checkBaseURL(c.BaseURL); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Mix != nil {
		if err := c.Mix.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := validateRobots(c.Robots); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("fixtureweb: config: %w", errors.Join(errs...))
	}

	c.Sites = orDefault(c.Sites, DefaultSites)
	if c.Mix == nil {
		c.Mix = DemoMix()
	}
	c.SlowDelay = orDefault(c.SlowDelay, DefaultSlowDelay)
	c.DripDuration = orDefault(c.DripDuration, DefaultDripDuration)
	c.FlakyFailures = orDefault(c.FlakyFailures, DefaultFlakyFailures)
	c.RateLimitHits = orDefault(c.RateLimitHits, DefaultRateLimitHits)
	c.RetryAfter = orDefault(c.RetryAfter, DefaultRetryAfter)
	c.RetryAfter = time.Duration(math.Ceil(c.RetryAfter.Seconds())) * time.Second
	c.HugeBytes = orDefault(c.HugeBytes, DefaultHugeBytes)
	switch {
	case c.InvalidRate == 0:
		c.InvalidRate = DefaultInvalidRate
	case c.InvalidRate < 0:
		c.InvalidRate = 0
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	switch {
	case c.BaseURL != "":
		c.Robots = map[Robots]int{RobotsNone: 1}
	case c.Robots == nil:
		c.Robots = DefaultRobots()
	}
	c.Limits = c.Limits.withDefaults()

	// A timing that straddles the per-attempt timeout has no predictable
	// outcome; see within and beyond.
	timed := []struct {
		name string
		b    Behavior
		s    Span
	}{{"SlowDelay", Slow, c.SlowDelay}, {"DripDuration", SlowDrip, c.DripDuration}}
	for _, t := range timed {
		if c.Mix[t.b] == 0 {
			continue
		}
		if !within(t.s.Max, c.Limits.FetchTimeout) && !beyond(t.s.Min, c.Limits.FetchTimeout) {
			errs = append(errs, fmt.Errorf("%s %v is too close to the fetch timeout %v: keep it at most %d/%d of it or at least %d/%d",
				t.name, t.s, c.Limits.FetchTimeout, withinNum, withinDen, beyondNum, beyondDen))
		}
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("fixtureweb: config: %w", errors.Join(errs...))
	}
	return c, nil
}

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("BaseURL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Errorf("BaseURL %q is not an http(s) origin like http://127.0.0.1:8099", raw)
	}
	return nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Mix weighs the behaviours: each site's behaviour is drawn with
// probability weight/sum. Missing behaviours weigh 0.
type Mix map[Behavior]float64

// DemoMix is the default: mostly healthy sites, every failure mode present.
func DemoMix() Mix {
	return Mix{
		Healthy:       70,
		Slow:          6,
		Flaky:         5,
		ServerError:   3,
		NotFound:      3,
		RedirectChain: 4,
		RedirectLoop:  2,
		Huge:          1,
		NotHTML:       2,
		SlowDrip:      2,
		RateLimited:   2,
	}
}

// ChaosMix is for chaos runs: as many broken as healthy sites, so every
// failure path carries real load.
func ChaosMix() Mix {
	return Mix{
		Healthy:       40,
		Slow:          8,
		Flaky:         10,
		ServerError:   8,
		NotFound:      6,
		RedirectChain: 6,
		RedirectLoop:  4,
		Huge:          2,
		NotHTML:       4,
		SlowDrip:      4,
		RateLimited:   8,
	}
}

// ParseMix reads a mix from a command-line value: "demo", "chaos", or a
// comma-separated list of behaviour=weight pairs such as
// "healthy=90,flaky=10".
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "demo", "":
		return DemoMix(), nil
	case "chaos":
		return ChaosMix(), nil
	}
	m := Mix{}
	for part := range strings.SplitSeq(s, ",") {
		name, weight, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("fixtureweb: parse mix: %q is not behaviour=weight", part)
		}
		b := Behavior(strings.TrimSpace(name))
		if !b.Valid() {
			return nil, fmt.Errorf("fixtureweb: parse mix: unknown behaviour %q (known: %s)", name, behaviorList())
		}
		if _, dup := m[b]; dup {
			return nil, fmt.Errorf("fixtureweb: parse mix: behaviour %q given twice", b)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(weight), 64)
		if err != nil {
			return nil, fmt.Errorf("fixtureweb: parse mix: weight of %s: %w", b, err)
		}
		m[b] = w
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("fixtureweb: parse mix: %w", err)
	}
	return m, nil
}

func (m Mix) validate() error {
	var sum float64
	for b, w := range m {
		if !b.Valid() {
			return fmt.Errorf("mix: unknown behaviour %q", b)
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return fmt.Errorf("mix: weight of %s is %v, want a finite number ≥ 0", b, w)
		}
		sum += w
	}
	if sum <= 0 || math.IsInf(sum, 0) {
		return errors.New("mix: the weights must add up to a positive finite number")
	}
	return nil
}

// String formats m the way ParseMix reads it, in Behaviors() order.
func (m Mix) String() string {
	var parts []string
	for _, b := range Behaviors() {
		if w, ok := m[b]; ok {
			parts = append(parts, string(b)+"="+strconv.FormatFloat(w, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ",")
}

// cumulative returns the behaviours with a positive weight and the upper
// bounds of their shares of [0, 1), in Behaviors() order so that map
// iteration order never changes a site.
func (m Mix) cumulative() ([]Behavior, []float64) {
	var sum float64
	for _, b := range Behaviors() {
		sum += m[b]
	}
	var (
		bs  []Behavior
		cum []float64
		acc float64
	)
	for _, b := range Behaviors() {
		if m[b] <= 0 {
			continue
		}
		acc += m[b] / sum
		bs = append(bs, b)
		cum = append(cum, acc)
	}
	cum[len(cum)-1] = 1 // no rounding gap at the top
	return bs, cum
}

func behaviorList() string {
	names := make([]string, 0, len(Behaviors()))
	for _, b := range Behaviors() {
		names = append(names, string(b))
	}
	return strings.Join(slices.Clip(names), ", ")
}
