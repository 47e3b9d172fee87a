package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
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

// repeat is an endless reader of s, so the limit tests need no buffer of
// the input's size.
type repeat struct {
	s   string
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.off:])
		n += c
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}

func lines(n int, s string) io.Reader { return io.LimitReader(&repeat{s: s}, int64(n*len(s))) }

// TestParseInputLimits: issue 15 item 11, the input is streamed with caps
// on bytes, lines, a line and a CSV record, each a clear error or
// rejection; a CSV header is found after any number of blank lines.
func TestParseInputLimits(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name     string
		in       func() io.Reader
		err      string
		format   string
		urls     []cli.InputURL
		rejected []string
	}{
		{name: "TooLarge", in: func() io.Reader { return lines(cli.MaxInputBytes/64+1, "#"+strings.Repeat("-", 62)+"\n") },
			err: "read input: input too large: larger than 256 MiB; split it into several runs"},
		{name: "MaxLines", in: func() io.Reader { return lines(cli.MaxInputLines, "\n") }, format: cli.FormatLines},
		{name: "TooManyLines", in: func() io.Reader { return io.MultiReader(lines(cli.MaxInputLines, "\n"), strings.NewReader("a.com")) },
			err: "read input: input too large: more than 9999999 lines (task ids number lines in 7 digits); split it into several runs"},
		{name: "LongLineRejected", in: func() io.Reader { return strings.NewReader("a.com\n" + long + "\nb.com\n") }, format: cli.FormatLines,
			urls: []cli.InputURL{{Line: 1, URL: "https://a.com/"}, {Line: 3, URL: "https://b.com/"}}, rejected: []string{"line 2: longer than 64 KiB"}},
		{name: "HeaderAfterManyBlankLines", in: func() io.Reader {
			return io.MultiReader(lines(1_000_000, "\n"), strings.NewReader("url\n\na.com\n"))
		}, format: cli.FormatCSV, urls: []cli.InputURL{{Line: 1_000_003, URL: "https://a.com/"}}},
		{name: "CSVRecordTooLong", in: func() io.Reader {
			return io.MultiReader(strings.NewReader("url\na.com\n\"b.com\n"), lines(200_000, "c.com/0123456789\n"))
		}, err: "a CSV record longer than 1 MiB: a quote is probably not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := cli.ParseInput(tt.in())
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.format, in.Format)
			require.Equal(t, tt.urls, in.URLs)
			var rej []string
			for _, r := range in.Rejected {
				rej = append(rej, r.String())
			}
			require.Equal(t, tt.rejected, rej)
		})
	}
}

// TestParseInputStreams: issue 15 item 11, parsing 9,999,999 newlines (the
// line cap; 64 MiB of newlines used to take 2.35 GB) allocates a few
// buffers, not a copy of the input. Not parallel: it reads the process's
// allocation counter, and parallel tests only start once the sequential
// ones are done.
func TestParseInputStreams(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in, err := cli.ParseInput(lines(cli.MaxInputLines, "\n"))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Empty(t, in.URLs)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d newlines: %d bytes allocated", cli.MaxInputLines, alloc)
	require.Less(t, alloc, uint64(1<<20), "bytes allocated")
}

// TestParseInputCSVExtraFields: issue 15 item 10, a row wider than its
// header is rejected with a hint to quote, not stored cut at the comma.
func TestParseInputCSVExtraFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		urls     []cli.InputURL
		rejected []string
	}{
		{name: "UnquotedComma", in: "url\nhttps://a.com/x,y\nb.com\n", urls: []cli.InputURL{{Line: 3, URL: "https://b.com/"}},
			rejected: []string{`line 2: csv: 2 fields, the header has 1; quote a URL that has a comma ("https://a.com/x,y")`}},
		{name: "Quoted", in: "url\n\"https://a.com/x,y\"\n", urls: []cli.InputURL{{Line: 2, URL: "https://a.com/x,y"}}},
		{name: "TwoColumns", in: "# c\nid,url\n1,a.com,extra\n2,b.com\n", urls: []cli.InputURL{{Line: 4, URL: "https://b.com/"}},
			rejected: []string{`line 3: csv: 3 fields, the header has 2; quote a URL that has a comma ("https://a.com/x,y")`}},
		{name: "ShorterRowKept", in: "url,note\na.com\n", urls: []cli.InputURL{{Line: 2, URL: "https://a.com/"}}},
		{name: "MultiLineRecordNamesItsLines", in: "url,note\na.com,\"x\ny\",z\n", rejected: []string{
			`lines 2-3: csv: 3 fields, the header has 2; quote a URL that has a comma ("https://a.com/x,y")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := cli.ParseInput(strings.NewReader(tt.in))
			require.NoError(t, err)
			require.Equal(t, cli.FormatCSV, in.Format)
			require.Equal(t, tt.urls, in.URLs)
			var rej []string
			for _, r := range in.Rejected {
				rej = append(rej, r.String())
			}
			require.Equal(t, tt.rejected, rej)
		})
	}
}

// TestParseInputEncoding: issue 15 item 12, a lone-CR file and a UTF-16
// file are refused with a message that says why and what to do.
func TestParseInputEncoding(t *testing.T) {
	t.Parallel()
	utf16le := "\xff\xfe" + "a\x00.\x00c\x00o\x00m\x00\n\x00"
	tests := []struct {
		name string
		in   string
		err  error
		msg  string // "" with err nil: parses
	}{
		{name: "LoneCR", in: "a.com\rb.com\r", err: cli.ErrLoneCR, msg: "read input: line 1: a carriage return (CR) without a newline: lone-CR line endings (classic Mac OS) are not supported; convert the file to LF or CRLF line endings"},
		{name: "LoneCRLater", in: "url\r\na.com\r\nb.com\rc.com\n", err: cli.ErrLoneCR, msg: "read input: line 3: a carriage return"},
		{name: "UTF16LE", in: utf16le, err: cli.ErrUTF16, msg: "read input: line 1: input is UTF-16 or binary, not UTF-8 text: save it as UTF-8 (in Excel: CSV UTF-8) (it starts with a UTF-16 byte order mark)"},
		{name: "UTF16BE", in: "\xfe\xff\x00a\x00.", err: cli.ErrUTF16, msg: "UTF-16 byte order mark"},
		{name: "UTF16WithoutBOM", in: utf16le[2:], err: cli.ErrUTF16, msg: "read input: line 1: input is UTF-16 or binary, not UTF-8 text: save it as UTF-8 (in Excel: CSV UTF-8) (it has a NUL byte)"},
		{name: "CRLF", in: "a.com\r\nb.com\r\n"},
		{name: "FinalCR", in: "a.com\r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := cli.ParseInput(strings.NewReader(tt.in))
			if tt.err == nil {
				require.NoError(t, err)
				require.Empty(t, in.Rejected)
				return
			}
			require.ErrorIs(t, err, tt.err)
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

// FuzzParseInput: any input parses without panicking, every accepted URL is
// in canonical form and unique, and every reported line exists.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		"a.com\nb.com\n", "url\na.com\n", "name,url\n\"x, y\",b.com\n", "url\n\"a\nb\"\n", "\xef\xbb\xbf# c\n",
		"url\na\"b\n", "ftp://x\n\x00\n", "a\rb\r\n", "\xff\xfea\x00", "url\nhttps://a.com/x,y\n", "URL,url\n,\n", "https://[::1]:80/\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := cli.ParseInput(strings.NewReader(s))
		loneCR := regexp.MustCompile("\r[^\n]").MatchString(s)
		utf16 := strings.Contains(s, "\x00") || strings.HasPrefix(s, "\xff\xfe") || strings.HasPrefix(s, "\xfe\xff")
		switch {
		case errors.Is(err, cli.ErrLoneCR) && loneCR, errors.Is(err, cli.ErrUTF16) && utf16:
			return
		case err != nil:
			t.Fatal(err)
		case loneCR || utf16:
			t.Fatalf("%q parsed: lone CR %v, UTF-16 %v", s, loneCR, utf16)
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

// BenchmarkParseInputNewlines parses 64 MiB of newlines (issue 15 item 11:
// the input used to be held whole several times, 2.35 GB RSS) and reports
// the bytes allocated per parse and the peak heap in use.
func BenchmarkParseInputNewlines(b *testing.B) {
	data := bytes.Repeat([]byte{'\n'}, 64<<20)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		_, _ = cli.ParseInput(bytes.NewReader(data))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapSys)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-heap-sys")
}
