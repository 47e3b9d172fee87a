package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// createIndexedTable creates a table keyed by id with a sparse GSI on
// (live S, due N), the shape of the task table's live index.
func (b *testBundle) createIndexedTable(t *testing.T, name string) {
	t.Helper()
	in := sparseTableInput(name, byLive)
	in.StreamSpecification = &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages}
	_, err := b.ddb.CreateTable(context.Background(), in)
	require.NoError(t, err)
}

func (b *testBundle) liveIDs(t *testing.T, tableName, live string) []string {
	t.Helper()
	out, err := b.ddb.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String(tableName),
		IndexName:                 aws.String("byLive"),
		KeyConditionExpression:    aws.String("live = :l"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":l": s(live)},
	})
	require.NoError(t, err)
	var ids []string
	for _, it := range out.Items {
		ids = append(ids, it["id"].(*ddbtypes.AttributeValueMemberS).Value)
	}
	return ids
}

// minidyn v0.8.2 keeps a top-level attribute that an update REMOVEs; the
// store relies on REMOVE to take terminal tasks out of its sparse index.
func TestUpdateRemoveTopLevelLeavesIndex(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"),
			Item: map[string]ddbtypes.AttributeValue{"id": s(id), "live": s("Running"), "due": n("10"), "state": s("Running")}})
		require.NoError(t, err)
	}
	out, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("tasks"),
		Key:                       key("a"),
		UpdateExpression:          aws.String("SET #st = :f REMOVE live, #d"),
		ExpressionAttributeNames:  map[string]string{"#st": "state", "#d": "due"},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":f": s("Finished")},
		ReturnValues:              ddbtypes.ReturnValueAllNew,
	})
	require.NoError(t, err)
	require.NotContains(t, out.Attributes, "live")
	require.NotContains(t, out.Attributes, "due")

	got, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tasks"), Key: key("a"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Equal(t, map[string]ddbtypes.AttributeValue{"id": s("a"), "state": s("Finished")}, got.Item)
	require.Equal(t, []string{"b"}, b.liveIDs(t, "tasks", "Running"))
}

// minidyn v0.8.2 overwrites another item's index entry when an update gives
// an item an index key it did not have.
func TestUpdateAddingIndexKeyKeepsOtherEntries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	ctx := context.Background()
	for i, id := range []string{"a", "b", "c"} {
		_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"),
			Item: map[string]ddbtypes.AttributeValue{"id": s(id), "live": s("Pending"), "due": n(string(rune('1' + i)))}})
		require.NoError(t, err)
	}
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"),
		Item: map[string]ddbtypes.AttributeValue{"id": s("d"), "state": s("Failed")}})
	require.NoError(t, err)
	_, err = b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("tasks"),
		Key:                       key("d"),
		UpdateExpression:          aws.String("SET live = :l, due = :d"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":l": s("Pending"), ":d": n("9")},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "d"}, b.liveIDs(t, "tasks", "Pending"))
}

func TestUpdateReturnValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rv   ddbtypes.ReturnValue
		want map[string]ddbtypes.AttributeValue
	}{
		{ddbtypes.ReturnValueNone, nil},
		{ddbtypes.ReturnValueAllOld, map[string]ddbtypes.AttributeValue{"id": s("a"), "x": n("1"), "y": s("keep"), "z": s("gone")}},
		{ddbtypes.ReturnValueAllNew, map[string]ddbtypes.AttributeValue{"id": s("a"), "x": n("2"), "y": s("keep")}},
		{ddbtypes.ReturnValueUpdatedOld, map[string]ddbtypes.AttributeValue{"x": n("1"), "z": s("gone")}},
		{ddbtypes.ReturnValueUpdatedNew, map[string]ddbtypes.AttributeValue{"x": n("2")}},
	}
	for _, tt := range tests {
		t.Run(string(tt.rv), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.createTable(t, "items", "")
			ctx := context.Background()
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "x": n("1"), "y": s("keep"), "z": s("gone")}})
			require.NoError(t, err)
			out, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String("items"), Key: key("a"),
				UpdateExpression:          aws.String("SET x = x + :one REMOVE z"),
				ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":one": n("1")},
				ReturnValues:              tt.rv,
			})
			require.NoError(t, err)
			if tt.want == nil {
				require.Empty(t, out.Attributes)
				return
			}
			require.Equal(t, tt.want, out.Attributes)
		})
	}
}

func TestUpdateConditionFailureChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	ctx := context.Background()
	item := map[string]ddbtypes.AttributeValue{"id": s("a"), "live": s("Running"), "due": n("5"), "state": s("Running")}
	_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: item})
	require.NoError(t, err)
	_, err = b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("tasks"), Key: key("a"),
		ConditionExpression:                 aws.String("#st = :p"),
		UpdateExpression:                    aws.String("SET #st = :f REMOVE live"),
		ExpressionAttributeNames:            map[string]string{"#st": "state"},
		ExpressionAttributeValues:           map[string]ddbtypes.AttributeValue{":p": s("Pending"), ":f": s("Finished")},
		ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *ddbtypes.ConditionalCheckFailedException
	require.True(t, errors.As(err, &ccf), "%v", err)
	require.Equal(t, item, ccf.Item)
	got, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tasks"), Key: key("a"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Equal(t, item, got.Item)
	require.Equal(t, []string{"a"}, b.liveIDs(t, "tasks", "Running"))
}

func TestTransactUpdateRemovesAndCancels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createIndexedTable(t, "tasks")
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"),
			Item: map[string]ddbtypes.AttributeValue{"id": s(id), "live": s("Running"), "due": n("1")}})
		require.NoError(t, err)
	}
	finish := func(id string) ddbtypes.TransactWriteItem {
		return ddbtypes.TransactWriteItem{Update: &ddbtypes.Update{
			TableName: aws.String("tasks"), Key: key(id),
			UpdateExpression:          aws.String("SET done = :t REMOVE live, due"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":t": &ddbtypes.AttributeValueMemberBOOL{Value: true}},
		}}
	}
	// A failing check cancels the whole transaction: nothing changes.
	_, err := b.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		finish("a"),
		{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String("tasks"), Key: key("b"),
			ConditionExpression: aws.String("attribute_not_exists(live)")}},
	}})
	var tce *ddbtypes.TransactionCanceledException
	require.True(t, errors.As(err, &tce), "%v", err)
	require.ElementsMatch(t, []string{"a", "b"}, b.liveIDs(t, "tasks", "Running"))

	_, err = b.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		finish("a"),
		{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String("tasks"), Key: key("b"),
			ConditionExpression: aws.String("attribute_exists(live)")}},
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, b.liveIDs(t, "tasks", "Running"))
	got, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tasks"), Key: key("a"), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Equal(t, map[string]ddbtypes.AttributeValue{"id": s("a"), "done": &ddbtypes.AttributeValueMemberBOOL{Value: true}}, got.Item)
}
func TestTopLevelRemoves(t *testing.T) {
	t.Parallel()
	aliases := map[string]string{"#a": "liveKey", "#b": "dueAt", "#set": "set"}
	for expr, want := range map[string][]string{
		"SET #x = :v":                                nil,
		"REMOVE #a":                                  {"liveKey"},
		"SET #x = :v REMOVE #a, #b":                  {"liveKey", "dueAt"},
		"remove #a SET #x = :remove":                 {"liveKey"},
		"REMOVE #a ADD #n :one":                      {"liveKey"},
		"REMOVE #l[0], #m.n, plain":                  {"plain"},
		"SET #set = :set REMOVE #b DELETE #s :x":     {"dueAt"},
		"SET #x = :v REMOVE #a SET #y = :w REMOVE c": {"liveKey", "c"},
	} {
		require.Equal(t, want, table.TopLevelRemoves(expr, aliases), expr)
	}
}
