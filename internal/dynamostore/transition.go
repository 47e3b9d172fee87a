package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// fence is the condition of every write by a claim holder: the row is still
// Running under the caller's token. A worker whose lease was taken over has
// an old token, so its write fails and changes nothing.
const fence = "#status = :running AND #claimToken = :token"

// setDoneRun is the update clause of every write that makes a task
// terminal: the row enters IndexDone under its run (noRun when it has
// none, since an index key cannot be empty).
const setDoneRun = "#doneRun = if_not_exists(#runId, :noRun)"

// Finish implements task.Store. The row leaves the live index (liveKey and
// liveSince are removed), enters the done index, and keeps claimToken as a
// record of who finished it.
func (s *Store) Finish(ctx context.Context, p task.FinishParams) error {
	if err := validateHolder(p.TaskID, p.Token, p.Now); err != nil {
		return fmt.Errorf("dynamostore: finish task %s: %w: %w", p.TaskID, ErrInvalidInput, err)
	}
	if len(p.Result) > task.MaxResultBytes {
		return fmt.Errorf("dynamostore: finish task %s: %w: result is %d bytes, over the %d-byte limit",
			p.TaskID, ErrInvalidInput, len(p.Result), task.MaxResultBytes)
	}
	if len(p.Result) > 0 && !json.Valid(p.Result) {
		return fmt.Errorf("dynamostore: finish task %s: %w: result is not valid JSON", p.TaskID, ErrInvalidInput)
	}
	values := map[string]types.AttributeValue{
		":finished": sv(string(task.StateFinished)),
		":now":      msv(p.Now),
	}
	set := []string{"#status = :finished", "#updatedAt = :now", "#finishedAt = :now", setDoneRun}
	values[":noRun"] = sv(noRun)
	// A finished task carries no error: the failures of earlier attempts
	// are history (attempts says how many there were), not its outcome.
	remove := []string{"#liveKey", "#liveSince", "#errorKind", "#lastError"}
	if len(p.Result) > 0 {
		set = append(set, "#result = :result")
		values[":result"] = sv(string(p.Result))
	} else {
		remove = append(remove, "#result")
	}
	if s.ttl > 0 {
		set = append(set, "#expiresAt = :expiresAt")
		values[":expiresAt"] = nv(s.expiresAt(p.Now))
	}
	return s.fenced(ctx, "finish", p.TaskID, p.Token, set, remove, values)
}

// Fail implements task.Store. Reason is cut to task.MaxErrorBytes.
func (s *Store) Fail(ctx context.Context, p task.FailParams) error {
	if err := validateHolder(p.TaskID, p.Token, p.Now); err != nil {
		return fmt.Errorf("dynamostore: fail task %s: %w: %w", p.TaskID, ErrInvalidInput, err)
	}
	if !p.Kind.Valid() {
		return fmt.Errorf("dynamostore: fail task %s: %w: unknown error kind %q", p.TaskID, ErrInvalidInput, p.Kind)
	}
	values := map[string]types.AttributeValue{
		":failed": sv(string(task.StateFailed)),
		":now":    msv(p.Now),
		":kind":   sv(string(p.Kind)),
		":reason": sv(task.Truncate(p.Reason, task.MaxErrorBytes)),
		":noRun":  sv(noRun),
	}
	set := []string{"#status = :failed", "#updatedAt = :now", "#finishedAt = :now", "#errorKind = :kind", "#lastError = :reason", setDoneRun}
	if s.ttl > 0 {
		set = append(set, "#expiresAt = :expiresAt")
		values[":expiresAt"] = nv(s.expiresAt(p.Now))
	}
	return s.fenced(ctx, "fail", p.TaskID, p.Token, set, []string{"#liveKey", "#liveSince"}, values)
}

// Release implements task.Store. The task stays Running with its token, so
// the stream sees no "becomes Pending" change and the Pipe does not
// re-dispatch it; its lease ends at p.Now, so the next delivery (SQS
// redelivery, or the reconciler) can claim it at once. No index key or
// projected attribute changes, so a release costs no index write.
// Keeping the token lets the reconciler still fence a Fail(KindStuck) on it.
func (s *Store) Release(ctx context.Context, p task.ReleaseParams) error {
	if err := validateHolder(p.TaskID, p.Token, p.Now); err != nil {
		return fmt.Errorf("dynamostore: release task %s: %w: %w", p.TaskID, ErrInvalidInput, err)
	}
	values := map[string]types.AttributeValue{
		":now":    msv(p.Now),
		":kind":   sv(string(task.KindRetryable)),
		":reason": sv(task.Truncate(p.Reason, task.MaxErrorBytes)),
	}
	set := []string{"#leaseExpiresAt = :now", "#updatedAt = :now", "#errorKind = :kind", "#lastError = :reason"}
	return s.fenced(ctx, "release", p.TaskID, p.Token, set, nil, values)
}

func validateHolder(id, token string, now time.Time) error {
	switch {
	case id == "":
		return errors.New("empty task id")
	case token == "":
		return errors.New("empty claim token")
	case now.IsZero():
		return errors.New("zero time")
	}
	return nil
}

// fenced runs one UpdateItem conditional on fence. It also sets the token
// it is fenced on: a no-op while the fence holds, and what makes the writer
// visible in the stream's new image (the chaos checker's fencing invariant)
// if the fence were ever lost.
func (s *Store) fenced(ctx context.Context, op, id, token string, set, remove []string, values map[string]types.AttributeValue) error {
	values[":running"] = sv(string(task.StateRunning))
	values[":token"] = sv(token)
	update := updateExpr(append(set, "#claimToken = :token"), remove)
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       key(id),
		ConditionExpression:       aws.String(fence),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  names(fence, update),
		ExpressionAttributeValues: values,
		// Free on success; on failure it lets the error say what the task
		// became, without a read.
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return nil
	}
	if old, ok := conditionFailed(err); ok {
		return fmt.Errorf("dynamostore: %s task %s: %w (%s)", op, id, task.ErrStaleClaim, describe(old, true))
	}
	return fmt.Errorf("dynamostore: %s task %s: %w", op, id, err)
}

func updateExpr(set, remove []string) string {
	var b strings.Builder
	if len(set) > 0 {
		b.WriteString("SET ")
		b.WriteString(strings.Join(set, ", "))
	}
	if len(remove) > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("REMOVE ")
		b.WriteString(strings.Join(remove, ", "))
	}
	return b.String()
}

// describe summarizes the row a failed conditional write found, for error
// messages; fenced says the write was a claim holder's.
func describe(old map[string]types.AttributeValue, fenced bool) string {
	if len(old) == 0 {
		return "no such task"
	}
	t, err := decode(old)
	if err != nil {
		return "unreadable row: " + err.Error()
	}
	if fenced && t.State == task.StateRunning {
		return "task is Running under another claim"
	}
	return "task is " + string(t.State)
}

// RetryParams are the inputs of Store.Retry.
type RetryParams struct {
	TaskID string
	// From lists the terminal states the operator means to retry from:
	// Failed, Finished, or both. A live state is refused, as
	// task.CanTransition refuses it: retrying a Running task would revoke a
	// live claim and dispatch the task next to SQS's own redelivery, and
	// Pending has nothing to retry (docs/design.md §3.7).
	From []task.State
	Now  time.Time
}

// Retry is the operator's re-queue (taskpipe retry): if the task is in one of
// p.From, it becomes Pending with attempts 0 and the claim, result, error
// and TTL attributes removed, and moves from the done index back to the
// live index. The change to
// Pending is what the Pipe dispatches. It returns an error wrapping
// task.ErrNotFound for an unknown id and ErrWrongState when the task is in
// another state; neither writes anything.
func (s *Store) Retry(ctx context.Context, p RetryParams) error {
	if err := validateRetry(p); err != nil {
		return fmt.Errorf("dynamostore: retry task %s: %w: %w", p.TaskID, ErrInvalidInput, err)
	}
	values := map[string]types.AttributeValue{
		":pending": sv(string(task.StatePending)),
		":zero":    nv(0),
		":now":     msv(p.Now),
		":liveKey": sv(liveKey(shardOf(p.TaskID, s.shards))),
	}
	refs := make([]string, len(p.From))
	for i, st := range p.From {
		refs[i] = fmt.Sprintf(":from%d", i)
		values[refs[i]] = sv(string(st))
	}
	cond := "#status IN (" + strings.Join(refs, ", ") + ")"
	update := updateExpr(
		[]string{"#status = :pending", "#attempts = :zero", "#updatedAt = :now", "#liveKey = :liveKey", "#liveSince = :now"},
		[]string{"#claimToken", "#leaseExpiresAt", "#finishedAt", "#result", "#lastError", "#errorKind", "#expiresAt", "#doneRun"},
	)
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 key(p.TaskID),
		ConditionExpression:                 aws.String(cond),
		UpdateExpression:                    aws.String(update),
		ExpressionAttributeNames:            names(cond, update),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return nil
	}
	if old, ok := conditionFailed(err); ok {
		if len(old) == 0 {
			return fmt.Errorf("dynamostore: retry task %s: %w", p.TaskID, task.ErrNotFound)
		}
		return fmt.Errorf("dynamostore: retry task %s: %w: %s, want one of %v", p.TaskID, ErrWrongState, describe(old, false), p.From)
	}
	return fmt.Errorf("dynamostore: retry task %s: %w", p.TaskID, err)
}

func validateRetry(p RetryParams) error {
	switch {
	case p.TaskID == "":
		return errors.New("empty task id")
	case len(p.From) == 0:
		return errors.New("no state to retry from")
	case p.Now.IsZero():
		return errors.New("zero time")
	}
	for i, st := range p.From {
		if !st.Valid() {
			return fmt.Errorf("unknown state %q", st)
		}
		if !task.CanTransition(st, task.StatePending) {
			return fmt.Errorf("cannot retry from %s: only terminal tasks are retried", st)
		}
		if slices.Contains(p.From[:i], st) {
			return fmt.Errorf("state %s listed twice", st)
		}
	}
	return nil
}
