// Package pipe is the local cloud's Amazon EventBridge Pipes: the REST-JSON
// control plane (CreatePipe, DescribePipe, UpdatePipe, DeletePipe,
// StartPipe, StopPipe, ListPipes, TagResource, UntagResource,
// ListTagsForResource) and a runtime that moves DynamoDB stream records,
// filtered, batched and optionally enriched by a Lambda function, into an
// SQS queue.
//
// Register it in the router under emu.ServicePipes:
//
//	pipes := pipe.New(pipe.Options{Tables: tables, Queues: queues, Invoker: invoker, Metrics: alarms})
//	router.Handle(emu.ServicePipes, pipes)
//	defer pipes.Close()
//
// Options.Invoker is the Lambda service seen from a pipe: synchronous
// invoke by function name (the enrichment ARN's name, with its qualifier
// if any), a function error in Invocation.FunctionError, a throttle as an
// error wrapping ErrThrottled. Over the function service an adapter is a
// few lines, e.g.
//
//	pipe.InvokerFunc(func(ctx context.Context, name string, payload []byte) (pipe.Invocation, error) {
//		res, err := functions.Invoke(ctx, name, payload, function.InvokeOptions{})
//		if err != nil { // map the service's throttling error: fmt.Errorf("%w: %w", pipe.ErrThrottled, err)
//			return pipe.Invocation{}, err
//		}
//		return pipe.Invocation{Payload: res.Payload, FunctionError: res.FunctionError, ErrorType: res.ErrorType}, nil
//	})
//
// The facts it follows, and their sources, are in docs/aws-behaviour.md §1
// and §5.9 (comments cite the sections); the wire shapes are those of
// aws-sdk-go-v2 service/pipes and botocore pipes/2015-10-07.
//
// # What is supported
//
// Source: a DynamoDB stream of the table service (one shard per stream).
// Target: an SQS queue of the queue service, one message per record or
// enrichment item. Enrichment: a Lambda function, invoked synchronously
// through Options.Invoker. Anything else (Kinesis, SQS or Kafka sources;
// Lambda, Step Functions, EventBridge or HTTP targets; API Gateway
// enrichments; SNS dead-letter queues; FIFO message deduplication ids) is
// refused with a ValidationException that says so.
//
// # Control plane
//
// Requests are checked against the API model (lengths, patterns, ranges,
// enumerations; ValidationException with AWS's "N validation errors
// detected" message and a fieldList), then as the service does
// (MaximumRecordAgeInSeconds -1 or 60–604800, a batching window shorter
// than the record age, BatchSize ≤ 10 for an SQS target; the message is
// AWS's {"ValidationErrorFields":[…]} document), then for what the local
// cloud can run, including that the stream and queues exist and that every
// filter compiles and uses only operators Pipes accepts
// (eventpattern.ValidateForPipes). An existing name is a 409
// ConflictException, an unknown pipe a 404 NotFoundException.
//
// DescribePipe returns the definition with AWS's defaults filled in
// (BatchSize 10, MaximumBatchingWindowInSeconds 0,
// MaximumRecordAgeInSeconds -1, ParallelizationFactor 1) and, like AWS,
// leaves MaximumRetryAttempts out unless it was set; "remove" spellings
// (an empty FilterCriteria, InputTemplate or Enrichment) come back absent,
// so a Terraform read finds what it wrote.
//
// States: CreatePipe answers CREATING, UpdatePipe UPDATING, StartPipe
// STARTING, StopPipe STOPPING, DeletePipe DELETING (DesiredState DELETED);
// the pipe settles to RUNNING or STOPPED as soon as its runtime has acted
// on the change, and a deleted pipe is gone at once. StartPipe on a running
// pipe and StopPipe on a stopped one change nothing (AWS's answer is
// UNCONFIRMED).
//
// # Runtime
//
// Each pipe follows its stream from the StartingPosition taken at
// CreatePipe, blocking in table.Stream.Wait (no polling). Its checkpoint
// survives UpdatePipe and Stop/Start: a stopped pipe delivers nothing and,
// once started, everything written meanwhile; an UpdatePipe applies from
// the next batch without losing or replaying records. Records matching no
// filter are skipped. Matched records are batched by BatchSize and
// MaximumBatchingWindowInSeconds; with ParallelizationFactor n they are
// split into n partitions by item key and the partitions run concurrently,
// keeping per-key order. Records are delivered in the Pipes shape: the
// GetRecords record plus eventSourceARN.
//
// Enrichment gets the batch as a JSON array; its response's items (an
// array's elements, or a single object) become the messages; [], {}, ""
// and null drop the batch; more than 10 items fail it. InputTemplates are
// rendered per item; see template.go for placeholders and how quoting of
// string placeholders (UNCONFIRMED on AWS) is handled: both "<$.x>" and
// <$.x> give valid JSON.
//
// A failed execution (enrichment error, invalid enrichment response,
// target send failure, injected fault) is retried whole, enrichment
// included, with exponential backoff from Options.RetryBackoff; the batch
// blocks its shard (or partition) meanwhile. runner.handle documents how
// AUTOMATIC_BISECT and MaximumRetryAttempts are counted. A batch that runs
// out of attempts, or whose oldest record is older than
// MaximumRecordAgeInSeconds, becomes one DeadLetter message (stream
// pointers, AWS's shape) on the DeadLetterConfig queue; without one the
// records are dropped and logged.
//
// Each execution reports Invocations, EventCount and Duration, and on
// failure ExecutionFailed or ExecutionPartiallyFailed with
// EnrichmentStageFailed or TargetStageFailed (TargetStagePartiallyFailed),
// in namespace AWS/EventBridge/Pipes with dimension PipeName, to
// Options.Metrics (Duration as measured by Options.Now); a throttled
// enrichment reports ExecutionThrottled.
//
// # Not emulated
//
// LogConfiguration's Level selects what the runtime writes to
// Options.Logger (ERROR: failures and dead letters; INFO: every execution;
// TRACE: the same). A CloudWatch Logs destination gets one record per
// execution outcome (ExecutionFailed, ExecutionSucceeded; logs.go), as the
// pipe's role, without execution data and without the other execution
// steps; nothing is delivered to Firehose or S3. KMS keys are stored,
// never used. Without Options.Authorizer the pipe role is not checked
// against IAM. Of AWS's own service-side errors
// (which do not count toward MaximumRetryAttempts) only a throttled
// enrichment (ErrThrottled) exists here. Pipe executions have no 5-minute
// limit. Stream shards never split.
package pipe
