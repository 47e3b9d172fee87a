package table_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

var conformanceSeq atomic.Int64

// TestStoreConformance runs the task.Store conformance suite against the
// local cloud's DynamoDB, through the real SDK over HTTP and with no repair
// layer in between: the local cloud must serve the store exactly as AWS
// does, including top-level REMOVE and sparse index maintenance.
func TestStoreConformance(t *testing.T) {
	t.Parallel()
	tasktest.Run(t, func(t *testing.T) tasktest.Harness {
		t.Helper()
		router := emu.NewRouter()
		router.Handle(emu.ServiceDynamoDB, table.New(table.Options{}))
		srv := httptest.NewServer(router)
		t.Cleanup(srv.Close)
		client := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(srv.URL),
			Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		})
		ctx := context.Background()
		name := fmt.Sprintf("tasks-%d", conformanceSeq.Add(1))
		require.NoError(t, dynamostore.CreateTable(ctx, client, name, dynamostore.TableOptions{}))
		store, err := dynamostore.New(client, dynamostore.Options{Table: name})
		require.NoError(t, err)
		seed := func(ctx context.Context, tk task.Task) error {
			item, err := store.Item(tk)
			if err != nil {
				return err
			}
			_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item})
			return err
		}
		return tasktest.Harness{Store: store, Seed: seed, Get: store.Get}
	})
}
