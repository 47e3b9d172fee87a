package shard_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/shard"
)

// page is one scripted GetRecords answer: its records' sequence numbers
// (0 for an empty page).
type page []int

// fakeStreams answers GetRecords from a script of pages; the iterator is
// the page index. After the last page the shard is closed (no next
// iterator) or, when open, answers empty pages forever, like the tip of
// an open shard.
type fakeStreams struct {
	pages   []page
	open    bool
	created func(seq int) time.Time
	// readers counts GetRecords calls in flight; peak is the most at once.
	readers, peak atomic.Int32
	// If block is set, each GetRecords says so on entered, then waits
	// until block is closed.
	block, entered chan struct{}
}

func (f *fakeStreams) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	start := 0
	if in.SequenceNumber != nil {
		want, _ := strconv.Atoi(*in.SequenceNumber)
	find:
		for i, p := range f.pages {
			for _, s := range p {
				if s >= want {
					start = i
					break find
				}
			}
		}
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(strconv.Itoa(start))}, nil
}

func (f *fakeStreams) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	n := f.readers.Add(1)
	defer f.readers.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if f.block != nil {
		f.entered <- struct{}{}
		<-f.block
	}
	i, _ := strconv.Atoi(aws.ToString(in.ShardIterator))
	out := &dynamodbstreams.GetRecordsOutput{}
	if i < len(f.pages) {
		for _, s := range f.pages[i] {
			created := time.Unix(1_800_000_000, 0)
			if f.created != nil {
				created = f.created(s)
			}
			out.Records = append(out.Records, types.Record{Dynamodb: &types.StreamRecord{
				SequenceNumber: aws.String(fmt.Sprint(s)), ApproximateCreationDateTime: aws.Time(created)}})
		}
	}
	if i+1 < len(f.pages) || f.open {
		out.NextShardIterator = aws.String(strconv.Itoa(i + 1))
	}
	return out, nil
}

// fakeClock advances by each sleep, so budgets are spent without waiting.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return nil
}

func seqs(res shard.Result) []int {
	var out []int
	for _, r := range res.Records {
		n, _ := strconv.Atoi(aws.ToString(r.Dynamodb.SequenceNumber))
		out = append(out, n)
	}
	return out
}

// TestRead: issue 12 item 11, empty pages before records do not end a
// read (the suite's reader stopped after 3, the CLI's after 5); a read
// ends at a closed shard's end, at its last sequence number, at a record
// after Until, or at its budget (ErrBudget) on an open shard.
func TestRead(t *testing.T) {
	t.Parallel()
	empties := func(n int) []page { return make([]page, n) }
	tests := []struct {
		name    string
		pages   []page
		open    bool
		rg      shard.Range
		want    []int
		closed  bool
		budget  bool
		created func(int) time.Time
	}{
		{name: "EmptyPagesBeforeRecordsOfAClosedShard", pages: append(empties(12), page{1, 2}, page{}, page{3}), want: []int{1, 2, 3}, closed: true},
		{name: "EmptyPagesBeforeTheEndSequence", pages: append(append(empties(6), page{10, 11}), append(empties(8), page{12, 13})...), open: true,
			rg: shard.Range{From: "11", To: "12"}, want: []int{11, 12}},
		{name: "PastTheEndSequence", pages: []page{{1}, {}, {5}}, open: true, rg: shard.Range{To: "3"}, want: []int{1}},
		{name: "OpenShardTipSpendsTheBudget", pages: append(empties(4), page{1}), open: true, want: []int{1}, budget: true},
		{name: "UntilReachedByPosition", pages: append(empties(7), page{1, 2}, page{}, page{3, 4}), open: true,
			rg: shard.Range{Until: time.Unix(1_800_000_002, 0)}, created: func(s int) time.Time { return time.Unix(1_800_000_000+int64(s), 0) }, want: []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
			r := &shard.Reader{API: &fakeStreams{pages: tt.pages, open: tt.open, created: tt.created}, Budget: 10 * time.Second, Now: clock.Now, Sleep: clock.Sleep}
			tt.rg.StreamARN, tt.rg.ShardID = "arn:aws:dynamodb:us-east-1:111122223333:table/t/stream/x", "shardId-1"
			res, err := r.Read(context.Background(), tt.rg)
			if tt.budget {
				require.ErrorIs(t, err, shard.ErrBudget)
				require.Equal(t, 10*time.Second/shard.DefaultEmptyPause+1, time.Duration(res.EmptyPages), "empty pages within the budget")
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.want, seqs(res))
			require.Equal(t, tt.closed, res.Closed)
		})
	}
}

// TestReadReadersPerShard: issue 12 item 11, however many goroutines read
// one shard, a Reader has at most PerShard GetRecords calls on it at once
// (AWS advises two readers a shard; the Pipe is one).
func TestReadReadersPerShard(t *testing.T) {
	t.Parallel()
	for _, per := range []int{0, 2} {
		t.Run(fmt.Sprint("PerShard", per), func(t *testing.T) {
			t.Parallel()
			f := &fakeStreams{pages: []page{{1}, {2}}, block: make(chan struct{}), entered: make(chan struct{}, 100)}
			r := &shard.Reader{API: f, PerShard: per}
			var wg sync.WaitGroup
			for range 6 {
				wg.Go(func() {
					res, err := r.Read(context.Background(), shard.Range{StreamARN: "s", ShardID: "a"})
					require.NoError(t, err)
					require.Equal(t, []int{1, 2}, seqs(res))
				})
			}
			want := max(per, shard.DefaultPerShard)
			for range want {
				<-f.entered // as many reads as allowed are in GetRecords
			}
			close(f.block)
			wg.Wait()
			require.Equal(t, int32(want), f.peak.Load(), "GetRecords calls at once")
		})
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"9", "10", -1}, {"010", "10", 0}, {"200000000000000000000000001", "200000000000000000000000000", 1}} {
		require.Equal(t, tt.want, shard.Compare(tt.a, tt.b), "%s vs %s", tt.a, tt.b)
	}
}
