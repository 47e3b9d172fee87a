package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
)

// wantDefault is what the default "becomes Pending" pair says about the
// shipped records: created Pending (filter 1) and retried from Failed
// (filter 2) match; claims, failures, Pending→Pending rewrites, TTL
// removals and rows created in another state do not.
var wantDefault = []string{
	"record 0: INSERT {taskId=20260101T000000Z-3fa9c2/0000001}: MATCH filter 1",
	"record 1: MODIFY {taskId=20260101T000000Z-3fa9c2/0000001}: no match",
	"record 2: MODIFY {taskId=20260101T000000Z-3fa9c2/0000001}: no match",
	"record 3: MODIFY {taskId=20260101T000000Z-3fa9c2/0000001}: MATCH filter 2",
	"record 4: MODIFY {taskId=20260101T000000Z-3fa9c2/0000002}: no match",
	"record 5: REMOVE {taskId=20260101T000000Z-3fa9c2/0000003}: no match",
	"record 6: INSERT {taskId=20260101T000000Z-3fa9c2/0000004}: no match",
}

func filterTest(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb strings.Builder
	env := &cli.Env{Stdout: &out, Stderr: &errb}
	err := env.Filter(context.Background(), append([]string{"test"}, args...))
	return out.String(), err
}

func recordLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "record ") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestFilterTestShippedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, records string
	}{
		{"filter-default.json", "stream-records.json"},
		{"filter-default.json", "stream-records.jsonl"},
		{"filter-terraform.json", "stream-records.json"},
		{"filter-default.tfvars.json", "stream-records.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+"+"+tt.records, func(t *testing.T) {
			t.Parallel()
			out, err := filterTest(t, "--pattern", filepath.Join("testdata", tt.pattern), "--records", filepath.Join("testdata", tt.records))
			require.NoError(t, err, out)
			require.Equal(t, wantDefault, recordLines(out))
			require.Contains(t, out, "filter 1: ok: ")
			require.Contains(t, out, "filter 2: ok: ")
		})
	}
}

func TestFilterTestUnsupportedOperator(t *testing.T) {
	t.Parallel()
	out, err := filterTest(t, "--pattern", "testdata/filter-unsupported.json", "--records", "testdata/stream-records.json")
	require.Error(t, err)
	require.Equal(t, 1, exitCode(err))
	require.Contains(t, out, "filter 2: INVALID: EventBridge Pipes would reject it: Event pattern is not valid. Reason: the anything-but/prefix operator is not supported by EventBridge Pipes filters")
	lines := recordLines(out)
	require.Equal(t, wantDefault[0], lines[0], "the valid filter is still evaluated")
	require.Equal(t, "record 3: MODIFY {taskId=20260101T000000Z-3fa9c2/0000001}: no match", lines[3], "without filter 2")
}

func TestFilterTestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	good := "testdata/filter-default.json"
	records := "testdata/stream-records.json"
	tests := []struct {
		name      string
		args      []string
		code      int
		want      string
		wantInOut string
	}{
		{"NoFiles", nil, 2, "need both --pattern FILE and --records FILE", ""},
		{"MissingPattern", []string{"--pattern", filepath.Join(dir, "none"), "--records", records}, 1, "no such file", ""},
		{"NotJSON", []string{"--pattern", write("p1", "dynamodb = {}"), "--records", records}, 1, "want a JSON object or array", ""},
		{"InvalidPattern", []string{"--pattern", write("p2", `{"dynamodb":{"NewImage":"Pending"}}`), "--records", records}, 1, "1 invalid filters", "filter 1: INVALID: Event pattern is not valid"},
		{"TrailingData", []string{"--pattern", write("p3", strings.Repeat(`{"a":["b"]},`, 5)+`{"a":["c"]}`), "--records", records}, 1, "pattern file", ""},
		{"SixFilters", []string{"--pattern", write("p4", "["+strings.Repeat(`{"a":["b"]},`, 5)+`{"a":["c"]}]`), "--records", records}, 1, "1 invalid filters", "6 filters; a Pipe takes at most 5"},
		{"BadRecord", []string{"--pattern", good, "--records", write("r1", "{\"eventName\":\"INSERT\",\"dynamodb\":{}}\n[1]\n")}, 1, "1 unreadable records", "record 1: ERROR: not a stream record"},
		{"EmptyRecords", []string{"--pattern", good, "--records", write("r2", "  ")}, 1, "records file is empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := filterTest(t, tt.args...)
			require.Equal(t, tt.code, exitCode(err), "err %v", err)
			require.ErrorContains(t, err, tt.want)
			require.Contains(t, out, tt.wantInOut)
		})
	}
}

func TestParseFiltersShapes(t *testing.T) {
	t.Parallel()
	p := `{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}}}}`
	q := `{"eventName":["INSERT"]}`
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Object", p, []string{p}},
		{"Array", "[" + p + "," + q + "]", []string{p, q}},
		{"Strings", `["` + strings.ReplaceAll(p, `"`, `\"`) + `"]`, []string{p}},
		{"TerraformBlocks", `[{"pattern":"` + strings.ReplaceAll(q, `"`, `\"`) + `"}]`, []string{q}},
		{"API", `{"Filters":[{"Pattern":"` + strings.ReplaceAll(q, `"`, `\"`) + `"}]}`, []string{q}},
		{"Tfvars", `{"filter_patterns":["` + strings.ReplaceAll(q, `"`, `\"`) + `"]}`, []string{q}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs, err := cli.ParseFilters([]byte(tt.in))
			require.NoError(t, err)
			var got []string
			for _, f := range fs {
				require.NoError(t, f.Err)
				got = append(got, f.Source)
			}
			require.Equal(t, tt.want, got)
		})
	}
}
