package mapping

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// Backoffs of the poller. Lambda "gradually backs off" after throttles
// and errors (services-sqs-errorhandling.html) without publishing numbers;
// these are the emulator's.
const (
	throttleBackoffBase = 250 * time.Millisecond
	throttleBackoffMax  = 8 * time.Second
	receiveBackoffBase  = 500 * time.Millisecond
	receiveBackoffMax   = 30 * time.Second
	// maxReceive is what one ReceiveMessage returns at most (SQS limit);
	// larger batches are gathered over several receives within the
	// batching window, as Lambda's pollers do (docs/aws-behaviour.md §4.8).
	maxReceive = 10
)

// batch is one invocation's worth of records.
type batch struct {
	records []record
	// deadline is when the records' visibility timeout ends (queue clock):
	// throttled invocations are retried until then.
	deadline time.Time
	// duplicate marks a delivery injected by Faults.DuplicateDelivery.
	duplicate bool
}

// view is the part of a mapping's configuration one poll cycle uses.
type view struct {
	cfg     Configuration
	filters []filter
}

// startLocked starts the poller of m. Caller holds s.mu.
func (s *Service) startLocked(m *mapping) {
	ctx, cancel := context.WithCancel(s.ctx)
	p := &poller{cancel: cancel, done: make(chan struct{})}
	m.poller = p
	s.wg.Add(1)
	go s.poll(ctx, m, p.done)
}

// stopPoller cancels a poller and waits for its loop to exit. The loop
// exits promptly: receives and slot waits watch the context.
func stopPoller(p *poller) {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}

// view returns the current configuration of m.
func (s *Service) view(m *mapping) view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return view{cfg: m.cfg.clone(), filters: m.filters}
}

// enabled reports whether m is still an enabled, existing mapping.
func (s *Service) enabled(m *mapping) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !m.deleted && !s.closed && m.cfg.State == StateEnabled
}

// poll is the receive loop of one enabled mapping: take a concurrency
// slot, gather a batch, hand it to an invocation goroutine, repeat.
func (s *Service) poll(ctx context.Context, m *mapping, done chan struct{}) {
	defer s.wg.Done()
	defer close(done)
	var pending []batch // injected duplicate deliveries, each its own invocation
	failures := 0
	for ctx.Err() == nil {
		v := s.view(m)
		if !s.acquire(ctx, m) {
			return
		}
		if len(pending) > 0 {
			b := pending[0]
			pending = pending[1:]
			s.dispatch(m, v, b)
			continue
		}
		b, dups, err := s.gather(ctx, m, v)
		if len(b.records) > 0 {
			s.dispatch(m, v, b)
			pending = append(pending, dups...)
		} else {
			s.release(m)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			d := min(receiveBackoffBase<<min(failures-1, 10), receiveBackoffMax)
			s.log.Warn("event source mapping cannot receive", "uuid", v.cfg.UUID, "queue", v.cfg.EventSourceArn, "err", err, "retryIn", d)
			if s.opts.SleepFunc(ctx, d) != nil {
				return
			}
			continue
		}
		failures = 0
	}
}

// gather receives one batch: a long poll for the first messages, then,
// with a batching window, more receives until the batch is full or the
// window (counted from the first record) ends. Messages no filter matches
// are deleted on the spot. Records that Faults duplicates come back as
// extra one-batch deliveries.
func (s *Service) gather(ctx context.Context, m *mapping, v view) (batch, []batch, error) {
	cfg := v.cfg
	queueARN := cfg.EventSourceArn
	want := int(cfg.BatchSize)
	window := time.Duration(cfg.MaximumBatchingWindowInSeconds) * time.Second
	var b batch
	var dups []batch
	rctx := ctx
	for len(b.records) < want {
		msgs, err := s.opts.Queues.Receive(rctx, queueARN, min(want-len(b.records), maxReceive), s.opts.PollWait, queue.QueueDefault)
		if err != nil {
			if rctx != ctx && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				err = nil // the batching window ended
			}
			return b, dups, err
		}
		if len(msgs) == 0 {
			break // an empty long poll: the loop re-reads the configuration
		}
		if b.deadline.IsZero() {
			vis, err := s.visibility(queueARN)
			if err != nil {
				// Not delivered: the messages reappear after their
				// visibility timeout.
				return batch{}, nil, err
			}
			b.deadline = s.opts.Now().Add(vis)
		}
		m.stats.polled.Add(int64(len(msgs)))
		s.emit(cfg, "PolledEventCount", len(msgs))
		for _, msg := range msgs {
			rec := newRecord(msg, queueARN, s.opts.Region)
			ok, err := matches(v.filters, rec)
			if err != nil {
				// Deliver rather than lose a message the matcher could not
				// judge (an event too complex to match).
				s.log.Warn("event source mapping filter failed; delivering the message", "uuid", cfg.UUID, "messageId", rec.MessageID, "err", err)
				ok = true
			}
			if !ok {
				s.dropFiltered(m, cfg, rec)
				continue
			}
			b.records = append(b.records, rec)
			if s.faults.DuplicateDelivery(queueARN) {
				m.stats.duplicates.Add(1)
				dups = append(dups, batch{records: []record{rec}, deadline: b.deadline, duplicate: true})
			}
		}
		if window <= 0 {
			break
		}
		if rctx == ctx && len(b.records) > 0 {
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(ctx, window)
			defer cancel()
		}
	}
	return b, dups, nil
}

// visibility returns the queue's VisibilityTimeout, which the poller's
// receives use (Lambda receives with the queue's default).
func (s *Service) visibility(queueARN string) (time.Duration, error) {
	attrs, err := s.opts.Queues.Attributes(queueARN, "VisibilityTimeout")
	if err != nil {
		return 0, err
	}
	secs, err := strconv.Atoi(attrs["VisibilityTimeout"])
	if err != nil {
		return 0, err
	}
	return time.Duration(secs) * time.Second, nil
}

// dropFiltered deletes a message no filter matched: "Lambda automatically
// deletes messages that don't match your filter criteria" for SQS sources
// (docs/aws-behaviour.md §5.9).
func (s *Service) dropFiltered(m *mapping, cfg Configuration, rec record) {
	m.stats.filteredOut.Add(1)
	s.emit(cfg, "FilteredOutEventCount", 1)
	if err := s.opts.Queues.Delete(cfg.EventSourceArn, rec.ReceiptHandle); err != nil {
		s.log.Warn("event source mapping cannot delete a filtered-out message", "uuid", cfg.UUID, "messageId", rec.MessageID, "err", err)
	}
}

// acquire takes a concurrency slot of m, waiting while all are taken. It
// returns false when ctx ends first.
func (s *Service) acquire(ctx context.Context, m *mapping) bool {
	for {
		limit := s.opts.DefaultMaxConcurrency
		v := s.view(m)
		if mc := v.cfg.maxConcurrency(); mc > 0 {
			limit = mc
		}
		m.slotMu.Lock()
		if m.slots < limit {
			m.slots++
			m.slotMu.Unlock()
			return true
		}
		m.slotMu.Unlock()
		select {
		case <-m.slotFreed:
		case <-ctx.Done():
			return false
		}
	}
}

// release returns a slot of m.
func (s *Service) release(m *mapping) {
	m.slotMu.Lock()
	m.slots--
	m.slotMu.Unlock()
	select {
	case m.slotFreed <- struct{}{}:
	default:
	}
}

// dispatch runs a batch in its own goroutine, which owns one slot. Its
// context is the service's, not the poller's: disabling or deleting the
// mapping lets invocations in flight finish.
func (s *Service) dispatch(m *mapping, v view, b batch) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.release(m)
		s.invoke(m, v.cfg, b)
	}()
}

// invoke delivers a batch and settles it exactly as Lambda does for SQS
// (docs/aws-behaviour.md §4.8, §4.9): success deletes the batch, or
// with ReportBatchItemFailures everything but the reported ids; a function
// error, an invocation error or an invalid partial batch response fails
// the whole batch, whose messages reappear after their visibility timeout.
func (s *Service) invoke(m *mapping, cfg Configuration, b batch) {
	payload, err := eventPayload(b.records)
	if err != nil {
		s.log.Error("event source mapping cannot encode a batch", "uuid", cfg.UUID, "err", err)
		m.stats.failedBatches.Add(1)
		return
	}
	m.stats.batches.Add(1)
	m.stats.records.Add(int64(len(b.records)))
	res, err := s.invokeRetrying(m, cfg, b, payload)
	if err != nil {
		m.stats.failedBatches.Add(1)
		s.emit(cfg, "FailedInvokeEventCount", len(b.records))
		if !errors.Is(err, context.Canceled) {
			s.log.Warn("event source mapping invocation failed", "uuid", cfg.UUID, "function", cfg.FunctionArn, "records", len(b.records), "err", err)
		}
		return
	}
	s.emit(cfg, "InvokedEventCount", len(b.records))
	if res.FunctionError != "" {
		m.stats.failedBatches.Add(1)
		m.stats.functionErrors.Add(1)
		s.log.Debug("event source mapping batch failed in the function", "uuid", cfg.UUID,
			"functionError", res.FunctionError, "records", len(b.records), "duplicate", b.duplicate)
		return
	}
	s.log.Debug("event source mapping batch processed", "uuid", cfg.UUID, "records", len(b.records), "duplicate", b.duplicate)
	var keep map[string]bool
	if cfg.reportsItemFailures() {
		ids := make(map[string]bool, len(b.records))
		for _, r := range b.records {
			ids[r.MessageID] = true
		}
		keep, err = parseItemFailures(res.Payload, ids)
		if err != nil {
			m.stats.failedBatches.Add(1)
			m.stats.invalidResponses.Add(1)
			s.log.Warn("event source mapping got an invalid partial batch response; the whole batch failed", "uuid", cfg.UUID, "err", err)
			return
		}
		m.stats.itemFailures.Add(int64(len(keep)))
	}
	m.stats.succeeded.Add(1)
	s.ack(m, cfg, b, keep)
}

// invokeRetrying invokes the function, retrying throttled attempts with
// backoff while the batch's messages are still invisible and the mapping
// still enabled.
func (s *Service) invokeRetrying(m *mapping, cfg Configuration, b batch, payload []byte) (InvokeResult, error) {
	for attempt := 0; ; attempt++ {
		n := m.stats.inFlight.Add(1)
		for {
			peak := m.stats.peak.Load()
			if n <= peak || m.stats.peak.CompareAndSwap(peak, n) {
				break
			}
		}
		res, err := s.opts.Invoker.Invoke(s.ctx, cfg.FunctionArn, payload)
		m.stats.inFlight.Add(-1)
		if !errors.Is(err, ErrThrottled) {
			return res, err
		}
		m.stats.throttles.Add(1)
		d := min(throttleBackoffBase<<min(attempt, 10), throttleBackoffMax)
		if !s.opts.Now().Add(d).Before(b.deadline) {
			return InvokeResult{}, err
		}
		if !s.enabled(m) {
			return InvokeResult{}, err
		}
		if serr := s.opts.SleepFunc(s.ctx, d); serr != nil {
			return InvokeResult{}, serr
		}
	}
}

// ack deletes the records of a settled batch except those to keep,
// honouring the injected acknowledgement faults.
func (s *Service) ack(m *mapping, cfg Configuration, b batch, keep map[string]bool) {
	queueARN := cfg.EventSourceArn
	del := make([]record, 0, len(b.records))
	for _, r := range b.records {
		if !keep[r.MessageID] {
			del = append(del, r)
		}
	}
	if len(del) == 0 {
		return
	}
	if d := s.faults.AckDelay(queueARN); d > 0 {
		m.stats.delayedAcks.Add(1)
		if err := s.opts.SleepFunc(s.ctx, d); err != nil {
			return // shutting down: the messages reappear after their timeout
		}
	}
	deleted := 0
	for _, r := range del {
		if s.faults.DropAck(queueARN) {
			m.stats.droppedAcks.Add(1)
			continue
		}
		if err := s.opts.Queues.Delete(queueARN, r.ReceiptHandle); err != nil {
			s.log.Warn("event source mapping cannot delete a processed message", "uuid", cfg.UUID, "messageId", r.MessageID, "err", err)
			continue
		}
		deleted++
	}
	m.stats.deleted.Add(int64(deleted))
	s.emit(cfg, "DeletedEventCount", deleted)
}

// emit sends one mapping metric when the mapping's MetricsConfig asks for
// EventCount (AWS/Lambda namespace, EventSourceMappingUUID dimension; the
// metric names of Lambda's event source mapping metrics).
func (s *Service) emit(cfg Configuration, name string, n int) {
	if s.opts.Metrics == nil || n == 0 || !cfg.eventCountMetrics() {
		return
	}
	s.opts.Metrics.PutMetrics(emu.Metric{
		Namespace:  "AWS/Lambda",
		Name:       name,
		Dimensions: map[string]string{"EventSourceMappingUUID": cfg.UUID},
		Value:      float64(n),
		Unit:       "Count",
		Time:       s.opts.Now(),
	})
}
