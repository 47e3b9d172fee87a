package queue_test

import (
	"context"
	"fmt"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// A work queue with a dead-letter queue, used in-process: a message that
// keeps failing moves to the DLQ at the receive after maxReceiveCount, and
// a move task sends it back.
func Example() {
	svc := queue.New(queue.Options{})
	defer func() { _ = svc.Close() }()
	router := emu.NewRouter()
	router.Handle(emu.ServiceSQS, svc) // SDK clients now reach it at the router's endpoint

	ctx := context.Background()
	dlq, _ := svc.CreateQueue("work-dlq", nil, nil)
	work, _ := svc.CreateQueue("work", map[string]string{
		queue.AttrRedrivePolicy: fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":2}`, dlq.ARN),
	}, nil)
	if _, err := svc.Send(ctx, work.ARN, `{"taskId":"t-1"}`, nil); err != nil {
		fmt.Println(err)
		return
	}

	for range 3 {
		// A zero visibility timeout stands in for a consumer that fails fast.
		msgs, _ := svc.Receive(ctx, work.ARN, 1, 0, 0)
		fmt.Println("work delivered", len(msgs))
	}
	msgs, _ := svc.Receive(ctx, dlq.ARN, 1, 0, time.Minute)
	fmt.Println("dlq:", msgs[0].Body, "receives:", msgs[0].Attributes[queue.SysApproximateReceiveCount],
		"from:", msgs[0].Attributes[queue.SysDeadLetterQueueSourceArn])
	_ = svc.ChangeVisibility(dlq.ARN, msgs[0].ReceiptHandle, 0)

	if _, err := svc.StartMoveTask(dlq.ARN, "", 0); err != nil {
		fmt.Println(err)
		return
	}
	back, _ := svc.Receive(ctx, work.ARN, 1, 5*time.Second, queue.QueueDefault)
	fmt.Println("back in work:", back[0].Body, "receives:", back[0].Attributes[queue.SysApproximateReceiveCount])
	// Output:
	// work delivered 1
	// work delivered 1
	// work delivered 0
	// dlq: {"taskId":"t-1"} receives: 3 from: arn:aws:sqs:us-east-1:000000000000:work
	// back in work: {"taskId":"t-1"} receives: 1
}
