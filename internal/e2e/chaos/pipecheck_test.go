package chaos

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// withPipe gives the clean fixture the pipe's account a correct run would
// record: every record that becomes Pending delivered once.
func withPipe(t *testing.T) *History {
	t.Helper()
	h := clone(t, loadFixture(t, "clean.json"))
	h.Pipe = &PipeHistory{Fates: map[string]PipeFate{}}
	for _, ch := range h.Stream {
		if dispatches(ch) {
			h.Pipe.Fates[ch.Seq] = PipeFate{Delivered: 1}
		}
	}
	return h
}

// dispatchSeqs returns the sequence numbers of the first two records that
// become Pending.
func dispatchSeqs(t *testing.T, h *History) (first, second string) {
	t.Helper()
	var seqs []string
	for _, ch := range h.Stream {
		if dispatches(ch) && h.Pipe.Fates[ch.Seq].Delivered == 1 {
			seqs = append(seqs, ch.Seq)
		}
	}
	require.GreaterOrEqual(t, len(seqs), 2)
	return seqs[0], seqs[1]
}

func TestPipeOnce(t *testing.T) {
	t.Parallel()
	const pointer = `{"context":{"condition":"RetryAttemptsExhausted"},"DDBStreamBatchInfo":{"batchSize":1}}`
	tests := []struct {
		name      string
		edit      func(t *testing.T, h *History)
		violation string // "" for none
	}{
		{name: "EachOnce", edit: func(*testing.T, *History) {}},
		{name: "DeadLetteredWithItsPointer", edit: func(t *testing.T, h *History) {
			s, _ := dispatchSeqs(t, h)
			h.Pipe.Fates[s] = PipeFate{DeadLettered: 1}
			h.DLQ = append(h.DLQ, DLQMessage{Queue: QueuePipe, MessageID: "p1", Reason: "RetryAttemptsExhausted", Body: pointer})
		}},
		{name: "Skipped", violation: "skipped", edit: func(t *testing.T, h *History) {
			s, _ := dispatchSeqs(t, h)
			delete(h.Pipe.Fates, s)
		}},
		{name: "Replayed", violation: "handled 2 times", edit: func(t *testing.T, h *History) {
			s, _ := dispatchSeqs(t, h)
			h.Pipe.Fates[s] = PipeFate{Delivered: 2}
		}},
		{name: "DeliveredAndDeadLettered", violation: "handled 2 times", edit: func(t *testing.T, h *History) {
			s, _ := dispatchSeqs(t, h)
			h.Pipe.Fates[s] = PipeFate{Delivered: 1, DeadLettered: 1}
			h.DLQ = append(h.DLQ, DLQMessage{Queue: QueuePipe, MessageID: "p1", Reason: "RetryAttemptsExhausted", Body: pointer})
		}},
		{name: "FilteredRecordHandled", violation: "the filter does not select it", edit: func(t *testing.T, h *History) {
			for _, ch := range h.Stream {
				if !dispatches(ch) {
					h.Pipe.Fates[ch.Seq] = PipeFate{Delivered: 1}
					return
				}
			}
			t.Fatal("no filtered record")
		}},
		{name: "PointerWithoutDeadLetter", violation: "points at 1 records, the pipe dead-lettered 0", edit: func(_ *testing.T, h *History) {
			h.DLQ = append(h.DLQ, DLQMessage{Queue: QueuePipe, MessageID: "p1", Reason: "RetryAttemptsExhausted", Body: pointer})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := withPipe(t)
			tt.edit(t, h)
			inv, ok := Check(h).Get(InvPipeOnce)
			require.True(t, ok)
			if tt.violation == "" {
				require.True(t, inv.OK(), "%s %v", inv.Detail, inv.Examples)
				return
			}
			require.False(t, inv.OK())
			require.Contains(t, inv.Examples[0], tt.violation)
		})
	}
}

func TestFilterEditInvariant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit FilterEdit
		ok   bool
	}{
		{name: "MidRun", edit: FilterEdit{Applied: true, HandledBefore: 1, HandledAtEnd: 1}, ok: true},
		{name: "NotApplied", edit: FilterEdit{HandledBefore: 1, HandledAtEnd: 1}},
		{name: "BeforeAnyRecord", edit: FilterEdit{Applied: true}},
		{name: "AfterEveryRecord", edit: FilterEdit{Applied: true, HandledBefore: 1, HandledAtEnd: 1 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := withPipe(t)
			h.Pipe.FilterEdit = &tt.edit
			inv, ok := Check(h).Get(InvFilterEdit)
			require.True(t, ok)
			require.Equal(t, tt.ok, inv.OK(), "%s %v", inv.Detail, inv.Examples)
		})
	}
	// A history without the pipe's account (recorded before it existed)
	// has neither row.
	res := Check(loadFixture(t, "clean.json"))
	_, ok := res.Get(InvPipeOnce)
	require.False(t, ok)
}
