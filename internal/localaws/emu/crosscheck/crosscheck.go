// Package crosscheck runs the local cloud's services against an independent
// AWS client: boto3, whose protocol code shares nothing with aws-sdk-go-v2,
// so a wire-format mistake that the Go SDK happens to tolerate still fails.
//
// A missing client is never a silent pass. Without python3 and boto3 the
// check skips, saying what did not run, except when CI=true: then it fails,
// because CI installs the client (.ci/run) and a cross-check that quietly
// stopped running would look like one that passes. Under -short it skips:
// starting an interpreter and its SDK is the slow part of these tests, and
// make test runs them.
package crosscheck

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Boto3 runs the Python script (a path relative to the test's package
// directory, usually testdata/boto3_check.py) with the endpoint as its only
// argument, in an environment without the caller's AWS_* variables, shared
// config or credentials files, and returns its output. The script must
// print a first line starting with "boto3 check ok"; anything else, or a
// non-zero exit, fails t.
func Boto3(t testing.TB, script, endpoint string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("boto3 cross-check: not in the -short tier")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		missing(t, "python3 not installed")
	}
	if out, err := exec.Command(python, "-c", "import boto3").CombinedOutput(); err != nil {
		missing(t, "boto3 not importable: "+strings.TrimSpace(string(out)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script, endpoint)
	// Only the script's explicit settings reach boto3.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3 check failed: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "boto3 check ok") {
		t.Fatalf("boto3 check: unexpected output:\n%s", out)
	}
	return strings.TrimSpace(string(out))
}

// missing skips t, or fails it in CI, for a client that is not installed.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: CI=true requires the boto3 cross-check to run (install python3-boto3, as .ci/run does)", why)
	} else {
		t.Skipf("%s; the boto3 cross-check did not run", why)
	}
}
