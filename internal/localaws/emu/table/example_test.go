package table_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// An in-process reader (such as the Pipe runtime) follows a table's stream
// without polling: Wait blocks until a record exists at the cursor.
func ExampleStream_Wait() {
	svc := table.New(table.Options{})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	ctx := context.Background()
	ddb := dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", ""),
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(srv.URL) })

	_, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tasks"),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("taskId"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("taskId"), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		log.Fatal(err)
	}
	arn, err := svc.LatestStreamARN("tasks")
	if err != nil {
		log.Fatal(err)
	}
	st, err := svc.Stream(arn)
	if err != nil {
		log.Fatal(err)
	}
	cursor := st.Latest()

	go func() {
		for _, status := range []string{"Pending", "Running"} {
			_, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: map[string]ddbtypes.AttributeValue{
				"taskId": &ddbtypes.AttributeValueMemberS{Value: "t1"}, "status": &ddbtypes.AttributeValueMemberS{Value: status},
			}})
			if err != nil {
				log.Fatal(err)
			}
		}
	}()

	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for seen := 0; seen < 2; {
		if err := st.Wait(waitCtx, cursor); err != nil {
			log.Fatal(err)
		}
		res, err := st.Read(cursor, 100)
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range res.Records {
			fmt.Println(r.EventName, string(r.DynamoDB.NewImage))
		}
		seen += len(res.Records)
		cursor = res.Next
	}
	// Output:
	// INSERT {"status":{"S":"Pending"},"taskId":{"S":"t1"}}
	// MODIFY {"status":{"S":"Running"},"taskId":{"S":"t1"}}
}
