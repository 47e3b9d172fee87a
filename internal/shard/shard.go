// Package shard reads a range of one DynamoDB stream shard with the
// DynamoDB Streams API and knows when the read is over.
//
// An empty GetRecords page is not the end of a shard: "it might take
// multiple calls to get to a portion of the shard that contains stream
// records" (GetRecords, DynamoDB Streams API Reference,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html).
// A read is over at the end of a closed shard (no NextShardIterator), at
// the last sequence number it wants, once a record created after the
// moment it wants is seen, or when its time budget runs out; only the
// first three are complete.
//
// A shard should not have more than two readers at once ("can result in
// throttling", DynamoDB Developer Guide, "Reading and processing a
// stream",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html#Streams.Processing).
// The Pipe is one, so a Reader runs at most PerShard (default 1) reads of
// a shard at a time.
package shard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// API is the subset of *dynamodbstreams.Client a Reader calls.
type API interface {
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ API = (*dynamodbstreams.Client)(nil)

// Defaults of a Reader.
const (
	// DefaultBudget bounds one read that is not complete earlier.
	DefaultBudget = time.Minute
	// DefaultEmptyPause is the pause after an empty page, so that a read
	// waiting for records does not spin on GetRecords.
	DefaultEmptyPause = 250 * time.Millisecond
	// DefaultPerShard is how many reads of one shard a Reader runs at
	// once: AWS advises at most two readers and the Pipe is one.
	DefaultPerShard = 1
)

// ErrBudget is wrapped by the error of a read whose budget ran out before
// it was complete; the records read so far are returned with it.
var ErrBudget = errors.New("shard: read budget spent before the range was complete")

// Range is what one read covers.
type Range struct {
	StreamARN string
	ShardID   string
	// From is the first sequence number (AT_SEQUENCE_NUMBER); "" starts at
	// the trim horizon.
	From string
	// To is the last sequence number wanted; "" reads on to the end of a
	// closed shard, to a record after Until, or to the budget.
	To string
	// Until, if set, completes the read at the first record created after
	// it: every record written before Until was then read. The record
	// times are AWS's (ApproximateCreationDateTime, rounded down to the
	// second), so Until should be later than the last write of interest
	// by the clock skew.
	Until time.Time
}

// Result is what a read saw.
type Result struct {
	Records []types.Record
	// Pages and EmptyPages count the GetRecords calls.
	Pages, EmptyPages int
	// Closed: the shard ended (no NextShardIterator).
	Closed bool
}

// Reader reads shard ranges. With API set, the zero value uses the
// defaults and real time. Goroutines reading the same stream share one
// Reader, so that PerShard holds across them.
type Reader struct {
	API API
	// Budget bounds one read (DefaultBudget if zero).
	Budget time.Duration
	// EmptyPause is the pause after an empty page (DefaultEmptyPause if
	// zero).
	EmptyPause time.Duration
	// PerShard is how many reads of one shard run at once
	// (DefaultPerShard if zero); others wait.
	PerShard int
	// Now and Sleep are the clock; nil means real time.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error

	mu    sync.Mutex
	slots map[string]chan struct{}
}

func (r *Reader) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Reader) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// slot is the semaphore of one shard.
func (r *Reader) slot(rg Range) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.slots == nil {
		r.slots = map[string]chan struct{}{}
	}
	key := rg.StreamARN + "|" + rg.ShardID
	s, ok := r.slots[key]
	if !ok {
		n := r.PerShard
		if n <= 0 {
			n = DefaultPerShard
		}
		s = make(chan struct{}, n)
		r.slots[key] = s
	}
	return s
}

// Read reads rg. The error wraps ErrBudget when the budget ran out first
// (with the records read so far), or is the API's.
func (r *Reader) Read(ctx context.Context, rg Range) (Result, error) {
	slot := r.slot(rg)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return Result{}, fmt.Errorf("shard %s: wait for a reader slot: %w", rg.ShardID, ctx.Err())
	}
	defer func() { <-slot }()

	budget, pause := r.Budget, r.EmptyPause
	if budget <= 0 {
		budget = DefaultBudget
	}
	if pause <= 0 {
		pause = DefaultEmptyPause
	}
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(rg.StreamARN), ShardId: aws.String(rg.ShardID),
		ShardIteratorType: types.ShardIteratorTypeTrimHorizon}
	if rg.From != "" {
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAtSequenceNumber, aws.String(rg.From)
	}
	it, err := r.API.GetShardIterator(ctx, in)
	if err != nil {
		return Result{}, fmt.Errorf("shard %s: get shard iterator: %w", rg.ShardID, err)
	}
	var res Result
	deadline := r.now().Add(budget)
	for iter := it.ShardIterator; ; {
		if iter == nil {
			res.Closed = true
			return res, nil
		}
		out, err := r.API.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
		if err != nil {
			return res, fmt.Errorf("shard %s: get records: %w", rg.ShardID, err)
		}
		res.Pages++
		for _, rec := range out.Records {
			if rec.Dynamodb == nil {
				continue
			}
			seq := aws.ToString(rec.Dynamodb.SequenceNumber)
			if rg.From != "" && Compare(seq, rg.From) < 0 {
				continue
			}
			if rg.To != "" && Compare(seq, rg.To) > 0 {
				return res, nil
			}
			if !rg.Until.IsZero() && aws.ToTime(rec.Dynamodb.ApproximateCreationDateTime).After(rg.Until) {
				return res, nil
			}
			res.Records = append(res.Records, rec)
			if rg.To != "" && Compare(seq, rg.To) == 0 {
				return res, nil
			}
		}
		iter = out.NextShardIterator
		if len(out.Records) > 0 || iter == nil {
			continue
		}
		res.EmptyPages++
		if !r.now().Before(deadline) {
			return res, fmt.Errorf("shard %s: %w (%s, %d pages, %d empty)", rg.ShardID, ErrBudget, budget, res.Pages, res.EmptyPages)
		}
		if err := r.sleep(ctx, pause); err != nil {
			return res, fmt.Errorf("shard %s: %w", rg.ShardID, err)
		}
	}
}

// Compare orders two stream sequence numbers (decimal strings of up to 40
// digits): -1, 0 or 1.
func Compare(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
