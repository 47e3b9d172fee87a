package scrape

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/site"
)

// Defaults and hard limits of Options. The defaults follow the production
// account (docs/design.md §1: at most 3 fetches per URL inside one task, a 420 s
// function timeout); the limits keep a misconfiguration from turning the
// scraper into an unbounded client.
const (
	DefaultMaxRedirects  = 5
	MaxMaxRedirects      = 5
	DefaultMaxBodyBytes  = 5 << 20
	MaxMaxBodyBytes      = 32 << 20
	DefaultFetchTimeout  = 30 * time.Second
	DefaultMaxAttempts   = 3
	MaxMaxAttempts       = 10
	DefaultBackoffBase   = 1 * time.Second
	DefaultBackoffMax    = 10 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
	DefaultUserAgent     = "taskpipe-scraper/1.0 (+https://github.com/taskpipe/taskpipe)"
	MaxMaxPages          = 10
	DefaultMaxCrawlBytes = 16 << 20
	DefaultCrawlReserve  = 5 * time.Second
	DefaultContentTime   = 10 * time.Second
)

// Options configure a Client. The zero value is the production
// configuration: public addresses only, the defaults above, real clock and
// sleep. With the defaults, the worst case for one URL is 3 attempts of 30 s
// plus 2 waits of at most 30 s: 150 s, well inside the scraper's 420 s.
type Options struct {
	// AllowPrivateNetworks lets fetches reach loopback, private, link-local
	// and other non-public addresses (but never the cloud metadata
	// endpoints). It is an explicit opt-in for local runs against the
	// fixture web; production leaves it false.
	AllowPrivateNetworks bool

	// AllowAddrs are exact ip:port destinations exempt from the block list,
	// for tests and local fixtures that must reach one listener (an
	// httptest server on 127.0.0.1) while proving that every other
	// non-public address, including other ports on the same host, stays
	// blocked. Production sets none. IPv4-mapped IPv6 forms are matched too.
	AllowAddrs []netip.AddrPort

	// MaxRedirects is the number of redirects followed per fetch; more is a
	// fatal error. 0 means DefaultMaxRedirects; at most MaxMaxRedirects.
	MaxRedirects int

	// MaxBodyBytes caps the response body, counted after decompression. A
	// longer body is cut: the page is extracted from its first MaxBodyBytes
	// and the result says Truncated. 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// FetchTimeout bounds one attempt (connect, headers, body, extraction).
	// The caller's context bounds all attempts together. 0 means
	// DefaultFetchTimeout.
	FetchTimeout time.Duration

	// MaxAttempts is the number of fetches per URL for retryable failures.
	// 0 means DefaultMaxAttempts; at most MaxMaxAttempts.
	MaxAttempts int

	// BackoffBase and BackoffMax shape the wait before attempt n+1: a
	// uniformly random duration in [0, min(BackoffMax, BackoffBase·2^(n-1)))
	// ("full jitter"). 0 means the defaults.
	BackoffBase time.Duration
	BackoffMax  time.Duration

	// MaxRetryAfter bounds how long the client waits for a 429 or 503
	// Retry-After. A longer Retry-After ends the fetch at once with a
	// retryable *StatusError carrying it, so the caller can delay the whole
	// task instead of holding a Lambda. 0 means DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration

	// UserAgent is sent with every request: a product token with its
	// version and a contact URL. Its product token ("taskpipe-scraper")
	// is what robots.txt groups are matched against. "" means
	// DefaultUserAgent.
	UserAgent string

	// MaxPages is how many key pages Crawl fetches besides the start page:
	// 0 means site.DefaultMaxPages, a negative value none; at most
	// MaxMaxPages.
	MaxPages int

	// MaxCrawlBytes bounds the body bytes of all pages one Crawl reads; a
	// key page that does not fit is skipped. 0 means DefaultMaxCrawlBytes.
	MaxCrawlBytes int64

	// CrawlReserve is the time before the caller's deadline at which
	// Crawl stops starting key pages and cuts the one in flight. 0 means
	// DefaultCrawlReserve.
	CrawlReserve time.Duration

	// ContentTimeout bounds the main-content extraction of one page. 0
	// means DefaultContentTime.
	ContentTimeout time.Duration

	// OptOut are registrable domains (lowercase, "example.com") that are
	// never fetched: Crawl fails with task.KindOptOut for them and their
	// subdomains before any request.
	OptOut []string

	// Sleep waits between attempts; it must return early with ctx's error.
	// nil means a real timer. Tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error

	// Rand returns a uniform float64 in [0, 1) for the backoff jitter. nil
	// means math/rand/v2.
	Rand func() float64

	// Now is the clock for latencies and HTTP-date Retry-After values. nil
	// means time.Now.
	Now func() time.Time
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	var errs []error
	check := func(bad bool, format string, args ...any) {
		if bad {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.MaxRedirects < 0 || o.MaxRedirects > MaxMaxRedirects,
		"MaxRedirects %d outside 0..%d", o.MaxRedirects, MaxMaxRedirects)
	check(o.MaxBodyBytes < 0 || o.MaxBodyBytes > MaxMaxBodyBytes,
		"MaxBodyBytes %d outside 0..%d", o.MaxBodyBytes, MaxMaxBodyBytes)
	check(o.FetchTimeout < 0, "FetchTimeout %v is negative", o.FetchTimeout)
	check(o.MaxAttempts < 0 || o.MaxAttempts > MaxMaxAttempts,
		"MaxAttempts %d outside 0..%d", o.MaxAttempts, MaxMaxAttempts)
	check(o.BackoffBase < 0, "BackoffBase %v is negative", o.BackoffBase)
	check(o.BackoffMax < 0, "BackoffMax %v is negative", o.BackoffMax)
	check(o.MaxRetryAfter < 0, "MaxRetryAfter %v is negative", o.MaxRetryAfter)
	check(o.MaxPages > MaxMaxPages, "MaxPages %d above %d", o.MaxPages, MaxMaxPages)
	check(o.MaxCrawlBytes < 0, "MaxCrawlBytes %d is negative", o.MaxCrawlBytes)
	check(o.CrawlReserve < 0, "CrawlReserve %v is negative", o.CrawlReserve)
	check(o.ContentTimeout < 0, "ContentTimeout %v is negative", o.ContentTimeout)
	check(strings.TrimSpace(o.UserAgent) != o.UserAgent || strings.ContainsAny(o.UserAgent, "\r\n"),
		"UserAgent %q has surrounding space or a line break", o.UserAgent)
	for _, d := range o.OptOut {
		check(d == "" || d != strings.ToLower(strings.TrimSpace(d)) || strings.ContainsAny(d, "/: "),
			"OptOut entry %q is not a lowercase domain name", d)
	}
	for _, ap := range o.AllowAddrs {
		check(!ap.IsValid() || ap.Port() == 0, "AllowAddrs entry %v is not an ip:port", ap)
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("scrape: options: %w", errors.Join(errs...))
	}
	o.MaxRedirects = orDefault(o.MaxRedirects, DefaultMaxRedirects)
	o.MaxBodyBytes = orDefault(o.MaxBodyBytes, DefaultMaxBodyBytes)
	o.FetchTimeout = orDefault(o.FetchTimeout, DefaultFetchTimeout)
	o.MaxAttempts = orDefault(o.MaxAttempts, DefaultMaxAttempts)
	o.BackoffBase = orDefault(o.BackoffBase, DefaultBackoffBase)
	o.BackoffMax = orDefault(o.BackoffMax, DefaultBackoffMax)
	o.MaxRetryAfter = orDefault(o.MaxRetryAfter, DefaultMaxRetryAfter)
	o.UserAgent = orDefault(o.UserAgent, DefaultUserAgent)
	switch {
	case o.MaxPages == 0:
		o.MaxPages = site.DefaultMaxPages
	case o.MaxPages < 0:
		o.MaxPages = 0
	}
	o.MaxCrawlBytes = orDefault(o.MaxCrawlBytes, DefaultMaxCrawlBytes)
	o.CrawlReserve = orDefault(o.CrawlReserve, DefaultCrawlReserve)
	o.ContentTimeout = orDefault(o.ContentTimeout, DefaultContentTime)
	o.OptOut = append([]string(nil), o.OptOut...)
	if o.BackoffMax < o.BackoffBase {
		o.BackoffMax = o.BackoffBase
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
