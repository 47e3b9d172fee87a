package queue

// Waiters returns how many receivers are blocked in a long poll on a
// queue, so tests can send only once a receive is really waiting.
func (s *Service) Waiters(ref string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return 0
	}
	return q.waiters
}
