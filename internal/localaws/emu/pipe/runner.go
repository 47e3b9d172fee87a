package pipe

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// readLimit is how many stream records one read takes (GetRecords' limit).
const readLimit = 1000

// runner is one pipe's runtime: it follows the pipe's stream (one shard in
// the local cloud) from a checkpoint, filters, batches and delivers. It
// never polls: it blocks in table.Stream.Wait until a record exists or the
// pipe's definition or desired state changes.
type runner struct {
	s      *Service
	p      *pipe
	ctx    context.Context
	cancel context.CancelFunc

	// cursor is the checkpoint: the position of the next record to read.
	// It survives UpdatePipe and Stop/Start; only the runner writes it.
	cursor atomic.Uint64
}

// snap is the runner's view of its pipe at one moment.
type snap struct {
	cfg     *config
	running bool
	changed <-chan struct{}
	gen     uint64
}

// record is a stream record on its way through the pipe.
type record struct {
	pos  table.Cursor
	seq  string
	at   time.Time // capture time (ApproximateCreationDateTime, unrounded)
	keys []byte
	// body is the record as Pipes deliver it: the GetRecords record plus
	// eventSourceARN (docs/aws-behaviour.md §1.2).
	body  []byte
	event any // body decoded, on first use by a template
}

// round is the matched records of a stretch of the stream [.., end).
type round struct {
	recs []*record
	end  table.Cursor
}

func (s *Service) startRunner(p *pipe, start table.Cursor) *runner {
	ctx, cancel := context.WithCancel(s.ctx)
	r := &runner{s: s, p: p, ctx: ctx, cancel: cancel}
	r.cursor.Store(uint64(start))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		r.loop()
	}()
	return r
}

func (r *runner) snapshot() snap {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	p := r.p
	return snap{cfg: p.cfg, running: p.desired == stateRunning, changed: p.changed, gen: p.gen}
}

func (r *runner) loop() {
	for r.ctx.Err() == nil {
		sn := r.snapshot()
		r.s.settle(r.p, sn.gen, sn.running)
		if !sn.running {
			select {
			case <-sn.changed:
			case <-r.ctx.Done():
			}
			continue
		}
		if rd := r.gather(sn); rd != nil {
			r.process(sn, rd)
		}
	}
}

// waitContext is cancelled when the pipe changes or the runner stops.
func (r *runner) waitContext(changed <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.ctx)
	go func() {
		select {
		case <-changed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// gather waits for records, filters them and returns the matched ones as a
// round, waiting up to MaximumBatchingWindowInSeconds (real time) for a
// full set of batches. Records that match no filter are skipped: the
// checkpoint moves past them (docs/aws-behaviour.md §1.3). It returns nil when the
// pipe changed meanwhile, so the next round starts from the checkpoint with
// the new definition.
func (r *runner) gather(sn snap) *round {
	cfg := sn.cfg
	st := cfg.stream
	ctx, cancel := r.waitContext(sn.changed)
	defer cancel()
	pos := table.Cursor(r.cursor.Load())
	var recs []*record
	for len(recs) == 0 {
		if st.Wait(ctx, pos) != nil {
			return nil
		}
		res, ok := r.read(ctx, st, &pos)
		if !ok {
			return nil
		}
		recs = r.filter(cfg, res.Records, pos)
		pos = res.Next
		if len(recs) == 0 {
			r.cursor.Store(uint64(pos))
		}
	}
	if want := cfg.batchSize * cfg.parallel; cfg.window > 0 && len(recs) < want {
		wctx, wcancel := context.WithTimeout(ctx, cfg.window)
		for len(recs) < want && st.Wait(wctx, pos) == nil {
			res, err := st.Read(pos, readLimit)
			if err != nil || len(res.Records) == 0 {
				break
			}
			recs = append(recs, r.filter(cfg, res.Records, pos)...)
			pos = res.Next
		}
		wcancel()
	}
	if ctx.Err() != nil { // changed (or deleted) while gathering
		return nil
	}
	return &round{recs: recs, end: pos}
}

// read reads at *pos. A position before the trim horizon (records older
// than the stream's 24-hour retention) jumps to the horizon, losing those
// records as AWS does; a closed, fully read shard parks the runner until
// the pipe changes.
func (r *runner) read(ctx context.Context, st *table.Stream, pos *table.Cursor) (table.ReadResult, bool) {
	res, err := st.Read(*pos, readLimit)
	switch {
	case errors.Is(err, table.ErrTrimmed):
		th := st.TrimHorizon()
		r.s.log.Warn("pipe source records expired before they were read; continuing at the trim horizon",
			"pipe", r.p.name, "from", uint64(*pos), "to", uint64(th))
		*pos = th
		r.cursor.Store(uint64(th))
		return table.ReadResult{Next: th}, true
	case err != nil:
		r.s.log.Error("pipe cannot read its source stream", "pipe", r.p.name, "err", err)
		<-ctx.Done()
		return res, false
	case len(res.Records) == 0 && res.End:
		r.s.log.Warn("pipe source stream is disabled and fully read; the pipe delivers nothing more", "pipe", r.p.name)
		<-ctx.Done()
		return res, false
	}
	return res, true
}

// filter keeps the records that match any filter (all of them when there
// is none). Each record is encoded and decoded once; every filter then
// matches the decoded value. Filters see the record as GetRecords returns
// it, before eventSourceARN is added (docs/aws-behaviour.md §5.9).
func (r *runner) filter(cfg *config, recs []table.Record, first table.Cursor) []*record {
	var out []*record
	for i := range recs {
		rec := &recs[i]
		raw, err := json.Marshal(rec)
		if err != nil {
			r.s.log.Error("pipe cannot encode a stream record; skipping it", "pipe", cfg.name,
				"sequenceNumber", rec.DynamoDB.SequenceNumber, "err", err)
			continue
		}
		if len(cfg.filters) > 0 && !r.matches(cfg, raw, rec.DynamoDB.SequenceNumber) {
			continue
		}
		body := make([]byte, 0, len(raw)+len(cfg.sourceARN)+24)
		body = append(body, raw[:len(raw)-1]...)
		body = append(body, `,"eventSourceARN":`...)
		body = strconv.AppendQuote(body, cfg.sourceARN)
		body = append(body, '}')
		out = append(out, &record{
			pos: first + table.Cursor(i), seq: rec.DynamoDB.SequenceNumber, at: rec.CapturedAt(),
			keys: rec.DynamoDB.Keys, body: body,
		})
	}
	return out
}

func (r *runner) matches(cfg *config, raw []byte, seq string) bool {
	v, err := decodeJSON(raw)
	if err != nil {
		r.s.log.Error("pipe cannot decode a stream record; skipping it", "pipe", cfg.name, "sequenceNumber", seq, "err", err)
		return false
	}
	for _, f := range cfg.filters {
		ok, err := f.MatchValue(v)
		if err != nil {
			r.s.log.Warn("pipe filter could not evaluate a record; it does not match", "pipe", cfg.name,
				"sequenceNumber", seq, "err", err)
			continue
		}
		if ok {
			return true
		}
	}
	return false
}

// process delivers a round. With ParallelizationFactor n > 1 the records
// are split into n partitions by a hash of their item key, as Lambda does
// for stream event sources, so records of one item stay in order while
// partitions run concurrently (docs/aws-behaviour.md §1.4). Each partition delivers
// its batches in order; a failing batch blocks its partition while it
// retries. The checkpoint then moves to the first record not yet handled
// (the round's end when everything was handled).
func (r *runner) process(sn snap, rd *round) {
	cfg := sn.cfg
	parts := make([][]*record, cfg.parallel)
	for _, rec := range rd.recs {
		i := 0
		if cfg.parallel > 1 {
			h := fnv.New32a()
			h.Write(rec.keys)
			i = int(h.Sum32() % uint32(cfg.parallel))
		}
		parts[i] = append(parts[i], rec)
	}
	var (
		mu      sync.Mutex
		pending = rd.end // lowest position not handled
	)
	run := func(part []*record) {
		for start := 0; start < len(part); start += cfg.batchSize {
			batch := part[start:min(start+cfg.batchSize, len(part))]
			if n := r.handle(sn, batch); n < len(batch) {
				mu.Lock()
				pending = min(pending, batch[n].pos)
				mu.Unlock()
				return
			}
		}
	}
	var wg sync.WaitGroup
	for _, part := range parts {
		if len(part) == 0 {
			continue
		}
		if cfg.parallel == 1 {
			run(part)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(part)
		}()
	}
	wg.Wait()
	r.cursor.Store(uint64(pending))
}

// Dead-letter conditions (docs/aws-behaviour.md §1.6; MaximumRecordAgeExceeded's
// exact spelling is UNCONFIRMED).
const (
	condRetries = "RetryAttemptsExhausted"
	condAge     = "MaximumRecordAgeExceeded"
)

// handle delivers one batch and returns how many of its leading records
// are done with (delivered, dropped or dead-lettered); fewer than all only
// when the pipe changed or was deleted while the batch was failing, and the
// rest is then read again from the checkpoint.
//
// How attempts are counted (AWS documents none of it; docs/aws-behaviour.md §1.5):
//
//   - Every execution of a batch (enrichment, then target) is one attempt.
//   - Before each attempt, a batch whose oldest record is older than
//     MaximumRecordAgeInSeconds goes to the dead-letter queue whole, with
//     condition MaximumRecordAgeExceeded; age is never bisected.
//   - With AUTOMATIC_BISECT, a batch of two or more records that failed at
//     the target is not retried as it is: it is split into halves (the
//     first half takes the extra record of an odd batch), handled one after
//     the other, each as a new batch with its own count. A split is not a
//     retry. Only a single-record batch, or any batch without bisect, is
//     retried.
//   - A batch that failed in the enrichment stage is never bisected, only
//     retried whole: "Partial batch failure handling is not supported for
//     enrichment"
//     (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html),
//     and bisect is that handling (the parameter is OnPartialBatchItemFailure).
//     So an enrichment that fails on one record sends its whole batch to the
//     dead-letter queue (docs/aws-behaviour.md §1.7).
//   - A batch is retried up to MaximumRetryAttempts times after its first
//     failure (1 + MaximumRetryAttempts attempts; -1 means until the records
//     expire), waiting RetryBackoff, then twice that, … up to 64 times it,
//     between attempts. Then it goes to the dead-letter queue whole, with
//     condition RetryAttemptsExhausted.
//
// So a record the target refuses, in a batch of n, costs about log2(n)
// failed splits plus 1 + MaximumRetryAttempts attempts of itself, and ends
// as one dead-letter message whose start and end sequence numbers are its
// own, while every other record is delivered. Throttled enrichments (ErrThrottled) are the
// exception: retried with backoff until the records expire, never counted,
// never bisected, as AWS treats its own throttling (docs/aws-behaviour.md §1.5).
func (r *runner) handle(sn snap, recs []*record) int {
	cfg := sn.cfg
	failures, throttles := 0, 0
	for {
		if r.ctx.Err() != nil {
			return 0
		}
		if cfg.maxAge > 0 && r.s.now().Sub(oldest(recs)) > cfg.maxAge {
			r.deadLetter(cfg, recs, condAge, nil)
			r.s.noteFates(cfg.name, recs, true)
			return len(recs)
		}
		err := r.execute(cfg, recs)
		if err == nil {
			r.s.noteFates(cfg.name, recs, false)
			return len(recs)
		}
		if errors.Is(err, ErrThrottled) {
			throttles++
			if !r.backoff(sn.changed, throttles) {
				return 0
			}
			continue
		}
		if cfg.bisect && len(recs) > 1 && !errors.Is(err, errEnrichment) {
			mid := (len(recs) + 1) / 2
			if n := r.handle(sn, recs[:mid]); n < mid {
				return n
			}
			return mid + r.handle(sn, recs[mid:])
		}
		failures++
		if cfg.maxRetries >= 0 && failures > cfg.maxRetries {
			r.deadLetter(cfg, recs, condRetries, err)
			r.s.noteFates(cfg.name, recs, true)
			return len(recs)
		}
		if !r.backoff(sn.changed, failures) {
			return 0
		}
	}
}

func oldest(recs []*record) time.Time {
	t := recs[0].at
	for _, rec := range recs[1:] {
		if rec.at.Before(t) {
			t = rec.at
		}
	}
	return t
}

// backoff waits before retry number n; it gives up (false) when the pipe
// changes (stop, update, delete), so a stuck batch never holds a pipe
// against its owner.
func (r *runner) backoff(changed <-chan struct{}, n int) bool {
	t := time.NewTimer(r.s.opts.RetryBackoff << min(n-1, 6))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-changed:
		return false
	case <-r.ctx.Done():
		return false
	}
}
