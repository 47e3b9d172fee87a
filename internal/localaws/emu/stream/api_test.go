package stream_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

var shardIDRE = regexp.MustCompile(`^shardId-\d{20}-[0-9a-f]{8}$`)

func (b *testBundle) putItem(t *testing.T, table, id string) {
	t.Helper()
	_, err := b.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: key(id)})
	require.NoError(t, err)
}

func ids(recs []streamtypes.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Dynamodb.Keys["id"].(*streamtypes.AttributeValueMemberS).Value
	}
	return out
}

func TestIteratorTypes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "NEW_IMAGE")
	start := b.clock.Now()
	for _, id := range []string{"r1", "r2", "r3"} {
		b.putItem(t, "items", id)
		b.clock.Advance(10 * time.Second)
	}
	all := b.all(t, arn)
	require.Equal(t, []string{"r1", "r2", "r3"}, ids(all))
	seq2 := aws.ToString(all[1].Dynamodb.SequenceNumber)
	shard := b.shardID(t, arn)

	tests := []struct {
		name string
		in   dynamodbstreams.GetShardIteratorInput
		want []string
	}{
		{"TrimHorizon", dynamodbstreams.GetShardIteratorInput{ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon}, []string{"r1", "r2", "r3"}},
		{"Latest", dynamodbstreams.GetShardIteratorInput{ShardIteratorType: streamtypes.ShardIteratorTypeLatest}, nil},
		{"AtSequenceNumber", dynamodbstreams.GetShardIteratorInput{ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String(seq2)}, []string{"r2", "r3"}},
		{"AfterSequenceNumber", dynamodbstreams.GetShardIteratorInput{ShardIteratorType: streamtypes.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: aws.String(seq2)}, []string{"r3"}},
		{"AtTimestamp", dynamodbstreams.GetShardIteratorInput{ShardIteratorType: streamtypes.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(start.Add(5 * time.Second))}, []string{"r2", "r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.StreamArn, in.ShardId = aws.String(arn), aws.String(shard)
			out, err := b.streams.GetShardIterator(ctx, &in)
			require.NoError(t, err)
			recs, next := b.drain(t, aws.ToString(out.ShardIterator))
			require.Equal(t, tt.want, nilIfEmpty(ids(recs)))
			require.NotEmpty(t, next, "an open shard always has a next iterator")
		})
	}

	// A LATEST iterator sees the writes made after it was issued.
	latest := b.iterator(t, arn, streamtypes.ShardIteratorTypeLatest, "")
	b.putItem(t, "items", "r4")
	recs, _ := b.drain(t, latest)
	require.Equal(t, []string{"r4"}, ids(recs))
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestGetShardIteratorErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "KEYS_ONLY")
	b.putItem(t, "items", "a")
	shard := b.shardID(t, arn)
	seq := aws.ToString(b.all(t, arn)[0].Dynamodb.SequenceNumber)
	unknown := "arn:aws:dynamodb:us-east-1:000000000000:table/items/stream/2020-01-01T00:00:00.000"

	tests := []struct {
		name    string
		in      dynamodbstreams.GetShardIteratorInput
		code    string
		message string
	}{
		{"AtWithoutSequenceNumber", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber}, "ValidationException", ""},
		{"AfterWithoutSequenceNumber", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeAfterSequenceNumber}, "ValidationException", ""},
		{"LatestWithSequenceNumber", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeLatest, SequenceNumber: &seq}, "ValidationException", ""},
		{"UnknownType", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: "bulle"}, "ValidationException", ""},
		{"MalformedSequenceNumber", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("sdfsafglldfngjdafnasdflgn")}, "ValidationException", ""},
		{"SequenceNumberBeyondShard", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("100000000000099999999")}, "ValidationException", ""},
		{"TimestampInFuture", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(b.clock.Now().Add(time.Hour))}, "ValidationException", ""},
		{"UnknownShard", dynamodbstreams.GetShardIteratorInput{StreamArn: &arn, ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: streamtypes.ShardIteratorTypeLatest}, "ResourceNotFoundException", ""},
		{"MalformedStreamArn", dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String("sdfadfsddafgdafsgjnadflkgnalngalsdfnlkasnlkasdfasdfasf"), ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeLatest}, "ValidationException", ""},
		{"UnknownStream", dynamodbstreams.GetShardIteratorInput{StreamArn: &unknown, ShardId: &shard, ShardIteratorType: streamtypes.ShardIteratorTypeLatest}, "ResourceNotFoundException",
			"Requested resource not found: Stream: " + unknown + " not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.streams.GetShardIterator(ctx, &tt.in)
			var api smithy.APIError
			require.ErrorAs(t, err, &api)
			require.Equal(t, tt.code, api.ErrorCode(), api.ErrorMessage())
			if tt.message != "" {
				require.Equal(t, tt.message, api.ErrorMessage())
			}
			if tt.code == "ResourceNotFoundException" {
				require.ErrorAs(t, err, new(*streamtypes.ResourceNotFoundException))
			}
		})
	}
}

func TestGetRecordsErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ExpiredIterator", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		arn := b.createTable(t, "items", "KEYS_ONLY")
		it := b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, "")
		b.clock.Advance(14 * time.Minute)
		out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		require.NoError(t, err, "valid for 15 minutes")
		b.clock.Advance(time.Minute + time.Second)
		_, err = b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		require.ErrorAs(t, err, new(*streamtypes.ExpiredIteratorException))
		// The next iterator was issued at the read, so it is still valid.
		_, err = b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: out.NextShardIterator})
		require.NoError(t, err)
	})
	t.Run("TrimmedData", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		arn := b.createTable(t, "items", "KEYS_ONLY")
		b.putItem(t, "items", "old")
		seq := aws.ToString(b.all(t, arn)[0].Dynamodb.SequenceNumber)
		b.clock.Advance(24*time.Hour - time.Minute)
		it := b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, "")
		b.clock.Advance(2 * time.Minute)
		_, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		require.ErrorAs(t, err, new(*streamtypes.TrimmedDataAccessException))
		_, err = b.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
			ShardId: aws.String(b.shardID(t, arn)), ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String(seq)})
		require.ErrorAs(t, err, new(*streamtypes.TrimmedDataAccessException))
		recs := b.all(t, arn)
		require.Empty(t, recs, "TRIM_HORIZON starts after the trimmed record")
	})
	t.Run("Validation", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		arn := b.createTable(t, "items", "KEYS_ONLY")
		it := b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, "")
		for name, in := range map[string]*dynamodbstreams.GetRecordsInput{
			"LimitTooHigh":    {ShardIterator: aws.String(it), Limit: aws.Int32(1001)},
			"LimitZero":       {ShardIterator: aws.String(it), Limit: aws.Int32(0)},
			"GarbageIterator": {ShardIterator: aws.String("sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgasdasdgasdg")},
		} {
			_, err := b.streams.GetRecords(ctx, in)
			var api smithy.APIError
			require.ErrorAs(t, err, &api, name)
			require.Equal(t, "ValidationException", api.ErrorCode(), name)
		}
	})
}

func TestListAndDescribeStreams(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arnA := b.createTable(t, "alpha", "NEW_AND_OLD_IMAGES")
	arnB := b.createTable(t, "beta", "KEYS_ONLY")

	desc, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arnA)})
	require.NoError(t, err)
	d := desc.StreamDescription
	require.Equal(t, arnA, aws.ToString(d.StreamArn))
	require.Equal(t, streamtypes.StreamStatusEnabled, d.StreamStatus)
	require.Equal(t, streamtypes.StreamViewTypeNewAndOldImages, d.StreamViewType)
	require.Equal(t, "alpha", aws.ToString(d.TableName))
	require.Equal(t, b.clock.Now(), aws.ToTime(d.CreationRequestDateTime).UTC())
	require.Equal(t, []streamtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: streamtypes.KeyTypeHash}}, d.KeySchema)
	require.Len(t, d.Shards, 1)
	sh := d.Shards[0]
	require.Regexp(t, shardIDRE, aws.ToString(sh.ShardId))
	require.Regexp(t, sequenceRE, aws.ToString(sh.SequenceNumberRange.StartingSequenceNumber))
	require.Nil(t, sh.SequenceNumberRange.EndingSequenceNumber, "an open shard has no EndingSequenceNumber")
	require.Nil(t, d.LastEvaluatedShardId)

	after, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arnA), ExclusiveStartShardId: sh.ShardId})
	require.NoError(t, err)
	require.Empty(t, after.StreamDescription.Shards)

	// Disable alpha's stream after one write, then enable a new one.
	latest := b.iterator(t, arnA, streamtypes.ShardIteratorTypeLatest, "")
	b.putItem(t, "alpha", "x")
	_, err = b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("alpha"),
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	require.NoError(t, err)
	b.clock.Advance(time.Second)
	upd, err := b.ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("alpha"),
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewImage}})
	require.NoError(t, err)
	arnA2 := aws.ToString(upd.TableDescription.LatestStreamArn)
	require.NotEqual(t, arnA, arnA2)

	closed, err := b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arnA)})
	require.NoError(t, err)
	require.Equal(t, streamtypes.StreamStatusDisabled, closed.StreamDescription.StreamStatus)
	rng := closed.StreamDescription.Shards[0].SequenceNumberRange
	require.Regexp(t, sequenceRE, aws.ToString(rng.EndingSequenceNumber), "a closed shard has an EndingSequenceNumber")

	// The closed shard stays readable; reading to its end drops the next iterator.
	out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(latest)})
	require.NoError(t, err)
	require.Equal(t, []string{"x"}, ids(out.Records))
	require.Equal(t, aws.ToString(rng.EndingSequenceNumber), aws.ToString(out.Records[0].Dynamodb.SequenceNumber))
	require.Nil(t, out.NextShardIterator, "a closed, fully read shard has no next iterator")

	// ListStreams: all three streams, one per page; then per table.
	var listed []string
	var start *string
	for {
		page, err := b.streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(1), ExclusiveStartStreamArn: start})
		require.NoError(t, err)
		for _, st := range page.Streams {
			listed = append(listed, aws.ToString(st.StreamArn))
			require.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$`, aws.ToString(st.StreamLabel))
		}
		if page.LastEvaluatedStreamArn == nil {
			break
		}
		start = page.LastEvaluatedStreamArn
	}
	require.ElementsMatch(t, []string{arnA, arnA2, arnB}, listed)

	alpha, err := b.streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("alpha")})
	require.NoError(t, err)
	require.Len(t, alpha.Streams, 2, "a disabled stream stays listed for 24 hours")

	for name, in := range map[string]*dynamodbstreams.ListStreamsInput{
		"LimitZero":      {Limit: aws.Int32(0)},
		"LimitTooHigh":   {Limit: aws.Int32(101)},
		"MalformedStart": {ExclusiveStartStreamArn: aws.String("kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas")},
	} {
		_, err := b.streams.ListStreams(ctx, in)
		var api smithy.APIError
		require.ErrorAs(t, err, &api, name)
		require.Equal(t, "ValidationException", api.ErrorCode(), name)
	}
	_, err = b.streams.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("absent")})
	require.ErrorAs(t, err, new(*streamtypes.ResourceNotFoundException))

	// 24 hours after disabling, the old stream is gone.
	b.clock.Advance(24*time.Hour + time.Second)
	_, err = b.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arnA)})
	require.ErrorAs(t, err, new(*streamtypes.ResourceNotFoundException))
}

func TestGetRecordsPagesWithLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "KEYS_ONLY")
	for i := range 7 {
		b.putItem(t, "items", "k"+strconv.Itoa(i))
	}
	it := b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, "")
	var sizes []int
	for range 4 {
		out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(3)})
		require.NoError(t, err)
		require.NotNil(t, out.Records, "Records is present even when empty")
		sizes = append(sizes, len(out.Records))
		it = aws.ToString(out.NextShardIterator)
	}
	require.Equal(t, []int{3, 3, 1, 0}, sizes)
}
