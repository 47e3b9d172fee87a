// Command reconciler is the scheduled recovery Lambda (handler.Reconciler):
// wiring only.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

func main() {
	cfg, err := handler.ReconcilerConfigFromEnv(os.Getenv)
	exitOn(err)
	awsCfg, err := config.LoadDefaultConfig(context.Background()) // honours AWS_ENDPOINT_URL
	exitOn(err)
	store, err := dynamostore.New(dynamodb.NewFromConfig(awsCfg), dynamostore.Options{Table: cfg.TableName, LiveShards: cfg.LiveShards})
	exitOn(err)
	h := &handler.Reconciler{
		Store:         store,
		Dispatcher:    &sqsqueue.Dispatcher{Client: sqs.NewFromConfig(awsCfg), QueueURL: cfg.WorkQueueURL},
		Metrics:       emf.New(os.Stdout, time.Now).ForDeployment(cfg.Deployment),
		Logger:        emf.NewLogger(os.Stderr, cfg.LogLevel),
		Now:           time.Now,
		PendingGrace:  cfg.PendingGrace,
		RunningGrace:  cfg.RunningGrace,
		MaxRedispatch: cfg.MaxRedispatch,
	}
	exitOn(h.Validate())
	lambda.StartHandlerFunc(h.Handle)
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconciler:", err)
		os.Exit(1)
	}
}
