package queue_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// TestBoto3Client drives the service with boto3, an independent client
// with its own JSON protocol code, through testdata/boto3_check.py. It is
// skipped, saying so, where python3 with boto3 is not installed.
func TestBoto3Client(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed; the boto3 cross-check did not run")
	}
	if out, err := exec.Command(python, "-c", "import boto3").CombinedOutput(); err != nil {
		t.Skipf("boto3 not importable; the boto3 cross-check did not run: %s", out)
	}
	b := setup(t, queue.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "testdata/boto3_check.py", b.endpoint)
	// Only the script's explicit settings: no AWS_* from the environment.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "boto3 check failed:\n%s", out)
	require.True(t, strings.HasPrefix(string(out), "boto3 check ok"), "unexpected output:\n%s", out)
	t.Logf("%s", strings.TrimSpace(string(out)))
}
