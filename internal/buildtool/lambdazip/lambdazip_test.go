package lambdazip_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/buildtool/lambdazip"
)

func zipOf(t *testing.T, content []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, lambdazip.Write(&buf, bytes.NewReader(content)))
	return buf.Bytes()
}

func TestWriteIsDeterministic(t *testing.T) {
	t.Parallel()
	content := bytes.Repeat([]byte("\x7fELF not really a binary "), 4096)

	first, second := zipOf(t, content), zipOf(t, content)

	require.Equal(t, sha256.Sum256(first), sha256.Sum256(second))
	require.NotEqual(t, sha256.Sum256(first), sha256.Sum256(zipOf(t, append(content, '!'))), "the content counts")
}

func TestWriteLayout(t *testing.T) {
	t.Parallel()
	content := []byte("#!/bin/sh\necho hello\n")
	data := zipOf(t, content)

	require.NoError(t, lambdazip.Check(data))
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	f := zr.File[0]
	require.Equal(t, "bootstrap", f.Name)
	require.Equal(t, os.FileMode(0o755), f.Mode())
	require.Equal(t, uint16(3), f.CreatorVersion>>8, "Unix attributes, so the execute bit survives")
	require.True(t, f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)))
	rc, err := f.Open()
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, content, got)
}

func TestCheckRejects(t *testing.T) {
	t.Parallel()

	build := func(t *testing.T, entries ...*zip.FileHeader) []byte {
		t.Helper()
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, h := range entries {
			w, err := zw.CreateHeader(h)
			require.NoError(t, err)
			_, err = w.Write([]byte("x"))
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	header := func(name string, mode os.FileMode, mod time.Time) *zip.FileHeader {
		h := &zip.FileHeader{Name: name, Modified: mod}
		h.SetMode(mode)
		return h
	}
	fixed := lambdazip.FixedTime

	tests := []struct {
		name    string
		data    func(t *testing.T) []byte
		wantErr string
	}{
		{"NotAZip", func(*testing.T) []byte { return []byte("nope") }, "not a valid zip"},
		{"TwoEntries", func(t *testing.T) []byte {
			return build(t, header("bootstrap", 0o755, fixed), header("extra", 0o644, fixed))
		}, "2 entries"},
		{"WrongName", func(t *testing.T) []byte { return build(t, header("dist/bootstrap", 0o755, fixed)) }, `entry "dist/bootstrap"`},
		{"NotExecutable", func(t *testing.T) []byte { return build(t, header("bootstrap", 0o644, fixed)) }, "mode -rw-r--r--"},
		{"WallClockTime", func(t *testing.T) []byte {
			return build(t, header("bootstrap", 0o755, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		}, "modified 2026"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorContains(t, lambdazip.Check(tt.data(t)), tt.wantErr)
		})
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bootstrap")
	require.NoError(t, os.WriteFile(bin, []byte("binary"), 0o755))
	out := filepath.Join(dir, "dist", "fn-arm64.zip")

	size, err := lambdazip.WriteFile(out, bin)
	require.NoError(t, err)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), size)
	require.NoError(t, lambdazip.Check(data))
	require.Equal(t, zipOf(t, []byte("binary")), data)

	// Rewriting replaces the file with identical bytes and leaves no
	// temporary file behind.
	_, err = lambdazip.WriteFile(out, bin)
	require.NoError(t, err)
	again, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, data, again)
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	require.Len(t, entries, 1)

	_, err = lambdazip.WriteFile(out, filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "no such file")
}
