package sqsqueue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/message"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

func messages(n int) []message.Message {
	out := make([]message.Message, n)
	for i := range out {
		out[i] = message.Message{Version: message.Version, TaskID: fmt.Sprintf("t%02d", i), RunID: "r"}
	}
	return out
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%02d", i)
	}
	return out
}

func TestDispatcherSend(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		n           int
		setup       func(f *fakeSQS, msgs []message.Message)
		wantSizes   []int
		wantUnsent  []string
		wantErr     string
		wantSentLen int
	}{
		{
			name:        "ChunksOfTen",
			n:           25,
			wantSizes:   []int{10, 10, 5},
			wantSentLen: 25,
		},
		{
			name:        "Empty",
			n:           0,
			wantSentLen: 0,
		},
		{
			name:        "TransientEntryFailuresAreRetried",
			n:           12,
			setup:       func(f *fakeSQS, _ []message.Message) { f.transient = map[string]int{"t01": 1, "t11": 2} },
			wantSizes:   []int{10, 1, 2, 1, 1},
			wantSentLen: 12,
		},
		{
			name:        "TransientBeyondAttemptsIsNamed",
			n:           3,
			setup:       func(f *fakeSQS, _ []message.Message) { f.transient = map[string]int{"t02": 5} },
			wantSizes:   []int{3, 1, 1},
			wantUnsent:  []string{"t02"},
			wantErr:     `task "t02": InternalError: try again`,
			wantSentLen: 2,
		},
		{
			name:        "SenderFaultIsNotRetried",
			n:           3,
			setup:       func(f *fakeSQS, _ []message.Message) { f.senderFault = map[string]bool{"t00": true} },
			wantSizes:   []int{3},
			wantUnsent:  []string{"t00"},
			wantErr:     `task "t00": InvalidParameterValue: bad`,
			wantSentLen: 2,
		},
		{
			name:        "EntryMissingFromResponseIsRetried",
			n:           2,
			setup:       func(f *fakeSQS, _ []message.Message) { f.omit = map[string]int{"t01": 1} },
			wantSizes:   []int{2, 1},
			wantSentLen: 2,
		},
		{
			name: "CallErrorFailsOnlyItsChunk",
			n:    15,
			setup: func(f *fakeSQS, _ []message.Message) {
				f.callErr, f.callErrCalls = errors.New("throttled"), 1
			},
			wantSizes:   []int{10, 5},
			wantUnsent:  ids(10),
			wantErr:     "throttled",
			wantSentLen: 5,
		},
		{
			name:        "InvalidMessageIsNamedOthersSent",
			n:           3,
			setup:       func(_ *fakeSQS, msgs []message.Message) { msgs[1].TaskID = "" },
			wantSizes:   []int{2},
			wantUnsent:  []string{""},
			wantErr:     "empty taskId",
			wantSentLen: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeSQS{}
			msgs := messages(tt.n)
			if tt.setup != nil {
				tt.setup(f, msgs)
			}
			var slept []time.Duration
			d := &sqsqueue.Dispatcher{Client: f, QueueURL: "https://sqs.local/q",
				SleepFunc: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}

			err := d.Send(context.Background(), msgs)

			require.Equal(t, tt.wantSizes, f.batchSizes)
			require.Len(t, f.sent, tt.wantSentLen)
			for _, s := range f.sent {
				require.Equal(t, "https://sqs.local/q", s.QueueURL)
				m, perr := message.Parse([]byte(s.Body))
				require.NoError(t, perr, "every sent body is a valid message")
				require.Equal(t, "r", m.RunID)
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			var se *sqsqueue.SendError
			require.ErrorAs(t, err, &se)
			require.ElementsMatch(t, tt.wantUnsent, se.Unsent)
			require.Equal(t, tt.n, se.Total)
			require.ErrorContains(t, err, tt.wantErr)
			sent := map[string]bool{}
			for _, id := range f.sentTaskIDs() {
				sent[id] = true
			}
			for _, id := range se.Unsent {
				require.False(t, sent[id], "task %s reported unsent but was sent", id)
			}
		})
	}
}

func TestDispatcherBackoffGrows(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{transient: map[string]int{"t00": 2}}
	var slept []time.Duration
	d := &sqsqueue.Dispatcher{Client: f, QueueURL: "q", Backoff: time.Second,
		SleepFunc: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	require.NoError(t, d.Send(context.Background(), messages(1)))
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second}, slept)
}

func TestDispatcherStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{transient: map[string]int{"t00": 1}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &sqsqueue.Dispatcher{Client: f, QueueURL: "q"}
	err := d.Send(ctx, messages(2))
	var se *sqsqueue.SendError
	require.ErrorAs(t, err, &se)
	require.Equal(t, []string{"t00"}, se.Unsent)
	require.ErrorIs(t, err, context.Canceled)
}

func TestSendErrorMessageIsBounded(t *testing.T) {
	t.Parallel()
	e := &sqsqueue.SendError{Unsent: ids(25), Total: 30, Err: errors.New("boom")}
	require.Equal(t, "sqsqueue: send: 25 of 30 messages not sent (tasks t00, t01, t02, t03, t04, t05, t06, t07, t08, t09 and 15 more): boom", e.Error())
}

func TestForwarderForward(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		poison    sqsqueue.Poison
		wantBody  string
		wantAttrs map[string]string
	}{
		{
			name: "AllAttributes",
			poison: sqsqueue.Poison{Body: `{"taskId":`, Reason: "poison: message: parse: unexpected end of JSON input",
				SourceMessageID: "m-1", SourceQueueARN: "arn:aws:sqs:eu-west-1:000000000000:work", ReceiveCount: 2},
			wantBody: `{"taskId":`,
			wantAttrs: map[string]string{
				"reason": "poison: message: parse: unexpected end of JSON input", "sourceMessageId": "m-1",
				"sourceQueueArn": "arn:aws:sqs:eu-west-1:000000000000:work", "receiveCount": "2",
			},
		},
		{
			name:      "EmptyValuesLeftOut",
			poison:    sqsqueue.Poison{Body: "x", Reason: "task not found"},
			wantBody:  "x",
			wantAttrs: map[string]string{"reason": "task not found"},
		},
		{
			name:      "EmptyBodyStillForwarded",
			poison:    sqsqueue.Poison{Reason: "r"},
			wantBody:  "(empty body)",
			wantAttrs: map[string]string{"reason": "r"},
		},
		{
			name:      "InvalidCharactersReplaced",
			poison:    sqsqueue.Poison{Body: "a\x00b\xffc", Reason: "r\x01"},
			wantBody:  "a\uFFFDb\uFFFDc",
			wantAttrs: map[string]string{"reason": "r\uFFFD"},
		},
		{
			name:      "LongReasonTruncated",
			poison:    sqsqueue.Poison{Body: "b", Reason: strings.Repeat("é", 600)},
			wantBody:  "b",
			wantAttrs: map[string]string{"reason": strings.Repeat("é", 512)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeSQS{}
			fw := &sqsqueue.Forwarder{Client: f, QueueURL: "https://sqs.local/dlq"}
			require.NoError(t, fw.Forward(context.Background(), tt.poison))
			require.Len(t, f.sent, 1)
			got := f.sent[0]
			require.Equal(t, "https://sqs.local/dlq", got.QueueURL)
			require.Equal(t, tt.wantBody, got.Body)
			attrs := map[string]string{}
			for k, v := range got.Attrs {
				attrs[k] = aws.ToString(v.StringValue)
				want := "String"
				if k == sqsqueue.AttrReceiveCount {
					want = "Number"
				}
				require.Equal(t, want, aws.ToString(v.DataType), k)
			}
			require.Equal(t, tt.wantAttrs, attrs)
		})
	}
}

func TestForwarderError(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{callErr: errors.New("access denied"), callErrCalls: 1}
	err := (&sqsqueue.Forwarder{Client: f, QueueURL: "q"}).Forward(context.Background(), sqsqueue.Poison{Body: "b", SourceMessageID: "m-9"})
	require.ErrorContains(t, err, "forward message m-9 to DLQ: access denied")
	require.Empty(t, f.sent)
}

func TestVisibilityChange(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in   time.Duration
		want int32
	}{
		{0, 0},
		{-time.Second, 0},
		{1500 * time.Millisecond, 2},
		{30 * time.Second, 30},
		{24 * time.Hour, 43200},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			t.Parallel()
			f := &fakeSQS{}
			v := &sqsqueue.Visibility{Client: f, QueueURL: "https://sqs.local/work"}
			require.NoError(t, v.Change(context.Background(), "rh-1", tt.in))
			require.Len(t, f.visibility, 1)
			require.Equal(t, tt.want, f.visibility[0].VisibilityTimeout)
			require.Equal(t, "rh-1", aws.ToString(f.visibility[0].ReceiptHandle))
			require.Equal(t, "https://sqs.local/work", aws.ToString(f.visibility[0].QueueUrl))
		})
	}

	f := &fakeSQS{callErr: errors.New("receipt handle expired"), callErrCalls: 1}
	err := (&sqsqueue.Visibility{Client: f, QueueURL: "q"}).Change(context.Background(), "rh", time.Minute)
	require.ErrorContains(t, err, "change visibility to 60s: receipt handle expired")
}
