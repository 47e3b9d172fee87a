package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Defaults and limits of Options.
const (
	// DefaultLiveShards is the number of live-index shards per state.
	DefaultLiveShards = 8
	// MaxLiveShards bounds LiveShards: the shard is written as two digits.
	MaxLiveShards = 100
	// DefaultBatchAttempts is how many times Create sends one batch of 25
	// (the first try plus retries of UnprocessedItems) before giving up.
	DefaultBatchAttempts = 8
	// DefaultListLimit is the page size of ListLive and RunTasks when the
	// caller passes 0.
	DefaultListLimit = 100

	// Exponential backoff with full jitter between BatchWriteItem retries:
	// sleep = rand[0,1) * min(backoffMax, backoffBase * 2^retry).
	backoffBase = 50 * time.Millisecond
	backoffMax  = 5 * time.Second
)

// ErrInvalidInput is wrapped by every error about bad arguments. Such a call
// writes nothing.
var ErrInvalidInput = errors.New("invalid input")

// ErrWrongState means Retry found the task in a state it was not asked to
// retry from. Nothing was written.
var ErrWrongState = errors.New("task is not in a state to retry from")

// Options configure a Store.
type Options struct {
	// Table is the table name (or ARN). Required.
	Table string
	// LiveShards is the number of live-index partitions per state, 1 to
	// MaxLiveShards; 0 means DefaultLiveShards. Every reader and writer of a
	// table must agree on it (see the package documentation before changing
	// it).
	LiveShards int
	// ResultTTL, when positive, makes terminal rows expire that long after
	// they finished (the expiresAt attribute). 0 keeps them forever.
	ResultTTL time.Duration
	// BatchAttempts bounds how many times Create sends one batch, and a
	// row read one BatchGetItem, while keys come back unprocessed; 0 means
	// DefaultBatchAttempts.
	BatchAttempts int
	// Now is the clock used by Create for tasks without a CreatedAt; nil
	// means time.Now. Every other operation takes its time in its params.
	Now func() time.Time
	// Sleep waits between BatchWriteItem and BatchGetItem retries; nil
	// means a timer that
	// returns ctx.Err() when ctx ends first.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the backoff jitter; nil means
	// math/rand/v2.Float64. It is called from concurrent goroutines.
	Rand func() float64
}

// Store is a task.Store on a DynamoDB table. It is safe for concurrent use.
type Store struct {
	api           API
	table         string
	shards        int
	ttl           time.Duration
	batchAttempts int
	now           func() time.Time
	sleep         func(context.Context, time.Duration) error
	rand          func() float64
}

var _ task.Store = (*Store)(nil)

// New returns a Store that calls api on opts.Table.
func New(api API, opts Options) (*Store, error) {
	var errs []error
	if api == nil {
		errs = append(errs, errors.New("nil API"))
	}
	if opts.Table == "" {
		errs = append(errs, errors.New("empty table name"))
	}
	if opts.LiveShards < 0 || opts.LiveShards > MaxLiveShards {
		errs = append(errs, fmt.Errorf("live shards %d out of range 1..%d (0 means %d)", opts.LiveShards, MaxLiveShards, DefaultLiveShards))
	}
	if opts.ResultTTL < 0 {
		errs = append(errs, fmt.Errorf("negative result TTL %s", opts.ResultTTL))
	} else if opts.ResultTTL > 0 && opts.ResultTTL < time.Second {
		// TTL is stored in epoch seconds; anything shorter is a unit mistake.
		errs = append(errs, fmt.Errorf("result TTL %s is under one second", opts.ResultTTL))
	}
	if opts.BatchAttempts < 0 {
		errs = append(errs, fmt.Errorf("negative batch attempts %d", opts.BatchAttempts))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("dynamostore: new: %w: %w", ErrInvalidInput, errors.Join(errs...))
	}
	s := &Store{
		api:           api,
		table:         opts.Table,
		shards:        opts.LiveShards,
		ttl:           opts.ResultTTL,
		batchAttempts: opts.BatchAttempts,
		now:           opts.Now,
		sleep:         opts.Sleep,
		rand:          opts.Rand,
	}
	if s.shards == 0 {
		s.shards = DefaultLiveShards
	}
	if s.batchAttempts == 0 {
		s.batchAttempts = DefaultBatchAttempts
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleepCtx
	}
	if s.rand == nil {
		s.rand = rand.Float64
	}
	return s, nil
}

// Table returns the table name the Store writes to.
func (s *Store) Table() string { return s.table }

// LiveShards returns the number of live-index shards per state.
func (s *Store) LiveShards() int { return s.shards }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Get returns the task with a strongly consistent read, or an error wrapping
// task.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (task.Task, error) {
	if id == "" {
		return task.Task{}, fmt.Errorf("dynamostore: get task: %w: empty task id", ErrInvalidInput)
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            key(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return task.Task{}, fmt.Errorf("dynamostore: get task %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return task.Task{}, fmt.Errorf("dynamostore: get task %s: %w", id, task.ErrNotFound)
	}
	t, err := decode(out.Item)
	if err != nil {
		return task.Task{}, fmt.Errorf("dynamostore: get task %s: %w", id, err)
	}
	return t, nil
}

func key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{task.AttrTaskID: sv(id)}
}

var nameRef = regexp.MustCompile(`#[A-Za-z0-9_]+`)

// names returns ExpressionAttributeNames for expressions that write every
// attribute as #name. Aliasing all of them, not only the reserved words
// (status, url and result are reserved), keeps the expressions uniform.
func names(exprs ...string) map[string]string {
	m := map[string]string{}
	for _, e := range exprs {
		for _, ref := range nameRef.FindAllString(e, -1) {
			m[ref] = ref[1:]
		}
	}
	return m
}

// conditionFailed returns the old item of a failed conditional write (nil
// when there was no item), and whether err is such a failure.
func conditionFailed(err error) (map[string]types.AttributeValue, bool) {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf.Item, true
	}
	return nil, false
}
