package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
	"github.com/taskpipe/taskpipe/internal/task"
)

func TestMain(m *testing.M) {
	code := m.Run()
	tfprovidertest.Cleanup()
	os.Exit(code)
}

// TestDemoSmall runs a small demo through the same Run as make demo: real
// terraform init/apply/destroy of terraform/examples/local through the
// local provider, real bootstrap processes, the fixture web, and every
// reconciliation check.
func TestDemoSmall(t *testing.T) {
	t.Parallel()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	tfprovidertest.EnsureZips(t, root)
	logPath := filepath.Join(t.TempDir(), "demo.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()
	var out strings.Builder

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := demo.Run(ctx, demo.Config{
		Sites:     60,
		Seed:      7,
		Root:      root,
		CLIConfig: tfprovidertest.CLIConfig(t),
		Terraform: tfprovidertest.Terraform(t),
		Timeout:   90 * time.Second,
		Out:       &out,
		Log:       logFile,
	})
	require.NoError(t, err, "demo output:\n%s\n(log: %s)", out.String(), logPath)
	t.Log(out.String())

	require.Equal(t, 60, rep.Lines)
	require.Equal(t, rep.Expected.Tasks, rep.Submitted)
	require.Equal(t, rep.Submitted, rep.Outcomes.Finished()+rep.Outcomes.Failed())
	require.Zero(t, rep.Outcomes.Live())
	require.Equal(t, rep.Expected.Finished, rep.Outcomes.Finished())
	require.Empty(t, rep.Mismatches)
	require.Empty(t, rep.Leftovers)
	for _, c := range rep.Checks {
		require.Truef(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
	names := map[string]bool{}
	for _, c := range rep.Checks {
		names[c.Name] = true
	}
	require.True(t, names["destroy leaves the local cloud empty"], "the run destroyed the stack and checked")

	// The functions ran as processes: the scraper started at least one,
	// and every invocation left a REPORT line with a measured peak memory.
	var scraper *demo.FunctionReport
	for i := range rep.Functions {
		if rep.Functions[i].Role == "scraper" {
			scraper = &rep.Functions[i]
		}
	}
	require.NotNil(t, scraper)
	require.Positive(t, scraper.Stats.ColdStarts)
	require.Equal(t, scraper.Stats.Invocations, int64(scraper.Reports))
	require.Positive(t, scraper.MaxMemoryMB)
	require.Contains(t, scraper.SampleReport, "Max Memory Used")

	// The fixture web's failure modes reached the table.
	require.Positive(t, rep.Outcomes.FailedByKind[task.KindFatal]+rep.Outcomes.FailedByKind[task.KindExhausted])
	require.Positive(t, rep.Cost.Total)
	require.Contains(t, out.String(), "Cost of 1,000 tasks")
}
