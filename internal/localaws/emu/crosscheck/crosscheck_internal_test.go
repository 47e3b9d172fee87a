package crosscheck

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// recordTB records how missing ended the test instead of ending it.
type recordTB struct {
	testing.TB
	how, msg string
}

func (r *recordTB) Helper() {}
func (r *recordTB) Fatalf(f string, a ...any) {
	r.how, r.msg = "fail", fmt.Sprintf(f, a...)
}
func (r *recordTB) Skipf(f string, a ...any) {
	r.how, r.msg = "skip", fmt.Sprintf(f, a...)
}

// TestMissingClientFailsInCI: without CI=true a missing client skips,
// saying what did not run; with it, the test fails.
func TestMissingClientFailsInCI(t *testing.T) {
	for _, tc := range []struct{ ci, want string }{{"", "skip"}, {"false", "skip"}, {"true", "fail"}} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			r := &recordTB{TB: t}
			missing(r, "python3 not installed")
			require.Equal(t, tc.want, r.how)
			require.Contains(t, r.msg, "python3 not installed")
		})
	}
}
