package fixtureweb

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Behavior is how a site answers. The values appear in Mix strings, stats
// and expectations.
type Behavior string

// The behaviours. Each comment says what the home page does and what the
// scraper makes of it with its default options (package scrape).
const (
	// Healthy: 200 with a realistic HTML page.
	Healthy Behavior = "healthy"
	// Slow: the healthy page after Config.SlowDelay.
	Slow Behavior = "slow"
	// Flaky: 503 for the first k requests to the home page, 200 after.
	Flaky Behavior = "flaky"
	// ServerError: always 500, 502, 503 or 504 (the site's choice), without
	// Retry-After: retried until the task is exhausted.
	ServerError Behavior = "server-error"
	// NotFound: 404 on every path: fatal.
	NotFound Behavior = "not-found"
	// RedirectChain: 2–4 redirects (301, 302, 303, 307, 308) to a healthy
	// page on the same site.
	RedirectChain Behavior = "redirect-chain"
	// RedirectLoop: two pages redirecting to each other: fatal once the
	// scraper's redirect cap is hit.
	RedirectLoop Behavior = "redirect-loop"
	// Huge: a Config.HugeBytes HTML page, cut at the scraper's body cap.
	Huge Behavior = "huge"
	// NotHTML: 200 with a PDF: fatal.
	NotHTML Behavior = "not-html"
	// SlowDrip: the healthy page, trickled over Config.DripDuration.
	SlowDrip Behavior = "slow-drip"
	// RateLimited: 429 with Retry-After for the first k requests to the
	// home page, 200 after.
	RateLimited Behavior = "rate-limited"
)

// numBehaviors is len(Behaviors()).
const numBehaviors = 11

// Behaviors returns every behaviour in a fixed order (the order Mix shares
// are laid out in, so it is part of what a seed means).
func Behaviors() []Behavior {
	return []Behavior{Healthy, Slow, Flaky, ServerError, NotFound, RedirectChain,
		RedirectLoop, Huge, NotHTML, SlowDrip, RateLimited}
}

// Valid reports whether b is one of Behaviors().
func (b Behavior) Valid() bool { return behaviorIndex(b) >= 0 }

func behaviorIndex(b Behavior) int {
	for i, v := range Behaviors() {
		if v == b {
			return i
		}
	}
	return -1
}

// Site is one fixture site: its behaviour and the parameters it drew.
// Fields that do not apply to its behaviour are zero.
type Site struct {
	ID       int
	Behavior Behavior
	// Delay is a slow site's wait before answering.
	Delay time.Duration
	// Drip is a slow-drip site's time to send its body.
	Drip time.Duration
	// Failures is the number of 503s (flaky) or 429s (rate-limited) before
	// the site answers 200.
	Failures int
	// Hops is the number of redirects of a redirect chain.
	Hops int
	// Status is the status of a server-error site.
	Status int
	// Robots is what its origin's robots.txt says.
	Robots Robots
}

// Fixed parameters of the behaviours.
const (
	minHops, maxHops = 2, 4
)

var serverErrorStatuses = []int{
	http.StatusInternalServerError, http.StatusBadGateway,
	http.StatusServiceUnavailable, http.StatusGatewayTimeout,
}

// Streams of randomness per site. Each purpose has its own, so that, say,
// a change in page generation never changes which sites are flaky.
const (
	streamBehavior uint64 = iota + 1
	streamParams
	streamPage
	streamInput
	streamRobots
)

// mix64 is SplitMix64's finalizer: a fast, well-distributed 64-bit hash.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// siteRand returns the random stream of one purpose for one site.
func siteRand(seed int64, id int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(mix64(uint64(seed)^stream<<56), mix64(uint64(id)^stream<<48)))
}

// unit maps (seed, id, stream) to a uniform float in [0, 1).
func unit(seed int64, id int, stream uint64) float64 {
	h := mix64(mix64(uint64(seed)^stream<<56) ^ uint64(id))
	return float64(h>>11) / (1 << 53)
}

// drawSite decides site id's behaviour and parameters from the seed alone.
func drawSite(c *Config, bs []Behavior, cum []float64, id int) Site {
	u := unit(c.Seed, id, streamBehavior)
	b := bs[len(bs)-1]
	for i, hi := range cum {
		if u < hi {
			b = bs[i]
			break
		}
	}
	s := Site{ID: id, Behavior: b, Robots: drawRobots(c, id)}
	r := siteRand(c.Seed, id, streamParams)
	switch b {
	case Slow:
		s.Delay = between(r, c.SlowDelay)
	case SlowDrip:
		s.Drip = between(r, c.DripDuration)
	case Flaky:
		s.Failures = 1 + r.IntN(c.FlakyFailures)
	case RateLimited:
		s.Failures = 1 + r.IntN(c.RateLimitHits)
	case RedirectChain:
		s.Hops = minHops + r.IntN(maxHops-minHops+1)
	case ServerError:
		s.Status = serverErrorStatuses[r.IntN(len(serverErrorStatuses))]
	}
	return s
}

// between draws a duration uniformly from s, in whole milliseconds so that
// logs and stats read cleanly.
func between(r *rand.Rand, s Span) time.Duration {
	lo, hi := s.Min.Milliseconds(), s.Max.Milliseconds()
	if hi <= lo {
		return s.Min
	}
	return time.Duration(lo+r.Int64N(hi-lo+1)) * time.Millisecond
}

// String returns "site 42 (slow, delay 512ms)".
func (s Site) String() string {
	out := "site " + strconv.Itoa(s.ID) + " (" + string(s.Behavior)
	switch {
	case s.Delay > 0:
		out += ", delay " + s.Delay.String()
	case s.Drip > 0:
		out += ", drip " + s.Drip.String()
	case s.Failures > 0:
		out += ", failures " + strconv.Itoa(s.Failures)
	case s.Hops > 0:
		out += ", hops " + strconv.Itoa(s.Hops)
	case s.Status > 0:
		out += ", status " + strconv.Itoa(s.Status)
	}
	if s.Robots != "" && s.Robots != RobotsNone {
		out += ", robots " + string(s.Robots)
	}
	return out + ")"
}
