package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/shard"
)

// logLine is one JSON log line a function wrote (internal/emf's slog
// JSON on stderr, one CloudWatch Logs event per line).
type logLine struct {
	At     time.Time
	Msg    string
	TaskID string
	Fields map[string]json.RawMessage
}

// logLines returns the JSON log lines of a function (by role) that contain
// phrase, written since. phrase must be a plain phrase: the local cloud
// and AWS both match quoted term patterns as a substring of the event.
func (d *deployment) logLines(ctx context.Context, role, phrase string, since time.Time) ([]logLine, error) {
	in := &cloudwatchlogs.FilterLogEventsInput{
		LogGroupName:  aws.String("/aws/lambda/" + d.fn(role)),
		FilterPattern: aws.String(`"` + phrase + `"`),
		StartTime:     aws.Int64(since.UnixMilli()),
	}
	var out []logLine
	p := cloudwatchlogs.NewFilterLogEventsPaginator(d.logs, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("filter log events of %s: %w", d.fn(role), err)
		}
		for _, ev := range page.Events {
			var fields map[string]json.RawMessage
			if json.Unmarshal([]byte(aws.ToString(ev.Message)), &fields) != nil {
				continue // START/END/REPORT and other plain lines
			}
			l := logLine{At: time.UnixMilli(aws.ToInt64(ev.Timestamp)), Fields: fields}
			_ = json.Unmarshal(fields["msg"], &l.Msg)
			_ = json.Unmarshal(fields["taskId"], &l.TaskID)
			out = append(out, l)
		}
	}
	return out, nil
}

// waitLog waits for a log line of a function with message msg that
// contains phrase, and returns the matching lines.
func (d *deployment) waitLog(t *testing.T, role, phrase, msg string, since time.Time, timeout time.Duration) []logLine {
	t.Helper()
	ctx := testContext(t)
	var found []logLine
	d.waitFor(t, fmt.Sprintf("%s log %q for %s", role, msg, phrase), timeout, time.Second, func() (bool, string, error) {
		lines, err := d.logLines(ctx, role, phrase, since)
		if err != nil {
			return false, "", err
		}
		found = found[:0]
		for _, l := range lines {
			if l.Msg == msg {
				found = append(found, l)
			}
		}
		return len(found) > 0, fmt.Sprintf("%d lines with %q, none says %q", len(lines), phrase, msg), nil
	})
	return found
}

// reconcileDone is the reconciler's last log line of a run; its "report"
// attribute is the run's handler.Report.
const reconcileDone = "reconcile run done"

// waitReconcileReport waits for the first reconciler run that ended after
// since and returns its report.
func waitReconcileReport(ctx context.Context, d *deployment, since time.Time) (handler.Report, error) {
	deadline := time.Now().Add(d.timing.wait(2 * time.Minute))
	for {
		lines, err := d.logLines(ctx, "reconciler", reconcileDone, since)
		if err != nil {
			return handler.Report{}, err
		}
		for _, l := range lines {
			if l.Msg != reconcileDone {
				continue
			}
			var rep handler.Report
			if err := json.Unmarshal(l.Fields["report"], &rep); err != nil {
				return handler.Report{}, fmt.Errorf("decode the reconciler's report %s: %w", l.Fields["report"], err)
			}
			return rep, nil
		}
		if time.Now().After(deadline) {
			return handler.Report{}, errors.New("no reconciler run ended within the wait")
		}
		select {
		case <-ctx.Done():
			return handler.Report{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// image is what the suite reads of a stream record's item image.
type image struct {
	Present    bool
	Status     string
	ClaimToken string
	Attempts   int
}

// change is one stream record of a task.
type change struct {
	Event    string // INSERT, MODIFY, REMOVE
	Sequence string
	Old, New image
}

func (c change) String() string {
	return fmt.Sprintf("%s %s→%s (attempts %d→%d)", c.Event, c.Old.Status, c.New.Status, c.Old.Attempts, c.New.Attempts)
}

// streamChanges reads the table's stream from its trim horizon, every
// shard, and returns the records of the given tasks, in sequence order.
// It reads the stream with the DynamoDB Streams API, as a second consumer
// next to the Pipe (a shard allows two).
func (d *deployment) streamChanges(t *testing.T, ids ...string) map[string][]change {
	t.Helper()
	ctx := testContext(t)
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string][]change{}
	var shards []streamtypes.Shard
	var last *string
	for {
		ds, err := d.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{
			StreamArn: aws.String(d.out.StreamARN), ExclusiveStartShardId: last})
		if err != nil {
			t.Fatalf("describe the table's stream: %v", err)
		}
		shards = append(shards, ds.StreamDescription.Shards...)
		last = ds.StreamDescription.LastEvaluatedShardId
		if last == nil {
			break
		}
	}
	// Records written before the call are all read once a shard shows a
	// later one (2 s of clock skew allowed), or it is closed; an open shard
	// that shows none ends at the reader's budget. Empty pages alone never
	// end a shard: GetRecords may return some before records.
	until := time.Now().Add(2 * time.Second)
	for _, sh := range shards {
		res, err := d.shards.Read(ctx, shard.Range{StreamARN: d.out.StreamARN, ShardID: aws.ToString(sh.ShardId), Until: until})
		if err != nil && !errors.Is(err, shard.ErrBudget) {
			t.Fatalf("read the table's stream: %v", err)
		}
		if err != nil {
			t.Logf("stream shard %s: open, no record after the call: %v", aws.ToString(sh.ShardId), err)
		}
		for _, r := range res.Records {
			id := attrS(r.Dynamodb.Keys, "taskId")
			if !want[id] {
				continue
			}
			out[id] = append(out[id], change{
				Event:    string(r.EventName),
				Sequence: aws.ToString(r.Dynamodb.SequenceNumber),
				Old:      imageOf(r.Dynamodb.OldImage),
				New:      imageOf(r.Dynamodb.NewImage),
			})
		}
	}
	for id := range out {
		cs := out[id]
		sort.Slice(cs, func(i, j int) bool { return seqLess(cs[i].Sequence, cs[j].Sequence) })
	}
	return out
}

func seqLess(a, b string) bool {
	x, okx := new(big.Int).SetString(a, 10)
	y, oky := new(big.Int).SetString(b, 10)
	if !okx || !oky {
		return a < b
	}
	return x.Cmp(y) < 0
}

func attrS(m map[string]streamtypes.AttributeValue, name string) string {
	if v, ok := m[name].(*streamtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func imageOf(m map[string]streamtypes.AttributeValue) image {
	if m == nil {
		return image{}
	}
	img := image{Present: true, Status: attrS(m, "status"), ClaimToken: attrS(m, "claimToken")}
	if v, ok := m["attempts"].(*streamtypes.AttributeValueMemberN); ok {
		img.Attempts, _ = strconv.Atoi(v.Value)
	}
	return img
}

// transitions counts a task's writes by kind: claims (a MODIFY into
// Running with a new claim token), results (a MODIFY into Finished) and
// failures (into Failed).
type transitions struct {
	Inserts, Claims, Finishes, Fails, Releases, Other int
}

func countTransitions(cs []change) transitions {
	var tr transitions
	for _, c := range cs {
		switch {
		case c.Event == "INSERT":
			tr.Inserts++
		case c.Event == "MODIFY" && c.New.Status == "Running" && c.New.ClaimToken != c.Old.ClaimToken:
			tr.Claims++
		case c.Event == "MODIFY" && c.New.Status == "Running":
			tr.Releases++
		case c.Event == "MODIFY" && c.New.Status == "Finished" && c.Old.Status != "Finished":
			tr.Finishes++
		case c.Event == "MODIFY" && c.New.Status == "Failed" && c.Old.Status != "Failed":
			tr.Fails++
		default:
			tr.Other++
		}
	}
	return tr
}

// queueMessage is one message read from a queue.
type queueMessage struct {
	ID            string
	Body          string
	Attributes    map[string]string
	ReceiptHandle string
}

// peekQueue receives up to max messages (hiding each for hide) without
// deleting them; a short hide lets the pipeline or a later read see them
// again.
func (d *deployment) peekQueue(ctx context.Context, url string, maxN int, hide time.Duration) ([]queueMessage, error) {
	var out []queueMessage
	for len(out) < maxN {
		res, err := d.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(url),
			MaxNumberOfMessages:         int32(min(10, maxN-len(out))),
			VisibilityTimeout:           int32(hide / time.Second),
			WaitTimeSeconds:             1,
			MessageAttributeNames:       []string{"All"},
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		})
		if err != nil {
			return nil, fmt.Errorf("receive from %s: %w", url, err)
		}
		if len(res.Messages) == 0 {
			break
		}
		for _, m := range res.Messages {
			msg := queueMessage{ID: aws.ToString(m.MessageId), Body: aws.ToString(m.Body), ReceiptHandle: aws.ToString(m.ReceiptHandle),
				Attributes: map[string]string{}}
			for k, v := range m.MessageAttributes {
				msg.Attributes[k] = aws.ToString(v.StringValue)
			}
			for k, v := range m.Attributes {
				msg.Attributes["sys:"+k] = v
			}
			out = append(out, msg)
		}
	}
	return out, nil
}

// deleteMessages deletes messages read with peekQueue.
func (d *deployment) deleteMessages(t *testing.T, url string, msgs []queueMessage) {
	t.Helper()
	for _, m := range msgs {
		if _, err := d.sqs.DeleteMessage(testContext(t), &sqs.DeleteMessageInput{
			QueueUrl: aws.String(url), ReceiptHandle: aws.String(m.ReceiptHandle)}); err != nil {
			t.Errorf("delete message %s from %s: %v", m.ID, url, err)
		}
	}
}

// waitAlarm waits until the alarm (by purpose, e.g. work_dlq) is in state,
// asking the target to evaluate alarms now where it can.
func (d *deployment) waitAlarm(t *testing.T, purpose string, state cwtypes.StateValue, timeout time.Duration) {
	t.Helper()
	name := d.out.Alarms[purpose]
	if name == "" {
		t.Fatalf("no alarm %q in the outputs (have %v)", purpose, d.out.Alarms)
	}
	ctx := testContext(t)
	d.waitFor(t, fmt.Sprintf("alarm %s %s", name, state), timeout, 2*time.Second, func() (bool, string, error) {
		if err := d.target.EvaluateAlarms(ctx, d); err != nil {
			return false, "", err
		}
		out, err := d.cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{name}})
		if err != nil {
			return false, "", fmt.Errorf("describe alarm %s: %w", name, err)
		}
		if len(out.MetricAlarms) != 1 {
			return false, "", fmt.Errorf("alarm %s: %d alarms described", name, len(out.MetricAlarms))
		}
		a := out.MetricAlarms[0]
		return a.StateValue == state, fmt.Sprintf("%s: %s", a.StateValue, aws.ToString(a.StateReason)), nil
	})
}

// joinLines formats changes one per line for failure messages.
func joinLines[T fmt.Stringer](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, "; ")
}
