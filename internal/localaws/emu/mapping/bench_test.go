package mapping_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// nopLambda accepts every batch at once.
type nopLambda struct{}

func (nopLambda) FunctionARN(string) (string, bool) { return functionARN("worker"), true }
func (nopLambda) Invoke(context.Context, string, []byte) (mapping.InvokeResult, error) {
	return mapping.InvokeResult{Payload: []byte(`{"batchItemFailures":[]}`)}, nil
}

// BenchmarkPollerThroughput measures messages per second through one
// mapping (receive, encode the event, invoke, delete) with a function
// that returns at once, for batch sizes 1 and 10.
func BenchmarkPollerThroughput(b *testing.B) {
	for _, size := range []int32{1, 10} {
		b.Run(fmt.Sprint("batch", size), func(b *testing.B) {
			queues := queue.New(queue.Options{})
			defer queues.Close()
			q, err := queues.CreateQueue("bench", nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			svc := mapping.New(mapping.Options{Queues: queues, Invoker: nopLambda{}})
			defer svc.Close()
			cfg, err := svc.Create(mapping.CreateRequest{
				FunctionName: aws.String("worker"), EventSourceArn: aws.String(q.ARN), BatchSize: aws.Int32(size),
				FunctionResponseTypes: []string{mapping.ReportBatchItemFailures},
			})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			begin := time.Now()
			for i := range b.N {
				if _, err := queues.Send(ctx, q.ARN, fmt.Sprint(`{"taskId":"t-`, i, `"}`), nil); err != nil {
					b.Fatal(err)
				}
			}
			for {
				st, _ := svc.Stats(cfg.UUID)
				if st.Deleted >= int64(b.N) {
					break
				}
				time.Sleep(100 * time.Microsecond)
			}
			b.ReportMetric(float64(b.N)/time.Since(begin).Seconds(), "msgs/s")
		})
	}
}
