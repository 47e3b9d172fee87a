package fixtureweb

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// discard is a ResponseWriter that counts and drops the body.
type discard struct {
	h http.Header
	n int64
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }

// healthyIDs returns the ids of the healthy sites of w.
func healthyIDs(w *Web) []int {
	var ids []int
	for _, s := range w.Sites() {
		if s.Behavior == Healthy {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// BenchmarkHealthyPage measures rendering and writing healthy home pages
// in-process: what the web costs per page, without the network. The
// clients' Accept-Encoding is gzip, as the scraper's is, so about 30 % of
// the pages are compressed.
func BenchmarkHealthyPage(b *testing.B) {
	w, err := New(Config{Seed: 1})
	require.NoError(b, err)
	ids := healthyIDs(w)
	reqs := make([]*http.Request, len(ids))
	for i, id := range ids {
		reqs[i], err = http.NewRequest(http.MethodGet, "http://127.0.0.1:8099"+sitePath(id), nil)
		require.NoError(b, err)
		reqs[i].Header.Set("Accept-Encoding", "gzip, deflate")
	}
	var bytes int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := &discard{h: http.Header{}}
		w.ServeHTTP(d, reqs[i%len(reqs)])
		bytes += d.n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e6, "MB/s")
}

// BenchmarkHealthyPageHTTP measures requests per second over loopback
// HTTP with parallel clients, the way the scraper sees the web.
func BenchmarkHealthyPageHTTP(b *testing.B) {
	w, err := New(Config{Seed: 1})
	require.NoError(b, err)
	require.NoError(b, w.Start(""))
	b.Cleanup(func() { require.NoError(b, w.Close()) })
	ids := healthyIDs(w)
	tr := &http.Transport{MaxIdleConnsPerHost: 64, Proxy: nil}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var next, bytes atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := ids[int(next.Add(1))%len(ids)]
			resp, err := client.Get(w.SiteURL(id))
			if err != nil {
				b.Error(err)
				return
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Errorf("site %d: status %d, %v", id, resp.StatusCode, err)
				return
			}
			bytes.Add(n)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(bytes.Load())/b.Elapsed().Seconds()/1e6, "MB/s")
}
