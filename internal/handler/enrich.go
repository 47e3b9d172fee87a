package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/message"
)

// Enrich is the Pipe's enrichment. Pipes invoke it synchronously with the
// whole batch as a JSON array of stream records and send each returned
// item to the target as one message (docs/aws-behaviour.md §1.7).
type Enrich struct {
	Metrics emf.Recorder
	Logger  *slog.Logger
}

// Validate reports missing dependencies.
func (e *Enrich) Validate() error {
	var errs []error
	if e.Metrics == nil {
		errs = append(errs, errors.New("nil Metrics"))
	}
	if e.Logger == nil {
		errs = append(errs, errors.New("nil Logger"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("handler: enrich: %w", errors.Join(errs...))
	}
	return nil
}

// Handle returns one compact message per task record, in input order. It
// drops records that are not task records (REMOVE, no new image, no task
// id); a task whose URL does not normalize is passed on with its raw URL,
// because dropping it would lose the task, while the scraper fails it with
// the reason. A malformed record is dropped too, logged and counted
// (EnrichMalformed), never failing the call: AWS has no partial batch
// failure handling for enrichment
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html),
// so an error would retry the whole batch and send its good records to the
// pipe DLQ with the bad one. Its task stays Pending, so the reconciler
// re-dispatches it once overdue (docs/design.md §3.5). The result is never
// null: an empty array makes the Pipe skip the target.
func (e *Enrich) Handle(ctx context.Context, records []json.RawMessage) ([]message.Message, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	log := emf.ForInvocation(ctx, e.Logger)
	out := make([]message.Message, 0, len(records))
	dropped, malformed := 0, 0
	for i, raw := range records {
		r, err := message.DecodeRecord(raw)
		if err != nil {
			id, seq := peekRecord(raw)
			log.Error("malformed stream record; dropped", slog.Int("record", i+1), slog.Int("records", len(records)),
				slog.String("eventID", id), slog.String("sequenceNumber", seq), slog.Any("error", err))
			malformed++
			continue
		}
		if r.EventName == message.EventRemove || r.NewImage == nil || r.TaskID() == "" {
			log.Info("not a task record; dropped", slog.String("eventID", r.EventID),
				slog.String("eventName", r.EventName), slog.String("sequenceNumber", r.SequenceNumber))
			dropped++
			continue
		}
		m := message.New(r.TaskID(), r.NewImage.RunID, r.NewImage.URL)
		if err := m.Validate(); err != nil {
			log.Error("stream record with an unusable task; dropped", slog.Int("record", i+1), slog.Int("records", len(records)),
				slog.String("eventID", r.EventID), slog.String("sequenceNumber", r.SequenceNumber), slog.Any("error", err))
			malformed++
			continue
		}
		if m.Domain == "" {
			emf.ForTask(log, m.TaskID, m.RunID).Warn("task URL did not normalize (or has no domain); passed on for the scraper to decide",
				slog.String("url", m.URL))
		}
		out = append(out, m)
	}
	var ms []emf.Metric
	if dropped > 0 {
		ms = append(ms, emf.Count(emf.EnrichDropped, dropped))
	}
	if malformed > 0 {
		ms = append(ms, emf.Count(emf.EnrichMalformed, malformed))
	}
	if len(ms) > 0 {
		if err := e.Metrics.Record(nil, ms...); err != nil {
			log.Error("record metrics", slog.Any("error", err))
		}
	}
	return out, nil
}

// peekRecord reads what it can of a record DecodeRecord refused, so the log
// line points at it in the stream; empty strings when even that fails.
func peekRecord(raw json.RawMessage) (eventID, sequenceNumber string) {
	var w struct {
		EventID  string `json:"eventID"`
		DynamoDB struct {
			SequenceNumber string `json:"SequenceNumber"`
		} `json:"dynamodb"`
	}
	if json.Unmarshal(raw, &w) != nil {
		return "", ""
	}
	return w.EventID, w.DynamoDB.SequenceNumber
}
