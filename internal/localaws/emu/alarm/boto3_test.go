package alarm_test

import (
	"testing"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/crosscheck"
)

// TestBoto3Client drives the service with boto3, whose CloudWatch client
// speaks AWS JSON 1.0 through the router (X-Amz-Target
// GraniteServiceVersion20100801.*), via testdata/boto3_check.py. A missing
// client skips the test, or fails it when CI=true (crosscheck.Boto3).
func TestBoto3Client(t *testing.T) {
	t.Parallel()
	e := newEnv(t, alarm.Options{Now: time.Now})
	t.Log(crosscheck.Boto3(t, "testdata/boto3_check.py", e.url))
}
