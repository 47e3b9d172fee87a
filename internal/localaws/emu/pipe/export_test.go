package pipe

// Checkpoint returns the position of the next stream record the pipe will
// read, so tests can tell when a pipe has consumed everything.
func (s *Service) Checkpoint(name string) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pipes[name]
	if p == nil {
		return 0, false
	}
	return p.run.cursor.Load(), true
}
