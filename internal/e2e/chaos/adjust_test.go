package chaos

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
)

// TestRejudgeKilledClaims judges the recorded run of testdata/clean.json
// (40 lines of fixture web seed 5 under ChaosMix; its worker on line 20
// was killed after each of its three claims) the way adjustChecks does.
// Without the killed claims line 20 looks like a healthy site that failed;
// with them every task meets its expectation, and the predicted requests
// are the 52 the fixture web counted in that run; an abandoned claim that
// was not a kill widens the requests to a range.
func TestRejudgeKilledClaims(t *testing.T) {
	t.Parallel()
	h := loadFixture(t, "clean.json")
	const lines = 40
	// The history was recorded with a scraper that fetched no key pages
	// and read no robots.txt (a BaseURL web has none): the limits say so.
	web, err := fixtureweb.New(fixtureweb.Config{Seed: 5, Sites: lines, Mix: ChaosMix(), BaseURL: "http://127.0.0.1:45173",
		Limits: fixtureweb.Limits{MaxPages: -1}})
	require.NoError(t, err)
	input := web.Input(lines)
	parsed, err := cli.ParseInput(bytes.NewReader(input))
	require.NoError(t, err)
	report := func() *demo.Report {
		return &demo.Report{RunID: h.RunID, Lines: lines, Input: parsed,
			Expected: web.Tally(strings.Split(strings.TrimSuffix(string(input), "\n"), "\n"))}
	}
	sum := Check(h).Summary
	require.Equal(t, 3, sum.AbandonedByTask[h.RunID+"/0000020"], "the fixture's thrice-killed task")

	tests := []struct {
		name       string
		sum        Summary
		mismatches []string
		finished   int
		exhausted  int
	}{
		{"killed claims ignored", Summary{}, []string{h.RunID + "/0000020"}, 38, 0},
		{"killed claims counted", sum, nil, 37, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := report()
			_, err := rejudge(web, rep, h, tc.sum)
			require.NoError(t, err)
			var ids []string
			for _, m := range rep.Mismatches {
				ids = append(ids, m.TaskID)
			}
			require.Equal(t, tc.mismatches, ids)
			require.Equal(t, tc.finished, rep.Expected.Finished)
			require.Equal(t, 1, rep.Expected.FailedFatal)
			require.Equal(t, tc.exhausted, rep.Expected.FailedExhausted)
		})
	}
	rep := report()
	rr, err := rejudge(web, rep, h, sum)
	require.NoError(t, err)
	require.Equal(t, 52, rep.Expected.Requests, "requests the fixture web counted in the recorded run")
	require.Equal(t, requestRange{52, 52}, rr, "every abandoned claim was a kill: exact")

	// One abandoned claim more than the injector's kills: it may have
	// fetched, so the requests widen to a range and the outcomes still
	// match.
	wider := sum
	wider.Abandoned++
	rep = report()
	rr, err = rejudge(web, rep, h, wider)
	require.NoError(t, err)
	require.Empty(t, rep.Mismatches)
	require.Equal(t, 52, rr.min)
	require.Greater(t, rr.max, 52)
	// Exactly: line 20 may have lost one claim fewer, and that ambiguous
	// claim may have fetched part of a crawl before it was lost (a scraper
	// frozen mid-fetch), at most a fault-free run's requests.
	line20 := web.URLs(lines)[19]
	require.Equal(t, 52-web.ExpectLosing(line20, 3).Requests+web.ExpectLosing(line20, 2).Requests+web.Expect(line20).Requests, rr.max)

	_, err = rejudge(nil, report(), h, sum)
	require.Error(t, err)
}
