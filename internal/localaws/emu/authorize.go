package emu

import "context"

// RoleSession is a service acting as an IAM role on a resource's behalf:
// a Pipe as its execution role, a schedule as its target role, an event
// source mapping as its function's role. The local cloud checks the role's
// trust policy for Service (with aws:SourceAccount and aws:SourceArn =
// Source) and then the role's policies for each call.
type RoleSession struct {
	// Service is the service principal, e.g. "pipes.amazonaws.com".
	Service string
	// Role is the role's ARN.
	Role string
	// Source is the ARN of the resource acting (the pipe, the schedule
	// group), set as aws:SourceArn; empty sets no source keys.
	Source string
	// Session names the role session (default: Source's last segment).
	Session string
}

// Authorizer decides a service's calls made as a role. A nil error allows
// the call; a denial is an *AccessDeniedError. Services take it as an
// optional Option: nil authorizes everything.
type Authorizer interface {
	Authorize(ctx context.Context, s RoleSession, action, resource string) error
}

// AccessDeniedError is an IAM denial; Message is AWS's text ("User: … is
// not authorized to perform: … on resource: … because …").
type AccessDeniedError struct {
	Action, Resource, Message string
}

func (e *AccessDeniedError) Error() string { return e.Message }

type sessionKey struct{}

// WithRoleSession returns ctx carrying s, for in-process calls (a
// schedule's invoke) that the local cloud authorizes as that session.
func WithRoleSession(ctx context.Context, s RoleSession) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// RoleSessionFrom returns the RoleSession ctx carries, if any.
func RoleSessionFrom(ctx context.Context) (RoleSession, bool) {
	s, ok := ctx.Value(sessionKey{}).(RoleSession)
	return s, ok
}
