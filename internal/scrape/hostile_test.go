package scrape

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

// hostilePages are the 5 MiB pages of the adversarial review (issue 15
// item 1), with the Content-Type each was served with: one start tag with
// about a million distinct attribute names, as high bytes that
// x-user-defined turns into three UTF-8 bytes each, as ASCII, and on a
// <div> instead of <html>.
func hostilePages(tb testing.TB) map[string]struct {
	body        []byte
	contentType string
} {
	tb.Helper()
	const size = 5 << 20
	flood := func(tag string, name func(i int, b *bytes.Buffer)) []byte {
		var b bytes.Buffer
		b.Grow(size + 64)
		b.WriteString("<" + tag)
		for i := 0; b.Len() < size-64; i++ {
			b.WriteByte(' ')
			name(i, &b)
		}
		b.WriteString("><title>after the flood</title>")
		return b.Bytes()
	}
	high := func(i int, b *bytes.Buffer) { // three bytes from 0x80..0xff: 2^21 names
		b.WriteByte(0x80 | byte(i&0x7f))
		b.WriteByte(0x80 | byte(i>>7&0x7f))
		b.WriteByte(0x80 | byte(i>>14&0x7f))
	}
	ascii := func(i int, b *bytes.Buffer) { fmt.Fprintf(b, "a%x", i) }
	type page = struct {
		body        []byte
		contentType string
	}
	return map[string]page{
		"html high-byte names x-user-defined": {flood("html", high), "text/html; charset=x-user-defined"},
		"html ascii names":                    {flood("html", ascii), "text/html; charset=utf-8"},
		"div ascii names":                     {flood("div", ascii), "text/html; charset=utf-8"},
		"high bytes x-user-defined text":      {bytes.Repeat([]byte{0xff}, size), "text/html; charset=x-user-defined"},
	}
}

// TestHostilePagesPeakHeap: every hostile page of the review is read
// within 64 MiB of heap, and yields a summary rather than an error (issue
// 15 item 1). It measures the heap, so it does not run in parallel.
func TestHostilePagesPeakHeap(t *testing.T) {
	u := mustURL(t, "https://hostile.example/")
	for name, p := range hostilePages(t) {
		var err error
		var s Page
		peak := peakHeap(func() {
			s, err = ReadPage(bytes.NewReader(p.body), p.contentType, u, DefaultMaxBodyBytes)
		})
		require.NoError(t, err, name)
		t.Logf("%s: peak heap %.1f MiB, %d bytes read, truncated %t", name, float64(peak)/(1<<20), s.Bytes, s.Truncated)
		require.Less(t, peak, uint64(64<<20), "%s: peak heap %.1f MiB", name, float64(peak)/(1<<20))
	}
}

// TestDecodedStreamCapped: charset conversion can triple a body (each
// x-user-defined high byte becomes three UTF-8 bytes), so the decoded
// stream is capped too, and the cut is a truncation.
func TestDecodedStreamCapped(t *testing.T) {
	t.Parallel()
	body := append([]byte("<title>t</title><p>"), bytes.Repeat([]byte{0xff}, 1000)...)
	s, err := ReadPage(bytes.NewReader(body), "text/html; charset=x-user-defined", mustURL(t, "https://a.example/"), 1019)
	require.NoError(t, err)
	require.True(t, s.Truncated)
	require.Equal(t, "t", s.Title)
	require.LessOrEqual(t, s.TextLength, 1019)
}

// TestOverlongTokenIsTruncation: a token longer than the tokenizer's
// buffer ends the page as a truncation, with the fields seen before it.
func TestOverlongTokenIsTruncation(t *testing.T) {
	t.Parallel()
	doc := `<html lang="de"><title>Vorher</title><p>mail info@vorher.example</p><p>` +
		strings.Repeat("x", maxTokenBytes+10) + `</p><a href="mailto:after@later.example">x</a>`
	s, err := ReadPage(strings.NewReader(doc), "text/html", mustURL(t, "https://vorher.example/"), DefaultMaxBodyBytes)
	require.NoError(t, err)
	require.True(t, s.Truncated)
	require.Equal(t, "Vorher", s.Title)
	require.Equal(t, "de", s.Lang)
	require.Equal(t, []string{"info@vorher.example"}, s.Emails)
}

// TestFragmentFailureKeepsSummary: an <h1> with 511 nested <span>s made
// the fragment parse fail (x/net/html refuses more than 512 open
// elements) and the page fail as retryable (issue 15 item 2). The summary
// survives; at most the heading is lost.
func TestFragmentFailureKeepsSummary(t *testing.T) {
	t.Parallel()
	doc := `<html lang="en"><title>Deep</title><meta name="description" content="d"><h1>` +
		strings.Repeat("<span>", 511) + "Heading" + strings.Repeat("</span>", 511) +
		`</h1><p>mail us at deep@deep.example</p>`
	srv := serve(t, htmlHandler(doc))
	c, _ := newClient(t, Options{}, srv)
	res, err := c.Scrape(context.Background(), srv.URL)
	require.NoError(t, err)
	require.Equal(t, 1, res.Attempts)
	require.Equal(t, "Deep", res.Summary.Title)
	require.Equal(t, "d", res.Summary.Description)
	require.Equal(t, "Heading", res.Summary.H1)
	require.Equal(t, []string{"deep@deep.example"}, res.Summary.Emails)
}

// TestDeterministicFailuresAreFatal: what the same request meets again is
// fatal, not retryable (issue 15 item 2).
func TestDeterministicFailuresAreFatal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"response headers over 64 KiB", func(w http.ResponseWriter, _ *http.Request) {
			for i := range 80 {
				w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("p", 1000))
			}
			htmlHandler(page)(w, nil)
		}, "response headers exceeded"},
		{"bad gzip header", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write([]byte("this is not gzip at all"))
		}, "invalid header"},
		{"bad gzip checksum", func(w http.ResponseWriter, _ *http.Request) {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			_, _ = zw.Write([]byte(page))
			_ = zw.Close()
			z := b.Bytes()
			z[len(z)-8] ^= 0xff // the CRC-32 of the trailer
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(z)
		}, "invalid checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, tt.handler)
			c, _ := newClient(t, Options{}, srv)
			res, err := c.Scrape(context.Background(), srv.URL)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Equal(t, task.KindFatal, task.KindOf(err), "%v", err)
			require.Equal(t, 1, res.Attempts)
			require.Equal(t, int64(1), srv.hits.Load())
		})
	}
}

// TestOversizedTitleTag: a <title> start tag larger than the fragment cap
// was cut mid-tag and the markup after it became the title (issue 15 item
// 3). The fragment is rebuilt from what it needs, so the size of the tag
// does not matter.
func TestOversizedTitleTag(t *testing.T) {
	t.Parallel()
	doc := `<html><head><title ` + strings.Repeat(`data-x="yyyyyyyy" `, (300<<10)/18) + `>Real title</title>` +
		`<meta name="description" content="Real description"></head><body><h1>Head</h1><p>Body text</p>`
	s := extract(t, "https://title.example/", doc)
	require.Equal(t, "Real title", s.Title)
	require.Equal(t, "Real description", s.Description)
	require.Equal(t, "Head", s.H1)
}

// TestOversizedFragmentTags: meta, link and heading tags far larger than
// their caps are rebuilt or dropped whole, never cut into the fragment.
func TestOversizedFragmentTags(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat(`data-pad="zzzzzzzzzzzzzzzzzzzz" `, (300<<10)/31)
	doc := `<html lang="fr" ` + pad + `><head><meta ` + pad + ` name="description" content="Desc">` +
		`<link ` + pad + ` rel="canonical" href="/canon"><title>T</title></head>` +
		`<body><h1 ` + pad + `>Titre <b ` + pad + `>gras</b></h1><p>x</p>`
	s := extract(t, "https://tags.example/", doc)
	require.Equal(t, "T", s.Title)
	require.Equal(t, "fr", s.Lang)
	require.Equal(t, "Desc", s.Description)
	require.Equal(t, "https://tags.example/canon", s.Canonical)
	require.Equal(t, "Titre gras", s.H1)
}
