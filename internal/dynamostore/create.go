package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// batchSize is BatchWriteItem's limit of 25 put or delete requests per call
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html).
const batchSize = 25

// maxKeyBytes is DynamoDB's limit for a partition key value; taskId is the
// table's and runId, as doneRun, the done index's
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
const maxKeyBytes = 2048

// ErrUnprocessed means BatchWriteItem still returned some items as
// UnprocessedItems after Options.BatchAttempts tries.
var ErrUnprocessed = errors.New("items still unprocessed")

// CreateError reports the tasks that Create did not write. Every id not in
// Unwritten was written. An id is listed when its write was refused, left
// unprocessed, never sent, or sent in a call that failed (it may then have
// been written after all: creating it again is safe, see Create).
type CreateError struct {
	// Unwritten lists the ids in the order they were given.
	Unwritten []string
	// Total is the number of tasks passed to Create.
	Total int
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *CreateError) Error() string {
	const show = 5
	ids := e.Unwritten
	more := ""
	if len(ids) > show {
		ids, more = ids[:show], fmt.Sprintf(" and %d more", len(e.Unwritten)-show)
	}
	return fmt.Sprintf("dynamostore: create: %d of %d tasks not written (%s%s): %v",
		len(e.Unwritten), e.Total, strings.Join(ids, ", "), more, e.Err)
}

// Unwrap returns the cause.
func (e *CreateError) Unwrap() error { return e.Err }

// Create writes new tasks in state Pending with attempts 0, in
// BatchWriteItem calls of 25. It uses each task's ID, RunID, URL,
// MaxAttempts (0 means task.DefaultMaxAttempts) and CreatedAt (zero means
// Options.Now); a task with another State or non-zero Attempts is rejected,
// and other fields are ignored. Input is validated before anything is
// written.
//
// Items the service returns as UnprocessedItems are retried with exponential
// backoff and full jitter, as the BatchWriteItem reference asks, up to
// Options.BatchAttempts sends per batch. When any task is not written,
// Create stops and returns a *CreateError naming every unwritten id.
//
// BatchWriteItem cannot be conditional: creating an existing id overwrites
// that row (back to Pending, attempts 0, claim revoked). Task ids must be
// fresh; re-creating the ids of a CreateError is safe because at worst it
// re-runs those tasks.
func (s *Store) Create(ctx context.Context, tasks []task.Task) error {
	if err := validateCreate(tasks); err != nil {
		return fmt.Errorf("dynamostore: create: %w: %w", ErrInvalidInput, err)
	}
	now := s.now()
	reqs := make([]types.WriteRequest, len(tasks))
	for i, t := range tasks {
		t.State = task.StatePending
		if t.MaxAttempts == 0 {
			t.MaxAttempts = task.DefaultMaxAttempts
		}
		if t.CreatedAt.IsZero() {
			t.CreatedAt = now
		}
		t.UpdatedAt = t.CreatedAt
		item, err := s.Item(task.Task{
			ID: t.ID, RunID: t.RunID, URL: t.URL, State: t.State,
			MaxAttempts: t.MaxAttempts, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		})
		if err != nil {
			return fmt.Errorf("dynamostore: create: %w", err)
		}
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
	}
	for start := 0; start < len(reqs); start += batchSize {
		end := min(start+batchSize, len(reqs))
		left, err := s.writeBatch(ctx, reqs[start:end])
		if err == nil {
			continue
		}
		unwritten := idsOf(left)
		for _, t := range tasks[end:] {
			unwritten = append(unwritten, t.ID)
		}
		return &CreateError{Unwritten: order(unwritten, tasks), Total: len(tasks), Err: err}
	}
	return nil
}

// writeBatch sends one batch until nothing is left unprocessed. On error it
// returns the requests not known to be written.
func (s *Store) writeBatch(ctx context.Context, reqs []types.WriteRequest) ([]types.WriteRequest, error) {
	for attempt := 1; ; attempt++ {
		out, err := s.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{s.table: reqs},
		})
		if err != nil {
			return reqs, fmt.Errorf("batch write: %w", err)
		}
		left := out.UnprocessedItems[s.table]
		if len(left) == 0 {
			if len(out.UnprocessedItems) > 0 {
				return reqs, fmt.Errorf("batch write: unprocessed items for unexpected tables %v", tableNames(out.UnprocessedItems))
			}
			return nil, nil
		}
		if !subset(left, reqs) {
			// Never trust an answer we cannot map back to our own requests.
			return reqs, errors.New("batch write: unprocessed items do not match the request")
		}
		if attempt >= s.batchAttempts {
			return left, fmt.Errorf("%w after %d attempts", ErrUnprocessed, attempt)
		}
		if err := s.sleep(ctx, s.backoff(attempt-1)); err != nil {
			return left, fmt.Errorf("batch write backoff: %w", err)
		}
		reqs = left
	}
}

// backoff returns the full-jitter delay before retry number n (from 0).
func (s *Store) backoff(n int) time.Duration {
	d := backoffMax
	if n < 20 { // beyond 2^20 the cap wins anyway; avoids overflow
		d = min(backoffMax, backoffBase<<n)
	}
	return time.Duration(s.rand() * float64(d))
}

func validateCreate(tasks []task.Task) error {
	var errs []error
	seen := make(map[string]int, len(tasks))
	for i, t := range tasks {
		where := fmt.Sprintf("task %d (%q)", i, t.ID)
		switch {
		case t.ID == "":
			errs = append(errs, fmt.Errorf("task %d: empty id", i))
		case len(t.ID) > maxKeyBytes:
			errs = append(errs, fmt.Errorf("task %d: id is %d bytes, over %d", i, len(t.ID), maxKeyBytes))
		default:
			if j, dup := seen[t.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: duplicate of task %d", where, j))
			}
			seen[t.ID] = i
		}
		if t.RunID == "" {
			errs = append(errs, fmt.Errorf("%s: empty run id", where))
		} else if len(t.RunID) > maxKeyBytes {
			errs = append(errs, fmt.Errorf("%s: run id is %d bytes, over %d", where, len(t.RunID), maxKeyBytes))
		}
		if t.URL == "" {
			errs = append(errs, fmt.Errorf("%s: empty url", where))
		}
		if t.State != "" && t.State != task.StatePending {
			errs = append(errs, fmt.Errorf("%s: state %s, new tasks are Pending", where, t.State))
		}
		if t.Attempts != 0 {
			errs = append(errs, fmt.Errorf("%s: attempts %d, new tasks start at 0", where, t.Attempts))
		}
		if t.MaxAttempts < 0 {
			errs = append(errs, fmt.Errorf("%s: negative max attempts %d", where, t.MaxAttempts))
		}
	}
	return errors.Join(errs...)
}

func idsOf(reqs []types.WriteRequest) []string {
	ids := make([]string, 0, len(reqs))
	for _, r := range reqs {
		ids = append(ids, requestID(r))
	}
	return ids
}

func requestID(r types.WriteRequest) string {
	if r.PutRequest == nil {
		return ""
	}
	id, _ := r.PutRequest.Item[task.AttrTaskID].(*types.AttributeValueMemberS)
	if id == nil {
		return ""
	}
	return id.Value
}

// subset reports whether every request in left has the id of one in sent.
func subset(left, sent []types.WriteRequest) bool {
	ids := make(map[string]bool, len(sent))
	for _, r := range sent {
		ids[requestID(r)] = true
	}
	for _, r := range left {
		if id := requestID(r); id == "" || !ids[id] {
			return false
		}
	}
	return true
}

// order returns ids in the order of tasks.
func order(ids []string, tasks []task.Task) []string {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	out := make([]string, 0, len(ids))
	for _, t := range tasks {
		if set[t.ID] {
			out = append(out, t.ID)
		}
	}
	return out
}

func tableNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
