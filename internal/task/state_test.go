package task_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

func TestCanTransitionExhaustive(t *testing.T) {
	t.Parallel()
	// Every pair of states, spelled out, so that adding a transition is a
	// deliberate change to this table.
	allowed := map[[2]task.State]bool{
		{task.StatePending, task.StateRunning}:  true, // claim
		{task.StatePending, task.StateFailed}:   true, // claim of a row with no attempts left
		{task.StateRunning, task.StateRunning}:  true, // takeover after lease expiry, release
		{task.StateRunning, task.StateFinished}: true, // finish
		{task.StateRunning, task.StateFailed}:   true, // fail, exhausted, stuck
		{task.StateFinished, task.StatePending}: true, // operator retry
		{task.StateFailed, task.StatePending}:   true, // operator retry
	}
	for _, from := range task.States() {
		for _, to := range task.States() {
			t.Run(fmt.Sprintf("%s_to_%s", from, to), func(t *testing.T) {
				t.Parallel()
				require.Equal(t, allowed[[2]task.State{from, to}], task.CanTransition(from, to))
			})
		}
	}
}

func TestStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		valid    bool
		terminal bool
	}{
		{"Pending", true, false},
		{"Running", true, false},
		{"Finished", true, true},
		{"Failed", true, true},
		{"pending", false, false},
		{"", false, false},
		{"Done", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			s, err := task.ParseState(tt.in)
			if !tt.valid {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.terminal, s.Terminal())
		})
	}
	require.Len(t, task.States(), 4)
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want task.ErrorKind
	}{
		{"fatal", task.Fatal(cause), task.KindFatal},
		{"wrapped fatal", fmt.Errorf("scrape: %w", task.Fatal(cause)), task.KindFatal},
		{"poison", task.Poison(cause), task.KindPoison},
		{"retryable", task.Retryable(cause), task.KindRetryable},
		// An unclassified error must be retried, never dropped.
		{"unclassified", cause, task.KindRetryable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, task.KindOf(tt.err))
			require.ErrorIs(t, tt.err, cause)
		})
	}
	for _, k := range task.ErrorKinds() {
		require.True(t, k.Valid(), k)
	}
	require.False(t, task.ErrorKind("other").Valid())
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // never split the two-byte é
		{"日本", 4, "日"},
		{"", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, task.Truncate(tt.in, tt.n))
		})
	}
}
