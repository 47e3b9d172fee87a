package scrape

import (
	"bytes"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// BenchmarkExtractCorpus runs the extractor over every corpus page; compare
// its MB/s with BenchmarkTokenizeCorpus, a bare tokenizer pass over the
// same bytes, to see what extraction costs on top of tokenizing.
func BenchmarkExtractCorpus(b *testing.B) {
	pages := loadCorpus(b)
	var total int64
	for _, p := range pages {
		total += int64(len(p.body))
	}
	urls := make([]*url.URL, len(pages))
	for i, p := range pages {
		urls[i] = mustURL(b, p.url)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range pages {
			if _, err := Extract(bytes.NewReader(p.body), urls[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTokenizeCorpus is the floor: html.Tokenizer.Next over the corpus
// without looking at any token.
func BenchmarkTokenizeCorpus(b *testing.B) {
	pages := loadCorpus(b)
	var total int64
	for _, p := range pages {
		total += int64(len(p.body))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			z := html.NewTokenizer(bytes.NewReader(p.body))
			for z.Next() != html.ErrorToken {
			}
			if z.Err() != io.EOF {
				b.Fatal(z.Err())
			}
		}
	}
}

// BenchmarkExtractVsTokenize alternates a bare tokenizer pass and the
// extractor page by page and reports both throughputs and their ratio.
// Interleaving at page granularity exposes both to the same machine load,
// so the ratio stays meaningful on a busy machine where two separate
// benchmarks would not be comparable.
func BenchmarkExtractVsTokenize(b *testing.B) {
	pages := loadCorpus(b)
	urls := make([]*url.URL, len(pages))
	var total int64
	for i, p := range pages {
		urls[i] = mustURL(b, p.url)
		total += int64(len(p.body))
	}
	var tokenize, extract time.Duration
	rounds := 0
	b.SetBytes(2 * total)
	for b.Loop() {
		rounds++
		for i, p := range pages {
			t0 := time.Now()
			z := html.NewTokenizer(bytes.NewReader(p.body))
			for z.Next() != html.ErrorToken {
			}
			t1 := time.Now()
			if _, err := Extract(bytes.NewReader(p.body), urls[i]); err != nil {
				b.Fatal(err)
			}
			tokenize += t1.Sub(t0)
			extract += time.Since(t1)
		}
	}
	mb := float64(total) * float64(rounds) / 1e6
	b.ReportMetric(mb/tokenize.Seconds(), "tokenize-MB/s")
	b.ReportMetric(mb/extract.Seconds(), "extract-MB/s")
	b.ReportMetric(extract.Seconds()/tokenize.Seconds(), "extract/tokenize")
}

// bigPages are 5 MiB pages: a realistic one (the shop category page
// repeated), a dense one (nothing but short links, the most DOM nodes per
// byte) and one huge text node (the tokenizer's worst case: it buffers a
// whole token).
func bigPages(tb testing.TB) map[string][]byte {
	tb.Helper()
	const size = 5 << 20
	shop := loadCorpusPage(tb, "shop-category.html")
	fill := func(unit []byte) []byte {
		out := bytes.Repeat(unit, size/len(unit)+1)
		return out[:size]
	}
	return map[string][]byte{
		"shop":  fill(shop),
		"dense": append([]byte("<title>dense</title>"), fill([]byte(`<a href="/p">x</a><a href="https://other.example/">y</a>`))...),
		"text":  append([]byte("<title>text</title><p>"), fill([]byte(strings.Repeat("lorem ipsum ", 100)))...),
	}
}

func loadCorpusPage(tb testing.TB, name string) []byte {
	tb.Helper()
	for _, p := range loadCorpus(tb) {
		if p.name == name {
			return p.body
		}
	}
	tb.Fatalf("no corpus page %s", name)
	return nil
}

// BenchmarkExtractPeakHeap reports the peak heap while extracting a 5 MiB
// page, which must stay within 64 MiB (TestExtractPeakHeap asserts it).
func BenchmarkExtractPeakHeap(b *testing.B) {
	u := mustURL(b, "https://www.widgetstore.example/")
	for name, page := range bigPages(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			var worst uint64
			for b.Loop() {
				peak := peakHeap(func() {
					if _, err := Extract(bytes.NewReader(page), u); err != nil {
						b.Fatal(err)
					}
				})
				worst = max(worst, peak)
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
		})
	}
}

// BenchmarkGoqueryDOMPeakHeap is the design this package does not use:
// goquery's full DOM of the same 5 MiB pages, for comparison.
func BenchmarkGoqueryDOMPeakHeap(b *testing.B) {
	for name, page := range bigPages(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			var worst uint64
			for b.Loop() {
				peak := peakHeap(func() {
					doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
					if err != nil {
						b.Fatal(err)
					}
					_ = doc.Find("a[href]").Length()
				})
				worst = max(worst, peak)
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
		})
	}
}

// TestExtractPeakHeap asserts the 64 MiB budget for 5 MiB pages. It
// measures the heap, so it does not run in parallel.
func TestExtractPeakHeap(t *testing.T) {
	u := mustURL(t, "https://www.widgetstore.example/")
	for name, page := range bigPages(t) {
		var s Summary
		var err error
		peak := peakHeap(func() { s, err = Extract(bytes.NewReader(page), u) })
		require.NoError(t, err)
		require.NotEmpty(t, s.Title)
		require.Less(t, peak, uint64(64<<20), "%s: peak heap %.1f MiB", name, float64(peak)/(1<<20))
		t.Logf("%s: peak heap %.1f MiB for a %d MiB page", name, float64(peak)/(1<<20), len(page)>>20)
	}
}
