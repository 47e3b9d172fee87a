package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

type receiveResult struct {
	msgs    []string
	err     error
	elapsed time.Duration
}

// longPoll starts a ReceiveMessage through the SDK in the background and
// returns once the service reports the receive waiting, so what the test
// does next certainly happens during the wait.
func (b *testBundle) longPoll(t *testing.T, url string, in *sqs.ReceiveMessageInput, waitersBefore int) <-chan receiveResult {
	t.Helper()
	in.QueueUrl = aws.String(url)
	done := make(chan receiveResult, 1)
	start := time.Now()
	go func() {
		out, err := b.client.ReceiveMessage(b.ctx, in)
		r := receiveResult{err: err, elapsed: time.Since(start)}
		if out != nil {
			for _, m := range out.Messages {
				r.msgs = append(r.msgs, aws.ToString(m.Body))
			}
		}
		done <- r
	}()
	require.Eventually(t, func() bool { return b.svc.Waiters(url) > waitersBefore }, 10*time.Second, time.Millisecond)
	return done
}

func awaitResult(t *testing.T, done <-chan receiveResult) receiveResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("long poll did not return")
		return receiveResult{}
	}
}

func TestLongPollReturnsAsSoonAsAMessageArrives(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "long", nil)
	done := b.longPoll(t, url, &sqs.ReceiveMessageInput{WaitTimeSeconds: 20, MaxNumberOfMessages: 10}, 0)
	b.send(t, url, "wake up")
	r := awaitResult(t, done)
	require.NoError(t, r.err)
	require.Equal(t, []string{"wake up"}, r.msgs)
	require.Less(t, r.elapsed, 20*time.Second, "returned on arrival, not at the end of the wait")
	t.Logf("long poll returned %v after the receive started", r.elapsed)
}

func TestLongPollUsesQueueWaitTime(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "waits", map[string]string{"ReceiveMessageWaitTimeSeconds": "20"})
	done := b.longPoll(t, url, &sqs.ReceiveMessageInput{}, 0) // no WaitTimeSeconds: the queue's 20 s
	b.send(t, url, "queued")
	r := awaitResult(t, done)
	require.NoError(t, r.err)
	require.Equal(t, []string{"queued"}, r.msgs)
}

func TestLongPollOneMessageOneWaiter(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "fair", nil)
	first := b.longPoll(t, url, &sqs.ReceiveMessageInput{WaitTimeSeconds: 20}, 0)
	second := b.longPoll(t, url, &sqs.ReceiveMessageInput{WaitTimeSeconds: 20}, 1)
	b.send(t, url, "one")
	var got []receiveResult
	select {
	case r := <-first:
		got = append(got, r)
	case r := <-second:
		got = append(got, r)
	case <-time.After(30 * time.Second):
		t.Fatal("no long poll returned")
	}
	require.NoError(t, got[0].err)
	require.Equal(t, []string{"one"}, got[0].msgs)
	require.Eventually(t, func() bool { return b.svc.Waiters(url) == 1 }, 10*time.Second, time.Millisecond, "the other receive keeps waiting")
	b.send(t, url, "two")
	var r receiveResult
	select {
	case r = <-first:
	case r = <-second:
	case <-time.After(30 * time.Second):
		t.Fatal("second long poll did not return")
	}
	require.NoError(t, r.err)
	require.Equal(t, []string{"two"}, r.msgs)
}

func TestLongPollEmptyAfterWait(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "quiet", nil)
	out, err := b.client.ReceiveMessage(b.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 1})
	require.NoError(t, err)
	require.Empty(t, out.Messages)
}

func TestLongPollWakesAtVisibilityDeadline(t *testing.T) {
	t.Parallel()
	// Real clock: the waiting receive must wake when the in-flight
	// message's (short) visibility timeout ends, with no send to wake it.
	b := setup(t, queue.Options{Now: time.Now})
	url := b.createQueue(t, "deadline", nil)
	b.send(t, url, "retry me")
	got, err := b.svc.Receive(b.ctx, url, 1, 0, 50*time.Millisecond)
	require.NoError(t, err)
	require.Len(t, got, 1)
	start := time.Now()
	again, err := b.svc.Receive(b.ctx, url, 1, 20*time.Second, queue.QueueDefault)
	require.NoError(t, err)
	require.Len(t, again, 1)
	require.Equal(t, got[0].MessageID, again[0].MessageID)
	require.Less(t, time.Since(start), 20*time.Second)
}

func TestLongPollWithFakeClockAndWake(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "fake-time", nil)
	_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("later"), DelaySeconds: 600})
	require.NoError(t, err)
	done := b.longPoll(t, url, &sqs.ReceiveMessageInput{WaitTimeSeconds: 20}, 0)
	b.clock.Advance(10 * time.Minute)
	b.svc.Wake()
	r := awaitResult(t, done)
	require.NoError(t, r.err)
	require.Equal(t, []string{"later"}, r.msgs)
}

func TestReceiveEndsWithContextCloseAndDelete(t *testing.T) {
	t.Parallel()

	t.Run("ContextCancelled", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		url := b.createQueue(t, "cancel", nil)
		ctx, cancel := context.WithCancel(b.ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := b.svc.Receive(ctx, url, 1, 20*time.Second, queue.QueueDefault)
			errc <- err
		}()
		require.Eventually(t, func() bool { return b.svc.Waiters(url) == 1 }, 10*time.Second, time.Millisecond)
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)
		require.Equal(t, 0, b.svc.Waiters(url))
	})

	t.Run("QueueDeleted", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		url := b.createQueue(t, "deleted", nil)
		done := b.longPoll(t, url, &sqs.ReceiveMessageInput{WaitTimeSeconds: 20}, 0)
		require.NoError(t, b.svc.DeleteQueue(url))
		r := awaitResult(t, done)
		requireAPIError(t, r.err, nil, "AWS.SimpleQueueService.NonExistentQueue", 400)
	})

	t.Run("ServiceClosed", func(t *testing.T) {
		t.Parallel()
		svc := queue.New(queue.Options{})
		_, err := svc.CreateQueue("closing", nil, nil)
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() {
			_, err := svc.Receive(context.Background(), "closing", 1, 20*time.Second, queue.QueueDefault)
			errc <- err
		}()
		require.Eventually(t, func() bool { return svc.Waiters("closing") == 1 }, 10*time.Second, time.Millisecond)
		require.NoError(t, svc.Close())
		err = <-errc
		require.True(t, errors.Is(err, queue.ErrClosed), "got %v", err)
	})
}
