package dynamostoretest

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
	miniserver "github.com/truora/minidyn/server"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// client returns an SDK client on a fresh minidyn, repaired or raw, with a
// table "t": key id (S), sparse index "g" on gk (S).
func client(t *testing.T, repaired bool) *dynamodb.Client {
	t.Helper()
	var hs *httptest.Server
	if repaired {
		hs = httptest.NewServer(RepairMinidyn(miniserver.NewServer()))
	} else {
		hs = httptest.NewServer(miniserver.NewServer())
	}
	t.Cleanup(hs.Close)
	c := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(hs.URL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:   aws.String("t"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("gk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("g"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("gk"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	require.NoError(t, err)
	return c
}

// TestMinidynBugs pins the two minidyn bugs that RepairMinidyn works
// around, on the raw server and through the repair. When the Raw case
// fails, minidyn has fixed them: delete RepairMinidyn and this test.
func TestMinidynBugs(t *testing.T) {
	t.Parallel()
	for _, repaired := range []bool{false, true} {
		name := map[bool]string{false: "Raw", true: "Repaired"}[repaired]
		t.Run(name+"/TopLevelRemove", func(t *testing.T) {
			t.Parallel()
			c := client(t, repaired)
			ctx := t.Context()
			key := map[string]types.AttributeValue{"id": s("1")}
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{
				"id": s("1"), "gone": s("x"), "kept": &types.AttributeValueMemberN{Value: "1"},
			}})
			require.NoError(t, err)

			// A failed condition writes nothing and returns the old item.
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String("t"), Key: key,
				UpdateExpression:                    aws.String("SET kept = :two REMOVE gone"),
				ConditionExpression:                 aws.String("kept = :two"),
				ExpressionAttributeValues:           map[string]types.AttributeValue{":two": &types.AttributeValueMemberN{Value: "2"}},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			})
			var ccf *types.ConditionalCheckFailedException
			require.ErrorAs(t, err, &ccf)
			require.Contains(t, ccf.Item, "gone")

			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String("t"), Key: key,
				UpdateExpression:          aws.String("SET kept = :two REMOVE gone"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":two": &types.AttributeValueMemberN{Value: "2"}},
				ReturnValues:              types.ReturnValueAllOld,
			})
			require.NoError(t, err)
			require.Contains(t, out.Attributes, "gone", "ALL_OLD is the item before the update")

			got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key, ConsistentRead: aws.Bool(true)})
			require.NoError(t, err)
			require.Equal(t, "2", got.Item["kept"].(*types.AttributeValueMemberN).Value, "SET applies either way")
			_, present := got.Item["gone"]
			require.Equal(t, !repaired, present, "REMOVE gone is ignored only by raw minidyn")
		})
		t.Run(name+"/IndexKeyAddedByUpdate", func(t *testing.T) {
			t.Parallel()
			c := client(t, repaired)
			ctx := t.Context()
			for _, id := range []string{"a", "b", "c"} {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"id": s(id), "gk": s("live")}})
				require.NoError(t, err)
			}
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"id": s("d")}})
			require.NoError(t, err)
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String("t"), Key: map[string]types.AttributeValue{"id": s("d")},
				UpdateExpression:          aws.String("SET gk = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("live")},
				ReturnValues:              types.ReturnValueAllNew,
			})
			require.NoError(t, err)
			require.Equal(t, map[string]types.AttributeValue{"id": s("d"), "gk": s("live")}, out.Attributes)

			q, err := c.Query(ctx, &dynamodb.QueryInput{
				TableName: aws.String("t"), IndexName: aws.String("g"),
				KeyConditionExpression:    aws.String("gk = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("live")},
			})
			require.NoError(t, err)
			if repaired {
				require.Len(t, q.Items, 4)
			} else {
				require.Less(t, len(q.Items), 4, "raw minidyn loses index entries")
			}
		})
	}
	t.Run("UnsupportedReturnValues", func(t *testing.T) {
		t.Parallel()
		c := client(t, true)
		_, err := c.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
			TableName: aws.String("t"), Key: map[string]types.AttributeValue{"id": s("x")},
			UpdateExpression:          aws.String("SET v = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("1")},
			ReturnValues:              types.ReturnValueUpdatedNew,
		})
		require.ErrorContains(t, err, "does not support ReturnValues UPDATED_NEW")
	})
}
