package fixtureweb

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/taskpipe/taskpipe/internal/weburl"
)

// invalidLines are the kinds of bad input a user's list contains. Each
// must be refused by weburl.Normalize; a test checks that, and Expect
// derives Rejected from Normalize itself, never from this list.
var invalidLines = []struct {
	name string
	line func(base string) string
}{
	{"bad scheme characters", func(string) string { return "ht!tp://bad" }},
	{"ftp", func(string) string { return "ftp://example.com/file" }},
	{"prose", func(string) string { return "not a url" }},
	{"javascript", func(string) string { return "javascript:alert(1)" }},
	{"mailto", func(string) string { return "mailto:info@example.com" }},
	{"empty", func(string) string { return "" }},
	{"whitespace", func(string) string { return "  \t  " }},
	{"over-long", func(base string) string {
		return base + "/site/0/?ref=" + strings.Repeat("a", weburl.MaxLen)
	}},
	{"credentials", func(base string) string {
		return strings.Replace(base, "://", "://admin:secret@", 1) + "/site/0/"
	}},
	{"hex host", func(string) string { return "http://0x7f.0.0.1/" }},
	{"no host", func(string) string { return "http:///site/0/" }},
	// A row pasted from a spreadsheet: URL, tab, company name.
	{"tab-separated", func(base string) string { return base + "/site/0/\tAcme Ltd" }},
}

// URLs returns n input lines for a run, in an order fixed by the seed:
// site home pages, each site at most once while n ≤ Sites (cycling
// through the sites again beyond that), with round(n × InvalidRate)
// invalid lines among them, spread at seeded positions and cycling
// through every kind of invalid line. It panics when the web has no
// BaseURL (neither Config.BaseURL nor Start): the lines must name it.
func (w *Web) URLs(n int) []string {
	base := w.BaseURL()
	if base == "" {
		panic("fixtureweb: URLs needs a BaseURL: call Start or set Config.BaseURL")
	}
	if n <= 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(uint64(w.cfg.Seed), streamInput))
	order := r.Perm(w.cfg.Sites)
	bad := make([]bool, n)
	nBad := int(math.Round(w.cfg.InvalidRate * float64(n)))
	for _, i := range r.Perm(n)[:nBad] {
		bad[i] = true
	}
	kinds := r.Perm(len(invalidLines))
	lines := make([]string, n)
	var nextSite, nextBad int
	for i := range lines {
		if bad[i] {
			lines[i] = invalidLines[kinds[nextBad%len(kinds)]].line(base)
			nextBad++
			continue
		}
		lines[i] = w.SiteURL(order[nextSite%len(order)])
		nextSite++
	}
	return lines
}

// Input is URLs(n) as the text of an input file: one line each, ending in
// a newline.
func (w *Web) Input(n int) []byte {
	lines := w.URLs(n)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
