package schedule_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

// printLambda prints every asynchronous invocation it accepts.
type printLambda struct{ done chan struct{} }

func (p printLambda) InvokeAsync(_ context.Context, arn string, payload []byte) error {
	fmt.Printf("invoke %s %s\n", arn[len("arn:aws:lambda:us-east-1:000000000000:function:"):], payload)
	p.done <- struct{}{}
	return nil
}

// Example runs the taskpipe reconciler every five minutes on a manual
// clock: it fires at once, then at each five-minute mark.
func Example() {
	clock := schedule.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	fn := printLambda{done: make(chan struct{})}
	svc := schedule.New(schedule.Options{Clock: clock, Invoker: fn})
	defer svc.Close()

	_, err := svc.Create("reconcile", schedule.ScheduleRequest{
		ScheduleExpression: aws.String("rate(5 minutes)"),
		FlexibleTimeWindow: &schedule.FlexibleTimeWindow{Mode: schedule.ModeOff},
		Target: &schedule.Target{
			Arn:     aws.String("arn:aws:lambda:us-east-1:000000000000:function:reconciler"),
			RoleArn: aws.String("arn:aws:iam::000000000000:role/reconciler-schedule"),
			Input:   aws.String(`{"at":"<aws.scheduler.scheduled-time>"}`),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	<-fn.done
	clock.Advance(10 * time.Minute)
	<-fn.done
	<-fn.done
	st, _ := svc.Stats("default", "reconcile")
	fmt.Println("next:", st.Next.Format(time.RFC3339))
	// Output:
	// invoke reconciler {"at":"2026-03-01T12:00:00Z"}
	// invoke reconciler {"at":"2026-03-01T12:05:00Z"}
	// invoke reconciler {"at":"2026-03-01T12:10:00Z"}
	// next: 2026-03-01T12:15:00Z
}
