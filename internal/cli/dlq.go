package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

// Queue choices of the dlq commands.
const (
	queueWork = "work"
	queuePipe = "pipe"
	queueBoth = "both"
)

// bodyPreview bounds how much of a message body dlq list prints.
const bodyPreview = 300

const dlqOverview = `Usage: taskpipe dlq <list|redrive> [flags]

The pipeline has two dead-letter queues:
  work DLQ  work messages that SQS moved after maxReceiveCount receives, and
            poison messages the scraper forwarded with a "reason" attribute
  pipe DLQ  the Pipe's pointers to stream batches it could not deliver
            (condition, shard, sequence range; not the records)

  list      show the messages of both DLQs without consuming them
  redrive   work: move the work DLQ back to the work queue (StartMessageMoveTask);
            pipe: re-dispatch the Pending tasks the pointers cover

Run "taskpipe dlq list -h" or "taskpipe dlq redrive -h" for their flags.
`

// DLQ runs "taskpipe dlq".
func (e *Env) DLQ(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.errw(), dlqOverview)
		return usagef("dlq: name a subcommand: list or redrive")
	}
	switch args[0] {
	case "list":
		return e.DLQList(ctx, args[1:])
	case "redrive":
		return e.DLQRedrive(ctx, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.errw(), dlqOverview)
		return flag.ErrHelp
	}
	fmt.Fprint(e.errw(), dlqOverview)
	return usagef("dlq: unknown subcommand %q (want list or redrive)", args[0])
}

var dlqListHelp = help{
	name:     "dlq list",
	synopsis: "[--queue work|pipe|both] [--max N] [--json]",
	text: `
Shows the messages of the work DLQ and the pipe DLQ without consuming them,
each with its reason: for the work DLQ the scraper's "reason" attribute (a
poison message), or that SQS moved it after maxReceiveCount receives; for
the pipe DLQ the pointer's condition, stream, shard and sequence range.

How it stays non-destructive: it receives with a short visibility timeout
(--visibility), so paging does not see a message twice, and then makes
every received message visible again at once (ChangeMessageVisibilityBatch
0), also when interrupted. Nothing is deleted. Side effects: each listing
adds one to the messages' receive counts, and for up to --visibility other
readers (a redrive) do not see them; if the CLI dies mid-listing they
reappear when the visibility timeout ends.`,
}

// dlqMessage is one listed message (the --json shape).
type dlqMessage struct {
	Queue        string       `json:"queue"`
	MessageID    string       `json:"messageId"`
	SentAt       string       `json:"sentAt,omitempty"`
	ReceiveCount int          `json:"receiveCount,omitempty"`
	Reason       string       `json:"reason"`
	SourceQueue  string       `json:"sourceQueueArn,omitempty"`
	TaskID       string       `json:"taskId,omitempty"`
	RunID        string       `json:"runId,omitempty"`
	URL          string       `json:"url,omitempty"`
	Pointer      *PipePointer `json:"pointer,omitempty"`
	Body         string       `json:"body"`
}

// DLQList runs "taskpipe dlq list".
func (e *Env) DLQList(ctx context.Context, args []string) error {
	fs := e.newFlagSet(dlqListHelp)
	which := fs.String("queue", queueBoth, "which DLQ: work, pipe or both")
	maxN := fs.Int("max", 100, "at most this many messages per queue (1..10000)")
	asJSON := fs.Bool("json", false, "print one JSON object per message")
	visibility := fs.Duration("visibility", 30*time.Second, "how long listed messages stay hidden at most (1s..12h)")
	res := e.addResources(fs, OutputWorkDLQURL, OutputPipeDLQURL)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments: %q", pos)
	}
	if *which != queueWork && *which != queuePipe && *which != queueBoth {
		return usagef("--queue %q: want work, pipe or both", *which)
	}
	if *maxN < 1 || *maxN > 10000 {
		return usagef("--max %d out of range 1..10000", *maxN)
	}
	if *visibility < time.Second || *visibility > sqsqueue.MaxVisibilityTimeout {
		return usagef("--visibility %s out of range 1s..12h", *visibility)
	}
	type q struct{ name, url string }
	var queues []q
	if *which != queuePipe {
		u, err := res.get(ctx, res.workDLQ)
		if err != nil {
			return err
		}
		queues = append(queues, q{queueWork, u})
	}
	if *which != queueWork {
		u, err := res.get(ctx, res.pipeDLQ)
		if err != nil {
			return err
		}
		queues = append(queues, q{queuePipe, u})
	}
	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, q := range queues {
		if err := e.listQueue(ctx, c.sqs, q.name, q.url, *maxN, *visibility, *asJSON); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (e *Env) listQueue(ctx context.Context, api SQSAPI, name, url string, maxN int, visibility time.Duration, asJSON bool) error {
	attrs, err := queueAttrs(ctx, api, url)
	if err != nil {
		return fmt.Errorf("dlq list: %s DLQ: %w", name, err)
	}
	msgs, peekErr := peek(ctx, api, url, maxN, visibility)
	relErr := release(ctx, api, url, msgs)
	if !asJSON {
		fmt.Fprintf(e.out(), "%s DLQ %s: %d messages shown (about %s visible, %s in flight before listing)\n",
			name, url, len(msgs), attrs[string(types.QueueAttributeNameApproximateNumberOfMessages)],
			attrs[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	}
	for i, m := range msgs {
		d := describeDLQMessage(name, m)
		if asJSON {
			if err := writeJSONLine(e.out(), d); err != nil {
				return err
			}
			continue
		}
		writeDLQMessage(e.out(), i+1, d)
	}
	if peekErr != nil || relErr != nil {
		return fmt.Errorf("dlq list: %s DLQ: %w", name, errors.Join(peekErr, relErr))
	}
	return nil
}

func queueAttrs(ctx context.Context, api SQSAPI, url string) (map[string]string, error) {
	out, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn,
			types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
	})
	if err != nil {
		return nil, fmt.Errorf("get attributes of %s: %w", url, err)
	}
	return out.Attributes, nil
}

// peek receives up to maxN messages, hiding each for visibility so that
// paging sees every message once. A receive that returns nothing ends it;
// the one-second long poll asks every SQS server, where a short poll
// samples only some (SQS developer guide, "short and long polling").
func peek(ctx context.Context, api SQSAPI, url string, maxN int, visibility time.Duration) ([]types.Message, error) {
	var msgs []types.Message
	seen := map[string]bool{}
	for len(msgs) < maxN {
		out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(url),
			MaxNumberOfMessages:         int32(min(10, maxN-len(msgs))),
			VisibilityTimeout:           int32(visibility / time.Second),
			WaitTimeSeconds:             1,
			MessageAttributeNames:       []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if err != nil {
			return msgs, fmt.Errorf("receive from %s: %w", url, err)
		}
		if len(out.Messages) == 0 {
			return msgs, nil
		}
		for _, m := range out.Messages {
			id := aws.ToString(m.MessageId)
			if seen[id] {
				continue // a standard queue may deliver a message twice
			}
			seen[id] = true
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}

// release makes received messages visible again at once. It runs even when
// ctx was cancelled, so an interrupted listing returns what it hid.
func release(ctx context.Context, api SQSAPI, url string, msgs []types.Message) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []error
	for start := 0; start < len(msgs); start += sqsqueue.MaxBatchEntries {
		chunk := msgs[start:min(start+sqsqueue.MaxBatchEntries, len(msgs))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, m := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0,
			}
		}
		out, err := api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			errs = append(errs, fmt.Errorf("make %d messages visible again: %w", len(chunk), err))
			continue
		}
		for _, f := range out.Failed {
			i, _ := strconv.Atoi(aws.ToString(f.Id))
			errs = append(errs, fmt.Errorf("make message %s visible again: %s: %s (it reappears when its visibility timeout ends)",
				aws.ToString(chunk[i].MessageId), aws.ToString(f.Code), aws.ToString(f.Message)))
		}
	}
	return errors.Join(errs...)
}

func describeDLQMessage(queue string, m types.Message) dlqMessage {
	d := dlqMessage{Queue: queue, MessageID: aws.ToString(m.MessageId), Body: aws.ToString(m.Body)}
	sys := m.Attributes
	if ms, err := strconv.ParseInt(sys[string(types.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil {
		d.SentAt = time.UnixMilli(ms).UTC().Format(time.RFC3339)
	}
	d.ReceiveCount, _ = strconv.Atoi(sys[string(types.MessageSystemAttributeNameApproximateReceiveCount)])
	d.SourceQueue = sys[string(types.MessageSystemAttributeNameDeadLetterQueueSourceArn)]
	if queue == queuePipe {
		p, err := ParsePipePointer([]byte(d.Body))
		if err != nil {
			d.Reason = "not a pipe pointer: " + err.Error()
			return d
		}
		d.Pointer = &p
		d.Reason = p.Context.Condition
		if d.Reason == "" {
			d.Reason = "(no condition given)"
		}
		return d
	}
	if a, ok := m.MessageAttributes[sqsqueue.AttrReason]; ok && aws.ToString(a.StringValue) != "" {
		d.Reason = aws.ToString(a.StringValue)
		if src := m.MessageAttributes[sqsqueue.AttrSourceQueueARN]; d.SourceQueue == "" {
			d.SourceQueue = aws.ToString(src.StringValue)
		}
	} else if d.SourceQueue != "" {
		d.Reason = "moved by SQS after maxReceiveCount receives: the scraper never acknowledged it (crashes, timeouts or retryable failures)"
	} else {
		d.Reason = "no reason attribute and no DeadLetterQueueSourceArn (sent to the DLQ directly by someone else)"
	}
	if msg, err := message.Parse([]byte(d.Body)); err == nil {
		d.TaskID, d.RunID, d.URL = msg.TaskID, msg.RunID, msg.URL
	}
	return d
}

func writeDLQMessage(w io.Writer, n int, d dlqMessage) {
	fmt.Fprintf(w, "  [%d] message %s", n, d.MessageID)
	if d.SentAt != "" {
		fmt.Fprintf(w, " sent %s", d.SentAt)
	}
	if d.ReceiveCount > 0 {
		fmt.Fprintf(w, ", receive count %d (this listing included)", d.ReceiveCount)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "      reason: %s\n", oneLine(d.Reason, 0))
	if d.SourceQueue != "" {
		fmt.Fprintf(w, "      from: %s\n", d.SourceQueue)
	}
	if d.TaskID != "" {
		fmt.Fprintf(w, "      task: %s", d.TaskID)
		if d.RunID != "" {
			fmt.Fprintf(w, " run %s", d.RunID)
		}
		if d.URL != "" {
			fmt.Fprintf(w, " url %s", d.URL)
		}
		fmt.Fprintln(w)
	}
	if p := d.Pointer; p != nil {
		b := p.Batch
		fmt.Fprintf(w, "      pipe: %s\n", p.Context.PartnerResourceArn)
		fmt.Fprintf(w, "      stream: %s\n", b.StreamArn)
		fmt.Fprintf(w, "      shard: %s sequence %s..%s (batch of %d, records arrived %s .. %s)\n",
			b.ShardID, b.StartSequenceNumber, b.EndSequenceNumber, b.BatchSize,
			rawText(b.ApproximateArrivalOfFirstRecord), rawText(b.ApproximateArrivalOfLastRecord))
		return
	}
	fmt.Fprintf(w, "      body: %s\n", oneLine(d.Body, bodyPreview))
}

// oneLine flattens s to one line, cut to n bytes when n > 0.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n > 0 && len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
