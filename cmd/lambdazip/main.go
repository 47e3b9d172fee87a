// Command lambdazip packages a Lambda bootstrap binary as a reproducible
// zip (see internal/buildtool/lambdazip) and prints its size and SHA-256.
//
//	lambdazip -o dist/scraper-arm64.zip build/scraper-arm64/bootstrap
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/taskpipe/taskpipe/internal/buildtool/lambdazip"
)

// defaultMaxBytes keeps the packages small: a regression in binary size
// (a new dependency) fails the build instead of slipping into deploys. The
// scraper links go-trafilatura and its date and language data (about 9 MB
// zipped, docs/extraction.md); 16 MiB leaves room for it and stays far
// below Lambda's 50 MB limit for a zip uploaded directly
// (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
const defaultMaxBytes = 16 << 20

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lambdazip:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lambdazip", flag.ContinueOnError)
	out := fs.String("o", "", "output zip path (required)")
	maxBytes := fs.Int64("max-bytes", defaultMaxBytes, "fail when the zip is larger (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 1 {
		return errors.New("usage: lambdazip -o OUT.zip [-max-bytes N] BOOTSTRAP")
	}
	size, err := lambdazip.WriteFile(*out, fs.Arg(0))
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*out)
	if err != nil {
		return err
	}
	if err := lambdazip.Check(data); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(stdout, "%s  %s  %d bytes\n", hex.EncodeToString(sum[:]), *out, size)
	if *maxBytes > 0 && size > *maxBytes {
		return fmt.Errorf("%s is %d bytes, over the %d-byte limit", *out, size, *maxBytes)
	}
	return nil
}
