package queue_test

import (
	"testing"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/crosscheck"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// TestBoto3Client drives the service with boto3, an independent client
// with its own JSON protocol code, through testdata/boto3_check.py. A missing
// client skips the test, or fails it when CI=true (crosscheck.Boto3).
func TestBoto3Client(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	t.Log(crosscheck.Boto3(t, "testdata/boto3_check.py", b.endpoint))
}
