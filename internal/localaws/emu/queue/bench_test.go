package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// BenchmarkHTTPRoundTrip measures SendMessage + ReceiveMessage +
// DeleteMessage through the local cloud's router with the real Go SDK
// (SigV4 signing, MD5 validation, JSON both ways) over loopback HTTP.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	tb := setup(b, queue.Options{Now: time.Now})
	url := aws.String(tb.createQueue(b, "bench", nil))
	ctx := context.Background()
	roundTrip := func(client *sqs.Client, body *string) error {
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: body}); err != nil {
			return fmt.Errorf("send: %w", err)
		}
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 1})
		if err != nil {
			return fmt.Errorf("receive: %w", err)
		}
		if len(out.Messages) != 1 {
			return fmt.Errorf("receive: got %d messages", len(out.Messages))
		}
		if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: out.Messages[0].ReceiptHandle}); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		return nil
	}

	b.Run("Sequential", func(b *testing.B) {
		body := aws.String(`{"taskId":"0123456789abcdef","url":"https://example.com/page"}`)
		b.ResetTimer()
		for range b.N {
			if err := roundTrip(tb.client, body); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	})

	b.Run("Parallel", func(b *testing.B) {
		body := aws.String(`{"taskId":"0123456789abcdef","url":"https://example.com/page"}`)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := roundTrip(tb.client, body); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	})
}

// BenchmarkEngineReceiveDelete measures one receive + delete through the Go
// API with a backlog of n messages: the indexed heaps keep it O(log n), so
// ns/op should grow only slightly from 100 to 100,000 queued messages.
func BenchmarkEngineReceiveDelete(b *testing.B) {
	for _, backlog := range []int{100, 10_000, 100_000} {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			svc := queue.New(queue.Options{})
			defer func() { _ = svc.Close() }()
			info, err := svc.CreateQueue("engine", nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := range backlog {
				if _, err := svc.Send(ctx, info.ARN, fmt.Sprintf("m%d", i), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				msgs, err := svc.Receive(ctx, info.ARN, 1, 0, queue.QueueDefault)
				if err != nil || len(msgs) != 1 {
					b.Fatalf("receive: %v, %d messages", err, len(msgs))
				}
				if err := svc.Delete(info.ARN, msgs[0].ReceiptHandle); err != nil {
					b.Fatal(err)
				}
				if _, err := svc.Send(ctx, info.ARN, "refill", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
