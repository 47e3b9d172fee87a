package demo

import (
	"strings"
	"testing"
)

// FuzzParseReport: function output is untrusted (a function prints what
// it likes, and a REPORT-looking line may come from it); parseReport must
// never panic and must only accept lines it fully parsed.
func FuzzParseReport(f *testing.F) {
	for _, seed := range []string{
		"REPORT RequestId: 1a\tDuration: 19.23 ms\tBilled Duration: 28 ms\tMemory Size: 512 MB\tMax Memory Used: 14 MB\tInit Duration: 8.17 ms\t",
		"REPORT RequestId: 1a\tDuration: 1.50 ms\tBilled Duration: 2 ms\tMemory Size: 128 MB\tMax Memory Used: 9 MB\t",
		`{"type":"platform.report","record":{"metrics":{"durationMs":3.2,"billedDurationMs":4,"maxMemoryUsedMB":11}}}`,
		`{"type":"platform.report","record":{"metrics":{"durationMs":"x"}}}`,
		"REPORT RequestId: \tDuration: 99999999999999999999999 ms\tBilled Duration: 99999999999999999999 ms\t",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, ok := parseReport(line)
		if !ok && got != (reportFields{}) {
			t.Fatalf("rejected line %q returned fields %+v", line, got)
		}
		if ok && !strings.HasPrefix(line, "REPORT RequestId: ") && !strings.Contains(line, `"platform.report"`) {
			t.Fatalf("accepted a line that is neither a REPORT line nor a platform.report record: %q", line)
		}
	})
}
