package dynamostore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
)

func keySchema(ks []types.KeySchemaElement) map[types.KeyType]string {
	m := map[types.KeyType]string{}
	for _, k := range ks {
		m[k.KeyType] = aws.ToString(k.AttributeName)
	}
	return m
}

func TestTableLayout(t *testing.T) {
	t.Parallel()
	// What the emulator built from TableInput, read back.
	l := dynamostoretest.NewLocal(t)
	out, err := l.Client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(l.Table)})
	require.NoError(t, err)
	require.Equal(t, map[types.KeyType]string{types.KeyTypeHash: "taskId"}, keySchema(out.Table.KeySchema))
	indexes := map[string]map[types.KeyType]string{}
	projections := map[string]string{}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		indexes[aws.ToString(g.IndexName)] = keySchema(g.KeySchema)
		projections[aws.ToString(g.IndexName)] = fmt.Sprint(g.Projection.ProjectionType, g.Projection.NonKeyAttributes)
	}
	require.Equal(t, map[string]map[types.KeyType]string{
		"live": {types.KeyTypeHash: "liveKey", types.KeyTypeRange: "liveSince"},
		"done": {types.KeyTypeHash: "doneRun", types.KeyTypeRange: "taskId"},
	}, indexes)
	// The live index carries no attribute that a claim or a release
	// changes, so those writes cost no index write.
	require.Equal(t, map[string]string{"live": "INCLUDE[runId]", "done": "ALL[]"}, projections)

	// The rest, checked on the request itself.
	in := dynamostore.TableInput("x")
	require.Equal(t, types.BillingModePayPerRequest, in.BillingMode)
	require.Equal(t, types.StreamViewTypeNewAndOldImages, in.StreamSpecification.StreamViewType)
	require.True(t, aws.ToBool(in.StreamSpecification.StreamEnabled))
	attrs := map[string]types.ScalarAttributeType{}
	for _, a := range in.AttributeDefinitions {
		attrs[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	require.Equal(t, map[string]types.ScalarAttributeType{"taskId": "S", "liveKey": "S", "liveSince": "N", "doneRun": "S"}, attrs)
}

// tableFake records CreateTable, reports CREATING twice, then ACTIVE.
type tableFake struct {
	created   *dynamodb.CreateTableInput
	describes int
	ttl       *dynamodb.UpdateTimeToLiveInput
	failTTL   error
}

func (f *tableFake) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	f.created = in
	return &dynamodb.CreateTableOutput{}, nil
}

func (f *tableFake) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	f.describes++
	status, index := types.TableStatusCreating, types.IndexStatusCreating
	if f.describes == 2 {
		status = types.TableStatusActive // table first, indexes later
	}
	if f.describes >= 3 {
		status, index = types.TableStatusActive, types.IndexStatusActive
	}
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		TableStatus:            status,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{{IndexStatus: index}},
	}}, nil
}

func (f *tableFake) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if f.describes < 3 {
		return nil, errors.New("ttl before ACTIVE")
	}
	f.ttl = in
	return &dynamodb.UpdateTimeToLiveOutput{}, f.failTTL
}

func TestCreateTableTTL(t *testing.T) {
	t.Parallel()
	f := &tableFake{}
	require.NoError(t, dynamostore.CreateTable(t.Context(), f, "tasks", dynamostore.TableOptions{TTL: true, PollInterval: time.Millisecond}))
	require.Equal(t, "tasks", aws.ToString(f.created.TableName))
	require.Equal(t, 3, f.describes)
	require.Equal(t, "expiresAt", aws.ToString(f.ttl.TimeToLiveSpecification.AttributeName))
	require.True(t, aws.ToBool(f.ttl.TimeToLiveSpecification.Enabled))

	f = &tableFake{failTTL: errors.New("denied")}
	err := dynamostore.CreateTable(t.Context(), f, "tasks", dynamostore.TableOptions{TTL: true, PollInterval: time.Millisecond})
	require.ErrorContains(t, err, "dynamostore: create table tasks: enable ttl: denied")

	f = &tableFake{}
	require.NoError(t, dynamostore.CreateTable(t.Context(), f, "tasks", dynamostore.TableOptions{}))
	require.Zero(t, f.describes, "without TTL there is nothing to wait for")
	require.Nil(t, f.ttl)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = dynamostore.CreateTable(ctx, &tableFake{}, "tasks", dynamostore.TableOptions{TTL: true, PollInterval: time.Hour})
	require.ErrorIs(t, err, context.Canceled)

	require.ErrorIs(t, dynamostore.CreateTable(t.Context(), nil, "tasks", dynamostore.TableOptions{}), dynamostore.ErrInvalidInput)
	require.ErrorIs(t, dynamostore.CreateTable(t.Context(), &tableFake{}, "", dynamostore.TableOptions{}), dynamostore.ErrInvalidInput)
	require.ErrorIs(t, dynamostore.CreateTable(t.Context(), &tableFake{}, "t", dynamostore.TableOptions{PollInterval: -1}), dynamostore.ErrInvalidInput)
}

func TestCreateTableExisting(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	err := dynamostore.CreateTable(t.Context(), l.Client, l.Table, dynamostore.TableOptions{})
	var inUse *types.ResourceInUseException
	require.ErrorAs(t, err, &inUse)
}
