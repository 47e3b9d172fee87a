package task

import (
	"context"
	"encoding/json"
	"time"
)

// Store is what the Lambdas need from the table, and nothing more. The
// scraper claims, finishes, fails and releases; the reconciler lists live
// tasks and fails stuck ones. Implementations must make Claim a single
// atomic conditional write and fence Finish, Fail and Release by claim token.
type Store interface {
	// Claim moves a Pending task, or a Running task whose lease has expired,
	// to Running with p.Token, a lease until p.Now+p.Lease and attempts+1,
	// and returns the new row. It returns ErrTerminal, ErrClaimed or
	// ErrNotFound without writing anything, and ErrExhausted (with the
	// Failed row) when the claim would exceed MaxAttempts.
	Claim(ctx context.Context, p ClaimParams) (Task, error)

	// Finish stores the result and moves the task to Finished, if p.Token
	// still holds it; otherwise it returns ErrStaleClaim and writes nothing.
	Finish(ctx context.Context, p FinishParams) error

	// Fail moves the task to Failed with a kind and reason, if p.Token still
	// holds it; otherwise ErrStaleClaim.
	Fail(ctx context.Context, p FailParams) error

	// Release records a retryable failure and expires the lease, keeping the
	// task Running so that the next delivery can claim it; ErrStaleClaim if
	// p.Token no longer holds it.
	Release(ctx context.Context, p ReleaseParams) error

	// ListLive returns live (non-terminal) tasks in one state whose due time
	// is before p.DueBefore: for Pending the time it became Pending, for
	// Running its lease expiry. It queries a sparse index and reads only
	// the rows that index names; it never scans the table.
	ListLive(ctx context.Context, p ListLiveParams) (LivePage, error)
}

// ClaimParams are the inputs of Store.Claim.
type ClaimParams struct {
	TaskID string
	// Token is a fresh, unique claim token chosen by the caller.
	Token string
	Now   time.Time
	Lease time.Duration
}

// FinishParams are the inputs of Store.Finish.
type FinishParams struct {
	TaskID string
	Token  string
	Now    time.Time
	Result json.RawMessage
}

// FailParams are the inputs of Store.Fail.
type FailParams struct {
	TaskID string
	Token  string
	Now    time.Time
	Kind   ErrorKind
	Reason string
}

// ReleaseParams are the inputs of Store.Release.
type ReleaseParams struct {
	TaskID string
	Token  string
	Now    time.Time
	Reason string
}

// ListLiveParams select one page of live tasks.
type ListLiveParams struct {
	State     State
	DueBefore time.Time
	Limit     int
	// Cursor is the previous page's NextCursor; empty for the first page.
	Cursor string
}

// LivePage is one page of ListLive.
type LivePage struct {
	Tasks []Task
	// NextCursor is empty on the last page.
	NextCursor string
}
