package task

import (
	"encoding/json"
	"time"
)

// Limits that keep rows small and retries bounded.
const (
	// DefaultMaxAttempts is the number of claims a task gets before it is
	// failed as exhausted (each claim fetches the URL up to 3 times).
	DefaultMaxAttempts = 3
	// MaxResultBytes bounds the stored result summary.
	MaxResultBytes = 16 << 10
	// MaxErrorBytes bounds the stored lastError text.
	MaxErrorBytes = 1 << 10
)

// Task is one unit of work: one website of one run. The table row is the
// source of truth; everything else (stream records, queue messages) only
// points at it.
type Task struct {
	ID             string
	RunID          string
	URL            string
	State          State
	Attempts       int
	MaxAttempts    int
	ClaimToken     string
	LeaseExpiresAt time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     time.Time
	LastError      string
	ErrorKind      ErrorKind
	// Result is the extracted summary as JSON, at most MaxResultBytes.
	Result json.RawMessage
}

// LeaseLive reports whether a Running task's lease is still held at now.
func (t Task) LeaseLive(now time.Time) bool {
	return t.State == StateRunning && now.Before(t.LeaseExpiresAt)
}

// Truncate shortens s to at most n bytes without splitting a UTF-8 sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}
