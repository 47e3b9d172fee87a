package handler_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/task"
)

func TestScrapeClientIsAPageScraper(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html lang="en"><head><title>Fixture shop</title></head><body><h1>Hi</h1></body></html>`))
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	c, err := scrape.New(scrape.Options{AllowAddrs: []netip.AddrPort{netip.MustParseAddrPort(u.Host)}, MaxAttempts: 1})
	require.NoError(t, err)
	var pages handler.PageScraper = c

	got, err := pages.Crawl(t.Context(), srv.URL+"/")
	require.NoError(t, err)
	require.Equal(t, "Fixture shop", got.Pages[0].Title)
	require.Equal(t, "Fixture shop", got.Name)

	_, err = pages.Crawl(t.Context(), srv.URL+"/gone")
	require.Equal(t, task.KindFatal, task.KindOf(err), "a 404 fails the task: %v", err)
}
