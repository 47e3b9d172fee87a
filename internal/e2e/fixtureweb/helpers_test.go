package fixtureweb

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// evenMix weighs every behaviour the same, so a small web has several
// sites of each.
func evenMix() Mix {
	m := Mix{}
	for _, b := range Behaviors() {
		m[b] = 1
	}
	return m
}

// fastConfig is a small web with short delays, for tests.
func fastConfig(seed int64) Config {
	return Config{
		Seed:         seed,
		Sites:        66,
		Mix:          evenMix(),
		SlowDelay:    Span{Min: 20 * time.Millisecond, Max: 40 * time.Millisecond},
		DripDuration: Span{Min: 100 * time.Millisecond, Max: 150 * time.Millisecond},
		HugeBytes:    6 << 20,
	}
}

// startWeb builds and starts a web, closed when the test ends.
func startWeb(t *testing.T, cfg Config) *Web {
	t.Helper()
	w, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, w.Start("127.0.0.1:0"))
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return w
}

// firstOf returns the first site with behaviour b.
func firstOf(t *testing.T, w *Web, b Behavior) Site {
	t.Helper()
	for _, s := range w.Sites() {
		if s.Behavior == b {
			return s
		}
	}
	require.Failf(t, "no site", "no site behaves %s", b)
	return Site{}
}

// noRedirects is a plain client that shows redirects instead of following
// them and leaves compression to the test.
func noRedirects() *http.Client {
	return &http.Client{
		Timeout:       20 * time.Second,
		Transport:     &http.Transport{DisableCompression: true, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// response is a fetched page.
type response struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
}

// get fetches url with c and reads the whole body.
func get(t *testing.T, c *http.Client, url string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	start := time.Now()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: body, elapsed: time.Since(start)}
}
