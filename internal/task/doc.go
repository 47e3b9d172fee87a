// Package task is taskpipe's domain: the task row, its lifecycle states, the
// error kinds that decide what happens after a failure, and the Store
// operations the Lambdas need. It imports no other taskpipe package.
//
// # Lifecycle
//
//	from      to        who                       how
//	(none)    Pending   submitter                 BatchWriteItem (Create)
//	Pending   Running   scraper                   Claim: one conditional UpdateItem
//	Pending   Failed    scraper                   Claim of a row with no attempts left, KindExhausted
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
// Only terminal tasks are retried: an operator's retry of a live task would
// revoke a live claim, so Running → Pending is not a transition.
//
// CanTransition is this table in code; TestLifecycleDocMatchesTransitions
// keeps the two equal. Why the lifecycle is shaped this way, and the
// invariants every suite checks (no task lost, no effect applied twice, no
// error swallowed), are in docs/design.md §3.
package task
