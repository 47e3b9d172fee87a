package scrape

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

const page = `<!DOCTYPE html><html lang="en"><head><title>Acme Widgets</title>
<meta name="description" content="We make widgets."></head>
<body><h1>Welcome</h1><p>Mail <a href="mailto:sales@acme.example">us</a>.</p></body></html>`

func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

func TestScrapeSuccess(t *testing.T) {
	t.Parallel()
	var ua atomic.Value
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		htmlHandler(page)(w, r)
	})
	c, rec := newClient(t, Options{}, srv)
	res, err := c.Scrape(context.Background(), srv.URL)
	require.NoError(t, err)
	require.Equal(t, 1, res.Attempts)
	require.Empty(t, rec.get())
	require.Equal(t, srv.URL+"/", res.Summary.URL)
	require.Equal(t, 200, res.Summary.Status)
	require.Equal(t, "Acme Widgets", res.Summary.Title)
	require.Equal(t, "We make widgets.", res.Summary.Description)
	require.Equal(t, "en", res.Summary.Lang)
	require.Equal(t, "Welcome", res.Summary.H1)
	require.Equal(t, []string{"sales@acme.example"}, res.Summary.Emails)
	require.Equal(t, int64(len(page)), res.Summary.Bytes)
	require.False(t, res.Summary.Truncated)
	require.Equal(t, DefaultUserAgent, ua.Load())
	require.Positive(t, res.Latency)
}

// TestScrapeOutcomes covers the documented outcome, kind and request count
// of each failure mode the client must survive.
func TestScrapeOutcomes(t *testing.T) {
	t.Parallel()
	const base = 100 * time.Millisecond
	tests := []struct {
		name     string
		handler  func(t *testing.T) http.HandlerFunc
		opts     Options
		wantErr  error // errors.Is target, nil for success
		wantKind task.ErrorKind
		wantHits int64 // requests the server saw
		attempts int   // Result.Attempts
		waits    []time.Duration
		check    func(t *testing.T, res Result, err error)
	}{
		{
			name: "slow server times out, retried, error after 3 attempts",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-time.After(5 * time.Second):
					}
				}
			},
			opts:     Options{FetchTimeout: 100 * time.Millisecond},
			wantErr:  context.DeadlineExceeded,
			wantKind: task.KindRetryable,
			wantHits: 3, attempts: 3,
			waits: []time.Duration{base / 2, base}, // 0.5·base·2^(n-1)
			check: func(t *testing.T, _ Result, err error) {
				require.Contains(t, err.Error(), "attempt timed out after 100ms")
				require.Contains(t, err.Error(), "attempt 3 of 3")
			},
		},
		{
			name: "connection reset, retried, error after 3 attempts",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					conn, _, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					_ = conn.(*net.TCPConn).SetLinger(0) // close with RST
					_ = conn.Close()
				}
			},
			wantKind: task.KindRetryable,
			wantHits: 3, attempts: 3,
			waits: []time.Duration{base / 2, base},
		},
		{
			name: "500 then 200 succeeds on attempt 2",
			handler: func(t *testing.T) http.HandlerFunc {
				var n atomic.Int64
				return func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) == 1 {
						http.Error(w, "oops", http.StatusInternalServerError)
						return
					}
					htmlHandler(page)(w, r)
				}
			},
			wantHits: 2, attempts: 2,
			waits: []time.Duration{base / 2},
			check: func(t *testing.T, res Result, _ error) {
				require.Equal(t, "Acme Widgets", res.Summary.Title)
			},
		},
		{
			name: "503 on every attempt",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			},
			wantKind: task.KindRetryable,
			wantHits: 3, attempts: 3,
			waits: []time.Duration{base / 2, base},
			check: func(t *testing.T, _ Result, err error) {
				var se *StatusError
				require.ErrorAs(t, err, &se)
				require.Equal(t, 503, se.Code)
			},
		},
		{
			name: "408 is retried",
			handler: func(t *testing.T) http.HandlerFunc {
				var n atomic.Int64
				return func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) == 1 {
						w.WriteHeader(http.StatusRequestTimeout)
						return
					}
					htmlHandler(page)(w, r)
				}
			},
			wantHits: 2, attempts: 2,
			waits: []time.Duration{base / 2},
		},
		{
			name: "429 with Retry-After seconds waits that long, then succeeds",
			handler: func(t *testing.T) http.HandlerFunc {
				var n atomic.Int64
				return func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) == 1 {
						w.Header().Set("Retry-After", "2")
						w.WriteHeader(http.StatusTooManyRequests)
						return
					}
					htmlHandler(page)(w, r)
				}
			},
			wantHits: 2, attempts: 2,
			waits: []time.Duration{2 * time.Second},
		},
		{
			name: "429 with Retry-After date waits until then",
			handler: func(t *testing.T) http.HandlerFunc {
				var n atomic.Int64
				return func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) == 1 {
						w.Header().Set("Retry-After", "Sun, 06 Nov 1994 08:49:52 GMT")
						w.WriteHeader(http.StatusTooManyRequests)
						return
					}
					htmlHandler(page)(w, r)
				}
			},
			opts: Options{Now: func() time.Time {
				return time.Date(1994, 11, 6, 8, 49, 47, 0, time.UTC)
			}},
			wantHits: 2, attempts: 2,
			waits: []time.Duration{5 * time.Second},
		},
		{
			name: "429 with Retry-After beyond the bound is not waited for",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Retry-After", "3600")
					w.WriteHeader(http.StatusTooManyRequests)
				}
			},
			wantKind: task.KindRetryable,
			wantHits: 1, attempts: 1,
			check: func(t *testing.T, _ Result, err error) {
				var se *StatusError
				require.ErrorAs(t, err, &se)
				require.Equal(t, time.Hour, se.RetryAfter)
			},
		},
		{
			name: "404 is fatal",
			handler: func(t *testing.T) http.HandlerFunc {
				return http.NotFound
			},
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
			check: func(t *testing.T, _ Result, err error) {
				var se *StatusError
				require.ErrorAs(t, err, &se)
				require.Equal(t, 404, se.Code)
				require.Contains(t, err.Error(), "status 404 Not Found")
			},
		},
		{
			name: "403 is fatal",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }
			},
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
		},
		{
			name: "redirect loop is fatal after 5 redirects",
			handler: func(t *testing.T) http.HandlerFunc {
				var n atomic.Int64
				return func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, fmt.Sprintf("/loop/%d", n.Add(1)), http.StatusFound)
				}
			},
			wantErr:  ErrTooManyRedirects,
			wantKind: task.KindFatal,
			wantHits: 6, attempts: 1, // the first request and 5 followed redirects
		},
		{
			name: "redirect to ftp is fatal",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "ftp://files.example/x", http.StatusMovedPermanently)
				}
			},
			wantErr:  ErrRedirectTarget,
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
		},
		{
			name: "application/pdf is fatal without retry",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/pdf")
					_, _ = w.Write([]byte("%PDF-1.7\n"))
				}
			},
			wantErr:  ErrNotHTML,
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
		},
		{
			name: "missing content type, sniffed as pdf, is fatal",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header()["Content-Type"] = nil // suppress net/http's sniffing
					_, _ = w.Write([]byte("%PDF-1.7\n%âãÏÓ\n"))
				}
			},
			wantErr:  ErrNotHTML,
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
		},
		{
			name: "missing content type, sniffed as html, succeeds",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header()["Content-Type"] = nil
					_, _ = w.Write([]byte(page))
				}
			},
			wantHits: 1, attempts: 1,
			check: func(t *testing.T, res Result, _ error) {
				require.Equal(t, "Acme Widgets", res.Summary.Title)
			},
		},
		{
			name: "unoffered content-encoding is fatal",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.Header().Set("Content-Encoding", "br")
					_, _ = w.Write([]byte{0x0b, 0x02, 0x80})
				}
			},
			wantErr:  ErrContentEncoding,
			wantKind: task.KindFatal,
			wantHits: 1, attempts: 1,
		},
		{
			name: "204 no content is an empty summary",
			handler: func(t *testing.T) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusNoContent)
				}
			},
			wantHits: 1, attempts: 1,
			check: func(t *testing.T, res Result, _ error) {
				require.Equal(t, 204, res.Summary.Status)
				require.Zero(t, res.Summary.Bytes)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, tt.handler(t))
			tt.opts.BackoffBase = base
			c, rec := newClient(t, tt.opts, srv)
			res, err := c.Scrape(context.Background(), srv.URL)
			if tt.wantKind == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				require.Equal(t, tt.wantKind, task.KindOf(err), "error: %v", err)
				require.True(t, strings.HasPrefix(err.Error(), "scrape: fetch "+srv.URL+"/: "), err.Error())
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
			}
			require.Equal(t, tt.wantHits, srv.hits.Load(), "requests seen by the server")
			require.Equal(t, tt.attempts, res.Attempts)
			require.Equal(t, tt.waits, rec.get())
			if tt.check != nil {
				tt.check(t, res, err)
			}
		})
	}
}

func TestScrapeRedirectToLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		allowPrivate bool
		target       func(b *server) string
	}{
		{"blocked by ip", false, func(b *server) string { return b.URL + "/" }},
		{"blocked after dns", false, func(b *server) string { return fmt.Sprintf("http://localhost:%d/", b.addr.Port()) }},
		{"allowed by opt-in", true, func(b *server) string { return b.URL + "/" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := serve(t, htmlHandler(page))
			a := serve(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.target(b), http.StatusFound)
			})
			// Only a is reachable by exception; b is another port on the
			// same loopback address.
			c, _ := newClient(t, Options{AllowPrivateNetworks: tt.allowPrivate}, a)
			res, err := c.Scrape(context.Background(), a.URL)
			require.Equal(t, int64(1), a.hits.Load())
			if tt.allowPrivate {
				require.NoError(t, err)
				require.Equal(t, int64(1), b.hits.Load())
				require.Equal(t, "Acme Widgets", res.Summary.Title)
				require.Equal(t, tt.target(b), res.Summary.URL, "the summary names the final url")
				return
			}
			require.ErrorIs(t, err, ErrBlockedAddress)
			require.Equal(t, task.KindFatal, task.KindOf(err))
			require.Equal(t, 1, res.Attempts)
			require.Zero(t, b.hits.Load(), "the blocked server must never see a request")
		})
	}
}

func TestScrapeBlocksLoopbackByDefault(t *testing.T) {
	t.Parallel()
	srv := serve(t, htmlHandler(page))
	c, err := New(Options{}) // production options: no exceptions
	require.NoError(t, err)
	res, err := c.Scrape(context.Background(), srv.URL)
	require.ErrorIs(t, err, ErrBlockedAddress)
	require.Equal(t, task.KindFatal, task.KindOf(err))
	require.Equal(t, 1, res.Attempts)
	require.Zero(t, srv.hits.Load())
}

func TestScrapeInvalidURL(t *testing.T) {
	t.Parallel()
	c, rec := newClient(t, Options{})
	for _, in := range []string{"", "ftp://example.com", "https://user:pw@example.com", "http://0x7f.1/"} {
		res, err := c.Scrape(context.Background(), in)
		require.Error(t, err)
		require.Equal(t, task.KindFatal, task.KindOf(err))
		require.True(t, strings.HasPrefix(err.Error(), "scrape: fetch: fatal: weburl: normalize"), err.Error())
		require.Zero(t, res.Attempts)
	}
	require.Empty(t, rec.get())
}

func TestScrapeContextCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(Options{
		AllowAddrs: []netip.AddrPort{srv.addr},
		Sleep: func(ctx context.Context, d time.Duration) error {
			cancel() // the Lambda's deadline arrives while waiting
			return ctx.Err()
		},
	})
	require.NoError(t, err)
	res, err := c.Scrape(ctx, srv.URL)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, task.KindRetryable, task.KindOf(err))
	require.Equal(t, 1, res.Attempts)
	require.Equal(t, int64(1), srv.hits.Load())
}

func TestScrapeCharsets(t *testing.T) {
	t.Parallel()
	latin1 := func(s string) []byte { // s is ASCII and Latin-1 letters only
		var b []byte
		for _, r := range s {
			b = append(b, byte(r))
		}
		return b
	}
	tests := []struct {
		name        string
		contentType string
		body        []byte
		title       string
	}{
		{"iso-8859-1 header", "text/html; charset=ISO-8859-1",
			latin1("<html><head><title>Café Müller</title></head><body><h1>Grüße</h1></body></html>"),
			"Café Müller"},
		{"windows-1252 meta only", "text/html",
			append(latin1(`<html><head><meta charset="windows-1252"><title>Caf`), append([]byte{0xe9, ' ', 0x80, ' '}, latin1("5</title></head></html>")...)...),
			"Café € 5"},
		{"http-equiv meta", "text/html",
			latin1(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Señor Müller</title></head></html>`),
			"Señor Müller"},
		{"shift_jis header", "text/html; charset=Shift_JIS",
			[]byte("<html><head><title>\x93\xfa\x96\x7b</title></head></html>"), // 日本
			"日本"},
		{"utf-8 with bom", "text/html",
			append([]byte{0xef, 0xbb, 0xbf}, "<title>Smørrebrød</title>"...),
			"Smørrebrød"},
		{"header wins over meta", "text/html; charset=utf-8",
			[]byte(`<meta charset="iso-8859-1"><title>Café</title>`),
			"Café"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = w.Write(tt.body)
			})
			c, _ := newClient(t, Options{}, srv)
			res, err := c.Scrape(context.Background(), srv.URL)
			require.NoError(t, err)
			require.Equal(t, tt.title, res.Summary.Title)
		})
	}
}

func TestScrapeCompressed(t *testing.T) {
	t.Parallel()
	compress := map[string]func([]byte) []byte{
		"gzip": func(b []byte) []byte {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			_, _ = w.Write(b)
			_ = w.Close()
			return buf.Bytes()
		},
		"deflate": func(b []byte) []byte { // zlib, as RFC 9110 says
			var buf bytes.Buffer
			w := zlib.NewWriter(&buf)
			_, _ = w.Write(b)
			_ = w.Close()
			return buf.Bytes()
		},
		"raw deflate": func(b []byte) []byte { // what many servers send
			var buf bytes.Buffer
			w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
			_, _ = w.Write(b)
			_ = w.Close()
			return buf.Bytes()
		},
	}
	for name, fn := range compress {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var acceptEncoding atomic.Value
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				acceptEncoding.Store(r.Header.Get("Accept-Encoding"))
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", strings.TrimPrefix(name, "raw "))
				_, _ = w.Write(fn([]byte(page)))
			})
			c, _ := newClient(t, Options{}, srv)
			res, err := c.Scrape(context.Background(), srv.URL)
			require.NoError(t, err)
			require.Equal(t, "gzip, deflate", acceptEncoding.Load())
			require.Equal(t, "Acme Widgets", res.Summary.Title)
			require.Equal(t, int64(len(page)), res.Summary.Bytes, "bytes are counted after decompression")
		})
	}
}

func TestScrapeBodyExactlyAtCap(t *testing.T) {
	t.Parallel()
	body := page + strings.Repeat(" ", 1000)
	srv := serve(t, htmlHandler(body))
	c, _ := newClient(t, Options{MaxBodyBytes: int64(len(body))}, srv)
	res, err := c.Scrape(context.Background(), srv.URL)
	require.NoError(t, err)
	require.False(t, res.Summary.Truncated, "a body of exactly the cap is complete")
	require.Equal(t, int64(len(body)), res.Summary.Bytes)

	c, _ = newClient(t, Options{MaxBodyBytes: int64(len(body)) - 1}, srv)
	res, err = c.Scrape(context.Background(), srv.URL)
	require.NoError(t, err)
	require.True(t, res.Summary.Truncated)
	require.Equal(t, int64(len(body))-1, res.Summary.Bytes)
}

// The two tests below measure the heap, so they do not run in parallel:
// Go starts parallel tests only after all sequential ones have finished.

func TestScrapeHugeBodyIsCut(t *testing.T) {
	const total = 50 << 20
	var written atomic.Int64
	handlerDone := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		w.Header().Set("Content-Type", "text/html")
		n, _ := w.Write([]byte("<html><head><title>Big catalogue</title></head><body><h1>All products</h1>"))
		written.Add(int64(n))
		chunk := bytes.Repeat([]byte("<div class=item><a href=/p/1>Product</a> <span>9.99</span></div>\n"), 1000)
		for written.Load() < total {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the client hung up after its cap
			}
		}
	})
	c, _ := newClient(t, Options{}, srv)
	var res Result
	var err error
	peak := peakHeap(func() { res, err = c.Scrape(context.Background(), srv.URL) })
	require.NoError(t, err)
	require.True(t, res.Summary.Truncated)
	require.Equal(t, int64(DefaultMaxBodyBytes), res.Summary.Bytes)
	require.Equal(t, "Big catalogue", res.Summary.Title)
	require.Equal(t, "All products", res.Summary.H1)
	require.Greater(t, res.Summary.InternalLinks, 70000)
	require.Less(t, peak, uint64(64<<20), "peak heap %.1f MiB", float64(peak)/(1<<20))
	t.Logf("peak heap while scraping a 50 MiB body: %.1f MiB", float64(peak)/(1<<20))
	select {
	case <-handlerDone:
	case <-time.After(10 * time.Second):
		t.Fatal("server still writing 10 s after the client stopped reading")
	}
	require.Less(t, written.Load(), int64(total), "the client must stop reading at its cap")
}

func TestScrapeGzipBombIsCut(t *testing.T) {
	// 1 GiB of short elements after a small page, as 1024 gzip members of
	// 1 MiB each (a gzip stream may hold many members, RFC 1952 §2.2). The
	// whole response is a few MiB on the wire. (Elements, not one run of
	// spaces: a single 1 GiB token would end at the tokenizer's 1 MiB
	// buffer before the body cap.)
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	require.NoError(t, err)
	_, _ = zw.Write(bytes.Repeat([]byte("<i> </i>"), 1<<17))
	require.NoError(t, zw.Close())
	var head bytes.Buffer
	zw = gzip.NewWriter(&head)
	_, _ = zw.Write([]byte("<html><head><title>Bomb</title></head><body>"))
	require.NoError(t, zw.Close())

	var membersWritten atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(head.Bytes())
		for range 1024 {
			if _, err := w.Write(member.Bytes()); err != nil {
				return
			}
			membersWritten.Add(1)
		}
	})
	c, _ := newClient(t, Options{}, srv)
	var res Result
	peak := peakHeap(func() { res, err = c.Scrape(context.Background(), srv.URL) })
	require.NoError(t, err)
	require.True(t, res.Summary.Truncated)
	require.Equal(t, int64(DefaultMaxBodyBytes), res.Summary.Bytes)
	require.Equal(t, "Bomb", res.Summary.Title)
	require.Less(t, peak, uint64(64<<20), "peak heap %.1f MiB", float64(peak)/(1<<20))
	t.Logf("gzip member %d bytes; peak heap %.1f MiB", member.Len(), float64(peak)/(1<<20))
}

func TestClassifyDNS(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, Options{})
	ctx := context.Background()
	nx := &net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}
	require.Equal(t, task.KindFatal, task.KindOf(c.classify(ctx, nx)))
	tmp := &net.DNSError{Err: "server misbehaving", Name: "example.com", IsTemporary: true}
	require.Equal(t, task.KindRetryable, task.KindOf(c.classify(ctx, tmp)))
	require.Equal(t, task.KindRetryable, task.KindOf(c.classify(ctx, errors.New("read: connection reset by peer"))))
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	bad := []Options{
		{MaxRedirects: 6},
		{MaxRedirects: -1},
		{MaxBodyBytes: -1},
		{MaxBodyBytes: MaxMaxBodyBytes + 1},
		{FetchTimeout: -time.Second},
		{MaxAttempts: MaxMaxAttempts + 1},
		{BackoffBase: -1},
		{MaxRetryAfter: -1},
		{AllowAddrs: []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)}},
		{AllowAddrs: []netip.AddrPort{{}}},
	}
	for _, o := range bad {
		_, err := New(o)
		require.Error(t, err, "%+v", o)
		require.True(t, strings.HasPrefix(err.Error(), "scrape: options: "), err.Error())
	}
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, 5, o.MaxRedirects)
	require.Equal(t, int64(5<<20), o.MaxBodyBytes)
	require.Equal(t, 30*time.Second, o.FetchTimeout)
	require.Equal(t, 3, o.MaxAttempts)
	require.False(t, o.AllowPrivateNetworks)
	require.Empty(t, o.AllowAddrs)
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BackoffBase: time.Second, BackoffMax: 5 * time.Second, MaxAttempts: 10,
		Rand: func() float64 { return 0.999 }})
	require.NoError(t, err)
	retryable := task.Retryable(errors.New("x"))
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		d, ok := c.nextWait(context.Background(), retryable, n)
		require.True(t, ok)
		got = append(got, d.Round(10*time.Millisecond))
	}
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}, got)
	_, ok := c.nextWait(context.Background(), task.Fatal(errors.New("x")), 1)
	require.False(t, ok)
}
