package function

// Stats are a function's counters since it was created. Tests use them to
// prove a concurrency cap held and to count cold starts, crashes and
// timeouts; the same figures go to the metric sink as AWS/Lambda metrics.
type Stats struct {
	// Invocations ran (any outcome); throttled and dry-run calls excluded.
	Invocations int64
	// Errors are invocations that ended with a function error, including
	// timeouts and crashes.
	Errors int64
	// Timeouts are invocations killed at their deadline.
	Timeouts int64
	// Crashes are invocations whose runtime exited, was killed or could
	// not start (Runtime.ExitError, Runtime.InvalidEntrypoint, init errors).
	Crashes int64
	// Throttles are sync invocations refused at the concurrency limit.
	Throttles int64
	// ColdStarts are environments started.
	ColdStarts int64
	// Concurrent is the number of invocation slots in use now; a slot is
	// held from the moment an invocation takes an environment until the
	// runtime asks for its next event (or dies), so it never undercounts.
	Concurrent int
	// PeakConcurrent is the highest Concurrent seen.
	PeakConcurrent int
	// Instances are the live processes (busy and warm).
	Instances int
	// Warm are the idle processes waiting for an event.
	Warm int
	// AsyncQueued are async events waiting for capacity.
	AsyncQueued int
	// AsyncDropped are async events that failed every attempt or grew
	// older than the maximum event age.
	AsyncDropped int64
}

// Stats returns a function's counters.
func (s *Service) Stats(ref string) (Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return Stats{}, err
	}
	st := fn.stats
	st.Concurrent = fn.busy
	st.Instances = len(fn.instances)
	st.Warm = len(fn.idle)
	st.AsyncQueued = len(fn.async)
	return st, nil
}

// ResetPeak sets a function's PeakConcurrent to its current concurrency,
// so a test can measure the peak of one phase.
func (s *Service) ResetPeak(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return err
	}
	fn.stats.PeakConcurrent = fn.busy
	return nil
}
