package queue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// TestLongPollWakesWhenVisibilityIsShortened: a consumer that releases a
// message with ChangeMessageVisibility (the scraper's retry backoff) makes
// it visible sooner than the deadline a waiting receive slept towards; the
// receive must wake for it, not at the end of its 20 s wait (found by make
// demo: the last retries of a run waited for the event source mapping's
// long poll to end).
func TestLongPollWakesWhenVisibilityIsShortened(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{Now: time.Now})
	url := b.createQueue(t, "backoff", nil)
	b.send(t, url, "retry me soon")
	got, err := b.svc.Receive(b.ctx, url, 1, 0, time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 1)

	type result struct {
		msgs    []queue.Message
		err     error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		msgs, err := b.svc.Receive(b.ctx, url, 1, 20*time.Second, queue.QueueDefault)
		done <- result{msgs, err, time.Since(start)}
	}()
	require.Eventually(t, func() bool { return b.svc.Waiters(url) > 0 }, 10*time.Second, time.Millisecond)
	require.NoError(t, b.svc.ChangeVisibility(url, got[0].ReceiptHandle, 100*time.Millisecond))

	select {
	case r := <-done:
		require.NoError(t, r.err)
		require.Len(t, r.msgs, 1)
		require.Equal(t, got[0].MessageID, r.msgs[0].MessageID)
		// Generous: the message is due after 100 ms; the bug made the
		// receive return only at the end of its 20 s wait.
		require.Less(t, r.elapsed, 10*time.Second, "woke for the shortened visibility, not at the end of the wait")
	case <-time.After(30 * time.Second):
		t.Fatal("long poll did not return")
	}
}
