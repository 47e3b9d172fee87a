package stream_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/stream"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type testBundle struct {
	clock   *clock
	tables  *table.Service
	ddb     *dynamodb.Client
	streams *dynamodbstreams.Client
	url     string
}

// setup serves DynamoDB and DynamoDB Streams through one emu.Router, as the
// local cloud does, and returns the real SDK clients pointed at it.
func setup(t testing.TB) *testBundle {
	t.Helper()
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	tables := table.New(table.Options{Now: clk.Now})
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceDynamoDB, tables)
	rt.Handle(emu.ServiceStreams, stream.New(tables, stream.Options{Now: clk.Now}))
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
		// No retries for writes: a retried write would hide a wrong answer.
		Retryer: func() aws.Retryer { return aws.NopRetryer{} },
	}
	return &testBundle{
		clock:  clk,
		tables: tables,
		ddb:    dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) }),
		streams: dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
			o.BaseEndpoint = aws.String(srv.URL)
			// The SDK's standard retryer, unlike NopRetryer, retries the
			// client-side "use of closed network connection" race that can
			// cut large responses (aws/aws-sdk-go-v2#2737, fixed by retrying
			// in #2949). GetRecords is safe to retry: iterators are reusable.
			o.Retryer = retry.NewStandard()
		}),
		url: srv.URL,
	}
}

// createTable creates a table keyed by "id" (S) with a stream of viewType
// and returns the stream ARN.
func (b *testBundle) createTable(t testing.TB, name, viewType string) string {
	t.Helper()
	out, err := b.ddb.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewType(viewType)},
	})
	require.NoError(t, err)
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

// shardID returns the only shard of a stream.
func (b *testBundle) shardID(t testing.TB, arn string) string {
	t.Helper()
	out, err := b.streams.DescribeStream(context.Background(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	require.NoError(t, err)
	require.Len(t, out.StreamDescription.Shards, 1)
	return aws.ToString(out.StreamDescription.Shards[0].ShardId)
}

// iterator returns a shard iterator of the given type.
func (b *testBundle) iterator(t testing.TB, arn string, typ streamtypes.ShardIteratorType, seq string) string {
	t.Helper()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(b.shardID(t, arn)), ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := b.streams.GetShardIterator(context.Background(), in)
	require.NoError(t, err)
	return aws.ToString(out.ShardIterator)
}

// drain reads from it until a read returns no records, following
// NextShardIterator, and returns the records and the last iterator.
func (b *testBundle) drain(t testing.TB, it string) ([]streamtypes.Record, string) {
	t.Helper()
	var recs []streamtypes.Record
	for it != "" {
		out, err := b.streams.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it)})
		require.NoError(t, err)
		recs = append(recs, out.Records...)
		next := aws.ToString(out.NextShardIterator)
		if len(out.Records) == 0 {
			return recs, next
		}
		it = next
	}
	return recs, ""
}

// all returns every record of the stream from TRIM_HORIZON.
func (b *testBundle) all(t testing.TB, arn string) []streamtypes.Record {
	t.Helper()
	recs, _ := b.drain(t, b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, ""))
	return recs
}

func s(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }
func n(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberN{Value: v} }
func key(id string) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{"id": s(id)}
}

func ss(v string) streamtypes.AttributeValue { return &streamtypes.AttributeValueMemberS{Value: v} }
func sn(v string) streamtypes.AttributeValue { return &streamtypes.AttributeValueMemberN{Value: v} }
