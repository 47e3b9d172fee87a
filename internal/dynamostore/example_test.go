package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
)

// The scraper's path through the store: the submitter creates a task, a
// worker claims it and finishes it. Against AWS, build the client with
// config.LoadDefaultConfig and skip CreateTable (Terraform owns the table).
func Example() {
	ctx := context.Background()
	srv := httptest.NewServer(dynamostoretest.Handler()) // a local DynamoDB
	defer srv.Close()
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	if err := dynamostore.CreateTable(ctx, client, "tasks", dynamostore.TableOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	store, err := dynamostore.New(client, dynamostore.Options{Table: "tasks", Now: func() time.Time { return now }})
	if err != nil {
		fmt.Println(err)
		return
	}

	err = store.Create(ctx, []task.Task{{ID: "run-1/0001", RunID: "run-1", URL: "https://example.com/"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	claimed, err := store.Claim(ctx, task.ClaimParams{TaskID: "run-1/0001", Token: "worker-a", Now: now, Lease: 7 * time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(claimed.State, "attempt", claimed.Attempts, "lease until", claimed.LeaseExpiresAt.Format(time.TimeOnly))

	// A second delivery of the same message skips the task.
	_, err = store.Claim(ctx, task.ClaimParams{TaskID: "run-1/0001", Token: "worker-b", Now: now, Lease: 7 * time.Minute})
	fmt.Println(err)

	err = store.Finish(ctx, task.FinishParams{TaskID: "run-1/0001", Token: "worker-a", Now: now.Add(time.Minute), Result: json.RawMessage(`{"title":"Example Domain"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	done, err := store.Get(ctx, "run-1/0001")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.State, string(done.Result))
	// Output:
	// Running attempt 1 lease until 12:07:00
	// dynamostore: claim task run-1/0001: task is claimed by another worker
	// Finished {"title":"Example Domain"}
}
