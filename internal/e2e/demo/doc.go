// Package demo runs the whole taskpipe mission on one machine, end to end:
// it starts the local cloud and the fixture web, applies
// terraform/examples/local through the local provider (a copy, so the
// repository stays clean), submits the fixture web's input, watches the
// run until every task is terminal, prints what the run did and what it
// would cost on AWS, reconciles every count against the fixture web's
// expectations and the local cloud's own records, then destroys the stack
// and checks that the local cloud is empty.
//
// Run is the entry point (taskpipe demo and make demo call it). Everything
// it reports comes from what the local cloud recorded: the router's
// request counters (split by the function that sent each request), the
// functions' runtime statistics and REPORT lines, the EMF metrics in the
// CloudWatch emulation, the DynamoDB stream's images and the table itself.
// Nothing is derived from what the run was supposed to do; the fixture
// web's expectations are only compared with it.
//
// The pure parts (Summary arithmetic, Reconcile, the cost inputs) take
// plain values, so they are tested without a cloud; TestDemoSmall runs a
// small demo through the same Run as make demo.
package demo
