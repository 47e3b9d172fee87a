package scrape

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current extractor")

// corpusURLs gives each page of testdata/corpus the address it was written
// for, which decides internal and external links.
var corpusURLs = map[string]string{
	"agency-base-href.html":   "https://studio-delta.example.nl/",
	"bakery-de-latin1.html":   "https://www.baeckerei-mueller.de/",
	"blog-index-fr.html":      "https://carnet-gourmand.fr/",
	"blog-post.html":          "https://blog.example.dev/2024/03/faster-builds/",
	"broken-markup.html":      "http://joes-garage.example/",
	"company-home.html":       "https://www.acme-widgets.co.uk/",
	"consulting-pt-br.html":   "https://contabilfacil.example.com.br/",
	"contact-page.html":       "https://northwind-consulting.com/contact",
	"corporate-ja-sjis.html":  "https://www.sample-denshi.co.jp/",
	"docs-page.html":          "https://docs.example.com/api/authentication",
	"forum-thread.html":       "https://forum.classiccars.example/viewtopic.php?t=4821",
	"imprint-obfuscated.html": "https://lumen-photo.example/imprint",
	"logistics-ar-rtl.html":   "https://alnoor-logistics.example/",
	"mega-menu.html":          "https://www.megamart.example/",
	"news-ru-cp1251.html":     "https://gorod-news.example.ru/",
	"no-head-fragment.html":   "https://kitchenbathstudio.example/",
	"nonprofit-xhtml.html":    "http://www.friendsoftheriver.example.org.uk/",
	"restaurant-es.html":      "https://lamarisma.es/",
	"retro-table-layout.html": "http://bob.example.net/",
	"saas-landing.html":       "https://shipfast.example.io/",
	"shop-category.html":      "https://www.widgetstore.example/c/aluminium-widgets",
	"shop-product.html":       "https://www.widgetstore.example/p/widget-pro-3000",
	"spa-shell.html":          "https://app.example.io/dashboard",
	"startup-zh.html":         "https://www.yunzhangtong.cn/",
}

type corpusPage struct {
	name string
	url  string
	body []byte
}

func loadCorpus(tb testing.TB) []corpusPage {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	require.NoError(tb, err)
	require.GreaterOrEqual(tb, len(files), 20)
	var pages []corpusPage
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(tb, err)
		name := filepath.Base(f)
		u, ok := corpusURLs[name]
		require.True(tb, ok, "no url for corpus page %s", name)
		pages = append(pages, corpusPage{name: name, url: u, body: b})
	}
	return pages
}

// summarize runs a corpus page through the same path as a fetched body
// with "Content-Type: text/html" (charset from the page itself).
func summarize(tb testing.TB, p corpusPage) Summary {
	tb.Helper()
	s, err := ReadPage(bytes.NewReader(p.body), "text/html", mustURL(tb, p.url), DefaultMaxBodyBytes)
	require.NoError(tb, err)
	return s.Summary
}

// TestCorpusGolden compares every corpus page's summary with
// testdata/golden/<page>.json. Run with -update after an intended change
// and review the diff.
func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	for _, p := range loadCorpus(t) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			b, err := summarize(t, p).MarshalBounded()
			require.NoError(t, err)
			require.LessOrEqual(t, len(b), task.MaxResultBytes)
			var got bytes.Buffer
			require.NoError(t, json.Indent(&got, b, "", "  "))
			got.WriteByte('\n')
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(p.name, ".html")+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test -run TestCorpusGolden -update")
			require.Equal(t, string(want), got.String())
		})
	}
}

// TestCorpusFacts states, independently of the golden files, what a reader
// of each page sees. The goldens catch any change; these say which values
// are right.
func TestCorpusFacts(t *testing.T) {
	t.Parallel()
	pages := map[string]corpusPage{}
	for _, p := range loadCorpus(t) {
		pages[p.name] = p
	}
	tests := []struct {
		page  string
		check func(t *testing.T, s Summary)
	}{
		{"contact-page.html", func(t *testing.T, s Summary) {
			require.Equal(t, "Contact us | Northwind Consulting", s.Title)
			require.Equal(t, "Contact Northwind", s.H1)
			require.Equal(t, "https://northwind-consulting.com/contact", s.Canonical)
			// Mailto and text addresses in page order, lowercased; not the
			// placeholder in an attribute, not logo@2x.png, not the
			// textarea content, not the "[at]" form.
			require.Equal(t, []string{
				"hello@northwind-consulting.com", "press@northwind-consulting.com",
				"careers@northwind-consulting.com", "boston@northwind-consulting.com",
				"berlin@northwind-consulting.com", "sg@northwind-consulting.com",
			}, s.Emails)
			require.Equal(t, []Social{
				{"linkedin", "https://linkedin.com/company/northwind-consulting"},
				{"x", "https://x.com/northwindco"},
				{"github", "https://github.com/northwind-consulting"},
				{"instagram", "https://instagram.com/northwindco"},
				{"youtube", "https://youtube.com/channel/UC1234567890"},
				{"tiktok", "https://tiktok.com/@northwindco"},
				{"facebook", "https://facebook.com/northwindconsulting"},
			}, s.Socials, "the tweet-intent link is a share button, not a profile")
		}},
		{"bakery-de-latin1.html", func(t *testing.T, s Summary) {
			require.Equal(t, "Bäckerei Müller – Frisches Brot aus Großenhain", s.Title)
			require.Equal(t, "de", s.Lang)
			require.Equal(t, "Bäckerei Müller", s.H1)
			require.Equal(t, []string{"info@baeckerei-mueller.de", "bestellung@baeckerei-mueller.de"}, s.Emails)
			require.Len(t, s.Socials, 2)
		}},
		{"corporate-ja-sjis.html", func(t *testing.T, s Summary) {
			require.Equal(t, "株式会社サンプル電子｜高品質な電子部品", s.Title)
			require.Equal(t, "ものづくりで未来をつなぐ", s.H1)
			require.Equal(t, "ja", s.Lang)
		}},
		{"news-ru-cp1251.html", func(t *testing.T, s Summary) {
			require.Equal(t, "Городские новости — главное за день", s.Title)
			require.Equal(t, "Главное сегодня", s.H1)
			require.Equal(t, []Social{{"telegram", "https://t.me/gorodnews"}}, s.Socials)
		}},
		{"logistics-ar-rtl.html", func(t *testing.T, s Summary) {
			require.Equal(t, "شركة النور للخدمات اللوجستية", s.Title)
			require.Equal(t, "ar", s.Lang)
		}},
		{"broken-markup.html", func(t *testing.T, s Summary) {
			// The unterminated <TITLE> swallows the rest of the document as
			// title text, exactly as a browser does.
			require.True(t, strings.HasPrefix(s.Title, "Joe's Garage & Repairs <META NAME=description"), s.Title)
			require.Empty(t, s.H1, "the h1 is inside the runaway title")
			require.Zero(t, s.InternalLinks+s.ExternalLinks)
		}},
		{"no-head-fragment.html", func(t *testing.T, s Summary) {
			require.Empty(t, s.Title, "the svg sprite's <title> is not the page title")
			require.Equal(t, "Kitchen & Bath Studio", s.H1)
			require.Equal(t, []Social{{"pinterest", "https://pinterest.com/kitchenbathstudio"}}, s.Socials,
				"youtube embed is not a profile; the template link is inert")
			require.Equal(t, 3, s.ExternalLinks)
		}},
		{"agency-base-href.html", func(t *testing.T, s Summary) {
			require.Equal(t, "https://studio-delta.example.nl/site/index.html", s.Canonical)
			require.Equal(t, "Studio Delta is een ontwerpbureau in Rotterdam.", s.Description)
			require.Equal(t, "Wij maken digitale producten", s.H1)
		}},
		{"saas-landing.html", func(t *testing.T, s Summary) {
			require.Equal(t, "Shipfast is the deployment platform that rolls back before you notice.", s.Description,
				"og:description stands in for a missing meta description")
			require.Equal(t, "Deploy on Friday.", s.H1)
		}},
		{"shop-product.html", func(t *testing.T, s Summary) {
			require.Equal(t, "The widget for professionals, now 20% lighter.", s.Description)
			require.Equal(t, "Widget Pro 3000", s.H1, "&nbsp; collapses like any whitespace")
			require.Equal(t, "https://www.widgetstore.example/p/widget-pro-3000", s.Canonical)
		}},
		{"spa-shell.html", func(t *testing.T, s Summary) {
			require.Empty(t, s.Emails, "addresses in scripts and noscript are not visible text")
			require.Zero(t, s.TextLength)
		}},
		{"imprint-obfuscated.html", func(t *testing.T, s Summary) {
			// Entity-encoded addresses decode like any text; percent-encoded
			// mailto decodes; "[at]", split, reversed and Cloudflare-protected
			// forms are not recovered.
			require.Equal(t, []string{
				"ana@lumen-photo.example", "studio@lumen-photo.example", "press@lumen-photo.example",
			}, s.Emails)
		}},
		{"shop-category.html", func(t *testing.T, s Summary) {
			require.Greater(t, s.InternalLinks, 1000)
			require.Equal(t, []string{"service@widgetstore.example"}, s.Emails)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			t.Parallel()
			p, ok := pages[tt.page]
			require.True(t, ok)
			tt.check(t, summarize(t, p))
		})
	}
}
