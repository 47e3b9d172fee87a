package maintext

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// FuzzExtractContent: any page is cleaned into markup the parser accepts
// within the bounds, and extraction returns text or an error, valid UTF-8.
func FuzzExtractContent(f *testing.F) {
	f.Add([]byte("<main><h1>T</h1><p>" + strings.Repeat("word ", 60) + "</p></main>"))
	f.Add([]byte(strings.Repeat("<div>", 600) + "x"))
	f.Add([]byte(`<div class="cookie-banner"><div>c</div></div><p itemscope itemtype="https://schema.org/Organization"><span itemprop="name">N</span></p>`))
	page, _ := url.Parse("https://fuzz.example/")
	f.Fuzz(func(t *testing.T, b []byte) {
		clean, _ := cleanHTML(b)
		require.LessOrEqual(t, len(clean), maxCleanBytes+maxContentToken+64)
		_, err := html.Parse(bytes.NewReader(clean))
		require.NoError(t, err)
		c, err := Extract(context.Background(), b, page, time.Minute)
		if err == nil {
			require.True(t, utf8.ValidString(c.Text) && utf8.ValidString(c.Markdown))
			require.LessOrEqual(t, len(c.Text), maxTextBytes)
		}
	})
}
