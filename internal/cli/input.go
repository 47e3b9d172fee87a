package cli

import (
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
// rejected with the reason. The error is only for an unreadable or
// oversized input.
func ParseInput(r io.Reader) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("read input: larger than %d MiB; split it into several runs", MaxInputBytes>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM from spreadsheet exports
	in := &Input{Format: FormatLines}
	acc := accumulator{in: in, seen: map[string]int{}}
	if col, ok := csvHeader(data); ok {
		in.Format = FormatCSV
		acc.csv(data, col)
		return in, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		acc.add(i+1, line)
	}
	return in, nil
}

// csvHeader reports whether the first significant line is a CSV header
// with a "url" column, and that column's index.
func csvHeader(data []byte) (int, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(t)).Read()
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
	return 0, false
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

// csv reads the records after the header. encoding/csv handles quoted
// fields (also across lines), skips blank lines and # comments, and reports
// the lines of a malformed record; such a record is rejected and reading
// goes on after it.
func (a *accumulator) csv(data []byte, col int) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1 // rows of any width; only the url column matters
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	header := true
	lastErrLine := -1
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) || pe.StartLine == lastErrLine {
				// No progress: reject the rest rather than loop.
				a.reject(lastErrLine, lastErrLine, "csv: %v; stopped reading here", err)
				return
			}
			lastErrLine = pe.StartLine
			a.reject(pe.StartLine, pe.Line, "csv: %v", pe.Err)
			header = false
			continue
		}
		line, _ := r.FieldPos(0)
		if header {
			header = false
			continue
		}
		if col >= len(rec) {
			a.reject(line, line, "csv: no url column (the row has %d fields, url is field %d)", len(rec), col+1)
			continue
		}
		endLine, _ := r.FieldPos(len(rec) - 1)
		raw := strings.TrimSpace(rec[col])
		if raw == "" {
			a.reject(line, endLine, "csv: empty url")
			continue
		}
		a.add(line, raw)
	}
}
