package demo_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
)

// TestDisplayPath: what the demo and the chaos run print carries no
// absolute path of the machine, so their transcripts can be kept in docs/.
func TestDisplayPath(t *testing.T) {
	t.Parallel()
	root, err := demo.RepoRoot()
	require.NoError(t, err)
	for _, tc := range []struct{ in, want string }{
		{filepath.Join(root, "terraform", "examples", "local"), filepath.Join("terraform", "examples", "local")},
		{filepath.Join(os.TempDir(), "taskpipe-demo-1", "demo.log"), filepath.Join("$TMPDIR", "taskpipe-demo-1", "demo.log")},
		{"relative.log", "relative.log"}, // resolved from the working directory, inside the repository
		{"/nowhere/else.log", "/nowhere/else.log"},
	} {
		got := demo.DisplayPath(tc.in)
		if tc.in == "relative.log" {
			wd, err := os.Getwd()
			require.NoError(t, err)
			rel, err := filepath.Rel(root, filepath.Join(wd, "relative.log"))
			require.NoError(t, err)
			tc.want = rel
		}
		require.Equal(t, tc.want, got, "DisplayPath(%q)", tc.in)
	}
}
