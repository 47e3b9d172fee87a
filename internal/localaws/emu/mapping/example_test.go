package mapping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// scraperLambda stands in for the Lambda service: one function that
// reports no failures and tells the example what it received.
type scraperLambda struct{ bodies chan string }

func (l scraperLambda) FunctionARN(name string) (string, bool) {
	if name != "scraper" {
		return "", false
	}
	return "arn:aws:lambda:us-east-1:000000000000:function:scraper", true
}

func (l scraperLambda) Invoke(_ context.Context, _ string, payload []byte) (mapping.InvokeResult, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return mapping.InvokeResult{}, err
	}
	for _, r := range ev.Records {
		l.bodies <- r.Body
	}
	return mapping.InvokeResult{Payload: []byte(`{"batchItemFailures":[]}`)}, nil
}

// Example maps a queue to a function with batch size 1 and partial batch
// responses, as the taskpipe scraper is deployed, and processes one task.
func Example() {
	queues := queue.New(queue.Options{})
	defer queues.Close()
	work, err := queues.CreateQueue("work", map[string]string{"VisibilityTimeout": "5400"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fn := scraperLambda{bodies: make(chan string, 1)}
	svc := mapping.New(mapping.Options{Queues: queues, Invoker: fn})
	defer svc.Close()

	cfg, err := svc.Create(mapping.CreateRequest{
		FunctionName:          aws.String("scraper"),
		EventSourceArn:        aws.String(work.ARN),
		BatchSize:             aws.Int32(1),
		FunctionResponseTypes: []string{mapping.ReportBatchItemFailures},
		ScalingConfig:         &mapping.ScalingConfig{MaximumConcurrency: aws.Int32(140)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.State, cfg.BatchSize)

	if _, err := queues.Send(context.Background(), work.ARN, `{"taskId":"t-1"}`, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("invoked with", <-fn.bodies)
	for {
		st, _ := svc.Stats(cfg.UUID)
		if st.Deleted == 1 {
			fmt.Println("acknowledged:", st.Deleted, "batch of", st.Records)
			break
		}
		time.Sleep(time.Millisecond)
	}
	// Output:
	// Creating 1
	// invoked with {"taskId":"t-1"}
	// acknowledged: 1 batch of 1
}
