package cli_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

func TestParseInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		format   string
		urls     []cli.InputURL
		rejected []int // first lines
		dups     []cli.Duplicate
	}{
		{name: "Lines", in: "a.com\n\n# c\nb.com\r\n", format: cli.FormatLines,
			urls: []cli.InputURL{{Line: 1, URL: "https://a.com/"}, {Line: 4, URL: "https://b.com/"}}},
		{name: "BOM", in: "\xef\xbb\xbfa.com\n", format: cli.FormatLines, urls: []cli.InputURL{{Line: 1, URL: "https://a.com/"}}},
		{name: "CommaInPlainLine", in: "a.com,b.com\n", format: cli.FormatLines, rejected: []int{1}},
		{name: "Duplicates", in: "a.com\nhttps://A.com/#x\nhttp://a.com\n", format: cli.FormatLines,
			urls: []cli.InputURL{{Line: 1, URL: "https://a.com/"}, {Line: 3, URL: "http://a.com/"}},
			dups: []cli.Duplicate{{Line: 2, First: 1, URL: "https://a.com/"}}},
		{name: "CSVHeaderAfterComments", in: "# x\n\nid,Url\n1,a.com\n2,\"b.com\"\n", format: cli.FormatCSV,
			urls: []cli.InputURL{{Line: 4, URL: "https://a.com/"}, {Line: 5, URL: "https://b.com/"}}},
		{name: "CSVOneColumn", in: "url\na.com\n", format: cli.FormatCSV, urls: []cli.InputURL{{Line: 2, URL: "https://a.com/"}}},
		{name: "CSVBareQuote", in: "url,n\na\"b.com,1\nc.com,2\n", format: cli.FormatCSV, rejected: []int{2},
			urls: []cli.InputURL{{Line: 3, URL: "https://c.com/"}}},
		{name: "CSVUnterminatedQuote", in: "url\n\"a.com\nb.com\n", format: cli.FormatCSV, rejected: []int{2}},
		{name: "NotAHeader", in: "name,site\nx,a.com\n", format: cli.FormatLines, rejected: []int{1, 2}},
		{name: "Empty", in: "", format: cli.FormatLines},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := cli.ParseInput(strings.NewReader(tt.in))
			require.NoError(t, err)
			require.Equal(t, tt.format, in.Format)
			require.Equal(t, tt.urls, in.URLs)
			var rej []int
			for _, r := range in.Rejected {
				rej = append(rej, r.Line)
			}
			require.Equal(t, tt.rejected, rej, "%v", in.Rejected)
			require.Equal(t, tt.dups, in.Duplicates)
		})
	}
}

func TestParseInputUnterminatedQuoteNamesTheRange(t *testing.T) {
	t.Parallel()
	in, err := cli.ParseInput(strings.NewReader("url\nok.com\n\"a.com\nb.com\nc.com\n"))
	require.NoError(t, err)
	require.Len(t, in.URLs, 1)
	require.Len(t, in.Rejected, 1)
	require.Equal(t, `lines 3-5: csv: extraneous or missing " in quoted-field`, in.Rejected[0].String(),
		"every line the broken record swallowed is named")
}

func TestParseInputTooLarge(t *testing.T) {
	t.Parallel()
	_, err := cli.ParseInput(bytes.NewReader(make([]byte, cli.MaxInputBytes+1)))
	require.ErrorContains(t, err, "larger than 256 MiB")
}

// FuzzParseInput: any input parses without panicking, every accepted URL is
// in canonical form and unique, and every reported line exists.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		"a.com\nb.com\n", "url\na.com\n", "name,url\n\"x, y\",b.com\n", "url\n\"a\nb\"\n", "\xef\xbb\xbf# c\n",
		"url\na\"b\n", "ftp://x\n\x00\n", "URL,url\n,\n", "https://[::1]:80/\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := cli.ParseInput(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(s, "\n") + 1
		seen := map[string]bool{}
		for _, u := range in.URLs {
			if u.Line < 1 || u.Line > lines {
				t.Fatalf("line %d of %d", u.Line, lines)
			}
			n, err := weburl.Normalize(u.URL)
			if err != nil || n.String() != u.URL {
				t.Fatalf("accepted %q is not canonical: %v", u.URL, err)
			}
			if seen[u.URL] {
				t.Fatalf("duplicate %q accepted", u.URL)
			}
			seen[u.URL] = true
		}
		for _, r := range in.Rejected {
			if r.Line < 1 || r.Line > lines || r.Reason == "" {
				t.Fatalf("bad rejection %+v of %d lines", r, lines)
			}
		}
		for _, d := range in.Duplicates {
			if d.First >= d.Line || !seen[d.URL] {
				t.Fatalf("bad duplicate %+v", d)
			}
		}
	})
}

// BenchmarkParseInput parses a production-sized run (3,575 sites) and
// reports the throughput in lines per second.
func BenchmarkParseInput(b *testing.B) {
	var sb strings.Builder
	for i := range 3575 {
		fmt.Fprintf(&sb, "https://www.site-%d.example.com/path?q=%d\n", i, i)
	}
	data := sb.String()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in, err := cli.ParseInput(strings.NewReader(data))
		if err != nil || len(in.URLs) != 3575 {
			b.Fatalf("%v %d", err, len(in.URLs))
		}
	}
	b.ReportMetric(float64(3575*b.N)/b.Elapsed().Seconds(), "lines/s")
}
