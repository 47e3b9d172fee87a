package sqsqueue

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Message attribute names the Forwarder sets on a DLQ message. An operator
// reads them in the console before a redrive.
const (
	AttrReason          = "reason"
	AttrSourceMessageID = "sourceMessageId"
	AttrSourceQueueARN  = "sourceQueueArn"
	AttrReceiveCount    = "receiveCount"
)

// MaxReasonBytes bounds the reason attribute.
const MaxReasonBytes = 1024

// Poison is a message the scraper cannot process and forwards to the work
// DLQ.
type Poison struct {
	// Body is the original body, kept byte for byte so that a redrive
	// replays exactly what was received.
	Body            string
	Reason          string
	SourceMessageID string
	SourceQueueARN  string
	// ReceiveCount is the source message's ApproximateReceiveCount; 0 if
	// unknown.
	ReceiveCount int
}

// Forwarder sends poison messages to the work DLQ.
type Forwarder struct {
	Client   API
	QueueURL string
}

// emptyBody stands in for an empty body, which SendMessage rejects; SQS
// itself never delivers one, so it can only come from a test or a bug.
const emptyBody = "(empty body)"

// Forward sends p to the DLQ with its reason and origin as message
// attributes.
func (f *Forwarder) Forward(ctx context.Context, p Poison) error {
	body := sanitize(p.Body)
	if body == "" {
		body = emptyBody
	}
	attrs := map[string]types.MessageAttributeValue{}
	put := func(name, dataType, value string) {
		if value = sanitize(value); value != "" {
			attrs[name] = types.MessageAttributeValue{DataType: aws.String(dataType), StringValue: aws.String(value)}
		}
	}
	put(AttrReason, "String", task.Truncate(p.Reason, MaxReasonBytes))
	put(AttrSourceMessageID, "String", p.SourceMessageID)
	put(AttrSourceQueueARN, "String", p.SourceQueueARN)
	if p.ReceiveCount > 0 {
		put(AttrReceiveCount, "Number", strconv.Itoa(p.ReceiveCount))
	}
	_, err := f.Client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:          aws.String(f.QueueURL),
		MessageBody:       aws.String(body),
		MessageAttributes: attrs,
	})
	if err != nil {
		return fmt.Errorf("sqsqueue: forward message %s to DLQ: %w", p.SourceMessageID, err)
	}
	return nil
}

// Visibility changes the visibility timeout of received work messages.
type Visibility struct {
	Client   API
	QueueURL string
}

// Change makes the message with receiptHandle visible again after d,
// clamped to 0..MaxVisibilityTimeout and rounded up to whole seconds.
func (v *Visibility) Change(ctx context.Context, receiptHandle string, d time.Duration) error {
	d = max(0, min(d, MaxVisibilityTimeout))
	secs := int32((d + time.Second - 1) / time.Second)
	_, err := v.Client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(v.QueueURL),
		ReceiptHandle:     aws.String(receiptHandle),
		VisibilityTimeout: secs,
	})
	if err != nil {
		return fmt.Errorf("sqsqueue: change visibility to %ds: %w", secs, err)
	}
	return nil
}

// sanitize replaces what SQS does not accept in a message body or string
// attribute: invalid UTF-8 and characters outside #x9 | #xA | #xD |
// #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF (SQS API reference,
// SendMessage, MessageBody).
func sanitize(s string) string {
	ok := true
	for _, r := range s {
		if !allowed(r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid bytes decode as utf8.RuneError (U+FFFD), which is allowed
		if !allowed(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

func allowed(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}
