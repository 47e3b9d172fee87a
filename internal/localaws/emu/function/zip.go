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
// fails to start as it does in Lambda. Every write goes through an
// os.Root of dir, which refuses paths that resolve outside it, symbolic
// links included; on top, a link must point inside dir on paper and no
// later entry may go through a link (a chain such as l1 -> "." then
// l1/l2 -> ".." is inside on paper and outside on disk), because the
// function's process, which follows links freely, runs in dir.
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	links := map[string]bool{}
	var written int64
	for _, f := range zr.File {
		rel, err := entryPath(f.Name)
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		if rel == "." {
			continue
		}
		if l := throughLink(rel, links); l != "" {
			return errorf(ErrInvalidParameter, "Could not unzip uploaded file: entry %q goes through the symbolic link %q", f.Name, l)
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := root.MkdirAll(rel, 0o755); err != nil {
				return fmt.Errorf("extract: %w", err)
			}
		case mode&fs.ModeSymlink != 0:
			if err := extractSymlink(root, f, rel); err != nil {
				return err
			}
			links[rel] = true
		default:
			n, err := extractFile(root, f, rel, maxUnzipped-written)
			if err != nil {
				return err
			}
			written += n
		}
	}
	return nil
}

// throughLink returns the extracted link a path has as a parent, or "".
func throughLink(rel string, links map[string]bool) string {
	for p := path.Dir(rel); p != "." && p != "/"; p = path.Dir(p) {
		if links[p] {
			return p
		}
	}
	return ""
}

func extractFile(root *os.Root, f *zip.File, rel string, budget int64) (int64, error) {
	if dir := path.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return 0, fmt.Errorf("extract: %w", err)
		}
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
	out, err := root.OpenFile(rel, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
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
	if err := root.Chmod(rel, perm); err != nil {
		return n, fmt.Errorf("extract %s: %w", f.Name, err)
	}
	return n, nil
}

func extractSymlink(root *os.Root, f *zip.File, rel string) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	target, err := io.ReadAll(io.LimitReader(rc, 4096))
	rc.Close()
	if err != nil {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	t := strings.ReplaceAll(string(target), `\`, "/")
	resolved := path.Join(path.Dir(rel), t)
	if path.IsAbs(t) || filepath.IsAbs(t) || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return errorf(ErrInvalidParameter, "Could not unzip uploaded file: symbolic link %q points outside the package", f.Name)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("extract: %w", err)
		}
	}
	if err := root.Symlink(t, rel); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("extract %s: %w", f.Name, err)
	}
	return nil
}
