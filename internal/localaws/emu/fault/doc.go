// Package fault is the local cloud's fault injector: it makes the
// emulated AWS misbehave the ways the real one does, on purpose and
// reproducibly, so the pipeline's invariants (no task lost, no effect
// applied twice, no error swallowed) are tested against failure, not
// just success.
//
// Faults, all off by default (the zero Config):
//
//   - DynamoDB throttling (ProvisionedThroughputExceededException or
//     ThrottlingException, HTTP 400, with ThrottlingReasons) and server
//     errors (InternalServerError, HTTP 500), per operation and caller;
//     the SDKs retry both, so most calls still succeed, later.
//   - SQS duplicate deliveries, lost acknowledgements and delayed
//     acknowledgements, and Pipe target failures: asked by the SQS event
//     source mappings and the Pipe runtime through emu.Faults.
//   - Kill rules: "the worker dies right after its claim". A request from
//     a function instance that matches a rule is served; if it succeeded,
//     the instance is killed (emu.Caller.Kill) and the connection closed
//     before the response is written. The effect is committed; the worker
//     never learns it. A rule with Action KillAtTimeout answers instead,
//     and after its Delay freezes the instance (emu.Caller.Freeze): the
//     invocation, its fetches in flight, runs into the function's timeout
//     and the platform kills it there.
//
// Every decision is a draw from a generator seeded by New's seed (one
// stream per kind of fault), so a seed and a sequence of requests give
// the same faults every run.
//
// Wiring:
//
//	inj, err := fault.New(fault.Config{}, seed, fault.WithServices(router.Handler))
//	router.Use(inj.Middleware())
//	admin.Handle("/_taskpipe/faults", inj.AdminHandler())
//	admin.Handle("/_taskpipe/faults/", inj.AdminHandler())
//	// and give inj (an emu.Faults) to the SQS pollers and the Pipe runtime
package fault
