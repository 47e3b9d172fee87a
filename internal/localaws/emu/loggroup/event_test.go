package loggroup_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

func events(start time.Time, msgs ...string) []types.InputLogEvent {
	out := make([]types.InputLogEvent, len(msgs))
	for i, m := range msgs {
		out[i] = types.InputLogEvent{Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Second).UnixMilli()), Message: aws.String(m)}
	}
	return out
}

func messages(evs []types.OutputLogEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = aws.ToString(e.Message)
	}
	return out
}

func TestPutAndGetLogEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "g")
	b.createStream(t, "g", "s")
	start := b.clock.Now().Add(-time.Minute)
	_, err := b.client.PutLogEvents(b.ctx, &cloudwatchlogs.PutLogEventsInput{
		LogGroupName: aws.String("g"), LogStreamName: aws.String("s"),
		LogEvents: events(start, "one", "two", "three", "four", "five"),
	})
	require.NoError(t, err)

	t.Run("TailByDefault", func(t *testing.T) {
		t.Parallel()
		out, err := b.client.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
			LogGroupName: aws.String("g"), LogStreamName: aws.String("s"), Limit: aws.Int32(2),
		})
		require.NoError(t, err)
		require.Equal(t, []string{"four", "five"}, messages(out.Events))
		require.Equal(t, b.clock.Now().UnixMilli(), aws.ToInt64(out.Events[0].IngestionTime))

		back, err := b.client.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
			LogGroupName: aws.String("g"), LogStreamName: aws.String("s"), Limit: aws.Int32(2), NextToken: out.NextBackwardToken,
		})
		require.NoError(t, err)
		require.Equal(t, []string{"two", "three"}, messages(back.Events))
	})

	t.Run("HeadPagesForwardAndRepeatsTheTokenAtTheEnd", func(t *testing.T) {
		t.Parallel()
		var got []string
		token := (*string)(nil)
		for range 10 {
			out, err := b.client.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
				LogGroupName: aws.String("g"), LogStreamName: aws.String("s"), Limit: aws.Int32(2),
				StartFromHead: aws.Bool(true), NextToken: token,
			})
			require.NoError(t, err)
			got = append(got, messages(out.Events)...)
			if token != nil && aws.ToString(out.NextForwardToken) == *token {
				require.Empty(t, out.Events)
				break
			}
			token = out.NextForwardToken
		}
		require.Equal(t, []string{"one", "two", "three", "four", "five"}, got)
	})

	t.Run("TimeRangeStartInclusiveEndExclusive", func(t *testing.T) {
		t.Parallel()
		out, err := b.client.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
			LogGroupName: aws.String("g"), LogStreamName: aws.String("s"), StartFromHead: aws.Bool(true),
			StartTime: aws.Int64(start.Add(time.Second).UnixMilli()), EndTime: aws.Int64(start.Add(3 * time.Second).UnixMilli()),
		})
		require.NoError(t, err)
		require.Equal(t, []string{"two", "three"}, messages(out.Events))
	})

	t.Run("Paginator", func(t *testing.T) {
		t.Parallel()
		p := cloudwatchlogs.NewGetLogEventsPaginator(b.client, &cloudwatchlogs.GetLogEventsInput{
			LogGroupName: aws.String("g"), LogStreamName: aws.String("s"), StartFromHead: aws.Bool(true), Limit: aws.Int32(3),
		}, func(o *cloudwatchlogs.GetLogEventsPaginatorOptions) {
			// A stream is live, so the SDK pages forever unless told to
			// stop when the token repeats (the end of the stream).
			o.StopOnDuplicateToken = true
		})
		var got []string
		for p.HasMorePages() {
			out, err := p.NextPage(b.ctx)
			require.NoError(t, err)
			got = append(got, messages(out.Events)...)
		}
		require.Len(t, got, 5)
	})
}

func TestPutLogEventsValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "g")
	b.createStream(t, "g", "s")
	now := b.clock.Now()
	ts := func(d time.Duration) *int64 { return aws.Int64(now.Add(d).UnixMilli()) }
	tests := []struct {
		name   string
		group  string
		stream string
		events []types.InputLogEvent
		code   string
	}{
		{"OutOfOrder", "g", "s", []types.InputLogEvent{{Timestamp: ts(0), Message: aws.String("b")}, {Timestamp: ts(-time.Second), Message: aws.String("a")}}, "InvalidParameterException"},
		{"SpansMoreThan24Hours", "g", "s", []types.InputLogEvent{{Timestamp: ts(-25 * time.Hour), Message: aws.String("a")}, {Timestamp: ts(0), Message: aws.String("b")}}, "InvalidParameterException"},
		{"NoGroup", "x", "s", events(now, "a"), "ResourceNotFoundException"},
		{"NoStream", "g", "x", events(now, "a"), "ResourceNotFoundException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.client.PutLogEvents(b.ctx, &cloudwatchlogs.PutLogEventsInput{
				LogGroupName: aws.String(tt.group), LogStreamName: aws.String(tt.stream), LogEvents: tt.events,
			})
			requireAPIError(t, err, tt.code)
		})
	}
}

func TestPutLogEventsRejectsTooOldTooNewAndExpired(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "g")
	b.createStream(t, "g", "s")
	_, err := b.client.PutRetentionPolicy(b.ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String("g"), RetentionInDays: aws.Int32(1)})
	require.NoError(t, err)
	now := b.clock.Now()
	at := func(d time.Duration, m string) types.InputLogEvent {
		return types.InputLogEvent{Timestamp: aws.Int64(now.Add(d).UnixMilli()), Message: aws.String(m)}
	}
	out, err := b.client.PutLogEvents(b.ctx, &cloudwatchlogs.PutLogEventsInput{
		LogGroupName: aws.String("g"), LogStreamName: aws.String("s"),
		LogEvents: []types.InputLogEvent{
			at(-20*time.Hour, "kept-old"), // inside the 24-hour batch span and the 1-day retention
			at(0, "kept"),
			at(3*time.Hour, "too-new"),
		},
	})
	require.NoError(t, err)
	require.NotNil(t, out.RejectedLogEventsInfo)
	require.Equal(t, int32(2), aws.ToInt32(out.RejectedLogEventsInfo.TooNewLogEventStartIndex))
	require.Nil(t, out.RejectedLogEventsInfo.ExpiredLogEventEndIndex)

	out, err = b.client.PutLogEvents(b.ctx, &cloudwatchlogs.PutLogEventsInput{
		LogGroupName: aws.String("g"), LogStreamName: aws.String("s"),
		LogEvents: []types.InputLogEvent{at(-25*time.Hour, "expired"), at(-24*time.Hour-time.Minute, "expired-too"), at(-time.Hour, "fine")},
	})
	require.NoError(t, err)
	require.Equal(t, int32(1), aws.ToInt32(out.RejectedLogEventsInfo.ExpiredLogEventEndIndex))

	got, err := b.svc.Events("g", "s")
	require.NoError(t, err)
	var msgs []string
	for _, e := range got {
		msgs = append(msgs, e.Message)
	}
	require.Equal(t, []string{"kept-old", "fine", "kept"}, msgs, "stored in timestamp order")
}

func TestRetentionFollowsTheInjectedClock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := b.clock.Now()
	require.NoError(t, b.svc.Append("/aws/lambda/fn", "stream",
		loggroup.Event{Timestamp: now.Add(-time.Hour), Message: "old"},
		loggroup.Event{Timestamp: now, Message: "new"}))
	require.NoError(t, b.svc.SetRetention("/aws/lambda/fn", 1))

	b.clock.Advance(24*time.Hour - 30*time.Minute)
	got, err := b.svc.Events("/aws/lambda/fn", "stream")
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "new", got[0].Message)

	b.clock.Advance(time.Hour)
	out, err := b.client.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
		LogGroupName: aws.String("/aws/lambda/fn"), LogStreamName: aws.String("stream"),
	})
	require.NoError(t, err)
	require.Empty(t, out.Events)
	info, err := b.svc.Group("/aws/lambda/fn")
	require.NoError(t, err)
	require.Zero(t, info.StoredBytes)
}

func TestFilterLogEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := b.clock.Now()
	require.NoError(t, b.svc.Append("g", "a",
		loggroup.Event{Timestamp: now.Add(1 * time.Millisecond), Message: "START RequestId: 1"},
		loggroup.Event{Timestamp: now.Add(3 * time.Millisecond), Message: "ERROR fetch failed url=x"},
		loggroup.Event{Timestamp: now.Add(5 * time.Millisecond), Message: "REPORT RequestId: 1"}))
	require.NoError(t, b.svc.Append("g", "b",
		loggroup.Event{Timestamp: now.Add(2 * time.Millisecond), Message: "WARN slow page"},
		loggroup.Event{Timestamp: now.Add(4 * time.Millisecond), Message: "ERROR timeout url=y"}))

	tests := []struct {
		name    string
		input   cloudwatchlogs.FilterLogEventsInput
		want    []string
		wantErr string
	}{
		{"All", cloudwatchlogs.FilterLogEventsInput{}, []string{"START RequestId: 1", "WARN slow page", "ERROR fetch failed url=x", "ERROR timeout url=y", "REPORT RequestId: 1"}, ""},
		{"Term", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String("ERROR")}, []string{"ERROR fetch failed url=x", "ERROR timeout url=y"}, ""},
		{"AllTerms", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String("ERROR url=y")}, []string{"ERROR timeout url=y"}, ""},
		{"Phrase", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String(`"fetch failed"`)}, []string{"ERROR fetch failed url=x"}, ""},
		{"Any", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String("?WARN ?timeout")}, []string{"WARN slow page", "ERROR timeout url=y"}, ""},
		{"Exclude", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String("ERROR -timeout")}, []string{"ERROR fetch failed url=x"}, ""},
		{"CaseSensitive", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String("error")}, nil, ""},
		{"StreamNames", cloudwatchlogs.FilterLogEventsInput{LogStreamNames: []string{"b"}}, []string{"WARN slow page", "ERROR timeout url=y"}, ""},
		{"TimeRange", cloudwatchlogs.FilterLogEventsInput{StartTime: aws.Int64(now.Add(2 * time.Millisecond).UnixMilli()), EndTime: aws.Int64(now.Add(4 * time.Millisecond).UnixMilli())}, []string{"WARN slow page", "ERROR fetch failed url=x"}, ""},
		{"JSONPatternRefused", cloudwatchlogs.FilterLogEventsInput{FilterPattern: aws.String(`{ $.level = "ERROR" }`)}, nil, "InvalidParameterException"},
		{"UnknownStream", cloudwatchlogs.FilterLogEventsInput{LogStreamNames: []string{"zzz"}}, nil, "ResourceNotFoundException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.input
			in.LogGroupName = aws.String("g")
			out, err := b.client.FilterLogEvents(b.ctx, &in)
			if tt.wantErr != "" {
				requireAPIError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, e := range out.Events {
				got = append(got, aws.ToString(e.Message))
			}
			require.Equal(t, tt.want, got)
		})
	}

	t.Run("Pages", func(t *testing.T) {
		t.Parallel()
		p := cloudwatchlogs.NewFilterLogEventsPaginator(b.client, &cloudwatchlogs.FilterLogEventsInput{
			LogGroupName: aws.String("g"), Limit: aws.Int32(2),
		})
		var got []string
		pages := 0
		for p.HasMorePages() {
			out, err := p.NextPage(b.ctx)
			require.NoError(t, err)
			pages++
			for _, e := range out.Events {
				got = append(got, fmt.Sprintf("%s:%s", aws.ToString(e.LogStreamName), aws.ToString(e.Message)))
			}
		}
		require.Equal(t, 3, pages)
		require.Equal(t, []string{"a:START RequestId: 1", "b:WARN slow page", "a:ERROR fetch failed url=x", "b:ERROR timeout url=y", "a:REPORT RequestId: 1"}, got)
	})
}
