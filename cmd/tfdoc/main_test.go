package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/buildtool/tfdoc"
)

// newModule writes a one-variable module with an empty README section.
func newModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "variables.tf"),
		[]byte("variable \"name\" {\n  description = \"Name.\"\n  type        = string\n}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"),
		[]byte("# m\n"+tfdoc.BeginMarker+"\n"+tfdoc.EndMarker+"\n"), 0o644))
	return dir
}

func TestRun(t *testing.T) {
	t.Parallel()

	t.Run("CheckReportsStaleAndWritesNothing", func(t *testing.T) {
		t.Parallel()
		dir := newModule(t)
		var out bytes.Buffer
		err := run([]string{"-check", dir}, &out)
		require.ErrorIs(t, err, errStale)
		require.Contains(t, out.String(), "stale: "+filepath.Join(dir, "README.md"))
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		require.NoError(t, err)
		require.NotContains(t, string(readme), "`name`")
	})

	t.Run("WriteThenCheckPasses", func(t *testing.T) {
		t.Parallel()
		dir := newModule(t)
		var out bytes.Buffer
		require.NoError(t, run([]string{dir}, &out))
		require.Contains(t, out.String(), "updated: ")
		out.Reset()
		require.NoError(t, run([]string{"-check", dir}, &out))
		require.Empty(t, out.String())
	})

	t.Run("DocFlagWritesOtherFile", func(t *testing.T) {
		t.Parallel()
		dir := newModule(t)
		notes := filepath.Join(t.TempDir(), "notes.md")
		require.NoError(t, os.WriteFile(notes, []byte(tfdoc.BeginMarker+tfdoc.EndMarker), 0o644))
		var out bytes.Buffer
		require.NoError(t, run([]string{"-doc", notes + "=" + dir}, &out))
		got, err := os.ReadFile(notes)
		require.NoError(t, err)
		require.Contains(t, string(got), "| `name` | Name. |")
	})

	t.Run("Errors", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		require.ErrorContains(t, run(nil, &out), "nothing to do")
		require.ErrorContains(t, run([]string{"-doc", "no-equals-sign"}, &out), "FILE=MODULE_DIR")
		require.ErrorContains(t, run([]string{t.TempDir()}, &out), "no .tf files")
	})
}
