package terraform_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/buildtool/tfdoc"
)

// TestReadmeTablesCurrent fails when a module's or example's README tables
// no longer match its variables and outputs.
func TestReadmeTablesCurrent(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("*/*/README.md")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, readme := range dirs {
		t.Run(filepath.Dir(readme), func(t *testing.T) {
			t.Parallel()
			stale, err := tfdoc.UpdateFile(readme, filepath.Dir(readme), false)
			require.NoError(t, err)
			require.False(t, stale, "%s is stale: run make docs", readme)
		})
	}
}

// TestReadmeTablesDetectDrift proves the check above can fail: a README
// whose module gained a variable is stale.
func TestReadmeTablesDetectDrift(t *testing.T) {
	t.Parallel()
	dir := copyTree(t, ".")
	module := filepath.Join(dir, "modules", "task-table")
	stale, err := tfdoc.UpdateFile(filepath.Join(module, "README.md"), module, false)
	require.NoError(t, err)
	require.False(t, stale)

	f, err := os.OpenFile(filepath.Join(module, "variables.tf"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\nvariable \"extra\" {\n  description = \"New.\"\n  type        = string\n  default     = \"x\"\n}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	stale, err = tfdoc.UpdateFile(filepath.Join(module, "README.md"), module, false)
	require.NoError(t, err)
	require.True(t, stale)
}

// TestDesiredStateSaysWhereRecordsGo: a pipe stopped for longer than
// maximum_record_age_in_seconds sends the older records to its DLQ when it
// runs again, so desired_state's description must say so rather than
// promise that records wait in the stream for 24 hours (issue 12 #8;
// https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/API_PipeSourceDynamoDBStreamParameters.html).
func TestDesiredStateSaysWhereRecordsGo(t *testing.T) {
	t.Parallel()
	m, err := tfdoc.Load("modules/dispatch")
	require.NoError(t, err)
	for _, v := range m.Variables {
		if v.Name != "desired_state" {
			continue
		}
		require.Contains(t, v.Description, "maximum_record_age_in_seconds")
		require.Contains(t, v.Description, "pipe DLQ")
		require.NotContains(t, v.Description, "accumulat")
		return
	}
	t.Fatal("dispatch has no desired_state variable")
}
