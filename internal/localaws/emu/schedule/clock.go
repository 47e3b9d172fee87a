package schedule

import (
	"sync"
	"time"
)

// Clock is the scheduler's time source: what time it is, and a wake-up
// when a given instant has come. Deadlines are absolute, so a test that
// moves a manual clock can never race the scheduler into waiting from a
// stale "now".
type Clock interface {
	Now() time.Time
	// At returns a channel that is closed once the clock has reached t,
	// and a function that releases the wake-up early.
	At(t time.Time) (<-chan struct{}, func())
}

// SystemClock returns a Clock that reads now (time.Now when nil) and
// waits with real timers.
func SystemClock(now func() time.Time) Clock {
	if now == nil {
		now = time.Now
	}
	return systemClock{now: now}
}

type systemClock struct{ now func() time.Time }

func (c systemClock) Now() time.Time { return c.now() }

func (c systemClock) At(t time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	d := t.Sub(c.now())
	if d <= 0 {
		close(ch)
		return ch, func() {}
	}
	timer := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { timer.Stop() }
}

// ManualClock is a Clock that moves only when told to: tests and demos
// advance it and the scheduler fires what came due, at the exact
// scheduled times. It is safe for concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters map[*waiter]struct{}
}

type waiter struct {
	at time.Time
	ch chan struct{}
}

// NewManualClock returns a clock reading start.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start, waiters: map[*waiter]struct{}{}}
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// At implements Clock.
func (c *ManualClock) At(t time.Time) (<-chan struct{}, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &waiter{at: t, ch: make(chan struct{})}
	if !t.After(c.now) {
		close(w.ch)
		return w.ch, func() {}
	}
	c.waiters[w] = struct{}{}
	return w.ch, func() {
		c.mu.Lock()
		delete(c.waiters, w)
		c.mu.Unlock()
	}
}

// Advance moves the clock forward by d and wakes what came due.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(c.now.Add(d))
}

// Set moves the clock to t (forward or back) and wakes what came due.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(t)
}

func (c *ManualClock) setLocked(t time.Time) {
	c.now = t
	for w := range c.waiters {
		if !w.at.After(t) {
			close(w.ch)
			delete(c.waiters, w)
		}
	}
}

// Waiting returns the earliest instant someone waits for; false when
// nobody waits. Tests use it to know the scheduler has gone to sleep.
func (c *ManualClock) Waiting() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first time.Time
	for w := range c.waiters {
		if first.IsZero() || w.at.Before(first) {
			first = w.at
		}
	}
	return first, !first.IsZero()
}
