package site

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseJSONLD: any block yields at most maxOrganizations bounded
// organisations, and never panics.
func FuzzParseJSONLD(f *testing.F) {
	f.Add([]byte(`{"@type":"Organization","name":"A","address":{"streetAddress":"x"},"contactPoint":[{"telephone":"+49 30 1234567"}]}`))
	f.Add([]byte(`{"@graph":[{"@type":["LocalBusiness","X"],"logo":{"url":"/l.png"},"sameAs":["//x"]}]}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[{"@type":"Organization"}]]]]]]]]]]]]]]]]]]]`))
	page, _ := url.Parse("https://fuzz.example/")
	f.Fuzz(func(t *testing.T, b []byte) {
		orgs := ParseJSONLD(b, page, "DE")
		require.LessOrEqual(t, len(orgs), maxOrganizations)
		for _, o := range orgs {
			require.LessOrEqual(t, len(o.Description), maxFieldBytes)
			require.LessOrEqual(t, len(o.SameAs), maxListValues)
		}
	})
}

// FuzzFindPhones: every number found is E.164, its text is bounded.
func FuzzFindPhones(f *testing.F) {
	f.Add("Tel.: 030 1234567, Fax 030 7654321", "DE")
	f.Add("+33 1 23 45 67 89 ☎ (0)30-123", "")
	f.Fuzz(func(t *testing.T, text, region string) {
		for _, p := range FindPhones(text, region) {
			require.True(t, strings.HasPrefix(p.E164, "+") && len(p.E164) <= 16, p.E164)
			require.LessOrEqual(t, len(p.Raw), maxPhoneRaw)
		}
		_ = RegionHint(text, region)
	})
}

// FuzzChooseKeyPages: at most maxPages pages, each once, of the start
// page's registrable domain.
func FuzzChooseKeyPages(f *testing.F) {
	f.Add("https://a.example/", "/kontakt", "Kontakt", "/impressum?x=1", "Über uns")
	f.Fuzz(func(t *testing.T, start, h1, t1, h2, t2 string) {
		s, err := url.Parse(start)
		if err != nil || s.Host == "" {
			return
		}
		links := []Link{{URL: s.ResolveReference(&url.URL{Path: h1}).String(), Text: t1}, {URL: h2, Text: t2}, {URL: h1, Text: t2}}
		got := ChooseKeyPages(s, links, 2)
		require.LessOrEqual(t, len(got), 2)
		seen := map[string]bool{}
		for _, k := range got {
			require.False(t, seen[k.URL])
			seen[k.URL] = true
			u, err := url.Parse(k.URL)
			require.NoError(t, err)
			require.True(t, SameSite(u.Hostname(), s.Hostname()))
		}
	})
}
