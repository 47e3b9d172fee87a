package dynamostore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// spent is a Running task with an expired lease and no attempts left.
func spent(id string) task.Task {
	tk := tasktest.Pending(id)
	tk.State, tk.Attempts, tk.ClaimToken = task.StateRunning, 3, "tok-old"
	tk.LeaseExpiresAt = t0.Add(-time.Minute)
	return tk
}

func TestClaimExhaustedCostsTwoWrites(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	require.NoError(t, l.Seed(t.Context(), spent("t1")))
	rc.Reset()
	_, err := l.Store.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.ErrorIs(t, err, task.ErrExhausted)
	require.Equal(t, 2, rc.Count("UpdateItem"))
	require.Zero(t, rc.Reads(), "the decision comes from ALL_OLD, not a read")

	for _, tc := range []struct {
		name string
		seed task.Task
		want error
	}{
		{"Terminal", func() task.Task { tk := spent("t2"); tk.State = task.StateFinished; return tk }(), task.ErrTerminal},
		{"Claimed", func() task.Task {
			tk := spent("t3")
			tk.Attempts, tk.LeaseExpiresAt = 1, t0.Add(time.Minute)
			return tk
		}(), task.ErrClaimed},
	} {
		require.NoError(t, l.Seed(t.Context(), tc.seed))
		rc.Reset()
		_, err := l.Store.Claim(t.Context(), task.ClaimParams{TaskID: tc.seed.ID, Token: "tok", Now: t0, Lease: tasktest.Lease})
		require.ErrorIs(t, err, tc.want, tc.name)
		require.Equal(t, 1, rc.Total(), "%s: a refused claim is one request", tc.name)
	}
	rc.Reset()
	_, err = l.Store.Claim(t.Context(), task.ClaimParams{TaskID: "nope", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.ErrorIs(t, err, task.ErrNotFound)
	require.Equal(t, 1, rc.Total())
}

func TestClaimExhaustLosesToRetry(t *testing.T) {
	t.Parallel()
	// Between the failed claim and the exhausted-marking write, the
	// reconciler fails the spent task as stuck and an operator retries it:
	// that write must not clobber the retry, and the claim starts over and
	// wins the now-fresh task.
	l := dynamostoretest.NewLocal(t)
	require.NoError(t, l.Seed(t.Context(), spent("t1")))
	var fired atomic.Bool
	api := &faultAPI{API: l.Client}
	api.beforeUpdate = func(in *dynamodb.UpdateItemInput) {
		if strings.Contains(aws.ToString(in.ConditionExpression), ":oldStatus") && !fired.Swap(true) {
			err := l.Store.Fail(context.Background(), task.FailParams{TaskID: "t1", Token: "tok-old", Now: t0, Kind: task.KindStuck, Reason: "lease expired"})
			require.NoError(t, err)
			err = l.Store.Retry(context.Background(), dynamostore.RetryParams{TaskID: "t1", From: []task.State{task.StateFailed}, Now: t0})
			require.NoError(t, err)
		}
	}
	s := newStore(t, l, api, nil)
	got, err := s.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok-new", Now: t0, Lease: tasktest.Lease})
	require.NoError(t, err)
	require.True(t, fired.Load())
	require.Equal(t, task.StateRunning, got.State)
	require.Equal(t, 1, got.Attempts)
	require.Equal(t, "tok-new", got.ClaimToken)
}

func TestClaimKeepsChanging(t *testing.T) {
	t.Parallel()
	// If the row changes under every exhaust attempt, Claim gives up with an
	// error instead of looping forever.
	l := dynamostoretest.NewLocal(t)
	require.NoError(t, l.Seed(t.Context(), spent("t1")))
	api := &faultAPI{API: l.Client}
	var n atomic.Int32
	api.beforeUpdate = func(in *dynamodb.UpdateItemInput) {
		if strings.Contains(aws.ToString(in.ConditionExpression), ":oldStatus") {
			// Another worker's takeover and release, leaving it spent again
			// but under a new lease.
			tk := spent("t1")
			tk.LeaseExpiresAt = t0.Add(-time.Duration(n.Add(1)) * time.Second)
			require.NoError(t, l.Seed(context.Background(), tk))
		}
	}
	s := newStore(t, l, api, nil)
	_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.ErrorContains(t, err, "row changed under each of 3 attempts")
	for _, sentinel := range []error{task.ErrExhausted, task.ErrClaimed, task.ErrTerminal, task.ErrNotFound} {
		require.NotErrorIs(t, err, sentinel)
	}
}

func TestClaimMalformedRow(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	for _, tc := range []struct {
		id, status, msg string
	}{
		// Without attempts the condition cannot hold; read as 0 of 0 the row
		// would look exhausted, so the store refuses to guess.
		{"no-attempts", "Pending", "attribute attempts missing"},
		{"weird", "Done", `decode task weird: task: parse state "Done": unknown state`},
	} {
		_, err := l.Client.PutItem(t.Context(), &dynamodb.PutItemInput{
			TableName: aws.String(l.Table),
			Item: map[string]types.AttributeValue{
				task.AttrTaskID: &types.AttributeValueMemberS{Value: tc.id},
				task.AttrStatus: &types.AttributeValueMemberS{Value: tc.status},
			},
		})
		require.NoError(t, err)
		before := rawItem(t, l, tc.id)
		_, err = l.Store.Claim(t.Context(), task.ClaimParams{TaskID: tc.id, Token: "tok", Now: t0, Lease: tasktest.Lease})
		require.ErrorContains(t, err, tc.msg)
		require.Equal(t, before, rawItem(t, l, tc.id))
	}
}

// lyingAPI answers every UpdateItem with a failed condition carrying item.
type lyingAPI struct {
	dynamostore.API
	item map[string]types.AttributeValue
}

func (a lyingAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed"), Item: a.item}
}

func TestClaimConditionFailedOnClaimableRow(t *testing.T) {
	t.Parallel()
	// A backend that refuses the condition on a row that satisfies it is
	// broken; the store reports that rather than a sentinel.
	l := dynamostoretest.NewLocal(t)
	item, err := l.Store.Item(tasktest.Pending("t1"))
	require.NoError(t, err)
	s := newStore(t, l, lyingAPI{API: l.Client, item: item}, nil)
	_, err = s.Claim(t.Context(), task.ClaimParams{TaskID: "t1", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.ErrorContains(t, err, "condition failed on a row that looks claimable")
	for _, sentinel := range []error{task.ErrExhausted, task.ErrClaimed, task.ErrTerminal, task.ErrNotFound} {
		require.NotErrorIs(t, err, sentinel)
	}
}

func TestSDKErrorsAreWrapped(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	boom := errors.New("connection reset")
	s := newStore(t, l, &faultAPI{API: l.Client, err: boom}, nil)
	ctx := t.Context()
	for name, call := range map[string]func() error{
		"claim task t1": func() error {
			_, err := s.Claim(ctx, task.ClaimParams{TaskID: "t1", Token: "x", Now: t0, Lease: time.Minute})
			return err
		},
		"finish task t1": func() error { return s.Finish(ctx, task.FinishParams{TaskID: "t1", Token: "x", Now: t0}) },
		"fail task t1": func() error {
			return s.Fail(ctx, task.FailParams{TaskID: "t1", Token: "x", Now: t0, Kind: task.KindFatal})
		},
		"release task t1": func() error { return s.Release(ctx, task.ReleaseParams{TaskID: "t1", Token: "x", Now: t0}) },
		"retry task t1": func() error {
			return s.Retry(ctx, dynamostore.RetryParams{TaskID: "t1", From: []task.State{task.StateFailed}, Now: t0})
		},
		"get task t1": func() error { _, err := s.Get(ctx, "t1"); return err },
		"list live Pending": func() error {
			_, err := s.ListLive(ctx, task.ListLiveParams{State: task.StatePending, DueBefore: t0})
			return err
		},
		"run r tasks":  func() error { _, err := s.RunTasks(ctx, "r", "", 0); return err },
		"run r counts": func() error { _, err := s.RunCounts(ctx, "r"); return err },
		"create: 1 of 1 tasks not written (t1)": func() error {
			return s.Create(ctx, []task.Task{{ID: "t1", RunID: "r", URL: "https://example.com/"}})
		},
	} {
		err := call()
		require.ErrorIs(t, err, boom, name)
		require.ErrorContains(t, err, "dynamostore: "+name, name)
		for _, sentinel := range []error{task.ErrNotFound, task.ErrTerminal, task.ErrClaimed, task.ErrExhausted, task.ErrStaleClaim} {
			require.NotErrorIs(t, err, sentinel, name)
		}
	}
}

func TestFencedErrorSaysWhy(t *testing.T) {
	t.Parallel()
	l := dynamostoretest.NewLocal(t)
	s := newStore(t, l, l.Client, nil)
	lifecycle(t, s)
	for id, want := range map[string]string{
		"running":  "task is Running under another claim",
		"finished": "task is Finished",
		"pending":  "task is Pending",
		"nope":     "no such task",
	} {
		err := s.Finish(t.Context(), task.FinishParams{TaskID: id, Token: "other", Now: t0, Result: json.RawMessage(`1`)})
		require.ErrorIs(t, err, task.ErrStaleClaim, id)
		require.ErrorContains(t, err, want, id)
	}
	err := s.Finish(t.Context(), task.FinishParams{TaskID: "running", Token: "tok", Now: t0, Result: json.RawMessage(`{"a":`)})
	require.ErrorIs(t, err, dynamostore.ErrInvalidInput)
	require.ErrorContains(t, err, "not valid JSON")
}
