package cli

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

// SQSAPI is the subset of *sqs.Client the commands call.
type SQSAPI interface {
	sqsqueue.API
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, opts ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, opts ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
}

// StreamsAPI is the subset of *dynamodbstreams.Client the commands call.
type StreamsAPI interface {
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var (
	_ SQSAPI     = (*sqs.Client)(nil)
	_ StreamsAPI = (*dynamodbstreams.Client)(nil)
)

// clients are the SDK clients of one command run.
type clients struct {
	ddb     *dynamodb.Client
	sqs     *sqs.Client
	streams *dynamodbstreams.Client
	s3      *s3.Client
}

func (e *Env) clients(ctx context.Context) (*clients, error) {
	if e.LoadAWS == nil {
		return nil, fmt.Errorf("aws config: no loader")
	}
	cfg, err := e.LoadAWS(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	return &clients{
		ddb:     dynamodb.NewFromConfig(cfg),
		sqs:     sqs.NewFromConfig(cfg),
		streams: dynamodbstreams.NewFromConfig(cfg),
		s3:      s3.NewFromConfig(cfg),
	}, nil
}

// store opens the task table.
func (e *Env) store(ctx context.Context, r *resources, c *clients) (*dynamostore.Store, error) {
	table, err := r.get(ctx, r.table)
	if err != nil {
		return nil, err
	}
	shards, err := r.liveShards(ctx)
	if err != nil {
		return nil, err
	}
	s, err := dynamostore.New(c.ddb, dynamostore.Options{Table: table, LiveShards: shards, Now: e.now})
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", table, err)
	}
	return s, nil
}
