package table_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// FuzzDynamoDBAPI sends arbitrary request bodies to the DynamoDB API, on a
// table with a stream, so every accepted write also runs stream capture.
// Each answer must be a well-formed JSON 1.0 response: 200, or a 4xx error
// with a __type (never a 500: minidyn panics would surface as one).
func FuzzDynamoDBAPI(f *testing.F) {
	tables := table.New(table.Options{})
	create := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"items","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`))
	create.Header.Set("X-Amz-Target", table.TargetPrefix+".CreateTable")
	rec := httptest.NewRecorder()
	tables.ServeHTTP(rec, create)
	require.Equal(f, http.StatusOK, rec.Code, rec.Body.String())

	f.Add("PutItem", `{"TableName":"items","Item":{"id":{"S":"a"},"l":{"L":[]}}}`)
	f.Add("UpdateItem", `{"TableName":"items","Key":{"id":{"S":"a"}},"UpdateExpression":"SET c = if_not_exists(c, :z) + :o","ExpressionAttributeValues":{":z":{"N":"0"},":o":{"N":"1"}}}`)
	f.Add("UpdateItem", `{"TableName":"items","Key":{"id":{"S":"a"}},"UpdateExpression":"REMOVE","ConditionExpression":"attribute_exists(("}`)
	f.Add("DeleteItem", `{"TableName":"items","Key":{"id":{"S":"a"}},"ConditionExpression":"attribute_exists(id)"}`)
	f.Add("BatchWriteItem", `{"RequestItems":{"items":[{"PutRequest":{"Item":{"id":{"S":"b"}}}},{"DeleteRequest":{"Key":{"id":{"S":"a"}}}}]}}`)
	f.Add("TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"items","Item":{"id":{"S":"c"}}}},{"ConditionCheck":{"TableName":"items","Key":{"id":{"S":"b"}},"ConditionExpression":"attribute_exists(id)"}}]}`)
	f.Add("Query", `{"TableName":"items","KeyConditionExpression":"id = :a","ExpressionAttributeValues":{":a":{"S":"a"}}}`)
	f.Add("Scan", `{"TableName":"items","Segment":1,"TotalSegments":2}`)
	f.Add("UpdateTable", `{"TableName":"items","StreamSpecification":{"StreamEnabled":false}}`)
	f.Add("TagResource", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/items","Tags":[{"Key":"k","Value":"v"}]}`)
	f.Fuzz(func(t *testing.T, op, body string) {
		if op == "DeleteTable" || op == "CreateTable" {
			op = "DescribeTable" // keep the fixture table
		}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", table.TargetPrefix+"."+op)
		rec := httptest.NewRecorder()
		tables.ServeHTTP(rec, req)
		checkResponse(t, rec)
	})
}

func checkResponse(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	raw, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	require.True(t, json.Valid(raw), "invalid JSON %q", raw)
	switch rec.Code {
	case http.StatusOK:
	case http.StatusBadRequest:
		var e struct {
			Type string `json:"__type"`
		}
		require.NoError(t, json.Unmarshal(raw, &e))
		require.NotEmpty(t, e.Type)
	default:
		t.Fatalf("status %d: %s", rec.Code, raw)
	}
}
