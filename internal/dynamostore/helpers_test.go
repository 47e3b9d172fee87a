package dynamostore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// t0 is the fixed clock of these tests.
var t0 = tasktest.T0

// faultAPI forwards to a real API and lets a test intercept calls.
type faultAPI struct {
	dynamostore.API

	mu sync.Mutex
	// err, when set, fails every call without forwarding it.
	err error
	// batchWrite, when set, replaces BatchWriteItem; n counts calls from 1.
	batchWrite func(n int, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error)
	batchCalls int
	// unprocess, when set, is how many keys of each BatchGetItem are
	// returned as UnprocessedKeys, as a throttled table returns them;
	// negative means all of them.
	unprocess int
	// beforeUpdate runs before each forwarded UpdateItem.
	beforeUpdate func(in *dynamodb.UpdateItemInput)
}

func (f *faultAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.API.GetItem(ctx, in, o...)
}

func (f *faultAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.API.Query(ctx, in, o...)
}

func (f *faultAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.beforeUpdate != nil {
		f.beforeUpdate(in)
	}
	return f.API.UpdateItem(ctx, in, o...)
}

func (f *faultAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	f.batchCalls++
	n := f.batchCalls
	f.mu.Unlock()
	if f.batchWrite != nil {
		return f.batchWrite(n, in)
	}
	return f.API.BatchWriteItem(ctx, in, o...)
}

func (f *faultAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	n := f.unprocess
	f.mu.Unlock()
	for table, ka := range in.RequestItems {
		if n < 0 {
			return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
		}
		if n == 0 || len(ka.Keys) <= n {
			break
		}
		// Ask for fewer keys and report the rest as unprocessed.
		asked := ka
		asked.Keys = ka.Keys[n:]
		out, err := f.API.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: asked}}, o...)
		if err != nil {
			return nil, err
		}
		left := ka
		left.Keys = ka.Keys[:n]
		out.UnprocessedKeys = map[string]types.KeysAndAttributes{table: left}
		return out, nil
	}
	return f.API.BatchGetItem(ctx, in, o...)
}

// newStore returns a store on l's table through api, with opts applied.
func newStore(t *testing.T, l *dynamostoretest.Local, api dynamostore.API, edit func(*dynamostore.Options)) *dynamostore.Store {
	t.Helper()
	opts := dynamostore.Options{Table: l.Table, Now: func() time.Time { return t0 }}
	if edit != nil {
		edit(&opts)
	}
	s, err := dynamostore.New(api, opts)
	require.NoError(t, err)
	return s
}

// newTasks returns n tasks of run with ids prefix-000, prefix-001, ...
func newTasks(run, prefix string, n int) []task.Task {
	out := make([]task.Task, n)
	for i := range out {
		id := prefix + "-" + pad(i)
		out[i] = task.Task{ID: id, RunID: run, URL: "https://example.com/" + id}
	}
	return out
}

func pad(i int) string {
	const digits = "0123456789"
	return string([]byte{digits[i/100%10], digits[i/10%10], digits[i%10]})
}

func ids(tasks []task.Task) []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = t.ID
	}
	return out
}

// rawItem reads the stored attribute map, bypassing the store's decoding.
func rawItem(t *testing.T, l *dynamostoretest.Local, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := l.Client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName:      aws.String(l.Table),
		Key:            map[string]types.AttributeValue{task.AttrTaskID: &types.AttributeValueMemberS{Value: id}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

func attrN(t *testing.T, item map[string]types.AttributeValue, name string) string {
	t.Helper()
	v, ok := item[name].(*types.AttributeValueMemberN)
	require.True(t, ok, "attribute %s is %T, want N", name, item[name])
	return v.Value
}

func attrS(t *testing.T, item map[string]types.AttributeValue, name string) string {
	t.Helper()
	v, ok := item[name].(*types.AttributeValueMemberS)
	require.True(t, ok, "attribute %s is %T, want S", name, item[name])
	return v.Value
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }
