package function

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// errUnzip is Lambda's answer to an upload that is not a readable zip.
func errUnzip() *Error {
	return errorf(ErrInvalidParameter, "Could not unzip uploaded file. Please check your file, then try to upload again.")
}

// checkZip validates a deployment package without writing it: it must be
// a readable zip, unzip to at most maxUnzipped bytes, and hold no entry
// that would escape the task root. The package is untrusted input.
func checkZip(data []byte) *Error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errUnzip()
	}
	var total uint64
	for _, f := range zr.File {
		if _, err := entryPath(f.Name); err != nil {
			return errorf(ErrInvalidParameter, "Could not unzip uploaded file: %v", err)
		}
		total += f.UncompressedSize64
		if total > maxUnzipped {
			return errorf(ErrInvalidParameter, "Unzipped size must be smaller than %d bytes", maxUnzipped)
		}
	}
	return nil
}

// entryPath cleans a zip entry name into a relative slash path inside the
// task root, or fails for absolute and parent-escaping names.
func entryPath(name string) (string, error) {
	name = strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) || strings.Contains(name, ":") && filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("entry %q has an absolute path", name)
	}
	clean := path.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("entry %q escapes the package root", name)
	}
	return clean, nil
}

// extractZip unpacks a deployment package into dir (created, must not
// exist). File modes are kept, so a bootstrap without the execute bit
// fails to start as it does in Lambda. Symbolic links are written as
// links only when they stay inside dir.
func extractZip(data []byte, dir string) error {
	if cerr := checkZip(data); cerr != nil {
		return cerr
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	var written int64
	for _, f := range zr.File {
		rel, err := entryPath(f.Name)
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		if rel == "." {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return fmt.Errorf("extract: %w", err)
			}
		case mode&fs.ModeSymlink != 0:
			if err := extractSymlink(f, dir, dst); err != nil {
				return err
			}
		default:
			n, err := extractFile(f, dst, maxUnzipped-written)
			if err != nil {
				return err
			}
			written += n
		}
	}
	return nil
}

func extractFile(f *zip.File, dst string, budget int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, fmt.Errorf("extract: %w", err)
	}
	perm := f.Mode().Perm()
	if perm == 0 {
		// Zips written without Unix attributes carry no mode; Lambda then
		// reads the file as 0644 (not executable).
		perm = 0o644
	}
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("extract %s: %w", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return 0, fmt.Errorf("extract %s: %w", f.Name, err)
	}
	// The declared size can lie; cap what is written.
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	cerr := out.Close()
	if err != nil {
		return n, fmt.Errorf("extract %s: %w", f.Name, err)
	}
	if cerr != nil {
		return n, fmt.Errorf("extract %s: %w", f.Name, cerr)
	}
	if n > budget {
		return n, errorf(ErrInvalidParameter, "Unzipped size must be smaller than %d bytes", maxUnzipped)
	}
	// OpenFile applies the umask; set the mode the package asked for.
	if err := os.Chmod(dst, perm); err != nil {
		return n, fmt.Errorf("extract %s: %w", f.Name, err)
	}
	return n, nil
}

func extractSymlink(f *zip.File, root, dst string) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	target, err := io.ReadAll(io.LimitReader(rc, 4096))
	rc.Close()
	if err != nil {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	t := string(target)
	resolved := t
	if !filepath.IsAbs(t) {
		resolved = filepath.Join(filepath.Dir(dst), t)
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(t) {
		return errorf(ErrInvalidParameter, "Could not unzip uploaded file: symbolic link %q points outside the package", f.Name)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	if err := os.Symlink(t, dst); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	return nil
}
