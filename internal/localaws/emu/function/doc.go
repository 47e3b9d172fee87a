// Package function is the local cloud's AWS Lambda: the Lambda REST-JSON
// control plane (an http.Handler for the router key emu.ServiceLambda) and
// a runtime that executes each function's real bootstrap binary as a local
// process through the Lambda Runtime API, so the exact zips that are
// deployed to AWS run offline unchanged.
//
// Register it in the router:
//
//	fns := function.New(function.Options{Upstream: router, Logs: logs, Metrics: alarms, Console: os.Stderr})
//	router.Handle(emu.ServiceLambda, fns)
//	defer fns.Close()
//
// # Control plane
//
// CreateFunction (Code.ZipFile only), GetFunction, GetFunctionConfiguration,
// ListFunctions, UpdateFunctionCode, UpdateFunctionConfiguration,
// DeleteFunction, Put/Get/DeleteFunctionConcurrency, TagResource,
// UntagResource, ListTags, Invoke, and the read-only ListVersionsByFunction
// ($LATEST only), GetFunctionCodeSigningConfig (none), GetPolicy (none) and
// GetAccountSettings that SDK waiters and the Terraform provider read.
// Responses carry the full FunctionConfiguration (CodeSha256, RevisionId,
// State Active, LastUpdateStatus Successful, LoggingConfig …). Requests
// under /2015-03-31/event-source-mappings go to Options.EventSourceMappings.
//
// Only custom-runtime zips run: provided.al2023 and provided.al2, for the
// host's architecture (a Go bootstrap built for arm64 cannot run on an
// x86_64 machine); other runtimes, S3 code, images, layers and published
// versions are refused with InvalidParameterValueException explaining why.
//
// # Runtime
//
// An invocation takes the most recently used warm environment of the
// function's current code and configuration, or starts a new one while
// the function is under its limit: its reserved concurrency when set, else
// Options.MaxInstancesPerFunction. An environment is the package extracted
// once per code version under Options.WorkDir and its bootstrap exec'd in
// its own process group with a clean environment (the function's
// variables, then Lambda's own: AWS_LAMBDA_RUNTIME_API, AWS_REGION, dummy
// credentials, _HANDLER, LAMBDA_TASK_ROOT, TZ …, never
// _LAMBDA_SERVER_PORT; docs/aws-behaviour.md §4.4–4.6). Each environment
// listens on its own 127.0.0.1 port, named both in AWS_LAMBDA_RUNTIME_API
// and in AWS_ENDPOINT_URL: the listener serves the Runtime API and the
// Extensions API, and forwards every other request (the function's AWS
// SDK calls) to Options.Upstream with emu.WithCaller, so the local cloud
// knows which process made each call and can kill it.
//
// The Runtime API follows docs/aws-behaviour.md §4: /next blocks until an
// event is assigned and sends the Lambda-Runtime-* headers (the deadline
// in wall-clock epoch milliseconds); /response and /error answer 202
// {"status":"OK"}; RIE's error replies (400 InvalidRequestID, 403
// InvalidStateTransition, 413 RequestEntityTooLarge); /init/error fails
// the pending invocation and replaces the environment. aws-lambda-go's
// SIGTERM helper extension is accepted, and such environments get SIGTERM
// and 500 ms before SIGKILL when they are stopped.
//
// Failures look as they do in Lambda. An error or panic is the runtime's
// error document with X-Amz-Function-Error: Unhandled; after a panic
// aws-lambda-go exits and the next invocation gets a fresh process. At the
// deadline the process group is killed and the invocation fails with
// Sandbox.Timedout, "RequestId: <id> Error: Task timed out after N.NN
// seconds", which is also logged. A process that exits or is killed
// mid-invocation fails it with Runtime.ExitError, "Runtime exited with
// error: exit status 2" (or "signal: killed").
//
// Asynchronous (Event) invocations are queued and run when the function
// has capacity (they wait instead of being throttled), with Lambda's two
// retries after a function error, 1 and 2 minutes apart
// (Options.AsyncRetryDelays), for up to 6 hours of event age. Events that
// still fail are dropped and counted (Stats.AsyncDropped): on-failure
// destinations and DLQs are not emulated. Synchronous invocations at the
// limit fail with TooManyRequestsException (Reason
// ReservedFunctionConcurrentInvocationLimitExceeded when reserved).
//
// Warm environments are reused, most recent first; one idle longer than
// Options.IdleTimeout (default 10 minutes) is stopped. A code or
// configuration change starts new environments for new invocations and
// stops the old ones as they become idle.
//
// # Logs and metrics
//
// Every line a function prints (stdout and stderr share one pipe, so their
// order is kept) goes to Options.Console prefixed "[name] " and to its log
// group (LoggingConfig.LogGroup, default /aws/lambda/<name>) in a stream
// per environment ("2026/03/01/[$LATEST]<id>"), between START, END and
// REPORT lines in Lambda's Text format, or platform.* records in the JSON
// format. REPORT quotes the real duration and, as Max Memory Used, the
// process's peak resident set read from /proc/<pid>/status (VmHWM): a real
// measurement for memory sizing, though it counts only the bootstrap
// process. With Options.Authorizer set, an event reaches the group only if
// the execution role may write it (logs:CreateLogStream for the
// environment's stream, logs:PutLogEvents on it); otherwise it is dropped,
// as Lambda drops it (with any EMF metrics it held), and Options.Console
// still shows it. Lines in Embedded Metric Format become emu.Metric datapoints;
// each invocation also emits the AWS/Lambda metrics Invocations, Errors,
// Duration, Throttles and ConcurrentExecutions (dimension FunctionName).
// Stats exposes the counters and the peak concurrency.
//
// # Not emulated
//
// Versions and aliases, layers, container images, S3 code, resource
// policies, function URLs, response streaming, on-failure destinations,
// memory limits (the process may use more than MemorySize; REPORT shows
// it), CPU scaling with memory, /tmp size limits, the account-wide
// concurrency pool beyond the reservation check, and Windows hosts (the
// runtime needs Unix process groups).
package function
