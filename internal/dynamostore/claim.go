package dynamostore

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// The claim is one conditional UpdateItem. DynamoDB evaluates the condition
// and applies the update atomically per item, so of any number of concurrent
// claims exactly one sees the old state and wins.
const (
	claimCondition = "(#status = :pending OR (#status = :running AND #leaseExpiresAt <= :now)) AND #attempts < #maxAttempts"
	claimUpdate    = "SET #status = :running, #claimToken = :token, #leaseExpiresAt = :lease, " +
		"#attempts = #attempts + :one, #updatedAt = :now"
)

var claimNames = names(claimCondition, claimUpdate)

// maxClaimRounds bounds how often Claim starts over when the row changed
// between its claim and its exhausted-marking write.
const maxClaimRounds = 3

// Claim implements task.Store. The happy path is one UpdateItem that returns
// the new row (ReturnValues ALL_NEW). When the condition fails, DynamoDB
// returns the row as it was (ReturnValuesOnConditionCheckFailure ALL_OLD), so
// telling "terminal", "claimed" and "exhausted" apart needs no read. Only
// an exhausted task costs a second write: a conditional UpdateItem that marks
// it Failed, guarded by the old status, attempts and token so that it cannot
// overwrite a concurrent change.
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
// (ReturnValuesOnConditionCheckFailure).
func (s *Store) Claim(ctx context.Context, p task.ClaimParams) (task.Task, error) {
	if err := validateClaim(p); err != nil {
		return task.Task{}, fmt.Errorf("dynamostore: claim task %s: %w: %w", p.TaskID, ErrInvalidInput, err)
	}
	for range maxClaimRounds {
		t, old, err := s.tryClaim(ctx, p)
		if err != nil || old == nil {
			return t, err
		}
		if len(old) == 0 {
			return task.Task{}, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, task.ErrNotFound)
		}
		prev, err := decode(old)
		if err != nil {
			return task.Task{}, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, err)
		}
		if err := claimRefusal(prev, p.Now.UnixMilli()); err != nil {
			return task.Task{}, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, err)
		}
		// Claimable but out of attempts: fail it instead of running it.
		failed, changed, err := s.exhaust(ctx, prev, p)
		if err != nil {
			return task.Task{}, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, err)
		}
		if !changed {
			return failed, fmt.Errorf("dynamostore: claim task %s: %w (%d of %d attempts used)",
				p.TaskID, task.ErrExhausted, prev.Attempts, prev.MaxAttempts)
		}
		// The row moved on between the two writes (an operator retry, a
		// concurrent exhaust): start over and decide from its new state.
	}
	return task.Task{}, fmt.Errorf("dynamostore: claim task %s: row changed under each of %d attempts", p.TaskID, maxClaimRounds)
}

func validateClaim(p task.ClaimParams) error {
	switch {
	case p.TaskID == "":
		return errors.New("empty task id")
	case p.Token == "":
		return errors.New("empty claim token")
	case p.Lease <= 0:
		return fmt.Errorf("lease %s is not positive", p.Lease)
	case p.Now.IsZero():
		return errors.New("zero time")
	}
	return nil
}

// tryClaim runs the claim write. On a failed condition it returns the old
// item as a non-nil map (empty when no task has the id).
func (s *Store) tryClaim(ctx context.Context, p task.ClaimParams) (task.Task, map[string]types.AttributeValue, error) {
	lease := p.Now.Add(p.Lease)
	out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      key(p.TaskID),
		ConditionExpression:      aws.String(claimCondition),
		UpdateExpression:         aws.String(claimUpdate),
		ExpressionAttributeNames: claimNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pending": sv(string(task.StatePending)),
			":running": sv(string(task.StateRunning)),
			":now":     msv(p.Now),
			":token":   sv(p.Token),
			":lease":   msv(lease),
			":one":     nv(1),
		},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err != nil {
		if old, ok := conditionFailed(err); ok {
			if old == nil {
				old = map[string]types.AttributeValue{}
			}
			return task.Task{}, old, nil
		}
		return task.Task{}, nil, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, err)
	}
	t, err := decode(out.Attributes)
	if err != nil {
		return task.Task{}, nil, fmt.Errorf("dynamostore: claim task %s: %w", p.TaskID, err)
	}
	return t, nil, nil
}

// claimRefusal explains why the claim condition failed on prev, or returns
// nil when prev was claimable but out of attempts. nowMs is the time the
// condition compared against, in epoch milliseconds.
func claimRefusal(prev task.Task, nowMs int64) error {
	switch {
	case prev.State.Terminal():
		return fmt.Errorf("%w (%s)", task.ErrTerminal, prev.State)
	case prev.State == task.StateRunning && prev.LeaseExpiresAt.UnixMilli() > nowMs:
		return task.ErrClaimed
	case prev.State != task.StatePending && prev.State != task.StateRunning:
		return fmt.Errorf("unexpected state %q", prev.State)
	case prev.Attempts >= prev.MaxAttempts:
		return nil
	}
	// The condition failed although the old row satisfies it: the row must
	// be malformed (e.g. a missing attempts attribute), so say so rather
	// than guess.
	return fmt.Errorf("condition failed on a row that looks claimable (status %s, attempts %d of %d, lease until %d)",
		prev.State, prev.Attempts, prev.MaxAttempts, prev.LeaseExpiresAt.UnixMilli())
}

// exhaust marks prev Failed with KindExhausted, conditional on the row still
// being exactly as the failed claim saw it. changed reports that it was not.
func (s *Store) exhaust(ctx context.Context, prev task.Task, p task.ClaimParams) (t task.Task, changed bool, err error) {
	cond := "#status = :oldStatus AND #attempts = :oldAttempts AND #maxAttempts = :oldMax"
	values := map[string]types.AttributeValue{
		":oldStatus":   sv(string(prev.State)),
		":oldAttempts": nv(int64(prev.Attempts)),
		":oldMax":      nv(int64(prev.MaxAttempts)),
		":failed":      sv(string(task.StateFailed)),
		":kind":        sv(string(task.KindExhausted)),
		":reason":      sv(fmt.Sprintf("attempts exhausted: %d of %d used", prev.Attempts, prev.MaxAttempts)),
		":now":         msv(p.Now),
	}
	if prev.ClaimToken != "" {
		cond += " AND #claimToken = :oldToken"
		values[":oldToken"] = sv(prev.ClaimToken)
	} else {
		cond += " AND attribute_not_exists(#claimToken)"
	}
	if prev.State == task.StateRunning {
		// A release by the holder moves the lease; re-decide after it.
		cond += " AND #leaseExpiresAt = :oldLease"
		values[":oldLease"] = msv(prev.LeaseExpiresAt)
	}
	update := "SET #status = :failed, #errorKind = :kind, #lastError = :reason, #updatedAt = :now, #finishedAt = :now, " + setDoneRun
	values[":noRun"] = sv(noRun)
	if s.ttl > 0 {
		update += ", #expiresAt = :expiresAt"
		values[":expiresAt"] = nv(s.expiresAt(p.Now))
	}
	update += " REMOVE #liveKey, #liveSince"
	out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       key(prev.ID),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  names(cond, update),
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		if _, ok := conditionFailed(err); ok {
			return task.Task{}, true, nil
		}
		return task.Task{}, false, fmt.Errorf("mark exhausted: %w", err)
	}
	t, err = decode(out.Attributes)
	if err != nil {
		return task.Task{}, false, fmt.Errorf("mark exhausted: %w", err)
	}
	return t, false, nil
}
