package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
)

// Pipes limits (docs/aws-behaviour.md §1.3; the dispatch module's validation).
const (
	maxPipeFilters     = 5
	maxPipePatternSize = 4096
)

// maxFilterFileBytes bounds the pattern and record files read.
const maxFilterFileBytes = 64 << 20

const filterOverview = `Usage: taskpipe filter test --pattern FILE --records FILE

Run "taskpipe filter test -h" for details.
`

var filterTestHelp = help{
	name:     "filter test",
	synopsis: "--pattern FILE --records FILE",
	text: `
Evaluates a Pipe filter against DynamoDB stream records before anyone
applies it, with the same matcher the local cloud's Pipe uses.

--pattern holds one event pattern (a JSON object), a JSON array of patterns
(the filter list, OR'ed), the Terraform shapes - a JSON array of pattern
strings (the dispatch module's filter_patterns) or of {"pattern": "…"}
objects (filter_criteria filter blocks), or {"filter_patterns": […]} /
{"pipe_filter_patterns": […]} from a .tfvars.json - or the API shape
{"Filters": [{"Pattern": "…"}]}. Each pattern is compiled and checked for
what EventBridge Pipes accepts (a Pipe rejects some operators that
EventBridge rules allow, and takes at most 5 filters of 4096 characters).

--records holds a JSON array of stream records, {"Records": […]} (the
GetRecords output), or one record per line (JSON lines).

Prints, per record, its index, eventName and keys, then MATCH with the
filters that matched (numbered from 1) or "no match". Exit status 1 when
any pattern is invalid or any record unreadable.

Examples in the repository (internal/cli/testdata):
  taskpipe filter test --pattern internal/cli/testdata/filter-default.json \
      --records internal/cli/testdata/stream-records.json
  (filter-default.tfvars.json and filter-terraform.json are the same pair in
  Terraform's shapes; filter-unsupported.json shows a rejected operator;
  stream-records.jsonl holds the records as JSON lines.)`,
}

// Filter runs "taskpipe filter".
func (e *Env) Filter(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.errw(), filterOverview)
		return usagef("filter: name a subcommand: test")
	}
	switch args[0] {
	case "test":
		return e.FilterTest(ctx, args[1:])
	case "-h", "-help", "--help", "help":
		return e.FilterTest(ctx, []string{"-h"})
	}
	fmt.Fprint(e.errw(), filterOverview)
	return usagef("filter: unknown subcommand %q (want test)", args[0])
}

// Filter is one pattern of a filter file.
type Filter struct {
	// Source is the pattern text as given.
	Source string
	// Pattern is nil when Err is set.
	Pattern *eventpattern.Pattern
	// Err says why the pattern is invalid or unsupported by Pipes.
	Err error
}

// ParseFilters reads a pattern file in any of the shapes the help text
// lists and compiles every pattern. The error is for a file that holds no
// recognisable shape; invalid patterns are reported in each Filter.Err.
func ParseFilters(data []byte) ([]Filter, error) {
	data = bytes.TrimSpace(data)
	var sources []string
	switch {
	case len(data) == 0:
		return nil, errors.New("pattern file is empty")
	case data[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("pattern file: %w", err)
		}
		for i, raw := range list {
			src, err := patternText(raw)
			if err != nil {
				return nil, fmt.Errorf("pattern file: element %d: %w", i, err)
			}
			sources = append(sources, src)
		}
	case data[0] == '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("pattern file: %w", err)
		}
		if len(top) == 1 {
			for k, v := range top {
				if k == "Filters" || k == "filter_patterns" || k == "pipe_filter_patterns" {
					list, err := ParseFilters(v)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", k, err)
					}
					return list, nil
				}
			}
		}
		sources = []string{string(data)}
	default:
		return nil, errors.New("pattern file: want a JSON object or array")
	}
	if len(sources) == 0 {
		return nil, errors.New("pattern file: no patterns")
	}
	out := make([]Filter, len(sources))
	for i, src := range sources {
		out[i] = compileFilter(src)
	}
	return out, nil
}

// patternText returns the pattern JSON of one list element: an object is
// the pattern; a string holds it; {"pattern": "…"} or {"Pattern": "…"}
// wraps it.
func patternText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return "", errors.New("want a pattern object, a pattern string or {\"pattern\": \"…\"}")
	}
	if len(obj) == 1 {
		for _, k := range []string{"pattern", "Pattern"} {
			if v, ok := obj[k]; ok && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '"' {
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					return "", err
				}
				return s, nil
			}
		}
	}
	return string(raw), nil
}

func compileFilter(src string) Filter {
	f := Filter{Source: src}
	if len(src) > maxPipePatternSize {
		f.Err = fmt.Errorf("pattern is %d characters; a Pipe filter takes at most %d", len(src), maxPipePatternSize)
		return f
	}
	p, err := eventpattern.Compile([]byte(src))
	if err != nil {
		f.Err = err
		return f
	}
	if err := eventpattern.ValidateForPipes(p); err != nil {
		f.Err = fmt.Errorf("EventBridge Pipes would reject it: %w", err)
		return f
	}
	f.Pattern = p
	return f
}

// ParseRecords reads a records file: a JSON array, {"Records": […]}, or
// JSON lines. Each element is returned raw; the error is for a file that
// is none of these.
func ParseRecords(data []byte) ([]json.RawMessage, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, errors.New("records file is empty")
	}
	if t[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(t, &list); err != nil {
			return nil, fmt.Errorf("records file: %w", err)
		}
		return list, nil
	}
	if t[0] == '{' {
		var top struct {
			Records []json.RawMessage `json:"Records"`
		}
		if json.Unmarshal(t, &top) == nil && top.Records != nil {
			return top.Records, nil
		}
	}
	var list []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(t))
	sc.Buffer(make([]byte, 0, 64<<10), maxFilterFileBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		list = append(list, json.RawMessage(append([]byte(nil), line...)))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("records file: %w", err)
	}
	return list, nil
}

// FilterTest runs "taskpipe filter test".
func (e *Env) FilterTest(_ context.Context, args []string) error {
	fs := e.newFlagSet(filterTestHelp)
	patternFile := fs.String("pattern", "", "`FILE` with the filter pattern(s)")
	recordsFile := fs.String("records", "", "`FILE` with DynamoDB stream records")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments: %q", pos)
	case *patternFile == "" || *recordsFile == "":
		return usagef("need both --pattern FILE and --records FILE")
	}
	pdata, err := readSmallFile(*patternFile)
	if err != nil {
		return err
	}
	rdata, err := readSmallFile(*recordsFile)
	if err != nil {
		return err
	}
	filters, err := ParseFilters(pdata)
	if err != nil {
		return fmt.Errorf("filter test: %s: %w", *patternFile, err)
	}
	records, err := ParseRecords(rdata)
	if err != nil {
		return fmt.Errorf("filter test: %s: %w", *recordsFile, err)
	}
	out := e.out()
	bad := 0
	for i, f := range filters {
		if f.Err != nil {
			bad++
			fmt.Fprintf(out, "filter %d: INVALID: %v\n", i+1, f.Err)
			continue
		}
		fmt.Fprintf(out, "filter %d: ok: %s\n", i+1, oneLine(f.Source, 200))
	}
	if len(filters) > maxPipeFilters {
		bad++
		fmt.Fprintf(out, "filters: INVALID: %d filters; a Pipe takes at most %d\n", len(filters), maxPipeFilters)
	}
	badRecords := 0
	for i, raw := range records {
		line, err := matchRecord(i, raw, filters)
		if err != nil {
			badRecords++
			fmt.Fprintf(out, "record %d: ERROR: %v\n", i, err)
			continue
		}
		fmt.Fprintln(out, line)
	}
	if bad > 0 || badRecords > 0 {
		return fmt.Errorf("filter test: %d invalid filters, %d unreadable records", bad, badRecords)
	}
	return nil
}

func readSmallFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("filter test: %w", err)
	}
	defer f.Close() // read-only
	b, err := io.ReadAll(io.LimitReader(f, maxFilterFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("filter test: read %s: %w", name, err)
	}
	if len(b) > maxFilterFileBytes {
		return nil, fmt.Errorf("filter test: %s is larger than %d MiB", name, maxFilterFileBytes>>20)
	}
	return b, nil
}

// matchRecord renders one record's line: index, eventName, keys, result.
func matchRecord(i int, raw json.RawMessage, filters []Filter) (string, error) {
	var rec struct {
		EventName string `json:"eventName"`
		Dynamodb  struct {
			Keys map[string]map[string]json.RawMessage `json:"Keys"`
		} `json:"dynamodb"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return "", fmt.Errorf("not a stream record: %w", err)
	}
	var matched []string
	for j, f := range filters {
		if f.Pattern == nil {
			continue
		}
		ok, err := f.Pattern.Match(raw)
		if err != nil {
			return "", fmt.Errorf("filter %d: %w", j+1, err)
		}
		if ok {
			matched = append(matched, fmt.Sprint(j+1))
		}
	}
	name := rec.EventName
	if name == "" {
		name = "(no eventName)"
	}
	result := "no match"
	if len(matched) > 0 {
		result = "MATCH filter " + strings.Join(matched, ",")
	}
	return fmt.Sprintf("record %d: %s %s: %s", i, name, formatKeys(rec.Dynamodb.Keys), result), nil
}

// formatKeys renders DynamoDB-typed keys as name=value, sorted by name.
func formatKeys(keys map[string]map[string]json.RawMessage) string {
	if len(keys) == 0 {
		return "{}"
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		v := ""
		for _, raw := range keys[k] { // one member: {"S": "…"}, {"N": "…"}, {"B": "…"}
			v = rawText(raw)
		}
		parts[i] = k + "=" + v
	}
	return "{" + strings.Join(parts, " ") + "}"
}
