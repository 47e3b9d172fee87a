package stream_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/stream"
)

// FuzzStreamsAPI sends arbitrary request bodies (and shard iterators, the
// untrusted tokens clients hand back) to every operation. Each answer must
// be a well-formed JSON 1.0 response: 200, or a 4xx error with a __type.
func FuzzStreamsAPI(f *testing.F) {
	b := setup(f)
	arn := b.createTable(f, "items", "NEW_AND_OLD_IMAGES")
	_, err := b.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item: map[string]ddbtypes.AttributeValue{"id": s("a")}})
	require.NoError(f, err)
	shard := b.shardID(f, arn)
	it := b.iterator(f, arn, "TRIM_HORIZON", "")
	svc := stream.New(b.tables, stream.Options{Now: b.clock.Now})

	ops := []string{"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords", "Nope"}
	f.Add(uint8(0), `{"TableName":"items","Limit":1}`)
	f.Add(uint8(1), `{"StreamArn":"`+arn+`","ExclusiveStartShardId":"x"}`)
	f.Add(uint8(2), `{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"AT_SEQUENCE_NUMBER","SequenceNumber":"100000000000000000001"}`)
	f.Add(uint8(2), `{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"AT_TIMESTAMP","Timestamp":1e300}`)
	f.Add(uint8(3), `{"ShardIterator":"`+it+`","Limit":5}`)
	f.Add(uint8(3), `{"ShardIterator":"eyJhIjoiYXJuIiwicCI6MTg0NDY3NDQwNzM3MDk1NTE2MTV9"}`)
	f.Add(uint8(4), `{}`)
	f.Fuzz(func(t *testing.T, op uint8, body string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", stream.TargetPrefix+"."+ops[int(op)%len(ops)])
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, req)
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
