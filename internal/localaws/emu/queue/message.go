package queue

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"
)

// Message system attribute names (MessageSystemAttributeName enum).
const (
	SysSenderID                         = "SenderId"
	SysSentTimestamp                    = "SentTimestamp"
	SysApproximateReceiveCount          = "ApproximateReceiveCount"
	SysApproximateFirstReceiveTimestamp = "ApproximateFirstReceiveTimestamp"
	SysAWSTraceHeader                   = "AWSTraceHeader"
	SysDeadLetterQueueSourceArn         = "DeadLetterQueueSourceArn"
	SysMessageGroupID                   = "MessageGroupId"
)

// Message is a received message. Attributes holds every system attribute
// the message has (timestamps are epoch milliseconds as decimal strings);
// MessageAttributes holds all user attributes and MD5OfMessageAttributes
// is their digest ("" when there are none). The HTTP layer filters both by
// the names a ReceiveMessage request asks for.
type Message struct {
	MessageID              string
	ReceiptHandle          string
	Body                   string
	MD5OfBody              string
	Attributes             map[string]string
	MessageAttributes      map[string]MessageAttribute
	MD5OfMessageAttributes string
}

// SendInput is one message to send. A nil Delay uses the queue's
// DelaySeconds; SenderID defaults to the account id.
type SendInput struct {
	Body              string
	Delay             *time.Duration
	MessageAttributes map[string]MessageAttribute
	TraceHeader       string // the AWSTraceHeader system attribute
	MessageGroupID    string // accepted on standard queues (fair queues)
	SenderID          string
}

// SendResult is what SendMessage returns.
type SendResult struct {
	MessageID                    string
	MD5OfMessageBody             string
	MD5OfMessageAttributes       string
	MD5OfMessageSystemAttributes string
}

// Send sends a message with the queue's default delay and returns its id.
func (s *Service) Send(ctx context.Context, ref, body string, attrs map[string]MessageAttribute) (string, error) {
	res, err := s.SendMessage(ctx, ref, SendInput{Body: body, MessageAttributes: attrs})
	return res.MessageID, err
}

// SendMessage sends one message (SendMessage).
func (s *Service) SendMessage(ctx context.Context, ref string, in SendInput) (SendResult, error) {
	return s.send(ctx, ref, in, false)
}

// messageSize is what counts towards MaximumMessageSize.
func messageSize(body string, attrs map[string]MessageAttribute) int {
	n := len(body)
	for name, a := range attrs {
		n += a.size(name)
	}
	return n
}

// send validates and stores a message. inBatch skips the queue's
// MaximumMessageSize: SendMessageBatch only enforces the 1 MiB batch limit
// (AWS-validated LocalStack test
// test_send_message_batch_with_oversized_contents_with_updated_maximum_message_size).
func (s *Service) send(ctx context.Context, ref string, in SendInput, inBatch bool) (SendResult, error) {
	if err := ctx.Err(); err != nil {
		return SendResult{}, fmt.Errorf("queue: send: %w", err)
	}
	if err := validBody(in.Body); err != nil {
		return SendResult{}, err
	}
	if in.Delay != nil && (*in.Delay < 0 || *in.Delay > maxDelaySeconds*time.Second) {
		return SendResult{}, errInvalidParam(int64(in.Delay.Seconds()), "DelaySeconds", "DelaySeconds must be >= 0 and <= 900.")
	}
	if err := validAttributes(in.MessageAttributes); err != nil {
		return SendResult{}, err
	}
	if in.TraceHeader != "" {
		if err := validTraceHeader(in.TraceHeader); err != nil {
			return SendResult{}, err
		}
	}
	size := messageSize(in.Body, in.MessageAttributes)
	m := &message{
		body:        in.Body,
		md5Body:     MD5OfBody(in.Body),
		attrs:       maps.Clone(in.MessageAttributes),
		md5Attrs:    MD5OfMessageAttributes(in.MessageAttributes),
		traceHeader: in.TraceHeader,
		groupID:     in.MessageGroupID,
		senderID:    in.SenderID,
		idx:         [numHeapKinds]int{-1, -1, -1},
	}
	if m.senderID == "" {
		m.senderID = s.opts.AccountID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return SendResult{}, err
	}
	if !inBatch && size > q.attrs.maxSize {
		return SendResult{}, errorf(ErrInvalidParameterValue,
			"One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", q.attrs.maxSize)
	}
	now := s.now()
	s.advanceLocked(q, now)
	delay := time.Duration(q.attrs.delay) * time.Second
	if in.Delay != nil {
		delay = *in.Delay
	}
	m.id = s.opts.NewID()
	m.sent, m.enqueued = now, now
	s.enqueueLocked(q, m, now, delay)
	res := SendResult{MessageID: m.id, MD5OfMessageBody: m.md5Body, MD5OfMessageAttributes: m.md5Attrs}
	if m.traceHeader != "" {
		res.MD5OfMessageSystemAttributes = MD5OfMessageAttributes(map[string]MessageAttribute{
			SysAWSTraceHeader: {DataType: "String", StringValue: m.traceHeader},
		})
	}
	return res, nil
}

// Receive receives up to max messages, waiting up to wait (QueueDefault:
// the queue's ReceiveMessageWaitTimeSeconds) for at least one to become
// available, and hides them for visibility (QueueDefault: the queue's
// VisibilityTimeout). It returns as soon as a message is available, without
// polling: senders, visibility changes and the next visibility deadline
// wake it. The HTTP layer limits max to 10 and wait to 20 s as SQS does;
// in-process callers may ask for more.
//
// A message whose receive count has reached its queue's maxReceiveCount is
// moved to the dead-letter queue instead of being returned, keeping its
// id, body, attributes, receive count and enqueue time and gaining
// DeadLetterQueueSourceArn (AWS-recorded, docs/aws-behaviour.md §3.8).
func (s *Service) Receive(ctx context.Context, ref string, max int, wait, visibility time.Duration) ([]Message, error) {
	if max < 1 {
		return nil, errInvalidParam(max, "MaxNumberOfMessages", "Must be between 1 and 10, if provided.")
	}
	if wait != QueueDefault && wait < 0 {
		return nil, errInvalidParam(int64(wait.Seconds()), "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided.")
	}
	if visibility != QueueDefault && (visibility < 0 || visibility > maxVisibilitySeconds*time.Second) {
		return nil, errInvalidParam(int64(visibility.Seconds()), "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
	}
	var deadline <-chan time.Time
	var deadlineTimer *time.Timer
	defer func() {
		if deadlineTimer != nil {
			deadlineTimer.Stop()
		}
	}()
	expired := false
	for {
		s.mu.Lock()
		q, err := s.lookupLocked(ref)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		now := s.now()
		s.advanceLocked(q, now)
		vis := visibility
		if vis == QueueDefault {
			vis = time.Duration(q.attrs.visibility) * time.Second
		}
		if wait == QueueDefault {
			wait = time.Duration(q.attrs.wait) * time.Second
		}
		msgs := s.takeLocked(q, now, max, vis)
		if len(msgs) > 0 || expired || wait <= 0 {
			s.mu.Unlock()
			return msgs, nil
		}
		ch := q.waitChan()
		// Wake up when the next delayed or in-flight message is due.
		var wake <-chan time.Time
		var wakeTimer *time.Timer
		if next := q.pending.peek(); next != nil {
			wakeTimer = time.NewTimer(time.Duration(next.visibleAt - now))
			wake = wakeTimer.C
		}
		q.waiters++
		s.mu.Unlock()
		if deadline == nil {
			deadlineTimer = time.NewTimer(wait)
			deadline = deadlineTimer.C
		}
		var waitErr error
		select {
		case <-ch:
		case <-wake:
		case <-deadline:
			expired = true
		case <-ctx.Done():
			waitErr = fmt.Errorf("queue: receive: %w", ctx.Err())
		case <-s.closed:
			waitErr = errorf(ErrClosed, "The local SQS service is shut down.")
		}
		if wakeTimer != nil {
			wakeTimer.Stop()
		}
		s.mu.Lock()
		q.waiters--
		s.mu.Unlock()
		if waitErr != nil {
			return nil, waitErr
		}
	}
}

// takeLocked hands out up to max visible messages, redriving those that
// have used up their receives.
func (s *Service) takeLocked(q *queue, now int64, max int, vis time.Duration) []Message {
	dlq, maxReceives := s.redriveTargetLocked(q)
	out := make([]Message, 0, min(max, q.ready.Len()))
	for len(out) < max {
		m := q.ready.peek()
		if m == nil {
			break
		}
		// Moved at the receive that would exceed maxReceiveCount (AWS-recorded
		// test_dead_letter_queue_message_attributes; moto does the same).
		if dlq != nil && m.receiveCount >= maxReceives {
			s.redriveLocked(q, dlq, m, now)
			continue
		}
		q.ready.pop()
		m.receiveCount++
		if m.firstReceive == 0 {
			m.firstReceive = now
		}
		m.lastReceive = now
		m.receipt = encodeReceipt(receipt{queueARN: q.arn, messageID: m.id, receiveNo: m.receiveCount}, newNonce())
		m.state = stateInflight
		m.visibleAt = now + int64(vis)
		q.pending.push(m)
		q.nInflight++
		out = append(out, m.export())
	}
	if vis == 0 && len(out) > 0 {
		// Visible again at once (a receive with VisibilityTimeout=0).
		s.advanceLocked(q, now)
	}
	return out
}

// redriveTargetLocked returns the queue's usable dead-letter queue and
// maxReceiveCount. A DLQ that was deleted, or whose RedriveAllowPolicy no
// longer admits this queue, disables redrive: messages stay and are
// delivered (emulator choice; AWS behaviour UNCONFIRMED).
func (s *Service) redriveTargetLocked(q *queue) (*queue, int) {
	p := q.attrs.redrive
	if p == nil {
		return nil, 0
	}
	dlq := s.queueByARNLocked(p.DeadLetterTargetArn)
	if dlq == nil || dlq == q || !dlq.attrs.redriveAllow.allows(q.arn) {
		return nil, 0
	}
	return dlq, p.MaxReceiveCount
}

// redriveLocked moves a message to a dead-letter queue. For standard
// queues the enqueue timestamp is kept, so DLQ retention counts from the
// original send (SQS developer guide, setting-up-dead-letter-queue-retention).
func (s *Service) redriveLocked(src, dlq *queue, m *message, now int64) {
	src.removeLocked(m)
	m.dlqSource = src.arn
	m.receipt = ""
	s.enqueueLocked(dlq, m, now, 0)
}

func (m *message) export() Message {
	attrs := map[string]string{
		SysSenderID:                         m.senderID,
		SysSentTimestamp:                    strconv.FormatInt(m.sent/1e6, 10),
		SysApproximateReceiveCount:          strconv.Itoa(m.receiveCount),
		SysApproximateFirstReceiveTimestamp: strconv.FormatInt(m.firstReceive/1e6, 10),
	}
	if m.traceHeader != "" {
		attrs[SysAWSTraceHeader] = m.traceHeader
	}
	if m.dlqSource != "" {
		attrs[SysDeadLetterQueueSourceArn] = m.dlqSource
	}
	if m.groupID != "" {
		attrs[SysMessageGroupID] = m.groupID
	}
	return Message{
		MessageID:              m.id,
		ReceiptHandle:          m.receipt,
		Body:                   m.body,
		MD5OfBody:              m.md5Body,
		Attributes:             attrs,
		MessageAttributes:      maps.Clone(m.attrs),
		MD5OfMessageAttributes: m.md5Attrs,
	}
}

// resolveReceiptLocked checks that a receipt handle is well formed and
// belongs to the queue.
func (s *Service) resolveReceiptLocked(ref, handle string) (*queue, receipt, error) {
	q, err := s.lookupLocked(ref)
	if err != nil {
		return nil, receipt{}, err
	}
	r, ok := decodeReceipt(handle)
	if !ok || r.queueARN != q.arn {
		return nil, receipt{}, errorf(ErrReceiptHandleIsInvalid, "The input receipt handle %q is not a valid receipt handle.", handle)
	}
	return q, r, nil
}

// Delete deletes a message by its receipt handle (DeleteMessage).
//
// Deleting an already deleted (or expired, or redriven) message succeeds,
// as does deleting with the handle of an earlier receive — but then the
// message is not deleted: "If you use an old ReceiptHandle, the request
// will succeed, but the message might not be deleted" (DeleteMessage API
// reference); the emulator makes the "might" certain so that consumers
// that lost a message to redelivery are caught. The latest handle deletes
// even after its visibility timeout ended (AWS-validated LocalStack test
// test_remove_message_with_old_receipt_handle).
func (s *Service) Delete(ref, receiptHandle string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, r, err := s.resolveReceiptLocked(ref, receiptHandle)
	if err != nil {
		return err
	}
	s.advanceLocked(q, s.now())
	m := q.msgs[r.messageID]
	if m == nil || m.receipt != receiptHandle {
		return nil
	}
	q.removeLocked(m)
	return nil
}

// ChangeVisibility sets the remaining visibility timeout of an in-flight
// message, counted from now (ChangeMessageVisibility). The total since the
// receive may not exceed 12 hours.
func (s *Service) ChangeVisibility(ref, receiptHandle string, timeout time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, r, err := s.resolveReceiptLocked(ref, receiptHandle)
	if err != nil {
		return err
	}
	now := s.now()
	s.advanceLocked(q, now)
	m := q.msgs[r.messageID]
	if m == nil || m.receipt != receiptHandle {
		// AWS-validated message (LocalStack test
		// test_change_visibility_on_deleted_message_raises_invalid_parameter_value).
		return errInvalidParam(receiptHandle, "ReceiptHandle",
			"Message does not exist or is not available for visibility timeout change.")
	}
	if timeout < 0 || timeout > maxVisibilitySeconds*time.Second {
		return errInvalidParam(int64(timeout.Seconds()), "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
	}
	if m.state != stateInflight {
		return errorf(ErrMessageNotInflight, "The specified message isn't in flight.")
	}
	if now+int64(timeout)-m.lastReceive > int64(maxVisibilitySeconds*time.Second) {
		return errInvalidParam(int64(timeout.Seconds()), "VisibilityTimeout",
			"Total VisibilityTimeout for the message is beyond the limit [43200 seconds]")
	}
	m.visibleAt = now + int64(timeout)
	q.pending.fix(m)
	if timeout == 0 {
		s.advanceLocked(q, now)
	}
	// A waiting receive sleeps until the earliest deadline it saw; a
	// shortened one must wake it to look again, or the message waits for
	// the end of the long poll.
	q.signal()
	return nil
}
