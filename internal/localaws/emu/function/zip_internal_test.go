package function

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

type zipEntry struct {
	name string
	body string
	mode os.FileMode
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			hdr.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(hdr)
		require.NoError(t, err)
		_, err = w.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestExtractZip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []zipEntry
		wantErr string
		check   func(t *testing.T, dir string)
	}{
		{
			name:    "KeepsModes",
			entries: []zipEntry{{name: "bootstrap", body: "x", mode: 0o755}, {name: "conf/app.json", body: "{}", mode: 0o644}},
			check: func(t *testing.T, dir string) {
				fi, err := os.Stat(filepath.Join(dir, "bootstrap"))
				require.NoError(t, err)
				require.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
				fi, err = os.Stat(filepath.Join(dir, "conf", "app.json"))
				require.NoError(t, err)
				require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
			},
		},
		{
			name:    "NoModeIsNotExecutable",
			entries: []zipEntry{{name: "bootstrap", body: "x"}},
			check: func(t *testing.T, dir string) {
				fi, err := os.Stat(filepath.Join(dir, "bootstrap"))
				require.NoError(t, err)
				require.Zero(t, fi.Mode().Perm()&0o111)
			},
		},
		{name: "ParentEscape", entries: []zipEntry{{name: "../evil", body: "x"}}, wantErr: "escapes the package root"},
		{name: "AbsolutePath", entries: []zipEntry{{name: "/etc/evil", body: "x"}}, wantErr: "absolute path"},
		{name: "SymlinkEscape", entries: []zipEntry{{name: "link", body: "../../outside", mode: os.ModeSymlink | 0o777}}, wantErr: "points outside the package"},
		// A chain of links each inside on paper: l1 -> ".", then l1/l2 ->
		// ".." (lexically dir/l1/.. = dir) is really dir/l2 -> the parent
		// of dir, and l2/evil would be written outside (issue 15 item 6).
		{name: "SymlinkChain", entries: []zipEntry{
			{name: "l1", body: ".", mode: os.ModeSymlink | 0o777},
			{name: "l1/l2", body: "..", mode: os.ModeSymlink | 0o777},
			{name: "l2/evil", body: "x", mode: 0o644},
		}, wantErr: "symbolic link"},
		{name: "ThroughALink", entries: []zipEntry{
			{name: "sub", body: ".", mode: os.ModeSymlink | 0o777},
			{name: "sub/file", body: "x", mode: 0o644},
		}, wantErr: "symbolic link"},
		{
			name:    "SymlinkInside",
			entries: []zipEntry{{name: "bin/real", body: "x", mode: 0o755}, {name: "bootstrap", body: "bin/real", mode: os.ModeSymlink | 0o777}},
			check: func(t *testing.T, dir string) {
				target, err := os.Readlink(filepath.Join(dir, "bootstrap"))
				require.NoError(t, err)
				require.Equal(t, "bin/real", target)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "task")
			err := extractZip(makeZip(t, tt.entries...), dir)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				_, serr := os.Lstat(filepath.Join(filepath.Dir(dir), "evil"))
				require.ErrorIs(t, serr, os.ErrNotExist, "wrote outside the package root")
				return
			}
			require.NoError(t, err)
			tt.check(t, dir)
		})
	}
	require.ErrorContains(t, extractZip([]byte("PK not really"), t.TempDir()), "Could not unzip uploaded file")
}

func TestParseName(t *testing.T) {
	t.Parallel()
	s := New(Options{IdleTimeout: -1})
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	tests := []struct {
		ref, name, qualifier string
		wantErr              string
	}{
		{ref: "scraper", name: "scraper"},
		{ref: "scraper:$LATEST", name: "scraper", qualifier: "$LATEST"},
		{ref: "000000000000:function:scraper", name: "scraper"},
		{ref: "arn:aws:lambda:us-east-1:000000000000:function:scraper", name: "scraper"},
		{ref: "arn:aws:lambda:us-east-1:000000000000:function:scraper:live", name: "scraper", qualifier: "live"},
		{ref: "arn:aws:lambda:eu-west-1:000000000000:function:scraper", wantErr: "ResourceNotFoundException"},
		{ref: "111111111111:function:scraper", wantErr: "ResourceNotFoundException"},
		{ref: "bad name", wantErr: "ValidationException"},
		{ref: "", wantErr: "ValidationException"},
	}
	for _, tt := range tests {
		name, q, err := s.parseName(tt.ref)
		if tt.wantErr != "" {
			require.NotNil(t, err, tt.ref)
			require.Equal(t, tt.wantErr, err.Type, tt.ref)
			continue
		}
		require.Nil(t, err, tt.ref)
		require.Equal(t, tt.name, name, tt.ref)
		require.Equal(t, tt.qualifier, q, tt.ref)
	}
}
