package pipe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// MetricNamespace is where pipe metrics go (docs/aws-behaviour.md §1.10).
const MetricNamespace = "AWS/EventBridge/Pipes"

// Stage errors of one execution.
var (
	errEnrichment = errors.New("enrichment stage failed")
	errTarget     = errors.New("target stage failed")
)

// execute runs one attempt of a batch: enrichment (if any), then one SQS
// message per item. It reports its metrics (Invocations, EventCount,
// Duration, and on failure ExecutionFailed or ExecutionPartiallyFailed with
// EnrichmentStageFailed or TargetStageFailed; docs/aws-behaviour.md §1.10).
func (r *runner) execute(cfg *config, recs []*record) error {
	start := r.s.now()
	sent, err := r.executeStages(cfg, recs)
	end := r.s.now()
	ms := []emu.Metric{
		r.metric(cfg, "Invocations", 1, "Count", end),
		r.metric(cfg, "EventCount", float64(len(recs)), "Count", end),
		r.metric(cfg, "Duration", float64(end.Sub(start).Milliseconds()), "Milliseconds", end),
	}
	switch {
	case errors.Is(err, ErrThrottled):
		ms = append(ms, r.metric(cfg, "ExecutionThrottled", 1, "Count", end))
	case errors.Is(err, errEnrichment):
		ms = append(ms, r.metric(cfg, "ExecutionFailed", 1, "Count", end), r.metric(cfg, "EnrichmentStageFailed", 1, "Count", end))
	case errors.Is(err, errTarget) && sent > 0:
		ms = append(ms, r.metric(cfg, "ExecutionPartiallyFailed", 1, "Count", end),
			r.metric(cfg, "TargetStagePartiallyFailed", 1, "Count", end))
	case err != nil:
		ms = append(ms, r.metric(cfg, "ExecutionFailed", 1, "Count", end), r.metric(cfg, "TargetStageFailed", 1, "Count", end))
	}
	if m := r.s.opts.Metrics; m != nil {
		m.PutMetrics(ms...)
	}
	if err != nil {
		r.deliverLog(cfg, "ERROR", "ExecutionFailed", err)
		r.logf(cfg, "ERROR", "pipe execution failed", "records", len(recs),
			"firstSequenceNumber", recs[0].seq, "lastSequenceNumber", recs[len(recs)-1].seq, "err", err)
		return err
	}
	r.deliverLog(cfg, "INFO", "ExecutionSucceeded", nil)
	r.logf(cfg, "INFO", "pipe execution succeeded", "records", len(recs), "messages", sent)
	return nil
}

func (r *runner) metric(cfg *config, name string, v float64, unit string, at time.Time) emu.Metric {
	return emu.Metric{Namespace: MetricNamespace, Name: name, Dimensions: map[string]string{"PipeName": cfg.name},
		Value: v, Unit: unit, Time: at}
}

// executeStages returns how many target messages were sent.
func (r *runner) executeStages(cfg *config, recs []*record) (int, error) {
	items := make([][]byte, len(recs))
	for i, rec := range recs {
		items[i] = rec.body
	}
	if cfg.function != "" {
		var err error
		if items, err = r.enrich(cfg, recs); err != nil {
			return 0, err
		}
		if len(items) == 0 {
			// [], {}, "" or null: the target is not invoked and the batch
			// is done (docs/aws-behaviour.md §1.7).
			r.logf(cfg, "INFO", "pipe enrichment returned no items; batch dropped", "records", len(recs))
			return 0, nil
		}
		if len(items) > sqsBatchLimit {
			return 0, fmt.Errorf("%w: enrichment returned %d items, more than the SQS target's batch limit of %d, so the target was not invoked",
				errTarget, len(items), sqsBatchLimit)
		}
	}
	if err := r.s.authorize(r.ctx, cfg, "sqs:SendMessage", cfg.targetARN); err != nil {
		return 0, fmt.Errorf("%w: %w", errTarget, err)
	}
	now := r.s.now()
	for i, item := range items {
		in := queue.SendInput{Body: string(item)}
		var env *renderEnv
		if cfg.targetTemplate != nil || isPath(cfg.groupID) {
			ev, err := itemEvent(recs, cfg.function == "", i, item)
			if err != nil {
				return i, fmt.Errorf("%w: %w", errTarget, err)
			}
			env = &renderEnv{cfg: cfg, now: now, eventRaw: item, event: ev}
		}
		if cfg.targetTemplate != nil {
			in.Body = string(cfg.targetTemplate.render(env))
		}
		switch {
		case isPath(cfg.groupID):
			if v, ok := walk(env.event, mustPath(cfg.groupID)); ok {
				in.MessageGroupID = textOf(v)
			}
		case cfg.groupID != "":
			in.MessageGroupID = cfg.groupID
		}
		if f := r.s.opts.Faults; f != nil && f.PipeTargetFails(cfg.name, []byte(in.Body)) {
			return i, fmt.Errorf("%w: send message %d of %d to %s: injected fault", errTarget, i+1, len(items), cfg.targetARN)
		}
		if _, err := r.s.opts.Queues.SendMessage(r.ctx, cfg.targetARN, in); err != nil {
			return i, fmt.Errorf("%w: send message %d of %d to %s: %w", errTarget, i+1, len(items), cfg.targetARN, err)
		}
	}
	return len(items), nil
}

// itemEvent returns the decoded form of item i: the record's cached one
// when the items are the records themselves.
func itemEvent(recs []*record, itemsAreRecords bool, i int, item []byte) (any, error) {
	if itemsAreRecords {
		rec := recs[i]
		if rec.event == nil {
			ev, err := decodeJSON(rec.body)
			if err != nil {
				return nil, err
			}
			rec.event = ev
		}
		return rec.event, nil
	}
	ev, err := decodeJSON(item)
	if err != nil {
		// An item that is not JSON can still be rendered: as a string.
		return string(item), nil //nolint:nilerr // not an error: plain items are strings
	}
	return ev, nil
}

func isPath(s string) bool { return len(s) > 0 && s[0] == '$' }

func mustPath(s string) []pathStep {
	p, err := parsePath(s)
	if err != nil {
		return nil // walk(nil path) yields the whole event; compile never lets a bad path through
	}
	return p
}

// enrich invokes the enrichment function synchronously with the batch as a
// JSON array (after EnrichmentParameters.InputTemplate, per record) and
// returns the items of its response (docs/aws-behaviour.md §1.7).
func (r *runner) enrich(cfg *config, recs []*record) ([][]byte, error) {
	var in bytes.Buffer
	in.WriteByte('[')
	now := r.s.now()
	for i, rec := range recs {
		if i > 0 {
			in.WriteByte(',')
		}
		if cfg.enrichTemplate == nil {
			in.Write(rec.body)
			continue
		}
		ev, err := itemEvent(recs, true, i, rec.body)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errEnrichment, err)
		}
		out := cfg.enrichTemplate.render(&renderEnv{cfg: cfg, now: now, eventRaw: rec.body, event: ev})
		if json.Valid(out) {
			in.Write(out)
		} else {
			in.Write(marshalValue(string(out)))
		}
	}
	in.WriteByte(']')
	if err := r.s.authorize(r.ctx, cfg, "lambda:InvokeFunction", cfg.enrichmentARN); err != nil {
		return nil, fmt.Errorf("%w: invoke %s: %w", errEnrichment, cfg.function, err)
	}
	if f := r.s.opts.Faults; f != nil {
		if fail, hang := f.PipeEnrichmentFails(cfg.name); fail {
			return nil, r.injectedEnrichmentFailure(cfg, hang)
		}
	}
	inv, err := r.s.opts.Invoker.Invoke(r.ctx, cfg.function, in.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: invoke %s: %w", errEnrichment, cfg.function, err)
	}
	if inv.FunctionError != "" {
		return nil, fmt.Errorf("%w: function %s failed (%s %s): %s", errEnrichment, cfg.function,
			inv.FunctionError, inv.ErrorType, truncate(inv.Payload, 512))
	}
	items, err := parseEnrichment(inv.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: function %s: %w", errEnrichment, cfg.function, err)
	}
	return items, nil
}

// injectedEnrichmentFailure waits hang (or until the runner stops) and
// fails the enrichment the way Lambda reports a function error, or a
// timeout ("Task timed out after …", https://docs.aws.amazon.com/lambda/latest/dg/troubleshooting-invocation.html)
// when hang > 0.
func (r *runner) injectedEnrichmentFailure(cfg *config, hang time.Duration) error {
	if hang <= 0 {
		return fmt.Errorf("%w: function %s failed (Unhandled errorString): injected fault", errEnrichment, cfg.function)
	}
	t := time.NewTimer(hang)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.ctx.Done():
	}
	return fmt.Errorf("%w: function %s failed (Unhandled Sandbox.Timedout): Task timed out after %.2f seconds (injected fault)",
		errEnrichment, cfg.function, hang.Seconds())
}

// parseEnrichment reads an enrichment response: an array gives its
// elements; [], {}, "", null and an empty response give none (the batch is
// dropped); any other JSON value is a single item (docs/aws-behaviour.md §1.7).
func parseEnrichment(payload []byte) ([][]byte, error) {
	t := bytes.TrimSpace(payload)
	if len(t) == 0 {
		return nil, nil
	}
	if !json.Valid(t) {
		return nil, fmt.Errorf("response is not JSON: %s", truncate(t, 128))
	}
	switch t[0] {
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(t, &arr); err != nil {
			return nil, fmt.Errorf("decode response array: %w", err)
		}
		out := make([][]byte, len(arr))
		for i, el := range arr {
			out[i] = el
		}
		return out, nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t, &obj); err != nil {
			return nil, fmt.Errorf("decode response object: %w", err)
		}
		if len(obj) == 0 {
			return nil, nil
		}
	case '"':
		if string(t) == `""` {
			return nil, nil
		}
	case 'n':
		return nil, nil
	}
	return [][]byte{t}, nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// DeadLetter is the message a pipe sends to its dead-letter queue for a
// batch it gives up on: pointers into the stream, not the records
// (docs/aws-behaviour.md §1.6). Recover the records with GetShardIterator
// (AT_SEQUENCE_NUMBER) within the stream's 24-hour retention.
type DeadLetter struct {
	Context            DeadLetterContext `json:"context"`
	Version            string            `json:"version"`
	Timestamp          string            `json:"timestamp"`
	DDBStreamBatchInfo BatchInfo         `json:"DDBStreamBatchInfo"`
}

// DeadLetterContext says which pipe gave up and why.
type DeadLetterContext struct {
	// PartnerResourceArn is the pipe's ARN.
	PartnerResourceArn string `json:"partnerResourceArn"`
	// Condition is "RetryAttemptsExhausted" or "MaximumRecordAgeExceeded".
	Condition string `json:"condition"`
}

// BatchInfo locates the failed records in the source stream.
type BatchInfo struct {
	ShardID                         string `json:"shardId"`
	StartSequenceNumber             string `json:"startSequenceNumber"`
	EndSequenceNumber               string `json:"endSequenceNumber"`
	ApproximateArrivalOfFirstRecord string `json:"approximateArrivalOfFirstRecord"`
	ApproximateArrivalOfLastRecord  string `json:"approximateArrivalOfLastRecord"`
	BatchSize                       int    `json:"batchSize"`
	StreamArn                       string `json:"streamArn"`
}

// deadLetter sends one pointer message for the batch to the pipe's DLQ, or,
// without one, drops the records with a warning. A DLQ that cannot take the
// message (deleted meanwhile) loses the pointer; that is logged as an
// error, and the reconciler is what recovers such tasks.
func (r *runner) deadLetter(cfg *config, recs []*record, condition string, cause error) {
	first, last := recs[0], recs[len(recs)-1]
	attrs := []any{"condition", condition, "records", len(recs),
		"startSequenceNumber", first.seq, "endSequenceNumber", last.seq}
	if cause != nil {
		attrs = append(attrs, "err", cause)
	}
	if cfg.dlqARN == "" {
		r.s.log.Warn("pipe dropped records: no dead-letter queue configured", append([]any{"pipe", cfg.name}, attrs...)...)
		r.logf(cfg, "ERROR", "pipe dropped records", attrs...)
		return
	}
	msg := DeadLetter{
		Context:   DeadLetterContext{PartnerResourceArn: cfg.arn, Condition: condition},
		Version:   "1.0",
		Timestamp: r.s.now().UTC().Format(timeLayout),
		DDBStreamBatchInfo: BatchInfo{
			ShardID:                         cfg.stream.ShardID(),
			StartSequenceNumber:             first.seq,
			EndSequenceNumber:               last.seq,
			ApproximateArrivalOfFirstRecord: first.at.UTC().Format(timeLayout),
			ApproximateArrivalOfLastRecord:  last.at.UTC().Format(timeLayout),
			BatchSize:                       len(recs),
			StreamArn:                       cfg.sourceARN,
		},
	}
	body, err := json.Marshal(msg)
	if err == nil {
		err = r.s.authorize(r.ctx, cfg, "sqs:SendMessage", cfg.dlqARN)
	}
	if err == nil {
		// A deleted pipe still reports what it gave up on.
		_, err = r.s.opts.Queues.SendMessage(context.WithoutCancel(r.ctx), cfg.dlqARN, queue.SendInput{Body: string(body)})
	}
	if err != nil {
		r.s.log.Error("pipe could not send to its dead-letter queue; the records are lost",
			append([]any{"pipe", cfg.name, "dlq", cfg.dlqARN, "sendErr", err}, attrs...)...)
		return
	}
	r.logf(cfg, "ERROR", "pipe sent a batch to its dead-letter queue", attrs...)
}

// logf logs per the pipe's LogConfiguration.Level (OFF < ERROR < INFO <
// TRACE): level is the least detailed setting that includes the message.
func (r *runner) logf(cfg *config, level, msg string, attrs ...any) {
	rank := map[string]int{"": 0, "OFF": 0, "ERROR": 1, "INFO": 2, "TRACE": 3}
	if rank[cfg.logLevel] < rank[level] {
		return
	}
	sl := slog.LevelInfo
	switch level {
	case "ERROR":
		sl = slog.LevelError
	case "TRACE":
		sl = slog.LevelDebug
	}
	r.s.log.Log(r.ctx, sl, msg, append([]any{"pipe", cfg.name}, attrs...)...)
}
