package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

func TestGoAPI(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	svc := queue.New(queue.Options{Now: clock.Now})
	t.Cleanup(func() { require.NoError(t, svc.Close()) })
	ctx := context.Background()

	info, err := svc.CreateQueue("tasks", map[string]string{"VisibilityTimeout": "5400"}, map[string]string{"app": "taskpipe"})
	require.NoError(t, err)
	require.Equal(t, queue.QueueInfo{Name: "tasks", ARN: "arn:aws:sqs:us-east-1:000000000000:tasks", AccountID: emu.DefaultAccountID}, info)
	require.Equal(t, "http://127.0.0.1:4566/000000000000/tasks", info.URL("http://127.0.0.1:4566/"))
	byARN, ok := svc.QueueByARN(info.ARN)
	require.True(t, ok)
	require.Equal(t, info, byARN)
	_, ok = svc.QueueByARN("arn:aws:sqs:eu-west-1:000000000000:tasks")
	require.False(t, ok, "another region's ARN is another queue")

	for i := range 25 {
		_, err := svc.Send(ctx, info.ARN, fmt.Sprintf("task-%02d", i), map[string]queue.MessageAttribute{"n": {DataType: "Number", StringValue: fmt.Sprint(i)}})
		require.NoError(t, err)
	}
	counts, err := svc.Counts(info.ARN)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 25}, counts)

	// In-process callers may take more than 10 at once; order is by
	// availability.
	msgs, err := svc.Receive(ctx, info.ARN, 20, 0, queue.QueueDefault)
	require.NoError(t, err)
	require.Len(t, msgs, 20)
	require.Equal(t, "task-00", msgs[0].Body)
	require.Equal(t, "task-19", msgs[19].Body)
	require.Equal(t, queue.MD5OfBody("task-00"), msgs[0].MD5OfBody)
	require.Equal(t, "1", msgs[0].Attributes[queue.SysApproximateReceiveCount])
	require.Equal(t, emu.DefaultAccountID, msgs[0].Attributes[queue.SysSenderID])
	require.Equal(t, "0", msgs[0].MessageAttributes["n"].StringValue)
	require.NotEmpty(t, msgs[0].MD5OfMessageAttributes)

	// A zero visibility timeout releases at once; a backoff hides for its time.
	require.NoError(t, svc.ChangeVisibility(info.ARN, msgs[0].ReceiptHandle, 0))
	require.NoError(t, svc.ChangeVisibility(info.ARN, msgs[1].ReceiptHandle, 90*time.Second))
	for _, m := range msgs[2:] {
		require.NoError(t, svc.Delete(info.ARN, m.ReceiptHandle))
	}
	counts, err = svc.Counts(info.ARN)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 6, InFlight: 1}, counts)
	clock.Advance(90 * time.Second)
	counts, err = svc.Counts(info.ARN)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 7}, counts)

	zero, err := svc.Receive(ctx, "tasks", 10, 0, 0)
	require.NoError(t, err)
	require.Len(t, zero, 7)
	counts, err = svc.Counts("tasks")
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 7}, counts, "VisibilityTimeout 0 leaves them visible")

	attrs, err := svc.Attributes(info.ARN)
	require.NoError(t, err)
	require.Equal(t, "5400", attrs[queue.AttrVisibilityTimeout])
	require.Equal(t, "7", attrs[queue.AttrApproximateNumberOfMessages])
	require.NoError(t, svc.SetAttributes(info.ARN, map[string]string{queue.AttrDelaySeconds: "30"}))
	only, err := svc.Attributes(info.ARN, queue.AttrDelaySeconds)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"DelaySeconds": "30"}, only)

	tags, err := svc.Tags(info.ARN)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app": "taskpipe"}, tags)

	// Errors are typed for errors.Is.
	_, err = svc.Send(ctx, "missing", "x", nil)
	require.ErrorIs(t, err, queue.ErrQueueDoesNotExist)
	_, err = svc.Send(ctx, info.ARN, "", nil)
	require.ErrorIs(t, err, queue.ErrMissingParameter)
	_, err = svc.Send(ctx, info.ARN, "bad\x00", nil)
	require.ErrorIs(t, err, queue.ErrInvalidMessageContents)
	_, err = svc.Receive(ctx, info.ARN, 0, 0, 0)
	require.ErrorIs(t, err, queue.ErrInvalidParameterValue)
	require.ErrorIs(t, svc.Delete(info.ARN, "nope"), queue.ErrReceiptHandleIsInvalid)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = svc.Send(cancelled, info.ARN, "x", nil)
	require.ErrorIs(t, err, context.Canceled)

	delay := 10 * time.Second
	res, err := svc.SendMessage(ctx, info.ARN, queue.SendInput{Body: "traced", Delay: &delay, TraceHeader: "Root=1-abc", MessageGroupID: "g1", SenderID: "worker"})
	require.NoError(t, err)
	require.NotEmpty(t, res.MD5OfMessageSystemAttributes)
	clock.Advance(10 * time.Second)
	require.NoError(t, svc.Purge(info.ARN)) // clears the 7 others too
	counts, err = svc.Counts(info.ARN)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)

	list := svc.ListQueues("")
	require.Equal(t, []queue.QueueInfo{info}, list)
	require.NoError(t, svc.DeleteQueue(info.URL("http://anything")))
	require.Empty(t, svc.ListQueues(""))
}

func TestConcurrentProducersAndConsumers(t *testing.T) {
	t.Parallel()
	svc := queue.New(queue.Options{})
	t.Cleanup(func() { require.NoError(t, svc.Close()) })
	_, err := svc.CreateQueue("busy", nil, nil)
	require.NoError(t, err)
	ctx := context.Background()
	const producers, perProducer, consumers = 4, 250, 4
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				_, err := svc.Send(ctx, "busy", fmt.Sprintf("%d-%d", p, i), nil)
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var mu sync.Mutex
	seen := map[string]int{}
	total := producers * perProducer
	deadline := time.Now().Add(20 * time.Second)
	for range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				done := len(seen) >= total
				mu.Unlock()
				if done {
					return
				}
				if time.Now().After(deadline) {
					t.Error("consumers did not see every message in time")
					return
				}
				msgs, err := svc.Receive(ctx, "busy", 10, 100*time.Millisecond, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				for _, m := range msgs {
					mu.Lock()
					seen[m.Body]++
					mu.Unlock()
					if err := svc.Delete("busy", m.ReceiptHandle); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	require.Len(t, seen, producers*perProducer)
	for body, n := range seen {
		require.Equal(t, 1, n, "message %s delivered %d times", body, n)
	}
	counts, err := svc.Counts("busy")
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)
}

func TestMessageEvent(t *testing.T) {
	t.Parallel()
	svc := queue.New(queue.Options{})
	t.Cleanup(func() { require.NoError(t, svc.Close()) })
	info, err := svc.CreateQueue("events", nil, nil)
	require.NoError(t, err)
	_, err = svc.Send(context.Background(), info.ARN, "Message Body", map[string]queue.MessageAttribute{
		"Attribute1": {DataType: "String", StringValue: "AttributeValue1"},
		"Attribute3": {DataType: "Binary", BinaryValue: []byte("1100")},
	})
	require.NoError(t, err)
	msgs, err := svc.Receive(context.Background(), info.ARN, 1, 0, queue.QueueDefault)
	require.NoError(t, err)
	rec := msgs[0].Event(info.ARN, emu.DefaultRegion)
	require.Equal(t, "aws:sqs", rec.EventSource)
	require.Equal(t, info.ARN, rec.EventSourceARN)
	require.Equal(t, emu.DefaultRegion, rec.AWSRegion)
	require.Equal(t, queue.MD5OfBody("Message Body"), rec.Md5OfBody)
	require.Equal(t, msgs[0].MessageID, rec.MessageId)
	require.Equal(t, "1", rec.Attributes["ApproximateReceiveCount"])
	require.Equal(t, "AttributeValue1", *rec.MessageAttributes["Attribute1"].StringValue)
	require.Equal(t, []byte("1100"), rec.MessageAttributes["Attribute3"].BinaryValue)
	require.NotNil(t, rec.MessageAttributes["Attribute1"].StringListValues)
	require.Equal(t, queue.MD5OfMessageAttributes(msgs[0].MessageAttributes), rec.Md5OfMessageAttributes)
}
