package scrape

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/taskpipe/taskpipe/internal/maintext"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// Errors a fetch can wrap; test with errors.Is. All are fatal.
var (
	// ErrTooManyRedirects: the redirect chain was longer than
	// Options.MaxRedirects (a loop, or a site that will not settle).
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrRedirectTarget: a redirect pointed to something other than an
	// http(s) URL with a host and without credentials.
	ErrRedirectTarget = errors.New("redirect to a url that is not a website")
	// ErrNotHTML: the response is not an HTML document.
	ErrNotHTML = errors.New("not an html document")
	// ErrContentEncoding: the response used a Content-Encoding the client
	// did not offer.
	ErrContentEncoding = errors.New("unsupported content-encoding")
)

// StatusError is an HTTP response status that ends a fetch. It is wrapped in
// task.Retryable for 408, 429 and 5xx, and in task.Fatal otherwise.
type StatusError struct {
	Code int
	// RetryAfter is the server's Retry-After for 429 and 503 responses, 0 if
	// it sent none. When it exceeds Options.MaxRetryAfter the client stops
	// retrying, and a caller may use it to delay the task.
	RetryAfter time.Duration
}

// RetryDelay returns RetryAfter, for callers that classify errors by
// behaviour rather than by this package's types.
func (e *StatusError) RetryDelay() time.Duration { return e.RetryAfter }

// Error implements error.
func (e *StatusError) Error() string {
	s := "status " + strconv.Itoa(e.Code)
	if t := http.StatusText(e.Code); t != "" {
		s += " " + t
	}
	if e.RetryAfter > 0 {
		s += " (retry after " + e.RetryAfter.String() + ")"
	}
	return s
}

// Client fetches pages under the rules of docs/design.md §7 and extracts a
// Summary from each. It is safe for concurrent use; create one per process
// so connections are reused.
type Client struct {
	opts Options
	hc   *http.Client
}

// Result is the outcome of Scrape, with the numbers a caller reports as
// metrics. Scrape fills Attempts, Latency and Elapsed on failure too.
type Result struct {
	Summary Summary
	// Attempts is the number of fetches made (1..MaxAttempts; 0 when the
	// URL was invalid).
	Attempts int
	// Latency is the duration of the last attempt: request, body and
	// extraction.
	Latency time.Duration
	// Elapsed is the time Scrape took, waits between attempts included.
	Elapsed time.Duration
}

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	policy := dialPolicy{allowPrivate: o.AllowPrivateNetworks, exceptions: make(map[netip.AddrPort]bool)}
	for _, ap := range o.AllowAddrs {
		policy.exceptions[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())] = true
	}
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   policy.control,
	}
	tr := &http.Transport{
		// No proxy from the environment: the dial policy must see the real
		// destination, and a proxy would make the dial go elsewhere.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		// The client decompresses itself, so that it can offer only what it
		// decodes and count the body limit after decompression.
		DisableCompression: true,
	}
	c := &Client{opts: o}
	c.hc = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c, nil
}

// checkRedirect runs before every redirect is followed. via holds the
// requests made so far, so len(via) is the number of this redirect.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, c.opts.MaxRedirects)
	}
	u := req.URL
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Errorf("%w: %s", ErrRedirectTarget, u.Redacted())
	}
	return nil
}

// Scrape fetches rawURL and extracts its summary. Retryable failures are
// retried up to MaxAttempts fetches with exponential backoff and full
// jitter; fatal ones end at once. The error, if any, reads
// "scrape: fetch <url>: ..." and carries a task.ErrorKind for task.KindOf.
// Scrape reads no robots.txt and fetches no other page; Crawl does.
func (c *Client) Scrape(ctx context.Context, rawURL string) (Result, error) {
	start := c.opts.Now()
	u, err := weburl.Normalize(rawURL)
	if err != nil {
		return Result{}, fmt.Errorf("scrape: fetch: %w", task.Fatal(err))
	}
	pr, err := c.fetchPage(ctx, u, c.opts.MaxBodyBytes)
	res := Result{Summary: pr.page.Summary, Attempts: pr.attempts, Latency: pr.latency, Elapsed: c.opts.Now().Sub(start)}
	return res, err
}

// pageResult is a fetched and parsed page with its fetch's numbers.
type pageResult struct {
	page     Page
	resp     fetched
	attempts int
	latency  time.Duration // of the last attempt
}

// fetchPage fetches u with retries and parses it as HTML, reading at most
// maxBytes of body.
func (c *Client) fetchPage(ctx context.Context, u *url.URL, maxBytes int64) (pageResult, error) {
	var pr pageResult
	n, latency, err := c.withRetries(ctx, u, func(ctx context.Context) error {
		return c.get(ctx, u, acceptHTML, func(f fetched, body io.Reader) error {
			declared := mediaType(f.contentType)
			if declared != "" && !isHTML(declared) {
				return task.Fatal(fmt.Errorf("%w: content-type %s", ErrNotHTML, declared))
			}
			p, err := ReadPage(body, f.contentType, f.finalURL, maxBytes)
			if err != nil {
				return err
			}
			p.Status = f.status
			pr.page, pr.resp = p, f
			return nil
		})
	})
	pr.attempts, pr.latency = n, latency
	return pr, err
}

// withRetries runs one attempt after another until one succeeds, one fails
// fatally, MaxAttempts are made or ctx ends, waiting between them as
// nextWait says. It returns the attempts made and the last one's duration.
func (c *Client) withRetries(ctx context.Context, u *url.URL, attempt func(context.Context) error) (int, time.Duration, error) {
	for n := 1; ; n++ {
		t0 := c.opts.Now()
		err := attempt(ctx)
		latency := c.opts.Now().Sub(t0)
		if err == nil {
			return n, latency, nil
		}
		err = fmt.Errorf("scrape: fetch %s: attempt %d of %d: %w", u, n, c.opts.MaxAttempts, err)
		wait, retry := c.nextWait(ctx, err, n)
		if !retry {
			return n, latency, err
		}
		if serr := c.opts.Sleep(ctx, wait); serr != nil {
			return n, latency, fmt.Errorf("%w (no retry: %w)", err, serr)
		}
	}
}

// nextWait decides whether to retry after a failed attempt, and how long to
// wait first.
func (c *Client) nextWait(ctx context.Context, err error, attempts int) (time.Duration, bool) {
	if task.KindOf(err) != task.KindRetryable || ctx.Err() != nil || attempts >= c.opts.MaxAttempts {
		return 0, false
	}
	var se *StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		if se.RetryAfter > c.opts.MaxRetryAfter {
			return 0, false
		}
		return se.RetryAfter, true
	}
	// Full jitter (AWS Architecture Blog, "Exponential Backoff And
	// Jitter"): uniform in [0, min(cap, base·2^(n-1))).
	ceil := float64(c.opts.BackoffBase) * math.Pow(2, float64(attempts-1))
	ceil = math.Min(ceil, float64(c.opts.BackoffMax))
	return time.Duration(c.opts.Rand() * ceil), true
}

// The Accept headers of page and robots.txt requests.
const (
	acceptHTML   = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
	acceptRobots = "text/plain,*/*;q=0.1"
)

// fetched describes a response that passed the status check.
type fetched struct {
	status      int
	contentType string
	finalURL    *url.URL
	at          time.Time
}

// get makes one GET attempt: request, status check, decompression, and
// read, which consumes the body. Its error carries a task kind.
func (c *Client) get(ctx context.Context, u *url.URL, accept string, read func(fetched, io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return task.Fatal(err)
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.classify(ctx, err)
	}
	defer resp.Body.Close()
	if err := c.checkStatus(resp); err != nil {
		// Read a little so the connection can be reused for the retry.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		return err
	}
	body, err := decodeBody(resp.Body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		return c.classify(ctx, err)
	}
	f := fetched{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), finalURL: resp.Request.URL, at: c.opts.Now()}
	if err := read(f, body); err != nil {
		return c.classify(ctx, err)
	}
	return nil
}

// ReadPage reads at most maxBytes of body, checks that a body without a
// declared media type sniffs as HTML, converts its charset to UTF-8 and
// parses it from at most maxBytes of UTF-8: a charset can triple the size
// (x-user-defined turns each high byte into three bytes), and neither cut
// is an error (Summary.Truncated). It keeps the first maintext.MaxContentInput
// bytes of UTF-8 in Page.Content. contentType is the response's
// Content-Type header, possibly empty.
func ReadPage(body io.Reader, contentType string, pageURL *url.URL, maxBytes int64) (Page, error) {
	raw := &capReader{r: body, left: maxBytes}
	br := bufio.NewReaderSize(raw, 4096)
	head, err := br.Peek(1024)
	if err != nil && !errors.Is(err, io.EOF) {
		return Page{}, fmt.Errorf("read body: %w", err)
	}
	if mediaType(contentType) == "" {
		if sniffed := mediaType(http.DetectContentType(head)); !isHTML(sniffed) {
			return Page{}, task.Fatal(fmt.Errorf("%w: no content-type, content sniffs as %s", ErrNotHTML, sniffed))
		}
	}
	// Header charset, then BOM, then <meta charset> in the first 1024
	// bytes, then a UTF-8 check (HTML §13.2.3.1 encoding sniffing).
	enc, name, _ := charset.DetermineEncoding(head, contentType)
	var r io.Reader = br
	var decoded *capReader
	if name != "utf-8" {
		decoded = &capReader{r: transform.NewReader(br, enc.NewDecoder()), left: maxBytes}
		r = decoded
	}
	prefix := &prefixWriter{left: maintext.MaxContentInput}
	p, err := Parse(io.TeeReader(r, prefix), pageURL)
	if err != nil {
		// Parse fails only when reading does: a reset, a timeout, a
		// corrupt compressed stream.
		return Page{}, fmt.Errorf("read body: %w", errors.Unwrap(err))
	}
	p.Bytes = raw.n
	p.Truncated = p.Truncated || raw.truncated || (decoded != nil && decoded.truncated)
	p.Content = prefix.buf
	return p, nil
}

// prefixWriter keeps the first left bytes written to it.
type prefixWriter struct {
	buf  []byte
	left int
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	if w.left > 0 {
		k := min(len(p), w.left)
		w.buf = append(w.buf, p[:k]...)
		w.left -= k
	}
	return len(p), nil
}

// checkStatus accepts 2xx and classifies everything else.
func (c *Client) checkStatus(resp *http.Response) error {
	code := resp.StatusCode
	if code >= 200 && code <= 299 {
		return nil
	}
	se := &StatusError{Code: code}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		se.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.opts.Now())
	}
	if code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500 {
		return task.Retryable(se)
	}
	// Other 4xx cannot heal by retrying, and a 3xx that reaches here had
	// no usable Location.
	return task.Fatal(se)
}

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// classify gives a transport error its kind. Fatal are the failures that
// the same request would hit again: blocked addresses, redirect problems,
// a name that does not exist, a certificate that does not verify, an
// encoding we did not ask for, a corrupt compressed stream, response
// headers over the limit. Everything else (timeouts, resets, refused
// connections, truncated bodies) is retryable.
func (c *Client) classify(ctx context.Context, err error) error {
	var ke *task.Error
	if errors.As(err, &ke) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the url.Error repeats the URL that Scrape reports
	}
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
	)
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, ErrBlockedAddress), errors.Is(err, ErrTooManyRedirects),
		errors.Is(err, ErrRedirectTarget), errors.Is(err, ErrContentEncoding):
		return task.Fatal(err)
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum),
		errors.Is(err, zlib.ErrHeader), errors.Is(err, zlib.ErrChecksum), errors.As(err, &corrupt):
		// The server sends the same broken stream again. A stream cut
		// short (io.ErrUnexpectedEOF) is a connection problem instead.
		return task.Fatal(err)
	case strings.Contains(err.Error(), "server response headers exceeded"):
		// Transport.MaxResponseHeaderBytes (64 KiB) was exceeded; net/http
		// has no sentinel for it (transport.go readResponse), only this
		// message. The same server sends the same headers again.
		return task.Fatal(err)
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return task.Fatal(err)
	case errors.As(err, &certErr):
		return task.Fatal(err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return task.Retryable(fmt.Errorf("attempt timed out after %v: %w", c.opts.FetchTimeout, err))
	}
	return task.Retryable(err)
}

// mediaType returns the lowercase type/subtype of a Content-Type value, or
// "" when it has none.
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	t, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// decodeBody undoes the Content-Encoding the client offered (gzip,
// deflate).
func decodeBody(body io.Reader, encoding string) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if errors.Is(err, io.EOF) {
			return strings.NewReader(""), nil // an empty body
		}
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		return zr, nil
	case "deflate":
		// RFC 9110 says zlib, but many servers send raw deflate (RFC 1951);
		// browsers accept both, and the zlib header tells them apart.
		br := bufio.NewReader(body)
		h, err := br.Peek(2)
		if len(h) == 2 && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, fmt.Errorf("deflate body: %w", err)
			}
			return zr, nil
		}
		if errors.Is(err, io.EOF) && len(h) == 0 {
			return strings.NewReader(""), nil
		}
		return flate.NewReader(br), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrContentEncoding, encoding)
}

// capReader passes through at most left bytes. When the limit is reached it
// probes the source for one more byte to tell a body of exactly the limit
// from a longer one, and then reports io.EOF: a body over the limit is cut,
// not rejected.
type capReader struct {
	r         io.Reader
	left      int64
	n         int64
	truncated bool
	probed    bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		if !c.probed {
			c.probed = true
			var one [1]byte
			// Readers may return (0, nil); a few tries settle it.
			for range 8 {
				k, err := c.r.Read(one[:])
				if k > 0 {
					c.truncated = true
					break
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return 0, err
				}
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	k, err := c.r.Read(p)
	c.left -= int64(k)
	c.n += int64(k)
	return k, err
}
