package pipe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
)

// BenchmarkDelivery measures records per second from a table write to an
// SQS message, with a one-filter pipe (BatchSize 10, no enrichment):
//
//   - EndToEnd times the DynamoDB writes (BatchWriteItem over HTTP with the
//     Go SDK, 25 items per call) and the delivery together;
//   - PipeOnly writes while the pipe is stopped, then times StartPipe until
//     the last message is in the queue: the pipe's own throughput.
func BenchmarkDelivery(b *testing.B) {
	for _, stopped := range []bool{false, true} {
		name := "EndToEnd"
		if stopped {
			name = "PipeOnly"
		}
		b.Run(name, func(b *testing.B) {
			e := newEnv(b)
			work := e.queue(b, "work")
			e.createPipe(b, pipeSpec{name: "bench", target: work, batchSize: 10, stopped: stopped,
				filters: []string{`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}}}}`}})
			reqs := make([]ddbtypes.WriteRequest, b.N)
			for i := range reqs {
				reqs[i] = putReq(task(fmt.Sprintf("t-%08d", i), "Pending"))
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			if stopped {
				b.StopTimer()
				e.batchWrite(b, reqs)
				b.StartTimer()
				start = time.Now()
				if _, err := e.api.StartPipe(ctx, &pipes.StartPipeInput{Name: aws.String("bench")}); err != nil {
					b.Fatal(err)
				}
			} else {
				e.batchWrite(b, reqs)
			}
			for {
				c, err := e.queues.Counts(work)
				if err != nil {
					b.Fatal(err)
				}
				if c.Visible == b.N {
					break
				}
				if c.Visible > b.N {
					b.Fatalf("%d messages for %d records", c.Visible, b.N)
				}
				time.Sleep(100 * time.Microsecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "records/s")
		})
	}
}
