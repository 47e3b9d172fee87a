package pipe

import "sync"

// Fate is what a tracked pipe did with one stream record: how many
// executions that held it succeeded (the record reached the target, or
// the enrichment dropped it) and how many times it was dead-lettered.
// Exactly one of the two is 1 for a record handled once; a record the
// pipe skipped has no Fate, one replayed (after an update that lost the
// checkpoint, say) has more. Messages sent again by the retry of a
// partly failed execution are not counted: only the execution that
// finally succeeded is.
type Fate struct {
	Delivered    int `json:"delivered,omitempty"`
	DeadLettered int `json:"deadLettered,omitempty"`
}

// ledger keeps the fates of the records of tracked pipes, by pipe name
// (it survives UpdatePipe, and a pipe deleted and created again under
// the same name) and sequence number.
type ledger struct {
	mu    sync.Mutex
	pipes map[string]map[string]Fate
}

// TrackDeliveries starts recording the fate of every stream record the
// named pipe handles from now on (test tooling: the chaos run proves with
// it that a filter edit neither skips nor replays records). It is cheap,
// but the record grows with the stream: call it only for a bounded run.
func (s *Service) TrackDeliveries(pipeName string) {
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	if s.ledger.pipes == nil {
		s.ledger.pipes = map[string]map[string]Fate{}
	}
	if s.ledger.pipes[pipeName] == nil {
		s.ledger.pipes[pipeName] = map[string]Fate{}
	}
}

// Deliveries returns a copy of the fates recorded for a tracked pipe, by
// sequence number; nil when the pipe is not tracked.
func (s *Service) Deliveries(pipeName string) map[string]Fate {
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	m := s.ledger.pipes[pipeName]
	if m == nil {
		return nil
	}
	out := make(map[string]Fate, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (s *Service) noteFates(pipeName string, recs []*record, deadLettered bool) {
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	m := s.ledger.pipes[pipeName]
	if m == nil {
		return
	}
	for _, r := range recs {
		f := m[r.seq]
		if deadLettered {
			f.DeadLettered++
		} else {
			f.Delivered++
		}
		m[r.seq] = f
	}
}
