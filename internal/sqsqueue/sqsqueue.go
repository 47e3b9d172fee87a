// Package sqsqueue is taskpipe's adapter on Amazon SQS: it sends work
// messages in batches (the reconciler), forwards poison messages to the
// work DLQ with their reason (the scraper), and changes a message's
// visibility timeout to back off a retry (the scraper).
//
// It depends on the three SDK methods it calls (API), so a small fake or
// the local cloud can stand in for SQS.
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/message"
)

// API is the subset of *sqs.Client this package calls.
type API interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

var _ API = (*sqs.Client)(nil)

// MaxBatchEntries is the most entries one SendMessageBatch call may carry
// (SQS API reference, SendMessageBatch).
const MaxBatchEntries = 10

// MaxVisibilityTimeout is the longest visibility timeout SQS accepts
// (SQS API reference, ChangeMessageVisibility: 0 to 43,200 seconds).
const MaxVisibilityTimeout = 12 * time.Hour

// Dispatcher sends work messages to the work queue.
type Dispatcher struct {
	Client   API
	QueueURL string
	// Attempts is how many times an entry that SQS failed without sender
	// fault is sent before giving up; 0 means 3. The SDK already retries
	// whole calls that fail; this retries entries that a successful call
	// reports as failed.
	Attempts int
	// Backoff is the pause before the n-th retry is n*Backoff; 0 means
	// 100 ms.
	Backoff time.Duration
	// SleepFunc pauses for d or until ctx is done; nil means a timer.
	SleepFunc func(ctx context.Context, d time.Duration) error
}

// SendError reports the messages a Send did not deliver.
type SendError struct {
	// Unsent lists the task ids of the messages not sent.
	Unsent []string
	// Total is the number of messages Send was given.
	Total int
	Err   error
}

// Error implements error.
func (e *SendError) Error() string {
	ids := e.Unsent
	more := ""
	if len(ids) > 10 {
		ids, more = ids[:10], fmt.Sprintf(" and %d more", len(e.Unsent)-10)
	}
	return fmt.Sprintf("sqsqueue: send: %d of %d messages not sent (tasks %s%s): %v",
		len(e.Unsent), e.Total, strings.Join(ids, ", "), more, e.Err)
}

// Unwrap returns the causes.
func (e *SendError) Unwrap() error { return e.Err }

type entry struct {
	taskID string
	body   string
}

// Send delivers msgs in SendMessageBatch calls of up to ten. Entries that
// fail for a reason on SQS's side are retried; a message that is invalid,
// that SQS rejects as the sender's fault, or that still fails after the
// last attempt is named in the returned *SendError. Send goes on with the
// other messages after a failure, so one bad message delays no other.
func (d *Dispatcher) Send(ctx context.Context, msgs []message.Message) error {
	var (
		unsent []string
		errs   []error
		queue  []entry
	)
	for _, m := range msgs {
		b, err := m.Marshal()
		if err != nil {
			unsent = append(unsent, m.TaskID)
			errs = append(errs, fmt.Errorf("task %q: %w", m.TaskID, err))
			continue
		}
		queue = append(queue, entry{taskID: m.TaskID, body: string(b)})
	}
	for start := 0; start < len(queue); start += MaxBatchEntries {
		chunk := queue[start:min(start+MaxBatchEntries, len(queue))]
		failed, err := d.sendChunk(ctx, chunk)
		for _, e := range failed {
			unsent = append(unsent, e.taskID)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(unsent) > 0 || len(errs) > 0 {
		return &SendError{Unsent: unsent, Total: len(msgs), Err: errors.Join(errs...)}
	}
	return nil
}

// sendChunk sends up to ten entries, retrying the ones SQS failed on its
// side, and returns those it could not send with the reasons.
func (d *Dispatcher) sendChunk(ctx context.Context, chunk []entry) ([]entry, error) {
	attempts := d.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	backoff := d.Backoff
	if backoff <= 0 {
		backoff = 100 * time.Millisecond
	}
	var (
		failed []entry // given up on: sender fault
		errs   []error
	)
	pending := chunk
	for attempt := 1; ; attempt++ {
		retry, retryErrs, fatal, fatalErrs, err := d.sendOnce(ctx, pending)
		if err != nil {
			return append(failed, pending...), errors.Join(append(errs, err)...)
		}
		failed, errs = append(failed, fatal...), append(errs, fatalErrs...)
		if len(retry) == 0 {
			break
		}
		if attempt >= attempts {
			failed, errs = append(failed, retry...), append(errs, retryErrs...)
			break
		}
		if err := d.sleep(ctx, time.Duration(attempt)*backoff); err != nil {
			failed, errs = append(failed, retry...), append(errs, retryErrs...)
			return failed, errors.Join(append(errs, fmt.Errorf("sqsqueue: send batch: %w", err))...)
		}
		pending = retry
	}
	return failed, errors.Join(errs...)
}

// sendOnce makes one SendMessageBatch call and sorts its entries into those
// worth retrying and those failed for the sender's fault. err is set when
// the call itself failed (the SDK's retryer has already retried it).
func (d *Dispatcher) sendOnce(ctx context.Context, pending []entry) (retry []entry, retryErrs []error, fatal []entry, fatalErrs []error, err error) {
	in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(d.QueueURL)}
	byID := make(map[string]entry, len(pending))
	for i, e := range pending {
		// Ids must be unique within one request: [A-Za-z0-9_-]{1,80}.
		id := "m" + strconv.Itoa(i)
		byID[id] = e
		in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{
			Id: aws.String(id), MessageBody: aws.String(e.body),
		})
	}
	out, err := d.Client.SendMessageBatch(ctx, in)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("sqsqueue: send batch: %w", err)
	}
	for _, s := range out.Successful {
		delete(byID, aws.ToString(s.Id))
	}
	for _, f := range out.Failed {
		id := aws.ToString(f.Id)
		e, ok := byID[id]
		if !ok {
			continue // unknown or already reported as successful
		}
		delete(byID, id)
		ferr := fmt.Errorf("task %q: %s: %s", e.taskID, aws.ToString(f.Code), aws.ToString(f.Message))
		if f.SenderFault {
			fatal, fatalErrs = append(fatal, e), append(fatalErrs, ferr)
			continue
		}
		retry, retryErrs = append(retry, e), append(retryErrs, ferr)
	}
	// An entry listed neither as successful nor as failed is not known to
	// have been sent; sending it again is safe (duplicates are harmless).
	for i := range pending {
		id := "m" + strconv.Itoa(i)
		if e, ok := byID[id]; ok {
			retry = append(retry, e)
			retryErrs = append(retryErrs, fmt.Errorf("task %q: no result for entry %s", e.taskID, id))
		}
	}
	return retry, retryErrs, fatal, fatalErrs, nil
}

func (d *Dispatcher) sleep(ctx context.Context, dur time.Duration) error {
	if d.SleepFunc != nil {
		return d.SleepFunc(ctx, dur)
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
