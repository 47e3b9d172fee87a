// Package mapping is the local cloud's Lambda event source mappings for
// Amazon SQS queues: the CreateEventSourceMapping family of the Lambda API
// (REST-JSON, /2015-03-31/event-source-mappings) and, for every enabled
// mapping, a poller that long-polls the queue in process and invokes the
// function synchronously with {"Records":[…]} batches, exactly as Lambda
// treats the results.
//
// The Lambda service (internal/localaws/emu/function) owns the Lambda endpoint and
// delegates the event-source-mappings paths to this package's Service,
// which is an http.Handler. The Service reaches functions through the
// small Invoker interface, so tests use an in-package fake.
//
// # What is emulated
//
// Facts and sources: docs/aws-behaviour.md §4.7–4.10, §5.9 and §7.3; each
// rule cites its source next to the code.
//
//   - The API: create/update/delete answer 202, with AWS's response shape
//     and states (Creating, Enabling, Disabling, Updating, Deleting, then
//     Enabled or Disabled), StateTransitionReason USER_INITIATED,
//     EventSourceMappingArn, LastModified in epoch seconds; AWS's errors
//     (InvalidParameterValueException with the recorded batch-window and
//     "Invalid filter pattern definition." messages,
//     ResourceConflictException for a second mapping of one queue and
//     function, ResourceNotFoundException, constraint ValidationExceptions);
//     list filters by EventSourceArn and FunctionName with Marker/MaxItems
//     paging.
//   - Batching: BatchSize (default 10, 1–10000; above 10 needs
//     MaximumBatchingWindowInSeconds ≥ 1), a batching window of 0–300 s
//     counted from the first record, receives of at most 10 messages.
//   - Filtering per record before batching with internal/eventpattern,
//     SQS body rules included; messages no filter matches are deleted.
//   - Concurrency: at most ScalingConfig.MaximumConcurrency (2–1000)
//     invocations at once; without it, at most Options.DefaultMaxConcurrency
//     and the function's own limit through throttling. Throttled
//     invocations are retried with backoff until the messages' visibility
//     timeout ends.
//   - Results: success deletes the batch in one go; ReportBatchItemFailures
//     keeps only the listed ids; invalid partial responses, function
//     errors, timeouts and crashes fail the whole batch; without
//     ReportBatchItemFailures the response body is ignored.
//   - Fault injection through emu.Faults: duplicate deliveries (the same
//     messageId and receipt handle in a second invocation), dropped and
//     delayed acknowledgements.
//   - Stats per mapping (peak concurrency, batches, deletions, failures,
//     duplicates, dropped acks) and, with MetricsConfig EventCount, the
//     AWS/Lambda mapping metrics PolledEventCount, FilteredOutEventCount,
//     InvokedEventCount, FailedInvokeEventCount and DeletedEventCount.
//
// # Choices where AWS is vague
//
//   - States settle at once: the response says Creating, the next Get says
//     Enabled. Disabling or deleting stops the receive loop before the
//     call returns; invocations in flight finish and acknowledge.
//   - An SQS body counts as JSON for filtering when it is a JSON object or
//     array; bare JSON scalars are plain strings. A message the matcher
//     cannot judge (an event too complex) is delivered, not dropped.
//   - A partial batch response that is JSON but not an object, or whose
//     list entries are not objects, fails the whole batch ("invalid JSON").
//   - Backoffs after throttles (250 ms doubling to 8 s) and receive errors
//     (500 ms doubling to 30 s) are the emulator's numbers.
//
// # Not emulated
//
// Sources other than standard SQS queues (DynamoDB and Kinesis streams,
// Kafka, MQ, DocumentDB: a clear InvalidParameterValueException), FIFO
// queues (the local SQS has none), provisioned pollers, the 6 MB payload
// limit, the gradual scale-up of pollers (300 per minute), and KMS
// encryption of filter criteria (KMSKeyArn is stored and echoed).
package mapping
