package table_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// streamBundle is a table with a NEW_AND_OLD_IMAGES stream.
func streamBundle(t *testing.T) (*testBundle, *table.Stream) {
	t.Helper()
	b := setup(t)
	out := b.createTable(t, "events", table.ViewNewAndOldImage)
	st, err := b.svc.Stream(aws.ToString(out.TableDescription.LatestStreamArn))
	require.NoError(t, err)
	return b, st
}

func (b *testBundle) put(t *testing.T, id string, v int) {
	t.Helper()
	_, err := b.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("events"),
		Item: map[string]ddbtypes.AttributeValue{"id": s(id), "v": n(strconv.Itoa(v))}})
	require.NoError(t, err)
}

func TestStreamWaitWakesOnWrite(t *testing.T) {
	t.Parallel()
	b, st := streamBundle(t)
	start := st.Latest()

	// Two independent readers wait at the same position.
	woke := make(chan error, 2)
	for range 2 {
		go func() { woke <- st.Wait(context.Background(), start) }()
	}
	select {
	case <-woke:
		t.Fatal("Wait returned before any record existed")
	case <-time.After(20 * time.Millisecond):
	}
	b.put(t, "a", 1)
	for range 2 {
		require.NoError(t, <-woke)
	}
	for range 2 {
		res, err := st.Read(start, 0)
		require.NoError(t, err)
		require.Len(t, res.Records, 1, "reads are not destructive")
		require.False(t, res.End)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, st.Wait(ctx, st.Latest()), context.Canceled)
}

func TestStreamChangedChannel(t *testing.T) {
	t.Parallel()
	b, st := streamBundle(t)
	ch := st.Changed()
	b.put(t, "a", 1)
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("Changed was not closed by an append")
	}
}

func TestStreamPositions(t *testing.T) {
	t.Parallel()
	b, st := streamBundle(t)
	for i := 1; i <= 5; i++ {
		b.put(t, "k", i)
		b.clock.Advance(time.Second)
	}
	all, err := st.Read(st.TrimHorizon(), 0)
	require.NoError(t, err)
	require.Len(t, all.Records, 5)
	third := all.Records[2].DynamoDB.SequenceNumber

	at, err := st.AtSequenceNumber(third)
	require.NoError(t, err)
	res, err := st.Read(at, 1)
	require.NoError(t, err)
	require.Equal(t, third, res.Records[0].DynamoDB.SequenceNumber)
	require.Equal(t, at+1, res.Next)

	after, err := st.AfterSequenceNumber(third)
	require.NoError(t, err)
	require.Equal(t, at+1, after)

	start, err := st.AtSequenceNumber(st.Info().StartingSequenceNumber)
	require.NoError(t, err)
	require.Equal(t, st.TrimHorizon(), start, "AT the shard's starting sequence number reads everything")

	require.Equal(t, at, st.AtTime(all.Records[2].CapturedAt()))
	require.Equal(t, st.Latest(), st.AtTime(b.clock.Now().Add(time.Hour)))

	for _, bad := range []string{"", "12", "abc", "200000000000000000001", "100000000000000009999"} {
		_, err := st.AtSequenceNumber(bad)
		require.ErrorIs(t, err, table.ErrSequenceNumber, bad)
	}
	_, err = st.Read(st.Latest()+1, 0)
	require.ErrorIs(t, err, table.ErrCursor)
}

func TestStreamTrimsAfter24Hours(t *testing.T) {
	t.Parallel()
	b, st := streamBundle(t)
	b.put(t, "old", 1)
	oldStart := st.TrimHorizon()
	first, err := st.Read(oldStart, 0)
	require.NoError(t, err)
	oldSeq := first.Records[0].DynamoDB.SequenceNumber

	b.clock.Advance(23 * time.Hour)
	b.put(t, "new", 1)
	b.clock.Advance(time.Hour + time.Second)

	_, err = st.Read(oldStart, 0)
	require.ErrorIs(t, err, table.ErrTrimmed)
	_, err = st.AtSequenceNumber(oldSeq)
	require.ErrorIs(t, err, table.ErrTrimmed)
	after, err := st.AfterSequenceNumber(oldSeq)
	require.NoError(t, err, "after the last trimmed record nothing is lost")

	res, err := st.Read(st.TrimHorizon(), 0)
	require.NoError(t, err)
	require.Len(t, res.Records, 1)
	require.Equal(t, st.TrimHorizon(), after)
	require.JSONEq(t, `{"id":{"S":"new"}}`, string(res.Records[0].DynamoDB.Keys))
}

// TestRecordDecodesAsLambdaEvent pins the record shape to aws-lambda-go's
// events.DynamoDBEventRecord, which Lambda and Pipe targets decode.
func TestRecordDecodesAsLambdaEvent(t *testing.T) {
	t.Parallel()
	b, st := streamBundle(t)
	b.put(t, "a", 1)
	b.put(t, "a", 2)
	res, err := st.Read(st.TrimHorizon(), 0)
	require.NoError(t, err)
	js, err := json.Marshal(res.Records[1])
	require.NoError(t, err)

	var ev events.DynamoDBEventRecord
	require.NoError(t, json.Unmarshal(js, &ev))
	require.Equal(t, "MODIFY", ev.EventName)
	require.Equal(t, "aws:dynamodb", ev.EventSource)
	require.Equal(t, "1.1", ev.EventVersion)
	require.Equal(t, "us-east-1", ev.AWSRegion)
	require.Equal(t, "1", ev.Change.OldImage["v"].Number())
	require.Equal(t, "2", ev.Change.NewImage["v"].Number())
	require.Equal(t, "a", ev.Change.Keys["id"].String())
	require.Equal(t, b.clock.Now().Unix(), ev.Change.ApproximateCreationDateTime.Unix())
	require.Equal(t, "NEW_AND_OLD_IMAGES", ev.Change.StreamViewType)
	require.Equal(t, res.Records[1].DynamoDB.SequenceNumber, ev.Change.SequenceNumber)
}
