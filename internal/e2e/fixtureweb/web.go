package fixtureweb

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// StatsPath is the path of the JSON request counters (see Stats).
const StatsPath = "/_fixtureweb/stats"

// dripChunks is the number of pieces a slow-drip body is sent in.
const dripChunks = 10

// Web is a fixture web: an http.Handler serving Config.Sites sites under
// /site/<id>/. It is safe for concurrent use.
type Web struct {
	cfg   Config
	sites []Site
	// home counts requests to each site's home page: the state of flaky
	// and rate-limited sites. hits counts requests to any page of a site.
	home []atomic.Int64
	hits []atomic.Int64

	requests       atomic.Int64
	robotsRequests atomic.Int64
	other          atomic.Int64
	aborted        atomic.Int64
	byBehavior     [numBehaviors]atomic.Int64 // indexed like Behaviors()
	byStatus       [600]atomic.Int64

	gzips sync.Pool // *gzip.Writer

	mu       sync.Mutex
	srvs     []*http.Server
	started  string            // base URL of the main listener Start opened
	origins  map[Robots]string // base URL of each robots variant's listener
	done     sync.WaitGroup
	serveErr error
}

// New validates cfg, fills in its defaults and draws every site.
func New(cfg Config) (*Web, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &Web{
		cfg:   c,
		sites: make([]Site, c.Sites),
		home:  make([]atomic.Int64, c.Sites),
		hits:  make([]atomic.Int64, c.Sites),
	}
	bs, cum := c.Mix.cumulative()
	for id := range w.sites {
		w.sites[id] = drawSite(&w.cfg, bs, cum, id)
	}
	return w, nil
}

// Config returns the configuration with its defaults filled in.
func (w *Web) Config() Config {
	c := w.cfg
	c.Mix = maps.Clone(w.cfg.Mix)
	return c
}

// Site returns site id, or false when there is no such site.
func (w *Web) Site(id int) (Site, bool) {
	if id < 0 || id >= len(w.sites) {
		return Site{}, false
	}
	return w.sites[id], true
}

// Sites returns every site, by id.
func (w *Web) Sites() []Site { return append([]Site(nil), w.sites...) }

// Page returns what site id's home page says (for a site whose home page
// is an HTML page; for the others, what its pages would say).
func (w *Web) Page(id int) (Page, bool) {
	if _, ok := w.Site(id); !ok {
		return Page{}, false
	}
	c := newContent(w.cfg.Seed, id)
	p := c.page
	p.Emails = append([]string(nil), p.Emails...)
	p.Socials = append([]string(nil), p.Socials...)
	return p, true
}

// Start serves the web on addr ("127.0.0.1:0" when empty; port 0 picks a
// free port) until Close, with one more listener on the same host and a
// free port for each robots.txt variant of Config.Robots but RobotsNone.
// BaseURL then names the main listener, with 127.0.0.1 for an unspecified
// host, and SiteURL the listener of each site's variant.
func (w *Web) Start(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.srvs != nil {
		return errors.New("fixtureweb: start: already started")
	}
	base, err := w.listen(addr, RobotsNone)
	if err != nil {
		return err
	}
	w.started = base
	w.origins = map[Robots]string{RobotsNone: base}
	host, _, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	for _, v := range RobotsVariants()[1:] {
		if w.cfg.Robots[v] == 0 {
			continue
		}
		o, err := w.listen(net.JoinHostPort(strings.Trim(host, "[]"), "0"), v)
		if err != nil {
			return errors.Join(err, w.closeLocked())
		}
		w.origins[v] = o
	}
	return nil
}

// listen opens one listener serving the web with robots.txt variant v and
// returns its base URL. The caller holds w.mu.
func (w *Web) listen(addr string, v Robots) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fixtureweb: start: %w", err)
	}
	ap, err := netip.ParseAddrPort(ln.Addr().String())
	if err != nil {
		_ = ln.Close() // the parse error is the one to report
		return "", fmt.Errorf("fixtureweb: start: listener address: %w", err)
	}
	host := ap.Addr().Unmap()
	if host.IsUnspecified() {
		host = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	srv := &http.Server{Handler: variantHandler{w, v}, ReadHeaderTimeout: 10 * time.Second}
	w.srvs = append(w.srvs, srv)
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			w.mu.Lock()
			w.serveErr = errors.Join(w.serveErr, fmt.Errorf("fixtureweb: serve: %w", err))
			w.mu.Unlock()
		}
	}()
	return "http://" + netip.AddrPortFrom(host, ap.Port()).String(), nil
}

// Close stops the servers Start started, at once: requests in flight are
// cut (a slow or dripping page stops). It returns the servers' errors, if
// they failed. Close without Start does nothing.
func (w *Web) Close() error {
	w.mu.Lock()
	err := w.closeLocked()
	w.mu.Unlock()
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(err, w.serveErr)
}

// closeLocked closes every server; the caller holds w.mu.
func (w *Web) closeLocked() error {
	var errs []error
	for _, srv := range w.srvs {
		errs = append(errs, srv.Close())
	}
	return errors.Join(errs...)
}

// BaseURL is the origin the web is reachable at: Config.BaseURL, or the
// listener Start opened; "" before either.
func (w *Web) BaseURL() string {
	if w.cfg.BaseURL != "" {
		return w.cfg.BaseURL
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// origin is the base URL sites of robots variant v are served at: the
// listener of v once started, else BaseURL.
func (w *Web) origin(v Robots) string {
	w.mu.Lock()
	o, ok := w.origins[v]
	w.mu.Unlock()
	if ok {
		return o
	}
	return w.BaseURL()
}

// SiteURL is the home page of site id, on the listener of its robots.txt
// variant.
func (w *Web) SiteURL(id int) string {
	if id < 0 || id >= len(w.sites) {
		return w.BaseURL() + sitePath(id)
	}
	return w.origin(w.sites[id].Robots) + sitePath(id)
}

// variantHandler serves the web on the listener of one robots variant.
type variantHandler struct {
	w *Web
	v Robots
}

func (h variantHandler) ServeHTTP(rw http.ResponseWriter, r *http.Request) { h.w.serve(rw, r, h.v) }

// ServeHTTP serves the sites, the stats endpoint and a short index, with
// no robots.txt (RobotsNone).
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) { w.serve(rw, r, RobotsNone) }

func (w *Web) serve(rw http.ResponseWriter, r *http.Request, v Robots) {
	sw := &statusWriter{ResponseWriter: rw}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.other.Add(1)
		sw.Header().Set("Allow", "GET, HEAD")
		http.Error(sw, "method not allowed", http.StatusMethodNotAllowed)
		w.countStatus(sw)
		return
	}
	path := r.URL.Path
	switch {
	case path == "/robots.txt":
		w.serveRobots(sw, v)
		w.countStatus(sw)
		return
	case path == StatsPath:
		w.serveStats(sw)
		return
	case path == "/":
		w.other.Add(1)
		sw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(sw, "fixtureweb: %d sites, seed %d, mix %s\nsites: /site/<0..%d>/\nstats: %s\n",
			w.cfg.Sites, w.cfg.Seed, w.cfg.Mix, w.cfg.Sites-1, StatsPath)
		w.countStatus(sw)
		return
	}
	id, rest, ok := w.parseSitePath(path)
	if !ok {
		w.other.Add(1)
		http.Error(sw, "no such site", http.StatusNotFound)
		w.countStatus(sw)
		return
	}
	s := w.sites[id]
	w.requests.Add(1)
	w.hits[id].Add(1)
	w.byBehavior[behaviorIndex(s.Behavior)].Add(1)
	w.serveSite(sw, r, s, rest)
	w.countStatus(sw)
}

// parseSitePath splits "/site/<id>/<rest>" into the id and "/<rest>". The
// id must be in its canonical decimal form ("042" is no site), so that one
// site has one address.
func (w *Web) parseSitePath(p string) (int, string, bool) {
	rest, ok := strings.CutPrefix(p, "/site/")
	if !ok {
		return 0, "", false
	}
	seg, rest, _ := strings.Cut(rest, "/")
	id, err := strconv.Atoi(seg)
	if err != nil || id < 0 || id >= len(w.sites) || strconv.Itoa(id) != seg {
		return 0, "", false
	}
	return id, "/" + rest, true
}

// serveSite answers a request for path rest ("/", "/about", ...) of site
// s. The behaviour governs the home page and the redirect pages that lead
// from it; /about and /contact are healthy pages on every site except
// not-found and server-error ones, which are broken throughout.
func (w *Web) serveSite(rw http.ResponseWriter, r *http.Request, s Site, rest string) {
	base := sitePath(s.ID)
	switch s.Behavior {
	case NotFound:
		notFound(rw)
		return
	case ServerError:
		serverError(rw, s.Status)
		return
	}
	switch {
	case rest == "/":
		w.serveHome(rw, r, s)
	case rest == "/about":
		w.servePage(rw, r, s, pageAbout)
	case rest == "/contact":
		w.servePage(rw, r, s, pageContact)
	case rest == "/imprint":
		w.servePage(rw, r, s, pageImprint)
	case s.Behavior == RedirectChain && rest == "/final":
		w.servePage(rw, r, s, pageHome)
	case s.Behavior == RedirectChain && strings.HasPrefix(rest, "/hop/"):
		n, err := strconv.Atoi(strings.TrimPrefix(rest, "/hop/"))
		if err != nil || n < 1 || n >= s.Hops {
			notFound(rw)
			return
		}
		redirect(rw, s, n+1, hopTarget(base, n+1, s.Hops))
	case s.Behavior == RedirectLoop && rest == "/loop":
		redirect(rw, s, 2, base)
	default:
		notFound(rw)
	}
}

// hopTarget is where redirect number n of a chain of hops points: the next
// hop, or the final page.
func hopTarget(base string, n, hops int) string {
	if n >= hops {
		return base + "final"
	}
	return base + "hop/" + strconv.Itoa(n)
}

func (w *Web) serveHome(rw http.ResponseWriter, r *http.Request, s Site) {
	n := w.home[s.ID].Add(1)
	switch s.Behavior {
	case Slow:
		if !sleepCtx(r.Context(), s.Delay) {
			return // the client gave up; nobody reads an answer
		}
		w.servePage(rw, r, s, pageHome)
	case Flaky:
		if n <= int64(s.Failures) {
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			rw.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(rw, "<!DOCTYPE html><title>503 Service Unavailable</title><h1>Service temporarily unavailable</h1>\n")
			return
		}
		w.servePage(rw, r, s, pageHome)
	case RateLimited:
		if n <= int64(s.Failures) {
			rw.Header().Set("Retry-After", strconv.Itoa(int(w.cfg.RetryAfter/time.Second)))
			rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
			rw.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(rw, "too many requests; slow down\n")
			return
		}
		w.servePage(rw, r, s, pageHome)
	case RedirectChain:
		redirect(rw, s, 1, hopTarget(sitePath(s.ID), 1, s.Hops))
	case RedirectLoop:
		redirect(rw, s, 1, sitePath(s.ID)+"loop")
	case Huge:
		w.serveHuge(rw, r, s)
	case NotHTML:
		rw.Header().Set("Content-Type", "application/pdf")
		rw.Header().Set("Content-Length", strconv.Itoa(len(pdfBody)))
		_, _ = rw.Write([]byte(pdfBody)) // a write error means the client left
	case SlowDrip:
		w.serveDrip(rw, r, s)
	default:
		w.servePage(rw, r, s, pageHome)
	}
}

// A minimal one-page PDF: what a link to a brochure returns.
const pdfBody = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
	"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\n" +
	"trailer<</Root 1 0 R>>\n%%EOF\n"

var redirectCodes = []int{
	http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
	http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
}

// redirect sends redirect number n of site s to the path target. The
// status varies by site and hop; all of them keep a GET a GET.
func redirect(rw http.ResponseWriter, s Site, n int, target string) {
	rw.Header().Set("Location", target)
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(redirectCodes[(s.ID+n)%len(redirectCodes)])
	fmt.Fprintf(rw, "<!DOCTYPE html><title>Moved</title><a href=\"%s\">moved here</a>\n", target)
}

func notFound(rw http.ResponseWriter) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(http.StatusNotFound)
	fmt.Fprint(rw, "<!DOCTYPE html><title>404 Not Found</title><h1>Page not found</h1>\n")
}

func serverError(rw http.ResponseWriter, code int) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(code)
	fmt.Fprintf(rw, "<!DOCTYPE html><title>%d %s</title><h1>%s</h1>\n", code, http.StatusText(code), http.StatusText(code))
}

// origin is the scheme and host the request was made to; pages link their
// canonical URL there.
func origin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// renderPage renders and encodes one page of site s.
func (w *Web) renderPage(r *http.Request, s Site, kind pageKind, size int, exact bool) (*content, []byte, error) {
	c := newContent(w.cfg.Seed, s.ID)
	if kind != pageHome {
		size = 0
	} else if size == 0 {
		size = c.size
	}
	var b bytes.Buffer
	b.Grow(size + 4<<10)
	c.render(&b, origin(r), kind, size, exact)
	body, err := c.encode(b.Bytes())
	return c, body, err
}

func contentType(c *content) string {
	if c.page.Charset == "utf-8" {
		return "text/html; charset=utf-8"
	}
	// Some sites declare their charset only in the page; the scraper finds
	// it in the first 1024 bytes.
	return "text/html"
}

// servePage writes a page of s at once, gzipped when the site compresses
// and the client accepts it.
func (w *Web) servePage(rw http.ResponseWriter, r *http.Request, s Site, kind pageKind) {
	c, body, err := w.renderPage(r, s, kind, 0, false)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	h := rw.Header()
	h.Set("Content-Type", contentType(c))
	h.Set("Content-Language", c.page.Lang)
	h.Set("Vary", "Accept-Encoding")
	if c.page.Gzip && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		zw, _ := w.gzips.Get().(*gzip.Writer)
		if zw == nil {
			zw, _ = gzip.NewWriterLevel(rw, gzip.BestSpeed) // a valid level: no error
		} else {
			zw.Reset(rw)
		}
		defer w.gzips.Put(zw)
		if _, err := zw.Write(body); err != nil {
			return // the client left
		}
		_ = zw.Close() // as above: an error means the client left
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = rw.Write(body) // an error means the client left
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}

// serveHuge writes a page of exactly Config.HugeBytes, uncompressed so
// the size on the wire is the size the scraper counts. The page is
// padded after </html> with whitespace, after encoding, because a
// windows-1252 page shrinks when it is encoded.
func (w *Web) serveHuge(rw http.ResponseWriter, r *http.Request, s Site) {
	c, body, err := w.renderPage(r, s, pageHome, int(w.cfg.HugeBytes), true)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	if pad := int(w.cfg.HugeBytes) - len(body); pad > 0 {
		body = append(body, bytes.Repeat([]byte{' '}, pad)...)
		body[len(body)-1] = '\n'
	}
	rw.Header().Set("Content-Type", contentType(c))
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = rw.Write(body) // the scraper stops reading at its cap and hangs up
}

// serveDrip sends the home page in dripChunks pieces spread evenly over
// s.Drip: the first piece (with the head) at once, the last at the end.
func (w *Web) serveDrip(rw http.ResponseWriter, r *http.Request, s Site) {
	c, body, err := w.renderPage(r, s, pageHome, 0, false)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	rw.Header().Set("Content-Type", contentType(c))
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	rc := http.NewResponseController(rw)
	step := s.Drip / (dripChunks - 1)
	for i := range dripChunks {
		if i > 0 && !sleepCtx(r.Context(), step) {
			return
		}
		lo, hi := len(body)*i/dripChunks, len(body)*(i+1)/dripChunks
		if _, err := rw.Write(body[lo:hi]); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// sleepCtx waits d and reports whether ctx is still live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// statusWriter remembers the status code a handler sent.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (w *Web) countStatus(s *statusWriter) {
	code := s.code
	if code == 0 {
		// The handler wrote nothing because the client gave up first (a
		// slow site past the scraper's timeout, or a server shutdown).
		w.aborted.Add(1)
		return
	}
	if code >= 100 && code < len(w.byStatus) {
		w.byStatus[code].Add(1)
	}
}
