package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// TableInput returns the CreateTable request for a task table named name:
// on-demand billing, a NEW_AND_OLD_IMAGES stream (the Pipe's source), key
// taskId, and the live (projecting runId) and done (projecting ALL) global
// secondary indexes. Terraform's task-table module must create the same layout; the
// package documentation is the reference. TTL is not part of CreateTable
// in the DynamoDB API; see CreateTable.
func TableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(task.AttrTaskID), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(AttrLiveKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(AttrLiveSince), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String(AttrDoneRun), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(task.AttrTaskID), KeyType: types.KeyTypeHash},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{
				IndexName: aws.String(IndexLive),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String(AttrLiveKey), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String(AttrLiveSince), KeyType: types.KeyTypeRange},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{task.AttrRunID}},
			},
			{
				IndexName: aws.String(IndexDone),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String(AttrDoneRun), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String(task.AttrTaskID), KeyType: types.KeyTypeRange},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			},
		},
		StreamSpecification: &types.StreamSpecification{
			StreamEnabled:  aws.Bool(true),
			StreamViewType: types.StreamViewTypeNewAndOldImages,
		},
	}
}

// TableOptions configure CreateTable.
type TableOptions struct {
	// TTL enables time to live on AttrExpiresAt, for stores with
	// Options.ResultTTL set. AWS accepts UpdateTimeToLive only on an ACTIVE
	// table, so CreateTable then waits for the table to become ACTIVE.
	TTL bool
	// PollInterval is the wait between DescribeTable calls; 0 means 2s.
	PollInterval time.Duration
}

// CreateTable creates the task table (see TableInput) and, with opts.TTL,
// enables TTL on expiresAt. It is meant for tests and local use; deployed
// tables come from Terraform. Without TTL it returns as soon as the request
// is accepted: against AWS, wait with dynamodb.NewTableExistsWaiter before
// use.
func CreateTable(ctx context.Context, api TableAPI, name string, opts TableOptions) error {
	if api == nil || name == "" {
		return fmt.Errorf("dynamostore: create table %q: %w: need an API and a name", name, ErrInvalidInput)
	}
	if opts.PollInterval < 0 {
		return fmt.Errorf("dynamostore: create table %s: %w: negative poll interval", name, ErrInvalidInput)
	}
	if _, err := api.CreateTable(ctx, TableInput(name)); err != nil {
		return fmt.Errorf("dynamostore: create table %s: %w", name, err)
	}
	if !opts.TTL {
		return nil
	}
	poll := opts.PollInterval
	if poll == 0 {
		poll = 2 * time.Second
	}
	if err := waitActive(ctx, api, name, poll); err != nil {
		return fmt.Errorf("dynamostore: create table %s: %w", name, err)
	}
	_, err := api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(AttrExpiresAt),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("dynamostore: create table %s: enable ttl: %w", name, err)
	}
	return nil
}

// waitActive polls until the table and its indexes are ACTIVE.
func waitActive(ctx context.Context, api TableAPI, name string, poll time.Duration) error {
	for {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("describe: %w", err)
		}
		if out.Table == nil {
			return errors.New("describe: no table description")
		}
		if active(out.Table) {
			return nil
		}
		if err := sleepCtx(ctx, poll); err != nil {
			return fmt.Errorf("wait for ACTIVE (status %s): %w", out.Table.TableStatus, err)
		}
	}
}

func active(t *types.TableDescription) bool {
	if t.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range t.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}
