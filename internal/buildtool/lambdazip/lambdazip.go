// Package lambdazip writes Lambda deployment packages for the provided.al2023
// runtime: a zip holding one executable file, bootstrap, at its root.
//
// The zip is reproducible: the same binary always gives the same bytes (a
// fixed timestamp, fixed mode 0755, no other entries, no directory
// records), so the package hash that Terraform compares
// (source_code_hash) changes only when the code does.
package lambdazip

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// EntryName is the file the provided runtimes execute ("Building Lambda
// functions with Go", AWS Lambda developer guide).
const EntryName = "bootstrap"

// Mode is the entry's Unix mode; the runtime needs the execute bits.
const Mode os.FileMode = 0o755

// FixedTime is the modification time stored for the entry: the earliest
// time a zip's MS-DOS date field can hold.
var FixedTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Write writes a zip with bootstrap's content as its only entry.
func Write(w io.Writer, bootstrap io.Reader) error {
	zw := zip.NewWriter(w)
	hdr := &zip.FileHeader{Name: EntryName, Method: zip.Deflate, Modified: FixedTime}
	hdr.SetMode(Mode)
	fw, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("lambdazip: write: %w", err)
	}
	if _, err := io.Copy(fw, bootstrap); err != nil {
		return fmt.Errorf("lambdazip: write: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("lambdazip: write: %w", err)
	}
	return nil
}

// WriteFile zips the binary at bootstrapPath into zipPath, replacing it
// atomically (a temporary file in the same directory, then a rename), and
// returns the zip's size.
func WriteFile(zipPath, bootstrapPath string) (int64, error) {
	in, err := os.Open(bootstrapPath)
	if err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(zipPath), 0o755); err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(zipPath), ".lambdazip-*")
	if err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := Write(tmp, in); err != nil {
		return 0, errors.Join(err, tmp.Close())
	}
	info, err := tmp.Stat()
	if err != nil {
		return 0, errors.Join(fmt.Errorf("lambdazip: %w", err), tmp.Close())
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	if err := os.Rename(tmp.Name(), zipPath); err != nil {
		return 0, fmt.Errorf("lambdazip: %w", err)
	}
	return info.Size(), nil
}

// Check verifies that zipData is a package Write could have made: exactly
// one entry, bootstrap, executable, at the fixed time.
func Check(zipData []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(zipData), int64(len(zipData)))
	if err != nil {
		return fmt.Errorf("lambdazip: check: %w", err)
	}
	if len(zr.File) != 1 {
		return fmt.Errorf("lambdazip: check: %d entries, want 1", len(zr.File))
	}
	f := zr.File[0]
	switch {
	case f.Name != EntryName:
		return fmt.Errorf("lambdazip: check: entry %q, want %q", f.Name, EntryName)
	case f.Mode().Perm() != Mode || !f.Mode().IsRegular():
		return fmt.Errorf("lambdazip: check: mode %v, want %v", f.Mode(), Mode)
	case !f.Modified.Equal(FixedTime):
		return fmt.Errorf("lambdazip: check: modified %v, want %v", f.Modified, FixedTime)
	}
	return nil
}
