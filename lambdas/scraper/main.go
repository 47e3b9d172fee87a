// Command scraper is the work-queue consumer Lambda (handler.Scraper):
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
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/s3store"
	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

func main() {
	cfg, err := handler.ScraperConfigFromEnv(os.Getenv)
	exitOn(err)
	awsCfg, err := config.LoadDefaultConfig(context.Background()) // honours AWS_ENDPOINT_URL
	exitOn(err)
	store, err := dynamostore.New(dynamodb.NewFromConfig(awsCfg), dynamostore.Options{Table: cfg.TableName, LiveShards: cfg.LiveShards})
	exitOn(err)
	pages, err := scrape.New(scrape.Options{
		AllowPrivateNetworks: cfg.AllowPrivateNetworks,
		UserAgent:            cfg.UserAgent,
		OptOut:               cfg.OptOut,
		MaxPages:             cfg.MaxPages,
	})
	exitOn(err)
	results, err := s3store.New(s3.NewFromConfig(awsCfg), cfg.ResultBucket, cfg.ResultPrefix)
	exitOn(err)
	queue := sqs.NewFromConfig(awsCfg)
	h := &handler.Scraper{
		Store:        store,
		Pages:        pages,
		Results:      results,
		DLQ:          &sqsqueue.Forwarder{Client: queue, QueueURL: cfg.WorkDLQURL},
		Visibility:   &sqsqueue.Visibility{Client: queue, QueueURL: cfg.WorkQueueURL},
		Metrics:      emf.New(os.Stdout, time.Now).ForDeployment(cfg.Deployment),
		Logger:       emf.NewLogger(os.Stderr, cfg.LogLevel),
		Now:          time.Now,
		NewToken:     uuid.NewString,
		Lease:        cfg.Lease,
		Margin:       cfg.Margin,
		RetryBackoff: cfg.RetryBackoff,
	}
	exitOn(h.Validate())
	lambda.StartHandlerFunc(h.Handle)
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "scraper:", err)
		os.Exit(1)
	}
}
