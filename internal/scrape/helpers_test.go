package scrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/site/sitetest"
)

// server is an httptest server that counts its requests.
type server struct {
	*httptest.Server
	hits atomic.Int64
	addr netip.AddrPort
}

// serve starts an httptest server for h.
func serve(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	s.addr = netip.MustParseAddrPort(s.Listener.Addr().String())
	return s
}

// sleeps records the waits between attempts instead of sleeping.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newClient returns a client that may reach exactly the given servers (and
// no other loopback address), with recorded sleeps and a jitter of 0.5.
func newClient(t *testing.T, o Options, reach ...*server) (*Client, *sleeps) {
	t.Helper()
	rec := &sleeps{}
	o.Sleep = rec.sleep
	o.Rand = func() float64 { return 0.5 }
	for _, s := range reach {
		o.AllowAddrs = append(o.AllowAddrs, s.addr)
	}
	c, err := New(o)
	require.NoError(t, err)
	return c, rec
}

// peakHeap is sitetest.PeakHeap; callers must not run in parallel with
// other tests.
func peakHeap(fn func()) uint64 { return sitetest.PeakHeap(fn) }
