package pipe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// A pipe from a table's stream to a queue, created and fed through the
// real AWS SDK clients, as the pipeline's Terraform and writers do.
func Example() {
	tables := table.New(table.Options{})
	queues := queue.New(queue.Options{})
	defer queues.Close()
	pipesSvc := pipe.New(pipe.Options{Tables: tables, Queues: queues})
	defer pipesSvc.Close()

	router := emu.NewRouter()
	router.Handle(emu.ServiceDynamoDB, tables)
	router.Handle(emu.ServicePipes, pipesSvc)
	srv := httptest.NewServer(router)
	defer srv.Close()

	ctx := context.Background()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	ddb := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	api := pipes.NewFromConfig(cfg, func(o *pipes.Options) { o.BaseEndpoint = aws.String(srv.URL) })

	tbl, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tasks"),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	work, err := queues.CreateQueue("work", nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := api.CreatePipe(ctx, &pipes.CreatePipeInput{
		Name:    aws.String("dispatch"),
		RoleArn: aws.String("arn:aws:iam::000000000000:role/pipe"),
		Source:  tbl.TableDescription.LatestStreamArn,
		Target:  aws.String(work.ARN),
		SourceParameters: &ptypes.PipeSourceParameters{
			DynamoDBStreamParameters: &ptypes.PipeSourceDynamoDBStreamParameters{StartingPosition: ptypes.DynamoDBStreamStartPositionLatest},
			FilterCriteria: &ptypes.FilterCriteria{Filters: []ptypes.Filter{{
				Pattern: aws.String(`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}}}}`)}}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.CurrentState)

	for _, status := range []string{"Running", "Pending"} {
		_, err = ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: map[string]ddbtypes.AttributeValue{
			"taskId": &ddbtypes.AttributeValueMemberS{Value: "t-" + status}, "status": &ddbtypes.AttributeValueMemberS{Value: status}}})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	msgs, err := queues.Receive(ctx, work.ARN, 10, 5*time.Second, time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		var rec events.DynamoDBEventRecord
		if err := json.Unmarshal([]byte(m.Body), &rec); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rec.EventName, rec.Change.Keys["taskId"].String())
	}
	// Output:
	// CREATING
	// INSERT t-Pending
}
