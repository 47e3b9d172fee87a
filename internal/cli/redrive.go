package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/shard"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
	"github.com/taskpipe/taskpipe/internal/task"
)

var dlqRedriveHelp = help{
	name:     "dlq redrive",
	synopsis: "[--queue work|pipe|both] [--rate N] [--no-wait] [--run RUN] [--max N]",
	text: `
work: moves every message of the work DLQ to the work queue with
StartMessageMoveTask (what the console's "Start DLQ redrive" does), with the
work queue as the explicit destination so that poison messages, which the
scraper sent to the DLQ itself, move too. It then follows the task with
ListMessageMoveTasks and prints its progress until it completes (--no-wait
returns at once). A poison message comes back to the DLQ unless its
producer was fixed.

pipe: for each pointer message (at most --max), reads the stream records it
covers (GetShardIterator AT_SEQUENCE_NUMBER at startSequenceNumber, then
GetRecords up to endSequenceNumber; the stream ARN and shard come from the
pointer), reads each covered task from the table and sends a work message
(SendMessageBatch) for those still Pending, or Running with an expired
lease; then deletes the pointer. Tasks that finished, failed or are being
worked on are skipped. If the records are no longer in the stream (it
keeps them 24 hours), it says so and falls back to re-dispatching the
Pending tasks (and Running ones with an expired lease) that the live index
lists - of RUN only with --run, else of every run - and then deletes those
pointers. A pointer that cannot be handled is left in the queue and the
command exits 1. Duplicate work messages are harmless: the claim is atomic.

Counts are printed at the end.`,
}

// DLQRedrive runs "taskpipe dlq redrive".
func (e *Env) DLQRedrive(ctx context.Context, args []string) error {
	fs := e.newFlagSet(dlqRedriveHelp)
	which := fs.String("queue", queueWork, "which DLQ: work, pipe or both")
	rate := fs.Int("rate", 0, "work: MaxNumberOfMessagesPerSecond of the move task, 1..500 (default: SQS decides)")
	noWait := fs.Bool("no-wait", false, "work: start the move task and return")
	interval := fs.Duration("interval", 2*time.Second, "work: time between progress checks (at least 100ms)")
	run := fs.String("run", "", "pipe: restrict the fallback for expired stream records to this run")
	maxN := fs.Int("max", 1000, "pipe: at most this many pointer messages (1..100000)")
	res := e.addResources(fs, OutputTable, OutputWorkQueueURL, OutputWorkDLQURL, OutputPipeDLQURL)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments: %q", pos)
	case *which != queueWork && *which != queuePipe && *which != queueBoth:
		return usagef("--queue %q: want work, pipe or both", *which)
	case *rate < 0 || *rate > 500:
		return usagef("--rate %d out of range 1..500", *rate)
	case *interval < 100*time.Millisecond:
		return usagef("--interval %s: want at least 100ms", *interval)
	case *maxN < 1 || *maxN > 100000:
		return usagef("--max %d out of range 1..100000", *maxN)
	}
	workQ, err := res.get(ctx, res.workQ)
	if err != nil {
		return err
	}
	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	var errs []error
	if *which != queuePipe {
		dlq, err := res.get(ctx, res.workDLQ)
		if err != nil {
			return err
		}
		if err := e.redriveWork(ctx, c.sqs, dlq, workQ, int32(*rate), !*noWait, *interval); err != nil {
			errs = append(errs, err)
		}
	}
	if *which != queueWork {
		dlq, err := res.get(ctx, res.pipeDLQ)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		store, err := e.store(ctx, res, c)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		p := &pipeRedrive{env: e, sqs: c.sqs, reader: &shard.Reader{API: c.streams, Now: e.now, Sleep: e.sleep}, store: store, dlq: dlq, workQ: workQ, run: *run, max: *maxN}
		if err := p.do(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (e *Env) redriveWork(ctx context.Context, api SQSAPI, dlqURL, workURL string, rate int32, wait bool, interval time.Duration) error {
	fail := func(err error) error { return fmt.Errorf("dlq redrive: work: %w", err) }
	dlqAttrs, err := queueAttrs(ctx, api, dlqURL)
	if err != nil {
		return fail(err)
	}
	workAttrs, err := queueAttrs(ctx, api, workURL)
	if err != nil {
		return fail(err)
	}
	src, dst := dlqAttrs[string(types.QueueAttributeNameQueueArn)], workAttrs[string(types.QueueAttributeNameQueueArn)]
	if src == "" || dst == "" {
		return fail(errors.New("queue ARNs missing from GetQueueAttributes"))
	}
	visible := dlqAttrs[string(types.QueueAttributeNameApproximateNumberOfMessages)]
	if visible == "0" {
		fmt.Fprintf(e.out(), "work DLQ is empty (%s in flight); nothing to redrive\n", dlqAttrs[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
		return nil
	}
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(src), DestinationArn: aws.String(dst)}
	if rate > 0 {
		in.MaxNumberOfMessagesPerSecond = aws.Int32(rate)
	}
	started, err := api.StartMessageMoveTask(ctx, in)
	if err != nil {
		return fail(fmt.Errorf("start message move task: %w", err))
	}
	handle := aws.ToString(started.TaskHandle)
	fmt.Fprintf(e.out(), "work DLQ redrive started: about %s messages from %s to %s (task %s)\n", visible, src, dst, handle)
	if !wait {
		return nil
	}
	last := ""
	for {
		if err := e.sleep(ctx, interval); err != nil {
			return fail(fmt.Errorf("waiting for the move task (it keeps running): %w", err))
		}
		out, err := api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(src), MaxResults: aws.Int32(10)})
		if err != nil {
			return fail(fmt.Errorf("list message move tasks: %w", err))
		}
		t, ok := ourMoveTask(out.Results, handle)
		if !ok {
			return fail(errors.New("the move task is not listed for the work DLQ"))
		}
		progress := fmt.Sprintf("%s: moved %d of %d", aws.ToString(t.Status), t.ApproximateNumberOfMessagesMoved, aws.ToInt64(t.ApproximateNumberOfMessagesToMove))
		if progress != last {
			fmt.Fprintf(e.errw(), "dlq redrive: work: %s\n", progress)
			last = progress
		}
		switch aws.ToString(t.Status) {
		case "RUNNING", "CANCELLING":
			continue
		case "COMPLETED":
			fmt.Fprintf(e.out(), "work DLQ redrive completed: %d messages moved to the work queue\n", t.ApproximateNumberOfMessagesMoved)
			return nil
		default:
			return fail(fmt.Errorf("move task %s after moving %d of %d messages: %s",
				aws.ToString(t.Status), t.ApproximateNumberOfMessagesMoved, aws.ToInt64(t.ApproximateNumberOfMessagesToMove), aws.ToString(t.FailureReason)))
		}
	}
}

// ourMoveTask finds the task we started. ListMessageMoveTasks shows the
// handle only while a task runs (SQS API reference), and a source has at
// most one running task, so once our handle is gone ours is the newest
// entry (results are newest first).
func ourMoveTask(list []types.ListMessageMoveTasksResultEntry, handle string) (types.ListMessageMoveTasksResultEntry, bool) {
	for _, t := range list {
		if aws.ToString(t.TaskHandle) == handle {
			return t, true
		}
	}
	for _, t := range list {
		if aws.ToString(t.Status) != "RUNNING" {
			return t, true
		}
	}
	return types.ListMessageMoveTasksResultEntry{}, false
}

// pipeRedrive re-dispatches the tasks that pipe DLQ pointers cover.
type pipeRedrive struct {
	env *Env
	sqs SQSAPI
	// reader reads the pointers' ranges, one at a time per shard.
	reader *shard.Reader
	store  *dynamostore.Store
	dlq    string
	workQ  string
	run    string
	max    int

	// counts
	pointers, deleted, invalid, records, covered, sent, skipped int
	trimmed                                                     []types.Message
	keep                                                        []types.Message // returned to the queue at the end
	errs                                                        []error
}

// errRecordsGone means the pointer's records are no longer in the stream.
var errRecordsGone = errors.New("stream records no longer available")

// pointerVisibility hides a pointer while it is handled.
const pointerVisibility = 5 * time.Minute

func (p *pipeRedrive) do(ctx context.Context) error {
	w := p.env.errw()
	seen := map[string]bool{}
	for p.pointers < p.max {
		out, err := p.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(p.dlq),
			MaxNumberOfMessages: int32(min(10, p.max-p.pointers)),
			VisibilityTimeout:   int32(pointerVisibility / time.Second),
			WaitTimeSeconds:     1,
		})
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("receive from the pipe DLQ: %w", err))
			break
		}
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			id := aws.ToString(m.MessageId)
			if seen[id] {
				continue
			}
			seen[id] = true
			p.pointers++
			p.handle(ctx, m)
		}
	}
	if len(p.trimmed) > 0 {
		fmt.Fprintf(w, "dlq redrive: pipe: %d pointers cover stream records that are gone (older than the stream's 24 h); falling back to the live index\n", len(p.trimmed))
		if err := p.fallback(ctx); err != nil {
			p.errs = append(p.errs, err)
			p.keep = append(p.keep, p.trimmed...)
		} else {
			for _, m := range p.trimmed {
				p.delete(ctx, m)
			}
		}
	}
	if err := release(ctx, p.sqs, p.dlq, p.keep); err != nil {
		p.errs = append(p.errs, err)
	}
	fmt.Fprintf(p.env.out(), "pipe DLQ redrive: %d pointers read, %d deleted, %d left in the queue; %d stream records, %d tasks covered, %d work messages sent, %d tasks skipped (not Pending or still leased)\n",
		p.pointers, p.deleted, p.pointers-p.deleted, p.records, p.covered, p.sent, p.skipped)
	if len(p.errs) > 0 {
		return fmt.Errorf("dlq redrive: pipe: %w", errors.Join(p.errs...))
	}
	return nil
}

func (p *pipeRedrive) handle(ctx context.Context, m types.Message) {
	w := p.env.errw()
	id := aws.ToString(m.MessageId)
	ptr, err := ParsePipePointer([]byte(aws.ToString(m.Body)))
	if err != nil {
		p.invalid++
		p.keep = append(p.keep, m)
		p.errs = append(p.errs, fmt.Errorf("message %s left in the queue: %w", id, err))
		return
	}
	b := ptr.Batch
	ids, n, err := p.readRange(ctx, b)
	p.records += n
	if errors.Is(err, errRecordsGone) {
		fmt.Fprintf(w, "dlq redrive: pipe: message %s: shard %s sequence %s..%s: %v\n", id, b.ShardID, b.StartSequenceNumber, b.EndSequenceNumber, err)
		p.trimmed = append(p.trimmed, m)
		return
	}
	if err != nil {
		p.keep = append(p.keep, m)
		p.errs = append(p.errs, fmt.Errorf("message %s left in the queue: %w", id, err))
		return
	}
	p.covered += len(ids)
	tasks := make([]task.Task, 0, len(ids))
	for _, tid := range ids {
		t, err := p.store.Get(ctx, tid)
		if errors.Is(err, task.ErrNotFound) {
			p.skipped++
			continue
		}
		if err != nil {
			p.keep = append(p.keep, m)
			p.errs = append(p.errs, fmt.Errorf("message %s left in the queue: %w", id, err))
			return
		}
		tasks = append(tasks, t)
	}
	if err := p.dispatch(ctx, tasks); err != nil {
		p.keep = append(p.keep, m)
		p.errs = append(p.errs, fmt.Errorf("message %s left in the queue: %w", id, err))
		return
	}
	fmt.Fprintf(w, "dlq redrive: pipe: message %s: %d records, %d tasks covered\n", id, n, len(ids))
	p.delete(ctx, m)
}

// dispatch sends a work message for each task that still needs one.
func (p *pipeRedrive) dispatch(ctx context.Context, tasks []task.Task) error {
	now := p.env.now()
	var msgs []message.Message
	for _, t := range tasks {
		if t.State == task.StatePending || (t.State == task.StateRunning && !t.LeaseLive(now)) {
			msgs = append(msgs, message.New(t.ID, t.RunID, t.URL))
		} else {
			p.skipped++
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	d := &sqsqueue.Dispatcher{Client: p.sqs, QueueURL: p.workQ, SleepFunc: p.env.sleep}
	err := d.Send(ctx, msgs)
	var se *sqsqueue.SendError
	if errors.As(err, &se) {
		p.sent += len(msgs) - len(se.Unsent)
		return err
	}
	if err != nil {
		return err
	}
	p.sent += len(msgs)
	return nil
}

func (p *pipeRedrive) delete(ctx context.Context, m types.Message) {
	_, err := p.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(p.dlq), ReceiptHandle: m.ReceiptHandle})
	if err != nil {
		// Its tasks were dispatched; the pointer reappears after its
		// visibility timeout and a later redrive dispatches them again,
		// which is harmless.
		p.errs = append(p.errs, fmt.Errorf("delete pointer %s after dispatching its tasks: %w", aws.ToString(m.MessageId), err))
		return
	}
	p.deleted++
}

// readRange returns the distinct task ids of the records from the batch's
// start to its end sequence number, and how many records it read. Empty
// pages do not end the range (GetRecords may need several calls to reach
// records); the reader's budget does, as an error.
func (p *pipeRedrive) readRange(ctx context.Context, b *StreamBatch) ([]string, int, error) {
	res, err := p.reader.Read(ctx, shard.Range{StreamARN: b.StreamArn, ShardID: b.ShardID,
		From: b.StartSequenceNumber, To: b.EndSequenceNumber})
	var ids []string
	seen := map[string]bool{}
	for _, r := range res.Records {
		if id := recordTaskID(r.Dynamodb); id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if err != nil {
		return ids, len(res.Records), streamErr("read the stream", err)
	}
	// Complete, or a closed shard ended: the range as far as it exists.
	return ids, len(res.Records), nil
}

func recordTaskID(r *streamtypes.StreamRecord) string {
	for _, img := range []map[string]streamtypes.AttributeValue{r.Keys, r.NewImage, r.OldImage} {
		if v, ok := img[task.AttrTaskID].(*streamtypes.AttributeValueMemberS); ok && v.Value != "" {
			return v.Value
		}
	}
	return ""
}

// streamErr marks the errors that mean the records are gone: trimmed (past
// the 24-hour retention), or the stream or shard no longer exists.
func streamErr(op string, err error) error {
	var trimmed *streamtypes.TrimmedDataAccessException
	var notFound *streamtypes.ResourceNotFoundException
	if errors.As(err, &trimmed) || errors.As(err, &notFound) {
		return fmt.Errorf("%s: %w: %w", op, errRecordsGone, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// fallback dispatches the live index's Pending tasks and Running tasks
// with an expired lease, of p.run or of every run.
func (p *pipeRedrive) fallback(ctx context.Context) error {
	now := p.env.now()
	var tasks []task.Task
	for _, st := range []task.State{task.StatePending, task.StateRunning} {
		cursor := ""
		for {
			page, err := p.store.ListLive(ctx, task.ListLiveParams{State: st, DueBefore: now, Cursor: cursor})
			if err != nil {
				return fmt.Errorf("fallback: %w", err)
			}
			for _, t := range page.Tasks {
				if p.run == "" || t.RunID == p.run {
					tasks = append(tasks, t)
				}
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
	}
	scope := "every run"
	if p.run != "" {
		scope = "run " + p.run
	}
	fmt.Fprintf(p.env.errw(), "dlq redrive: pipe: fallback: %d live tasks of %s are due\n", len(tasks), scope)
	p.covered += len(tasks)
	if err := p.dispatch(ctx, tasks); err != nil {
		return fmt.Errorf("fallback: %w", err)
	}
	return nil
}
