// Package handler holds the logic of taskpipe's three Lambdas as plain,
// testable types; lambdas/* only read the environment, build the
// dependencies and start the runtime.
//
//   - Scraper consumes the work queue (SQS event source mapping, batch size
//     1, ReportBatchItemFailures): claim, scrape, finish or fail or release.
//   - Reconciler runs on a schedule and re-dispatches tasks that the stream,
//     the Pipe or a DLQ lost, and fails tasks stuck in Running.
//   - Enrich is the Pipe's optional enrichment: stream records in, compact
//     work messages out.
//
// The decision the scraper makes for each message (docs/design.md §3) is:
//
//	message / outcome                        store write         SQS
//	unparseable body                         none                forward to work DLQ, ack
//	task not found                           none                forward to work DLQ, ack
//	task terminal (ErrTerminal)              none                ack (duplicate)
//	live claim elsewhere (ErrClaimed)        none                ack
//	attempts exhausted (ErrExhausted)        Failed by Claim     ack
//	scrape ok                                Finish              ack
//	fatal scrape error                       Fail(fatal)         ack
//	retryable scrape error, attempts left    Release             retry (batchItemFailures), optional backoff
//	retryable scrape error, last attempt     Fail(exhausted)     ack
//	Finish/Fail/Release → ErrStaleClaim      none                ack (the new holder owns the task)
//	any store error, DLQ forward error,
//	panic, or no time left                   none                retry (batchItemFailures)
package handler
