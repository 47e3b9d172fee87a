package schedule_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

// FuzzParseExpression: any string is either refused with
// ErrInvalidExpression or parses into an expression whose occurrences
// move forward in time.
func FuzzParseExpression(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "expressions"))
	require.NoError(f, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "expressions", e.Name()))
		require.NoError(f, err)
		f.Add(string(b), int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, offset int64) {
		e, err := schedule.ParseExpression(s)
		if err != nil {
			require.True(t, errors.Is(err, schedule.ErrInvalidExpression), "%q: %v", s, err)
			return
		}
		require.Equal(t, s, e.String())
		from := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(offset%(1<<50)) * time.Microsecond)
		loc, err := time.LoadLocation("Europe/Berlin")
		require.NoError(t, err)
		next, ok := e.Next(from, loc)
		if !ok {
			return
		}
		require.False(t, next.Before(from), "%q: %v is before %v", s, next, from)
		if e.Kind() == schedule.KindCron {
			after, ok := e.Next(next.Add(time.Second), loc)
			if ok {
				require.True(t, after.After(next), "%q: %v does not follow %v", s, after, next)
				require.Zero(t, after.Second())
			}
		}
	})
}
