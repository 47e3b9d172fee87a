// Package queue is the local cloud's Amazon SQS: an in-memory engine with a
// Go API for in-process users (the pipe runtime's SQS target, the Lambda
// event source mapping poller, fault injection) and an http.Handler that
// speaks the SQS AWS JSON 1.0 protocol (X-Amz-Target: AmazonSQS.<Op>) to the
// real AWS SDKs, the AWS CLI and Terraform. The HTTP layer is a thin shell:
// it decodes, checks what only the wire can get wrong (missing members,
// batch framing, integer ranges), calls the Go API and encodes.
//
// Register it in the router under emu.ServiceSQS:
//
//	sqs := queue.New(queue.Options{})
//	router.Handle(emu.ServiceSQS, sqs)
//	defer sqs.Close()
//
// # What is emulated
//
// All 23 operations of the 2012-11-05 API for standard queues. The facts
// and their sources are in docs/aws-behaviour.md §3;
// each rule below cites its source next to the code.
//
//   - Errors: "__type" (namespaced Smithy shape), lower-case "message", the
//     x-amzn-query-error "<code>;Sender" header that aws-sdk-go-v2 turns into
//     ErrorCode(), and the trait HTTP status (403 PurgeQueueInProgress, 404
//     ReceiptHandleIsInvalid / ResourceNotFoundException). Messages are the
//     AWS-recorded ones where a recording exists.
//
//   - Queue URLs are http://<request Host>/<account>/<name>; requests may
//     name a queue by URL (any host), ARN or bare name.
//
//   - Attributes with AWS's ranges and defaults (SSE-SQS on by default),
//     idempotent CreateQueue comparing only the given attributes,
//     QueueDeletedRecently for 60 s after DeleteQueue (Options.RecreateCooldown),
//     PurgeQueue at most once per 60 s.
//
//   - Messages: delays, visibility timeouts (also 0), the 12-hour total,
//     retention expiry (also after the retention period is shortened),
//     long polling that returns as soon as a message is available, receive
//     counts and first-receive timestamps, body and attribute MD5s in the
//     documented encoding (the Go SDK validates body MD5s).
//
//   - Dead-letter queues exactly as AWS is recorded to behave: a message is
//     moved at the receive that would exceed maxReceiveCount, keeps its id,
//     body, attributes, receive count and enqueue time (retention counts
//     from the original send), and gains DeadLetterQueueSourceArn.
//     RedriveAllowPolicy is enforced when a RedrivePolicy is set and again
//     at every redrive.
//
//   - Message move tasks (console "DLQ redrive"): the source must be some
//     queue's DLQ, one active task per source, rate ≤ 500/s (default 500/s),
//     messages go to DestinationArn or back to their DeadLetterQueueSourceArn
//     as new messages (new ids), statuses RUNNING, COMPLETED, CANCELLING,
//     CANCELLED, FAILED.
//
//   - Message.Event renders a received message as the Lambda SQS event
//     record (aws-lambda-go events.SQSMessage) that event source mappings
//     and Pipes deliver.
//
// Note for Go callers over HTTP: aws-sdk-go-v2 omits zero-valued int32
// members, so it cannot send ReceiveMessage VisibilityTimeout=0 or
// SendMessage DelaySeconds=0 (the queue's defaults apply instead); use
// ChangeMessageVisibility(0), the Go API, or another SDK for those.
//
// # Choices where AWS is vague
//
//   - DeleteMessage with the handle of an earlier receive succeeds but does
//     not delete ("might not be deleted", DeleteMessage API reference): the
//     emulator makes it certain, so consumers that lost a message to
//     redelivery notice. ChangeMessageVisibility with such a handle is the
//     AWS-recorded InvalidParameterValue "Message does not exist or is not
//     available for visibility timeout change."
//   - Short polls return every visible message up to the maximum (AWS
//     samples a subset of servers).
//   - A move task without DestinationArn FAILS on a message that was sent
//     straight to the DLQ (it has no source to return to).
//   - A redrive whose DLQ was deleted, or whose RedriveAllowPolicy no longer
//     admits the source, does not happen: the message is delivered.
//   - Approximate counts are exact.
//
// # Not emulated
//
// FIFO queues (FifoQueue=true and ".fifo" names are rejected with a clear
// InvalidAttributeValue / InvalidParameterValue error), the query (XML)
// protocol of SDKs older than November 2023 (answered with an XML
// InvalidAction error saying so), queue policies' effect (Policy and
// AddPermission are stored, never enforced), KMS, cross-account access,
// the eventual consistency of attributes, and throughput limits.
//
// # Time
//
// Every rule reads Options.Now, so tests drive visibility, delay and
// retention with a fake clock. Waiting is real: long polls wait at most the
// requested time (and wake at the next visibility deadline as the clock
// reports it), and move tasks pace themselves with real timers. After moving
// a fake clock, call Wake so that long polls already waiting re-check.
package queue
