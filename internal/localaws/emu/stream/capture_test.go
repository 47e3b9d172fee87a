package stream_test

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

var (
	eventIDRE  = regexp.MustCompile(`^[0-9a-f]{32}$`)
	sequenceRE = regexp.MustCompile(`^[0-9]{21,40}$`)
)

type image = map[string]streamtypes.AttributeValue

// TestViewTypesGiveAWSImages drives INSERT, MODIFY and REMOVE through each
// view type and checks the images against the table in
// docs/aws-behaviour.md §2.5 and the SizeBytes rule of §2.4.
func TestViewTypesGiveAWSImages(t *testing.T) {
	t.Parallel()
	keys := image{"id": ss("a")}
	v1 := image{"id": ss("a"), "v": sn("1")}
	v2 := image{"id": ss("a"), "v": sn("2")}
	type want struct {
		newImage, oldImage image
		size               int64
	}
	tests := []struct {
		viewType               string
		insert, modify, remove want
	}{
		{"KEYS_ONLY", want{nil, nil, 3}, want{nil, nil, 3}, want{nil, nil, 3}},
		{"NEW_IMAGE", want{v1, nil, 9}, want{v2, nil, 9}, want{nil, nil, 3}},
		{"OLD_IMAGE", want{nil, nil, 3}, want{nil, v1, 9}, want{nil, v2, 9}},
		{"NEW_AND_OLD_IMAGES", want{v1, nil, 9}, want{v2, v1, 15}, want{nil, v2, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.viewType, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			arn := b.createTable(t, "items", tt.viewType)

			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "v": n("1")}})
			require.NoError(t, err)
			_, err = b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": n("2")}})
			require.NoError(t, err)
			_, err = b.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("items"), Key: key("a")})
			require.NoError(t, err)

			recs := b.all(t, arn)
			require.Len(t, recs, 3)
			var prev *big.Int
			for i, w := range []struct {
				name streamtypes.OperationType
				want
			}{{streamtypes.OperationTypeInsert, tt.insert}, {streamtypes.OperationTypeModify, tt.modify}, {streamtypes.OperationTypeRemove, tt.remove}} {
				r := recs[i]
				require.Equal(t, w.name, r.EventName)
				require.Regexp(t, eventIDRE, aws.ToString(r.EventID))
				require.Equal(t, "1.1", aws.ToString(r.EventVersion))
				require.Equal(t, "aws:dynamodb", aws.ToString(r.EventSource))
				require.Equal(t, "us-east-1", aws.ToString(r.AwsRegion))
				require.Nil(t, r.UserIdentity, "userIdentity is only for TTL deletions")
				d := r.Dynamodb
				require.Equal(t, streamtypes.StreamViewType(tt.viewType), d.StreamViewType)
				require.Equal(t, keys, d.Keys)
				require.Equal(t, w.newImage, d.NewImage, "NewImage of %s", w.name)
				require.Equal(t, w.oldImage, d.OldImage, "OldImage of %s", w.name)
				require.Equal(t, w.size, aws.ToInt64(d.SizeBytes), "SizeBytes of %s", w.name)
				require.Equal(t, b.clock.Now(), aws.ToTime(d.ApproximateCreationDateTime).UTC())
				seq := aws.ToString(d.SequenceNumber)
				require.Regexp(t, sequenceRE, seq)
				cur, ok := new(big.Int).SetString(seq, 10)
				require.True(t, ok)
				if prev != nil {
					require.Equal(t, 1, cur.Cmp(prev), "sequence numbers increase")
				}
				prev = cur
			}
		})
	}
}

func TestWritesThatChangeNothingEmitNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "NEW_AND_OLD_IMAGES")
	item := map[string]ddbtypes.AttributeValue{
		"id": s("a"), "v": n("1"), "tags": &ddbtypes.AttributeValueMemberSS{Value: []string{"x", "y"}},
	}
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: item})
	require.NoError(t, err)

	noops := []struct {
		name string
		call func() error
	}{
		{"PutIdenticalItem", func() error {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: item})
			return err
		}},
		{"PutSameSetInOtherOrder", func() error {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: map[string]ddbtypes.AttributeValue{
				"id": s("a"), "v": n("1"), "tags": &ddbtypes.AttributeValueMemberSS{Value: []string{"y", "x"}},
			}})
			return err
		}},
		{"UpdateToSameValue", func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": n("1")}})
			return err
		}},
		{"RemoveMissingAttribute", func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression: aws.String("REMOVE notthere")})
			return err
		}},
		{"DeleteMissingItem", func() error {
			_, err := b.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("items"), Key: key("zz")})
			return err
		}},
		{"BatchPutIdenticalItem", func() error {
			_, err := b.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
				"items": {{PutRequest: &ddbtypes.PutRequest{Item: item}}, {DeleteRequest: &ddbtypes.DeleteRequest{Key: key("zz")}}},
			}})
			return err
		}},
	}
	for _, op := range noops {
		require.NoError(t, op.call(), op.name)
	}
	recs := b.all(t, arn)
	require.Len(t, recs, 1, "only the first PutItem changed anything")
	require.Equal(t, streamtypes.OperationTypeInsert, recs[0].EventName)
}

func TestFailedConditionalWritesEmitNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "NEW_AND_OLD_IMAGES")
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "status": s("Running")}})
	require.NoError(t, err)

	notPending := map[string]ddbtypes.AttributeValue{":p": s("Pending")}
	failing := []struct {
		name string
		call func() error
	}{
		{"PutItem", func() error {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: key("a"),
				ConditionExpression: aws.String("attribute_not_exists(id)")})
			return err
		}},
		{"UpdateItem", func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression: aws.String("SET claimed = :p"), ConditionExpression: aws.String("#s = :p"),
				ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: notPending})
			return err
		}},
		{"UpdateItemOfMissingItem", func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("new"),
				UpdateExpression: aws.String("SET v = :p"), ConditionExpression: aws.String("attribute_exists(id)"),
				ExpressionAttributeValues: notPending})
			return err
		}},
		{"DeleteItem", func() error {
			_, err := b.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("items"), Key: key("a"),
				ConditionExpression: aws.String("#s = :p"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues: notPending})
			return err
		}},
	}
	for _, op := range failing {
		var ccf *ddbtypes.ConditionalCheckFailedException
		require.ErrorAs(t, op.call(), &ccf, op.name)
	}
	_, err = b.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Put: &ddbtypes.Put{TableName: aws.String("items"), Item: key("b")}},
		{Update: &ddbtypes.Update{TableName: aws.String("items"), Key: key("a"), UpdateExpression: aws.String("SET v = :p"),
			ExpressionAttributeValues: notPending}},
		{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String("items"), Key: key("c"),
			ConditionExpression: aws.String("attribute_exists(id)")}},
	}})
	var tce *ddbtypes.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 3)
	require.Equal(t, "ConditionalCheckFailed", aws.ToString(tce.CancellationReasons[2].Code))

	recs := b.all(t, arn)
	require.Len(t, recs, 1, "only the initial PutItem")
	got, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"), Key: key("b")})
	require.NoError(t, err)
	require.Empty(t, got.Item, "the cancelled transaction wrote nothing")
}

func TestBatchAndTransactionEmitPerItemRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "NEW_AND_OLD_IMAGES")
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: key("a")})
	require.NoError(t, err)

	_, err = b.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
		"items": {
			{PutRequest: &ddbtypes.PutRequest{Item: key("b")}},
			{PutRequest: &ddbtypes.PutRequest{Item: key("c")}},
			{PutRequest: &ddbtypes.PutRequest{Item: key("d")}},
			{DeleteRequest: &ddbtypes.DeleteRequest{Key: key("a")}},
		},
	}})
	require.NoError(t, err)
	batch := b.all(t, arn)[1:]
	require.Equal(t, []string{"INSERT b", "INSERT c", "INSERT d", "REMOVE a"}, summarize(batch))

	_, err = b.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Put: &ddbtypes.Put{TableName: aws.String("items"), Item: key("e")}},
		{Update: &ddbtypes.Update{TableName: aws.String("items"), Key: key("b"), UpdateExpression: aws.String("SET v = :v"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": n("9")}}},
		{Delete: &ddbtypes.Delete{TableName: aws.String("items"), Key: key("c")}},
		{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String("items"), Key: key("d"), ConditionExpression: aws.String("attribute_exists(id)")}},
	}})
	require.NoError(t, err)
	tx := b.all(t, arn)[5:]
	require.Equal(t, []string{"INSERT e", "MODIFY b", "REMOVE c"}, summarize(tx))
	require.Equal(t, sn("9"), tx[1].Dynamodb.NewImage["v"])
	require.Equal(t, image{"id": ss("b")}, tx[1].Dynamodb.OldImage)
}

func summarize(recs []streamtypes.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = fmt.Sprintf("%s %s", r.EventName, r.Dynamodb.Keys["id"].(*streamtypes.AttributeValueMemberS).Value)
	}
	return out
}

// TestConcurrentWritesKeepPerKeyOrder: 10,000 UpdateItem calls (2,000
// under -race) over 100 keys from 8 goroutines; each update increments a per-key counter, so the
// counters in each key's NewImages must read 1, 2, 3, ... in stream order.
func TestConcurrentWritesKeepPerKeyOrder(t *testing.T) {
	t.Parallel()
	const (
		writers = 8
		keys    = 100
	)
	total := 10000
	if raceEnabled {
		total = 2000 // same interleavings per key, fewer rounds
	}
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "counters", "NEW_AND_OLD_IMAGES")

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < total; i += writers {
				_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("counters"), Key: key("k" + strconv.Itoa(i%keys)),
					UpdateExpression:          aws.String("SET c = if_not_exists(c, :zero) + :one"),
					ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":zero": n("0"), ":one": n("1")},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	var recs []streamtypes.Record
	it := b.iterator(t, arn, streamtypes.ShardIteratorTypeTrimHorizon, "")
	for {
		out, err := b.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(1000)})
		require.NoError(t, err, "after %d records", len(recs))
		require.LessOrEqual(t, len(out.Records), 1000)
		if len(out.Records) == 0 {
			break
		}
		recs = append(recs, out.Records...)
		it = aws.ToString(out.NextShardIterator)
	}
	require.Len(t, recs, total)

	next := map[string]int{}
	seqs := make([]string, len(recs))
	for i, r := range recs {
		id := r.Dynamodb.Keys["id"].(*streamtypes.AttributeValueMemberS).Value
		c, err := strconv.Atoi(r.Dynamodb.NewImage["c"].(*streamtypes.AttributeValueMemberN).Value)
		require.NoError(t, err)
		next[id]++
		require.Equal(t, next[id], c, "record %d of key %s out of order", i, id)
		if c == 1 {
			require.Equal(t, streamtypes.OperationTypeInsert, r.EventName)
		} else {
			require.Equal(t, strconv.Itoa(c-1), r.Dynamodb.OldImage["c"].(*streamtypes.AttributeValueMemberN).Value)
		}
		seqs[i] = aws.ToString(r.Dynamodb.SequenceNumber)
	}
	require.Len(t, next, keys)
	for id, c := range next {
		require.Equal(t, total/keys, c, id)
	}
	require.True(t, sort.StringsAreSorted(seqs), "equal-length sequence numbers sort as numbers")
}

// TestFailedWritesLeaveNoTrace: on AWS a failed request changes nothing.
// minidyn can apply part of a request before failing (a batch, up to the
// request it rejects), so the emulator undoes partial changes and emits no
// record; it also validates what minidyn lets through (empty sets) and
// turns minidyn's interpreter panics into ValidationExceptions.
func TestFailedWritesLeaveNoTrace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	arn := b.createTable(t, "items", "NEW_AND_OLD_IMAGES")
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "v": n("1")}})
	require.NoError(t, err)

	failing := map[string]func() error{
		"BatchWithEmptySet": func() error {
			_, err := b.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
				"items": {
					{PutRequest: &ddbtypes.PutRequest{Item: key("b")}},
					{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": s("c"), "empty": &ddbtypes.AttributeValueMemberSS{Value: []string{}}}}},
				},
			}})
			return err
		},
		"BatchWithDuplicateSetMembers": func() error {
			// minidyn checks this per request, after applying the ones before.
			_, err := b.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
				"items": {
					{PutRequest: &ddbtypes.PutRequest{Item: key("b")}},
					{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"id": s("c"), "dup": &ddbtypes.AttributeValueMemberSS{Value: []string{"x", "x"}}}}},
				},
			}})
			return err
		},
		"UpdateExpressionMinidynCannotEvaluate": func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression:          aws.String("SET v = :two, w = if_not_exists()"),
				ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":two": n("2")}})
			return err
		},
		"UpdateWithEmptySetValue": func() error {
			_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("items"), Key: key("a"),
				UpdateExpression:          aws.String("SET v = :e"),
				ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":e": &ddbtypes.AttributeValueMemberNS{Value: []string{}}}})
			return err
		},
	}
	for name, call := range failing {
		var api smithy.APIError
		require.ErrorAs(t, call(), &api, name)
		require.Equal(t, "ValidationException", api.ErrorCode(), "%s: %s", name, api.ErrorMessage())
	}

	for id, want := range map[string]map[string]ddbtypes.AttributeValue{
		"a": {"id": s("a"), "v": n("1")},
		"b": nil,
		"c": nil,
	} {
		got, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"), Key: key(id)})
		require.NoError(t, err)
		if want == nil {
			require.Empty(t, got.Item, id)
		} else {
			require.Equal(t, want, got.Item, id)
		}
	}
	require.Len(t, b.all(t, arn), 1, "only the initial PutItem")
}
