package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/taskpipe/taskpipe/internal/weburl"
)

// MaxInputBytes bounds what submit reads (about 2.5 million 100-byte URLs);
// a larger input is refused before anything is written.
const MaxInputBytes = 256 << 20

// MaxInputLines bounds the lines of an input: task ids carry the line
// number in 7 digits (TaskID), so a run's listing sorts them in input
// order.
const MaxInputLines = 9_999_999

// maxLineBytes bounds a line of the lines format (it is rejected, not
// held) and is the read buffer; a URL is at most weburl.MaxLen.
const maxLineBytes = 64 << 10

// maxRecordBytes bounds a CSV record, which may span lines; a longer one
// almost always is an unclosed quote swallowing the rest of the file.
// recordSlack is what the readers buffer ahead of the record.
const (
	maxRecordBytes = 1 << 20
	recordSlack    = maxLineBytes + 4096
)

// Errors of an input that is not text lines ParseInput can read; each
// says why, for the operator.
var (
	ErrTooLarge = errors.New("input too large")
	ErrUTF16    = errors.New("input is UTF-16 or binary, not UTF-8 text: save it as UTF-8 (in Excel: CSV UTF-8)")
	ErrLoneCR   = errors.New("a carriage return (CR) without a newline: lone-CR line endings (classic Mac OS) are not supported; convert the file to LF or CRLF line endings")

	errRecordTooLong = fmt.Errorf("a CSV record longer than %d MiB: a quote is probably not closed", maxRecordBytes>>20)
)

// Input formats.
const (
	FormatLines = "lines"
	FormatCSV   = "csv"
)

// Input is a parsed submit input.
type Input struct {
	// Format is FormatLines or FormatCSV.
	Format string
	// URLs are the accepted lines in input order, each URL normalized.
	URLs []InputURL
	// Rejected are the lines that are not written, in input order.
	Rejected []Rejection
	// Duplicates are lines whose normalized URL an earlier line has.
	Duplicates []Duplicate
}

// InputURL is one accepted line.
type InputURL struct {
	Line int
	URL  string
}

// Rejection is an input line (or, for a CSV quoting error, a range of
// lines) that is not written, with the reason.
type Rejection struct {
	Line    int
	EndLine int // > Line only when a CSV record spans lines
	Reason  string
}

func (r Rejection) String() string {
	if r.EndLine > r.Line {
		return fmt.Sprintf("lines %d-%d: %s", r.Line, r.EndLine, r.Reason)
	}
	return fmt.Sprintf("line %d: %s", r.Line, r.Reason)
}

// Duplicate is a line whose URL was already submitted by line First.
type Duplicate struct {
	Line  int
	First int
	URL   string
}

// ParseInput reads a submit input: URLs one per line, or CSV whose header
// (its first line that is not blank or a # comment) has a column named
// "url" (any case). Blank lines and lines starting with # are ignored in
// both. Every URL goes through weburl.Normalize; lines that fail are
// rejected with the reason. A CSV row with more fields than its header is
// rejected (an unquoted comma in a URL would otherwise cut it short).
//
// The input is streamed: memory grows with the URLs kept, not with the
// input's size. The error is for an input that cannot be read as text
// lines at all: unreadable, over MaxInputBytes or MaxInputLines, UTF-16
// (ErrUTF16), lone-CR line endings (ErrLoneCR), or a CSV record over
// maxRecordBytes (an unclosed quote).
func ParseInput(r io.Reader) (*Input, error) {
	in, err := parseInput(r)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	return in, nil
}

func parseInput(r io.Reader) (*Input, error) {
	raw := bufio.NewReaderSize(r, maxLineBytes)
	switch head, _ := raw.Peek(3); {
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")):
		return nil, fmt.Errorf("line 1: %w (it starts with a UTF-16 byte order mark)", ErrUTF16)
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")): // a UTF-8 BOM from spreadsheet exports
		if _, err := raw.Discard(3); err != nil {
			return nil, err
		}
	}
	g := &guard{r: raw, line: 1}
	br := bufio.NewReaderSize(g, maxLineBytes)
	in := &Input{Format: FormatLines}
	acc := accumulator{in: in, seen: map[string]int{}}
	first := true // the next significant line is the first
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		t := bytes.TrimSpace(line)
		switch {
		case tooLong:
			first = false
			acc.reject(n, n, "longer than %d KiB", maxLineBytes>>10)
		case len(t) == 0 || t[0] == '#':
		case !first:
			acc.add(n, string(t))
		default:
			first = false
			if col, ok := csvHeader(t); ok {
				in.Format = FormatCSV
				// Replay the header line into the CSV reader, whose line
				// numbers then start at n.
				hdr := io.MultiReader(bytes.NewReader(bytes.Clone(line)), br)
				return in, acc.csv(hdr, g, n-1, col)
			}
			acc.add(n, string(t))
		}
		if errors.Is(err, io.EOF) {
			return in, nil
		}
	}
}

// readLine returns the next line with its newline. A line that does not
// fit the buffer is skipped to its end and reported as tooLong, so memory
// stays bounded by the buffer.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		tooLong = true
		_, err = br.ReadSlice('\n')
	}
	if tooLong {
		return nil, true, err
	}
	return line, false, err
}

// csvHeader reports whether line (trimmed, significant) is a CSV header
// with a "url" column, and that column's index.
func csvHeader(line []byte) (int, bool) {
	rec, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return 0, false
	}
	for i, f := range rec {
		if strings.EqualFold(strings.TrimSpace(f), "url") {
			return i, true
		}
	}
	return 0, false
}

// guard checks the raw bytes as they are read: it counts lines and bytes
// against the caps and stops at a NUL byte (UTF-16 or binary) and at a
// carriage return not followed by a newline. Its error is sticky, so every
// reader above it stops too.
type guard struct {
	r      io.Reader
	line   int   // line of the next byte
	n      int64 // bytes read
	cr     bool  // the last byte was '\r'
	record int   // bytes since the CSV reader last returned a record
	// limitRecord turns on the record cap (CSV only: a line of the lines
	// format is bounded by the buffer).
	limitRecord bool
	err         error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i, b := range p[:n] {
		if g.cr && b != '\n' {
			g.err = fmt.Errorf("line %d: %w", g.line, ErrLoneCR)
		}
		g.cr = b == '\r'
		switch {
		case g.err != nil:
		case g.line > MaxInputLines:
			g.err = fmt.Errorf("%w: more than %d lines (task ids number lines in 7 digits); split it into several runs", ErrTooLarge, MaxInputLines)
		case g.n+int64(i) >= MaxInputBytes:
			g.err = fmt.Errorf("%w: larger than %d MiB; split it into several runs", ErrTooLarge, MaxInputBytes>>20)
		case b == 0:
			g.err = fmt.Errorf("line %d: %w (it has a NUL byte)", g.line, ErrUTF16)
		case b == '\n':
			g.line++
		}
		if g.err != nil {
			g.n += int64(i)
			return i, g.err
		}
	}
	g.n += int64(n)
	g.record += n
	if g.limitRecord && g.record > maxRecordBytes+recordSlack {
		g.err = fmt.Errorf("line %d: %w", g.line, errRecordTooLong)
		return n, g.err
	}
	return n, err
}

type accumulator struct {
	in   *Input
	seen map[string]int // normalized URL → first line
}

func (a *accumulator) reject(line, end int, format string, args ...any) {
	a.in.Rejected = append(a.in.Rejected, Rejection{Line: line, EndLine: end, Reason: fmt.Sprintf(format, args...)})
}

func (a *accumulator) add(line int, raw string) {
	u, err := weburl.Normalize(raw)
	if err != nil {
		a.reject(line, line, "%s", strings.TrimPrefix(err.Error(), "weburl: "))
		return
	}
	s := u.String()
	if first, dup := a.seen[s]; dup {
		a.in.Duplicates = append(a.in.Duplicates, Duplicate{Line: line, First: first, URL: s})
		return
	}
	a.seen[s] = line
	a.in.URLs = append(a.in.URLs, InputURL{Line: line, URL: s})
}

// csv reads the header and the records after it; offset is the number of
// lines before the header. encoding/csv handles quoted fields (also across
// lines), skips blank lines and # comments, and reports the lines of a
// malformed record; such a record is rejected and reading goes on after
// it. The error is the guard's (the input is unusable) or a record over
// maxRecordBytes.
func (a *accumulator) csv(src io.Reader, g *guard, offset, col int) error {
	r := csv.NewReader(src)
	r.Comment = '#'
	r.FieldsPerRecord = -1 // rows may be shorter than the header; longer is checked below
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	g.limitRecord = true
	header := -1 // fields in the header, once read
	lastErrLine := -1
	for {
		g.record = 0
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if err != nil && !errors.As(err, &pe) {
			return err
		}
		if err != nil {
			start, end := pe.StartLine+offset, pe.Line+offset
			if start == lastErrLine {
				// No progress: reject the rest rather than loop.
				a.reject(start, start, "csv: %v; stopped reading here", pe.Err)
				return nil
			}
			lastErrLine = start
			a.reject(start, end, "csv: %v", pe.Err)
			if header < 0 {
				header = 0 // an unreadable header: no width to hold rows to
			}
			continue
		}
		line, _ := r.FieldPos(0)
		line += offset
		endLine, _ := r.FieldPos(len(rec) - 1)
		endLine += offset
		switch {
		case header < 0:
			header = len(rec)
		case header > 0 && len(rec) > header:
			a.reject(line, endLine, "csv: %d fields, the header has %d; quote a URL that has a comma (\"https://a.com/x,y\")", len(rec), header)
		case col >= len(rec):
			a.reject(line, endLine, "csv: no url column (the row has %d fields, url is field %d)", len(rec), col+1)
		case strings.TrimSpace(rec[col]) == "":
			a.reject(line, endLine, "csv: empty url")
		default:
			a.add(line, strings.TrimSpace(rec[col]))
		}
	}
}
