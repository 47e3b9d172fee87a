// Package chaos runs the pipeline with faults switched on and proves that
// nothing was lost and nothing was done twice.
//
// A chaos run (Run; taskpipe chaos; make chaos) is the demo (package
// demo) with two hooks: after terraform apply and before the submit it
// switches the local cloud's fault injector on (DynamoDB throttling and
// 500s, SQS duplicate deliveries, lost and delayed acknowledgements, the
// scraper killed right after its claim, the Pipe's sends to the work queue
// failing or refused for good, its enrichment failing or timing out) and
// puts unparseable messages on the work queue; the fixture web's mix adds
// flaky and fatal sites. With Plan.FilterEdit it also applies the stack
// again in the middle of the dispatch with the Pipe's filter rewritten,
// the Pipe's target down meanwhile (edit.go). Once every task
// is terminal and the pipeline is quiet it records a History: the
// submitted task ids, the table's stream from TRIM_HORIZON, the final
// rows, both DLQs (read without consuming them), the injected poison
// messages and the injector's counters.
//
// Check evaluates the invariants of docs/design.md §3 over a History alone, so
// a recorded history (testdata/) is judged exactly as a live one:
//
//   - no task lost: every submitted task has its row at the end;
//   - every task Finished, or Failed with errorKind and lastError, or
//     named by a DLQ message with a reason;
//   - no result written twice: one Running → Finished transition and one
//     write of the result per Finished task, none per Failed task;
//   - every transition legal (task.CanTransition), continuous (each
//     record's old image is the previous record's new image, and the
//     final row the last new image) and fenced (a takeover only of an
//     expired lease; an outcome keeps the holder's token, which every
//     holder write sets; exhausted and stuck only with no attempts left);
//   - no task re-opened (terminal → Pending) but by an operator's retry,
//     so a second pass cannot hide a second result;
//   - attempts never above maxAttempts;
//   - every injected poison message in the work DLQ with its reason;
//   - the Pipe handled each record that became Pending exactly once,
//     delivered or dead-lettered, by its own account (pipe.TrackDeliveries),
//     the filter edit included, and its DLQ points at exactly the
//     dead-lettered records; the edit landed with records on both sides;
//   - every configured fault fired, so a run cannot pass vacuously.
//
// Each invariant is one row of an aligned table with its counts and PASS
// or FAIL.
package chaos
