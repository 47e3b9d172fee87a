// Package task is taskpipe's domain: the task row, its lifecycle states, the
// error kinds that decide what happens after a failure, and the Store
// operations the Lambdas need. It imports no other taskpipe package.
//
// # Lifecycle
//
//	from      to        who                       how
//	(none)    Pending   submitter                 BatchWriteItem (Create)
//	Pending   Running   scraper                   Claim: one conditional UpdateItem
//	Running   Running   scraper                   Claim after the lease expired (takeover)
//	Running   Running   scraper                   Release: lease expired at once, retry later
//	Running   Finished  scraper                   Finish (fenced)
//	Running   Failed    scraper                   Fail, KindFatal (fenced)
//	Running   Failed    scraper                   Claim beyond MaxAttempts, KindExhausted
//	Running   Failed    reconciler                Fail, KindStuck (fenced by the token it read)
//	Finished  Pending   operator                  taskpipe retry
//	Failed    Pending   operator                  taskpipe retry
//
// The reconciler also re-sends messages for tasks stuck in Pending, and for
// Running tasks whose lease expired long ago while attempts remain; that
// writes nothing to the row.
//
// Every transition out of Running is fenced: it is conditional on the row
// still being Running with the caller's claim token, so a worker that lost its
// lease can never overwrite the task (see [ErrStaleClaim]).
//
// # Invariants
//
//   - No task is lost: each ends Finished or Failed, or is visible in a DLQ with
//     its reason.
//   - No effect is applied twice: a result is written once per task, by the
//     holder of the current claim.
//   - No error is swallowed.
package task
