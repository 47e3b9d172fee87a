package emu

import "context"

// Caller identifies the emulated Lambda instance that sent an API request.
// Every function instance gets its own endpoint (AWS_ENDPOINT_URL points at
// the instance's Runtime API listener, which forwards AWS API calls to the
// router), so the local cloud knows which process made each call without
// any code in the function. Fault injection uses it to kill the exact
// process that, say, just claimed a task.
type Caller struct {
	// Function is the function name.
	Function string
	// Instance identifies the process (execution environment).
	Instance string
	// Kill terminates the instance's process at once (SIGKILL); the
	// invocation in flight fails as a crashed runtime would.
	Kill func(reason string)
	// Freeze stops the instance's process in the middle of its invocation,
	// which then ends at the function's timeout; false when the process
	// has no invocation in flight.
	Freeze func(reason string) bool
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller of a request, if it came from a function
// instance.
func CallerFrom(ctx context.Context) (*Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	return c, ok && c != nil
}
