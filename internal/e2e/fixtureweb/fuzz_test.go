package fixtureweb

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/weburl"
)

// FuzzServeHTTP sends arbitrary paths and methods: the handler must answer
// every request with a known status and count it exactly once.
func FuzzServeHTTP(f *testing.F) {
	for _, seed := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/site/3/"}, {"GET", "/site/3"}, {"GET", "/site/3/about"},
		{"HEAD", "/site/7/contact"}, {"GET", "/site/1/hop/1"}, {"GET", "/site/1/hop/99999999999999999999"},
		{"GET", "/site/2/final"}, {"GET", "/site/4/loop"}, {"GET", StatsPath}, {"POST", "/site/3/"},
		{"GET", "/site/-0/"}, {"GET", "/site//"}, {"GET", "/site/1\x00/"}, {"GET", "/site/९/"},
	} {
		f.Add(seed.method, seed.path)
	}
	cfg := fastConfig(1)
	cfg.Sites = 40
	cfg.HugeBytes = 64 << 10 // keep each fuzz iteration cheap
	cfg.SlowDelay = Span{Min: time.Microsecond, Max: time.Microsecond}
	cfg.DripDuration = Span{Min: time.Microsecond, Max: time.Microsecond}
	w, err := New(cfg)
	require.NoError(f, err)
	known := map[int]bool{}
	for _, c := range append(append([]int{200, 404, 405, 429}, serverErrorStatuses...), redirectCodes...) {
		known[c] = true
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		req := &http.Request{
			Method: method,
			URL:    &url.URL{Path: path},
			Host:   "fixture",
			Header: http.Header{},
			Proto:  "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}
		req = req.WithContext(t.Context())
		before := w.Stats()
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, req)
		require.True(t, known[rec.Code], "status %d for %s %q", rec.Code, method, path)
		after := w.Stats()
		if path == StatsPath && (method == http.MethodGet || method == http.MethodHead) {
			require.Equal(t, before.Requests+before.Other, after.Requests+after.Other)
			return
		}
		require.Equal(t, before.Requests+before.Other+1, after.Requests+after.Other, "counted once")
	})
}

// FuzzExpect: any line gets an expectation without panicking; a line
// weburl.Normalize refuses is Rejected, and only lines naming a site have
// one.
func FuzzExpect(f *testing.F) {
	w, err := New(Config{Seed: 2, Sites: 50, InvalidRate: 0.2, BaseURL: "http://127.0.0.1:8099"})
	require.NoError(f, err)
	for _, l := range w.URLs(40) {
		f.Add(l)
	}
	f.Add("http://127.0.0.1:8099/site/49")
	f.Add("HTTP://127.0.0.1:8099/site/7/?a=b#c")
	f.Fuzz(func(t *testing.T, line string) {
		e := w.Expect(line)
		_, nerr := weburl.Normalize(line)
		require.Equal(t, nerr != nil, e.Outcome == Rejected, "%q", line)
		switch e.Outcome {
		case Finished, Failed:
			require.GreaterOrEqual(t, e.Site, 0)
			require.Positive(t, e.Requests)
			require.Positive(t, e.Claims)
		case Rejected, Unknown:
			require.Equal(t, -1, e.Site)
		default:
			t.Fatalf("outcome %q", e.Outcome)
		}
	})
}

// FuzzParseMix: a mix ParseMix accepts is valid and survives String.
func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"demo", "chaos", "healthy=1", "healthy=90,flaky=10", "slow=1e-3,huge=2", "x=1", "=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMix(s)
		if err != nil {
			return
		}
		require.NoError(t, m.validate())
		again, err := ParseMix(m.String())
		require.NoError(t, err, "%q → %q", s, m.String())
		require.Equal(t, m, again)
		_, err = New(Config{Sites: 10, Mix: m})
		require.NoError(t, err)
	})
}
