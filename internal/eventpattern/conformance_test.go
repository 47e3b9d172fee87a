package eventpattern_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/eventpattern/eventpatterntest"
)

// TestAWSValidatedCases runs every case AWS answered through TestEventPattern
// (internal/eventpattern/eventpatterntest/README.md).
func TestAWSValidatedCases(t *testing.T) {
	t.Parallel()
	for _, c := range eventpatterntest.Load(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			p, err := eventpattern.Compile(c.Pattern)
			if c.Expect == eventpatterntest.ExpectInvalid {
				require.Error(t, err, "AWS rejects this pattern")
				require.True(t, eventpattern.IsInvalidPattern(err), "want *InvalidPatternError, got %T: %v", err, err)
				return
			}
			require.NoError(t, err)
			got, err := p.Match(c.Event)
			require.NoError(t, err)
			require.Equal(t, c.Expect == eventpatterntest.ExpectMatch, got, "pattern %s\nevent %s", c.Pattern, c.Event)
		})
	}
}
