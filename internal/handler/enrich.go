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
// the reason. A malformed record fails the whole call: enrichment has no
// partial batch response, and the Pipe's AUTOMATIC_BISECT isolates the
// record. The result is never null: an empty array makes the Pipe skip the
// target.
func (e *Enrich) Handle(ctx context.Context, records []json.RawMessage) ([]message.Message, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	log := emf.ForInvocation(ctx, e.Logger)
	out := make([]message.Message, 0, len(records))
	dropped := 0
	for i, raw := range records {
		r, err := message.DecodeRecord(raw)
		if err != nil {
			return nil, fmt.Errorf("handler: enrich: record %d of %d: %w", i+1, len(records), err)
		}
		if r.EventName == message.EventRemove || r.NewImage == nil || r.TaskID() == "" {
			log.Info("not a task record; dropped", slog.String("eventID", r.EventID),
				slog.String("eventName", r.EventName), slog.String("sequenceNumber", r.SequenceNumber))
			dropped++
			continue
		}
		m := message.New(r.TaskID(), r.NewImage.RunID, r.NewImage.URL)
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("handler: enrich: record %d of %d: %w", i+1, len(records), err)
		}
		if m.Domain == "" {
			emf.ForTask(log, m.TaskID, m.RunID).Warn("task URL did not normalize (or has no domain); passed on for the scraper to decide",
				slog.String("url", m.URL))
		}
		out = append(out, m)
	}
	if dropped > 0 {
		if err := e.Metrics.Record(nil, emf.Count(emf.EnrichDropped, dropped)); err != nil {
			log.Error("record metrics", slog.Any("error", err))
		}
	}
	return out, nil
}
