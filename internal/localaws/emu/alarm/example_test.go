package alarm_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// The pipeline's DLQ alarm: created over the CloudWatch API with the real
// SDK (as Terraform's apply would), evaluated against the SQS engine, which
// is sampled at each evaluation; state changes are printed on the console.
func Example() {
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	sqs := queue.New(queue.Options{Now: clock})
	defer sqs.Close()
	cw := alarm.New(alarm.Options{Now: clock, Queues: sqs, Console: os.Stdout})
	defer cw.Close()

	if _, err := sqs.CreateQueue("tasks-dlq", nil, nil); err != nil {
		fmt.Println(err)
		return
	}
	if err := putDLQAlarm(cw, "tasks-dlq-not-empty", "tasks-dlq"); err != nil {
		fmt.Println(err)
		return
	}
	cw.EvaluateNow() // empty DLQ
	if _, err := sqs.Send(context.Background(), "tasks-dlq", "poison", nil); err != nil {
		fmt.Println(err)
		return
	}
	now = now.Add(time.Minute)
	cw.EvaluateNow()
	fmt.Println(cw.State("tasks-dlq-not-empty"))
	// Output:
	// alarm tasks-dlq-not-empty: INSUFFICIENT_DATA -> OK: Threshold Crossed: 1 out of the last 1 datapoints [0.0 (06/05/26 11:59:00)] was not greater than or equal to the threshold (1.0) (minimum 1 datapoint for INSUFFICIENT_DATA -> OK transition).
	// alarm tasks-dlq-not-empty: OK -> ALARM: Threshold Crossed: 1 out of the last 1 datapoints [1.0 (06/05/26 12:00:00)] was greater than or equal to the threshold (1.0) (minimum 1 datapoint for OK -> ALARM transition).
	// ALARM
}

// putDLQAlarm creates the alarm of docs/aws-behaviour.md §3.10 through the API.
func putDLQAlarm(cw *alarm.Service, name, queueName string) error {
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceMonitoring, cw)
	srv := httptest.NewServer(rt)
	defer srv.Close()
	client := cloudwatch.New(cloudwatch.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")})
	_, err := client.PutMetricAlarm(context.Background(), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(name), Namespace: aws.String("AWS/SQS"),
		MetricName: aws.String("ApproximateNumberOfMessagesVisible"),
		Dimensions: []types.Dimension{{Name: aws.String("QueueName"), Value: aws.String(queueName)}},
		Statistic:  types.StatisticMaximum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1),
		DatapointsToAlarm: aws.Int32(1), Threshold: aws.Float64(1),
		ComparisonOperator: types.ComparisonOperatorGreaterThanOrEqualToThreshold,
		TreatMissingData:   aws.String("notBreaching"),
	})
	if err != nil {
		return fmt.Errorf("put alarm %s: %w", name, err)
	}
	return nil
}
