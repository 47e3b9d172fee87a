package task

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers branch on. Stores wrap them with %w, so test
// with errors.Is.
var (
	// ErrNotFound means no task has the given id.
	ErrNotFound = errors.New("task not found")

	// ErrTerminal means the task is already Finished or Failed; a delivery
	// for it is a duplicate to acknowledge and skip.
	ErrTerminal = errors.New("task is terminal")

	// ErrClaimed means another worker holds a live lease on the task.
	ErrClaimed = errors.New("task is claimed by another worker")

	// ErrExhausted means the claim would have exceeded MaxAttempts, so the
	// store marked the task Failed with KindExhausted instead of running it.
	ErrExhausted = errors.New("task attempts exhausted")

	// ErrStaleClaim means the caller's claim token no longer owns the task
	// (its lease was taken over, or the task moved on). Nothing was written.
	ErrStaleClaim = errors.New("stale claim: task no longer held by this token")
)

// ErrorKind classifies why a task failed or was retried. The values are
// stored in the table's errorKind attribute and used as metric dimensions.
type ErrorKind string

// The error kinds, in alphabetical order.
const (
	// KindExhausted: a claim would have exceeded MaxAttempts.
	KindExhausted ErrorKind = "exhausted"
	// KindFatal: retrying cannot help (invalid URL, blocked address, 4xx
	// other than 408/429, non-HTML); the task fails at once.
	KindFatal ErrorKind = "fatal"
	// KindOptOut: the site's registrable domain is on the operator's
	// opt-out list; the task fails at once, before any request to the
	// site.
	KindOptOut ErrorKind = "optout"
	// KindPoison: the work message itself cannot be parsed; it is forwarded
	// to the work DLQ with its reason.
	KindPoison ErrorKind = "poison"
	// KindRobots: the site's robots.txt disallows the start URL for the
	// scraper's user agent, or cannot be reached (RFC 9309 §2.3.1.4: then
	// everything is disallowed); the task fails at once, and the reason
	// names the rule.
	KindRobots ErrorKind = "robots"
	// KindRetryable: a transient failure (timeout, connection error, 429,
	// 5xx); the task is released for another delivery.
	KindRetryable ErrorKind = "retryable"
	// KindStuck: the reconciler found the task Running with a lease expired
	// long ago and no attempts left.
	KindStuck ErrorKind = "stuck"
)

// ErrorKinds returns every kind in alphabetical order.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{KindExhausted, KindFatal, KindOptOut, KindPoison, KindRetryable, KindRobots, KindStuck}
}

// Valid reports whether k is a known kind.
func (k ErrorKind) Valid() bool {
	for _, v := range ErrorKinds() {
		if k == v {
			return true
		}
	}
	return false
}

// Error is an error with a kind. Code that fails work wraps the cause with
// Fatal, Retryable or Poison, and the scraper's decision table reads it back
// with KindOf.
type Error struct {
	Kind ErrorKind
	Err  error
}

// Error implements error.
func (e *Error) Error() string { return string(e.Kind) + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Fatal marks err as not worth retrying.
func Fatal(err error) error { return &Error{Kind: KindFatal, Err: err} }

// Retryable marks err as transient.
func Retryable(err error) error { return &Error{Kind: KindRetryable, Err: err} }

// OptedOut marks err as a refusal by the opt-out list.
func OptedOut(err error) error { return &Error{Kind: KindOptOut, Err: err} }

// Robots marks err as a refusal by the site's robots.txt.
func Robots(err error) error { return &Error{Kind: KindRobots, Err: err} }

// Poison marks err as a broken message that no retry can fix.
func Poison(err error) error { return &Error{Kind: KindPoison, Err: err} }

// Fatalf is Fatal(fmt.Errorf(format, args...)).
func Fatalf(format string, args ...any) error { return Fatal(fmt.Errorf(format, args...)) }

// KindOf returns the kind of the first *Error in err's chain. Errors without
// a kind are retryable: an unknown failure must never lose a task, and the
// attempt budget bounds the retries.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindRetryable
}
