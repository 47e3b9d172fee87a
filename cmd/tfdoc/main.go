// Command tfdoc writes the requirement, input and output tables of Terraform
// modules into their READMEs, between <!-- BEGIN_TF_DOCS --> and
// <!-- END_TF_DOCS -->.
//
// Usage:
//
//	tfdoc [-check] [-doc FILE=MODULE_DIR]... [MODULE_DIR]...
//
// Each MODULE_DIR updates MODULE_DIR/README.md; each -doc updates FILE with
// the tables of MODULE_DIR (for a README elsewhere). With -check nothing is
// written: the command lists stale files and exits 1 if there are any.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskpipe/taskpipe/internal/buildtool/tfdoc"
)

// docFlags collects repeated -doc FILE=MODULE_DIR pairs.
type docFlags [][2]string

func (d *docFlags) String() string { return fmt.Sprint(*d) }

func (d *docFlags) Set(s string) error {
	file, dir, ok := strings.Cut(s, "=")
	if !ok || file == "" || dir == "" {
		return fmt.Errorf("want FILE=MODULE_DIR, got %q", s)
	}
	*d = append(*d, [2]string{file, dir})
	return nil
}

// errStale is returned by run in -check mode when some file is out of date.
var errStale = errors.New("generated tables are stale; run make docs")

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tfdoc:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("tfdoc", flag.ContinueOnError)
	check := fs.Bool("check", false, "report stale files instead of writing them")
	var docs docFlags
	fs.Var(&docs, "doc", "FILE=MODULE_DIR: also update FILE with MODULE_DIR's tables (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, dir := range fs.Args() {
		docs = append(docs, [2]string{filepath.Join(dir, "README.md"), dir})
	}
	if len(docs) == 0 {
		return errors.New("nothing to do: give module directories or -doc FILE=MODULE_DIR")
	}

	stale := 0
	for _, d := range docs {
		changed, err := tfdoc.UpdateFile(d[0], d[1], !*check)
		if err != nil {
			return err
		}
		if changed {
			stale++
			verb := "updated"
			if *check {
				verb = "stale"
			}
			fmt.Fprintf(out, "%s: %s\n", verb, d[0])
		}
	}
	if *check && stale > 0 {
		return errStale
	}
	return nil
}
