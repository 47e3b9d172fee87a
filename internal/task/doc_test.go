package task_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

// TestLifecycleDocMatchesTransitions keeps the lifecycle table of the
// package documentation (doc.go) and CanTransition in agreement: every
// legal transition has a row, and every row is legal.
func TestLifecycleDocMatchesTransitions(t *testing.T) {
	t.Parallel()
	f, err := os.Open("doc.go")
	require.NoError(t, err)
	defer f.Close()

	documented := map[[2]task.State]bool{}
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "//\tfrom "):
			inTable = true
			continue
		case !strings.HasPrefix(line, "//\t"):
			inTable = false
		}
		if !inTable {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "//\t"))
		require.GreaterOrEqual(t, len(fields), 2, "row %q", line)
		if fields[0] == "(none)" {
			continue
		}
		from, err := task.ParseState(fields[0])
		require.NoError(t, err, "row %q", line)
		to, err := task.ParseState(fields[1])
		require.NoError(t, err, "row %q", line)
		require.True(t, task.CanTransition(from, to), "doc.go lists %s → %s, which CanTransition refuses", from, to)
		documented[[2]task.State{from, to}] = true
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, documented, "no lifecycle table found in doc.go")

	for _, from := range task.States() {
		for _, to := range task.States() {
			if task.CanTransition(from, to) {
				require.True(t, documented[[2]task.State{from, to}], "CanTransition allows %s → %s, which doc.go's lifecycle table lacks", from, to)
			}
		}
	}
}
