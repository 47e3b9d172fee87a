// Package alarm is the local cloud's Amazon CloudWatch: metrics, metric
// alarms evaluated on a clock, alarm history, dashboards and tags. The
// pipeline's alarms (both DLQs at the first message, pipe failures, Lambda
// errors) run here exactly as Terraform declares them.
//
// Register it in the router under emu.ServiceMonitoring and hand it, as an
// emu.MetricSink, to whatever emits metrics in-process:
//
//	cw := alarm.New(alarm.Options{Queues: sqs, Console: os.Stderr})
//	router.Handle(emu.ServiceMonitoring, cw)
//	cw.Start()
//	defer cw.Close()
//
// # Wire protocols
//
// Smithy RPC v2 CBOR, as aws-sdk-go-v2's cloudwatch client (v1.75.7) sends
// it, and AWS JSON 1.0 (X-Amz-Target: GraniteServiceVersion20100801.<Op>),
// which botocore picks from the model's protocol list (boto3 and the AWS
// CLI 1.43 installed here). Errors carry "__type" and, because CloudWatch
// is awsQueryCompatible, the X-Amzn-Query-Error header with the legacy
// code, so SDK callers see types.InvalidParameterValueException whose
// ErrorCode() is "InvalidParameterValue", as against AWS. The query (XML)
// protocol of older SDKs is answered with an error saying so.
//
// # Operations
//
// PutMetricAlarm, DescribeAlarms, DescribeAlarmsForMetric, DeleteAlarms,
// SetAlarmState, DescribeAlarmHistory, Enable/DisableAlarmActions,
// PutMetricData (Value, Values/Counts, StatisticValues, gzip bodies),
// GetMetricStatistics, ListMetrics, TagResource, UntagResource,
// ListTagsForResource, PutDashboard, GetDashboard, DeleteDashboards,
// ListDashboards. Validation follows the model's constraints and the API
// reference's rules; each rule cites its source next to the code.
//
// # Metric sources
//
//   - PutMetricData over HTTP;
//   - PutMetrics (emu.MetricSink): functions' Embedded Metric Format lines,
//     Pipe executions (AWS/EventBridge/Pipes, dimension PipeName:
//     ExecutionFailed, ...), anything in-process;
//   - the SQS engine, sampled at every tick (Options.Queues): AWS/SQS,
//     dimension QueueName, ApproximateNumberOfMessagesVisible,
//     ApproximateNumberOfMessagesNotVisible, ApproximateNumberOfMessagesDelayed.
//     The queue's Go API has no counters for NumberOfMessagesSent/Received/
//     Deleted, NumberOfEmptyReceives or ApproximateAgeOfOldestMessage, so
//     those metrics do not exist here.
//
// # Evaluation
//
// Every Options.Interval (one minute by default) Start's loop samples the
// queues and evaluates every alarm at Options.Now; EvaluateNow does the same
// on demand. An alarm aggregates each of its last EvaluationPeriods periods
// (ending at the evaluation time: there is no ingestion delay) with its
// statistic, applies TreatMissingData and DatapointsToAlarm (M of N) and
// compares with the threshold. A state change prints
// "alarm <name>: OK -> ALARM: <reason>" on Options.Console and is recorded
// in the history. Alarm actions (SNS, Lambda, ...) are stored and
// returned, never executed.
//
// # Not emulated
//
// Metric math (Metrics), anomaly detection (ThresholdMetricId and the band
// operators), PromQL alarms, composite alarms, metric streams, insight
// rules, GetMetricData and alarm actions: each is refused with an
// InvalidParameterValue error that says "not supported by the taskpipe
// local cloud" or is an unknown operation. Datapoints are kept for
// Options.Retention (26 h by default), not 15 months.
package alarm
