package fault_test

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// TestUnprocessedItems leaves the chosen items of a BatchWriteItem
// unprocessed, writes the others, and keeps the SDK's view of the answer
// (UnprocessedItems by table) intact, whatever share of the batch is left.
func TestUnprocessedItems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		leave map[string]bool
	}{
		{"none", nil},
		{"some", map[string]bool{"b": true, "d": true}},
		{"all", map[string]bool{"a": true, "b": true, "c": true, "d": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCloud(t, fault.Config{}, 1)
			c.router.Use(fault.UnprocessedItems("tasks", c.router.Handler(emu.ServiceDynamoDB), func(item map[string]json.RawMessage) bool {
				var id struct{ S string }
				require.NoError(t, json.Unmarshal(item["taskId"], &id))
				return tc.leave[id.S]
			}))
			cl := ddb(c.plain, 1)
			createTasks(t, cl)

			var reqs []ddbtypes.WriteRequest
			for _, id := range []string{"a", "b", "c", "d"} {
				reqs = append(reqs, ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{
					Item: map[string]ddbtypes.AttributeValue{"taskId": s(id), "status": s("Pending")}}})
			}
			out, err := cl.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{"tasks": reqs}})
			require.NoError(t, err)

			var left []string
			for _, wr := range out.UnprocessedItems["tasks"] {
				left = append(left, wr.PutRequest.Item["taskId"].(*ddbtypes.AttributeValueMemberS).Value)
			}
			for _, id := range []string{"a", "b", "c", "d"} {
				got, err := cl.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String("tasks"),
					Key: map[string]ddbtypes.AttributeValue{"taskId": s(id)}, ConsistentRead: aws.Bool(true)})
				require.NoError(t, err)
				if tc.leave[id] {
					require.Contains(t, left, id)
					require.Empty(t, got.Item, "%s was left unprocessed but written", id)
				} else {
					require.NotContains(t, left, id)
					require.NotEmpty(t, got.Item, "%s was not written", id)
				}
			}
			require.Len(t, left, len(tc.leave))
		})
	}
}
