package table_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

func TestDataPlaneFidelity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	tests := []struct {
		name string
		run  func(t *testing.T, b *testBundle)
	}{
		{"EmptyListAndMapSurviveRoundTrip", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"), Item: map[string]ddbtypes.AttributeValue{
				"id": s("a"), "l": &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{}},
				"m": &ddbtypes.AttributeValueMemberM{Value: map[string]ddbtypes.AttributeValue{}},
				"f": &ddbtypes.AttributeValueMemberBOOL{Value: false},
			}})
			require.NoError(t, err)
			out, err := b.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("data"), Key: key("a")})
			require.NoError(t, err)
			require.Equal(t, &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{}}, out.Item["l"])
			require.Equal(t, &ddbtypes.AttributeValueMemberM{Value: map[string]ddbtypes.AttributeValue{}}, out.Item["m"])
			require.Equal(t, &ddbtypes.AttributeValueMemberBOOL{Value: false}, out.Item["f"])
		}},
		{"PutItemReturnsOldItemOnlyWhenAsked", func(t *testing.T, b *testBundle) {
			out, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "v": n("1")}, ReturnValues: ddbtypes.ReturnValueAllOld})
			require.NoError(t, err)
			require.Empty(t, out.Attributes, "no old item")
			out, err = b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "v": n("2")}})
			require.NoError(t, err)
			require.Empty(t, out.Attributes, "ReturnValues NONE returns nothing")
			out, err = b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "v": n("3")}, ReturnValues: ddbtypes.ReturnValueAllOld})
			require.NoError(t, err)
			require.Equal(t, n("2"), out.Attributes["v"])
		}},
		{"ConditionFailureReturnsOldItem", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"),
				Item: map[string]ddbtypes.AttributeValue{"id": s("a"), "status": s("Running")}})
			require.NoError(t, err)
			for _, call := range []func() error{
				func() error {
					_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"), Item: key("a"),
						ConditionExpression:                 aws.String("attribute_not_exists(id)"),
						ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld})
					return err
				},
				func() error {
					_, err := b.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("data"), Key: key("a"),
						UpdateExpression: aws.String("SET #s = :p"), ConditionExpression: aws.String("#s = :p"),
						ExpressionAttributeNames:            map[string]string{"#s": "status"},
						ExpressionAttributeValues:           map[string]ddbtypes.AttributeValue{":p": s("Pending")},
						ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld})
					return err
				},
				func() error {
					_, err := b.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("data"), Key: key("a"),
						ConditionExpression:                 aws.String("attribute_not_exists(id)"),
						ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld})
					return err
				},
			} {
				var ccf *ddbtypes.ConditionalCheckFailedException
				require.ErrorAs(t, call(), &ccf)
				require.Equal(t, "The conditional request failed", aws.ToString(ccf.Message))
				require.Equal(t, s("Running"), ccf.Item["status"])
			}
		}},
		{"LegacyParametersAreRejected", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"), Item: key("a"),
				Expected: map[string]ddbtypes.ExpectedAttributeValue{"id": {Exists: aws.Bool(false)}}})
			var api smithy.APIError
			require.ErrorAs(t, err, &api)
			require.Equal(t, "ValidationException", api.ErrorCode())
		}},
		{"MissingKeyAttribute", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"),
				Item: map[string]ddbtypes.AttributeValue{"other": s("x")}})
			var api smithy.APIError
			require.ErrorAs(t, err, &api)
			require.Equal(t, "ValidationException", api.ErrorCode())
			require.Equal(t, "One or more parameter values were invalid: Missing the key id in the item", api.ErrorMessage())
		}},
		{"BatchWriteRejectsDuplicateKeys", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
				"data": {{PutRequest: &ddbtypes.PutRequest{Item: key("a")}}, {DeleteRequest: &ddbtypes.DeleteRequest{Key: key("a")}}},
			}})
			var api smithy.APIError
			require.ErrorAs(t, err, &api)
			require.Equal(t, "Provided list of item keys contains duplicates", api.ErrorMessage())
		}},
		{"QueryCountAndParallelScan", func(t *testing.T, b *testBundle) {
			for _, id := range []string{"a", "b", "c"} {
				_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"), Item: key(id)})
				require.NoError(t, err)
			}
			q, err := b.ddb.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("data"), Select: ddbtypes.SelectCount,
				KeyConditionExpression: aws.String("id = :a"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":a": s("a")}})
			require.NoError(t, err)
			require.Equal(t, int32(1), q.Count)
			require.Empty(t, q.Items)
			total := 0
			for seg := int32(0); seg < 3; seg++ {
				sc, err := b.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("data"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(3)})
				require.NoError(t, err)
				total += len(sc.Items)
			}
			require.Equal(t, 3, total, "each item in exactly one segment")
		}},
		{"BatchGetAndTransactGet", func(t *testing.T, b *testBundle) {
			_, err := b.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("data"), Item: key("a")})
			require.NoError(t, err)
			bg, err := b.ddb.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]ddbtypes.KeysAndAttributes{
				"data": {Keys: []map[string]ddbtypes.AttributeValue{key("a"), key("zz")}},
			}})
			require.NoError(t, err)
			require.Len(t, bg.Responses["data"], 1)
			tg, err := b.ddb.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{TableName: aws.String("data"), Key: key("a")}},
				{Get: &ddbtypes.Get{TableName: aws.String("data"), Key: key("zz")}},
			}})
			require.NoError(t, err)
			require.Len(t, tg.Responses, 2)
			require.Equal(t, s("a"), tg.Responses[0].Item["id"])
			require.Empty(t, tg.Responses[1].Item)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.createTable(t, "data", "")
			tt.run(t, b)
		})
	}
}
