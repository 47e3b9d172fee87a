package chaos_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/e2e/chaos"
	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	tfprovidertest.Cleanup()
	os.Exit(code)
}

// TestChaosShort is the short chaos run of make test, through the same
// Run as taskpipe chaos: 300 sites, every fault at a rate that makes it
// fire several times (the Pipe's target failures and refusals and the
// mid-run filter edit included), on the local example with its recovery timers cut
// to what the pipeline module allows (testdata/fast-recovery), so killed
// workers come back after 150 s instead of 180 s. It passes only when
// every invariant and every reconciliation check holds.
func TestChaosShort(t *testing.T) {
	t.Parallel()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	tfprovidertest.EnsureZips(t, root)
	dir := t.TempDir()
	logFile, err := os.Create(filepath.Join(dir, "chaos.log"))
	require.NoError(t, err)
	defer logFile.Close()
	var out strings.Builder

	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	historyPath := filepath.Join(dir, "history.json")
	oc, err := chaos.Run(ctx, chaos.Config{
		Demo: demo.Config{
			Sites:     300,
			Seed:      11,
			Root:      root,
			TFDir:     filepath.Join("internal", "e2e", "chaos", "testdata", "fast-recovery"),
			CLIConfig: tfprovidertest.CLIConfig(t),
			Terraform: tfprovidertest.Terraform(t),
			Out:       &out,
			Log:       logFile,
		},
		Plan:        chaos.ShortPlan(),
		FaultSeed:   3,
		HistoryPath: historyPath,
	})
	require.NoError(t, err, "chaos output:\n%s\n(log: %s)", out.String(), logFile.Name())
	t.Log(out.String())

	require.True(t, oc.Result.OK())
	for _, c := range oc.Report.Checks {
		require.Truef(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
	// Every fault fired, so the run was not vacuous: the checker's rows
	// say so, and the injector's counters agree.
	st := oc.History.Faults.Stats
	require.Positive(t, st.DynamoDBThrottles)
	require.Positive(t, st.SQSDuplicates)
	require.Positive(t, st.SQSDroppedAcks)
	require.Positive(t, st.SQSDelayedAcks)
	require.Positive(t, st.Kills)
	require.Positive(t, st.DynamoDBServerErrors)
	require.NotEmpty(t, oc.History.Poison)
	// The pipe's target failed (retries, bisect), refused some messages for
	// good (pipe DLQ, then the reconciler), and the filter was edited with
	// records on both sides; each record was still handled once.
	require.Positive(t, st.PipeTargetFailures)
	require.Positive(t, st.PipeRefusedBodies)
	require.Positive(t, st.PipeOutageFailures)
	require.NotNil(t, oc.History.Pipe)
	require.NotNil(t, oc.History.Pipe.FilterEdit)
	require.True(t, oc.History.Pipe.FilterEdit.Applied)
	for _, name := range []string{chaos.InvPipeOnce, chaos.InvFilterEdit} {
		inv, ok := oc.Result.Get(name)
		require.True(t, ok, name)
		require.True(t, inv.OK(), "%s: %s %v", name, inv.Detail, inv.Examples)
	}
	require.GreaterOrEqual(t, oc.Result.Summary.Abandoned, int(st.Kills))
	// Some scrapers were frozen mid-claim and their invocations ran into
	// the function's timeout, by the platform's own count.
	require.Positive(t, st.Frozen)
	require.GreaterOrEqual(t, oc.History.Faults.ScraperTimeouts, st.Frozen)
	frozen, ok := oc.Result.Get(chaos.InvFrozenTimedOut)
	require.True(t, ok)
	require.True(t, frozen.OK(), frozen.Detail)
	require.Contains(t, out.String(), "Chaos verdict: every invariant holds")

	// The saved history is judged the same way when read back.
	h, err := chaos.LoadHistoryFile(historyPath)
	require.NoError(t, err)
	require.Equal(t, oc.Result.Invariants, chaos.Check(h).Invariants)
}
