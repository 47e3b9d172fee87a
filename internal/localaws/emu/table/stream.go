package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Errors of the in-process stream API. The stream package maps them to the
// DynamoDB Streams error codes.
var (
	// ErrTableNotFound: no table of that name.
	ErrTableNotFound = errors.New("table not found")
	// ErrNoStream: the table has no enabled stream.
	ErrNoStream = errors.New("table has no enabled stream")
	// ErrStreamNotFound: no stream with that ARN (never existed, or gone
	// 24 hours after it was disabled).
	ErrStreamNotFound = errors.New("stream not found")
	// ErrTrimmed: the position lies before the oldest retained record;
	// records older than 24 hours are trimmed (TrimmedDataAccessException).
	ErrTrimmed = errors.New("stream records trimmed")
	// ErrSequenceNumber: a sequence number that is malformed or outside the
	// shard's range.
	ErrSequenceNumber = errors.New("invalid sequence number")
	// ErrCursor: a cursor beyond the end of the shard (never issued).
	ErrCursor = errors.New("cursor beyond the end of the shard")
)

// Stream view types (docs/aws-behaviour.md §2.5).
const (
	ViewKeysOnly       = "KEYS_ONLY"
	ViewNewImage       = "NEW_IMAGE"
	ViewOldImage       = "OLD_IMAGE"
	ViewNewAndOldImage = "NEW_AND_OLD_IMAGES"
)

// Stream statuses as DescribeStream reports them. The emulator enables and
// disables instantly, so ENABLING and DISABLING are never reported.
const (
	StatusEnabled  = "ENABLED"
	StatusDisabled = "DISABLED"
)

// Event names of stream records.
const (
	EventInsert = "INSERT"
	EventModify = "MODIFY"
	EventRemove = "REMOVE"
)

// maxReadBytes caps one Read like GetRecords' 1 MB limit, counted in
// SizeBytes (docs/aws-behaviour.md §2.4, §2.6).
const maxReadBytes = 1 << 20

// Record is one stream record in the shape GetRecords returns it
// (docs/aws-behaviour.md §2.4). Records are shared by every reader: treat the
// image bytes as read-only.
type Record struct {
	EventID      string       `json:"eventID"`
	EventName    string       `json:"eventName"`
	EventVersion string       `json:"eventVersion"`
	EventSource  string       `json:"eventSource"`
	AWSRegion    string       `json:"awsRegion"`
	DynamoDB     StreamRecord `json:"dynamodb"`

	at  time.Time // capture time, for trimming and AT_TIMESTAMP
	seq uint64
}

// StreamRecord is the "dynamodb" member of a Record. The images are
// DynamoDB JSON attribute maps, absent when the view type excludes them.
type StreamRecord struct {
	ApproximateCreationDateTime int64           `json:"ApproximateCreationDateTime"`
	Keys                        json.RawMessage `json:"Keys"`
	NewImage                    json.RawMessage `json:"NewImage,omitempty"`
	OldImage                    json.RawMessage `json:"OldImage,omitempty"`
	SequenceNumber              string          `json:"SequenceNumber"`
	SizeBytes                   int64           `json:"SizeBytes"`
	StreamViewType              string          `json:"StreamViewType"`
}

// CapturedAt returns when the write that produced the record happened
// (ApproximateCreationDateTime without the rounding to seconds).
func (r *Record) CapturedAt() time.Time { return r.at }

// Cursor is a position in a stream's shard: the number of records written
// to the shard before it. Cursors are plain numbers so that callers (the
// Streams API's shard iterators, the Pipe runtime's checkpoints) can store
// them; reads never consume anything.
type Cursor uint64

// KeyElement is one element of a key schema.
type KeyElement struct {
	AttributeName string `json:"AttributeName"`
	KeyType       string `json:"KeyType"`
}

// StreamInfo describes a stream and its shard.
type StreamInfo struct {
	ARN       string
	Label     string
	TableName string
	ViewType  string
	// Status is StatusEnabled or StatusDisabled.
	Status    string
	CreatedAt time.Time
	KeySchema []KeyElement
	// ShardID is the stream's only shard. AWS splits streams into many
	// shards that roll over every few hours; the emulator keeps one per
	// stream, which preserves what consumers rely on: per-key order.
	ShardID                string
	StartingSequenceNumber string
	// EndingSequenceNumber is empty while the shard is open.
	EndingSequenceNumber string
}

// ReadResult is what Read returns.
type ReadResult struct {
	Records []Record
	// Next is where the following Read continues.
	Next Cursor
	// End reports that the shard is closed and fully read: no record will
	// ever appear after Next (GetRecords then omits NextShardIterator).
	End bool
}

// Stream is one DynamoDB stream: an append-only log with a single shard.
// All methods are safe for concurrent use; reads are never destructive, so
// any number of independent readers can follow it.
type Stream struct {
	arn       string
	label     string
	tableName string
	viewType  string
	shardID   string
	keySchema []KeyElement
	created   time.Time
	startSeq  uint64
	now       func() time.Time
	retention time.Duration

	mu         sync.Mutex
	recs       []*Record
	first      Cursor // cursor of recs[0]
	trimmedMax uint64 // sequence number of the newest trimmed record
	lastSeq    uint64 // newest sequence number written, 0 for none
	disabledAt time.Time
	endSeq     uint64
	changed    chan struct{}
	watched    bool
}

// ARN returns the stream ARN.
func (st *Stream) ARN() string { return st.arn }

// Label returns the stream label (its creation timestamp).
func (st *Stream) Label() string { return st.label }

// TableName returns the name of the stream's table.
func (st *Stream) TableName() string { return st.tableName }

// ViewType returns the stream view type.
func (st *Stream) ViewType() string { return st.viewType }

// ShardID returns the id of the stream's only shard.
func (st *Stream) ShardID() string { return st.shardID }

// Info returns a snapshot of the stream's description.
func (st *Stream) Info() StreamInfo {
	st.mu.Lock()
	defer st.mu.Unlock()
	info := StreamInfo{
		ARN: st.arn, Label: st.label, TableName: st.tableName, ViewType: st.viewType,
		Status: StatusEnabled, CreatedAt: st.created, KeySchema: slices.Clone(st.keySchema),
		ShardID: st.shardID, StartingSequenceNumber: formatSeq(st.startSeq),
	}
	if !st.disabledAt.IsZero() {
		info.Status = StatusDisabled
		info.EndingSequenceNumber = formatSeq(st.endSeq)
	}
	return info
}

// Disabled reports whether the stream was disabled (its shard is closed).
func (st *Stream) Disabled() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return !st.disabledAt.IsZero()
}

// TrimHorizon returns the position of the oldest retained record.
func (st *Stream) TrimHorizon() Cursor {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	return st.first
}

// Latest returns the position just after the newest record: a reader
// starting there sees only records written afterwards.
func (st *Stream) Latest() Cursor {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	return st.first + Cursor(len(st.recs))
}

// AtSequenceNumber returns the position of the record with that sequence
// number (or of the first later one, for a number between records, such
// as the shard's StartingSequenceNumber).
func (st *Stream) AtSequenceNumber(seq string) (Cursor, error) {
	return st.seek(seq, false)
}

// AfterSequenceNumber returns the position just after the record with that
// sequence number.
func (st *Stream) AfterSequenceNumber(seq string) (Cursor, error) {
	return st.seek(seq, true)
}

func (st *Stream) seek(seq string, after bool) (Cursor, error) {
	n, ok := parseSeq(seq)
	if !ok {
		return 0, fmt.Errorf("%w: %q is not a sequence number of shard %s", ErrSequenceNumber, seq, st.shardID)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	upper := st.lastSeq
	if upper < st.startSeq {
		upper = st.startSeq
	}
	if n < st.startSeq || n > upper {
		return 0, fmt.Errorf("%w: %s is outside the range of shard %s", ErrSequenceNumber, seq, st.shardID)
	}
	target := n
	if after {
		target++
	}
	if target <= st.trimmedMax {
		return 0, fmt.Errorf("sequence number %s: %w", seq, ErrTrimmed)
	}
	i := sort.Search(len(st.recs), func(i int) bool { return st.recs[i].seq >= target })
	return st.first + Cursor(i), nil
}

// AtTime returns the position of the first retained record captured at or
// after t (the AT_TIMESTAMP iterator); for t before the trim horizon that is
// the oldest retained record.
func (st *Stream) AtTime(t time.Time) Cursor {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	i := sort.Search(len(st.recs), func(i int) bool { return !st.recs[i].at.Before(t) })
	return st.first + Cursor(i)
}

// Read returns up to limit records from c on (limit ≤ 0 means 1000, the
// GetRecords maximum), capped at about 1 MB of SizeBytes like GetRecords.
// A position before the oldest retained record fails with ErrTrimmed.
func (st *Stream) Read(c Cursor, limit int) (ReadResult, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	end := st.first + Cursor(len(st.recs))
	switch {
	case c < st.first:
		return ReadResult{}, fmt.Errorf("position %d, oldest retained %d: %w", c, st.first, ErrTrimmed)
	case c > end:
		return ReadResult{}, fmt.Errorf("position %d, end %d: %w", c, end, ErrCursor)
	}
	var (
		out   []Record
		bytes int64
	)
	for i := int(c - st.first); i < len(st.recs) && len(out) < limit; i++ {
		r := st.recs[i]
		if len(out) > 0 && bytes+r.DynamoDB.SizeBytes > maxReadBytes {
			break
		}
		bytes += r.DynamoDB.SizeBytes
		out = append(out, *r)
	}
	next := c + Cursor(len(out))
	return ReadResult{Records: out, Next: next, End: !st.disabledAt.IsZero() && next == end}, nil
}

// Changed returns a channel that is closed at the next append to the stream
// or when the stream is disabled. Take it before reading, then wait on it
// when the read came back empty, so no record can slip in between.
func (st *Stream) Changed() <-chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.watched = true
	return st.changed
}

// Wait blocks until a record exists at c, the stream is disabled, c lies
// before the trim horizon (Read then reports ErrTrimmed), or ctx ends.
// It lets in-process readers follow a stream without polling.
func (st *Stream) Wait(ctx context.Context, c Cursor) error {
	for {
		st.mu.Lock()
		st.trimLocked()
		ready := c < st.first || c < st.first+Cursor(len(st.recs)) || !st.disabledAt.IsZero()
		st.watched = true
		ch := st.changed
		st.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("wait for stream records: %w", ctx.Err())
		}
	}
}

// append adds records (already numbered) and wakes the waiters.
func (st *Stream) append(recs []*Record) {
	if len(recs) == 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.trimLocked()
	st.recs = append(st.recs, recs...)
	st.lastSeq = recs[len(recs)-1].seq
	st.notifyLocked()
}

// disable closes the shard; its records stay readable for the retention
// period (docs/aws-behaviour.md §2.5).
func (st *Stream) disable(at time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.disabledAt.IsZero() {
		return
	}
	st.disabledAt = at
	st.endSeq = max(st.lastSeq, st.startSeq)
	st.notifyLocked()
}

// expired reports whether a disabled stream has outlived its retention.
func (st *Stream) expired(now time.Time) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return !st.disabledAt.IsZero() && now.Sub(st.disabledAt) > st.retention
}

func (st *Stream) notifyLocked() {
	if st.watched {
		close(st.changed)
		st.changed = make(chan struct{})
		st.watched = false
	}
}

// trimLocked drops records older than the retention period, judged by the
// injected clock.
func (st *Stream) trimLocked() {
	cut := st.now().Add(-st.retention)
	k := 0
	for k < len(st.recs) && st.recs[k].at.Before(cut) {
		k++
	}
	if k == 0 {
		return
	}
	st.trimmedMax = st.recs[k-1].seq
	clear(st.recs[:k])
	st.recs = st.recs[k:]
	st.first += Cursor(k)
	if cap(st.recs) > 64 && len(st.recs) < cap(st.recs)/4 {
		st.recs = slices.Clone(st.recs) // release the trimmed prefix
	}
}

// Sequence numbers are "1" followed by a 20-digit counter: 21 digits, the
// minimum length the DynamoDB Streams model allows (docs/aws-behaviour.md §2.3;
// boto3 and the AWS CLI reject shorter ones client-side), and they compare
// the same as numbers and as strings.
const seqDigits = 20

func formatSeq(n uint64) string {
	s := strconv.FormatUint(n, 10)
	buf := make([]byte, 0, 1+seqDigits)
	buf = append(buf, '1')
	for i := len(s); i < seqDigits; i++ {
		buf = append(buf, '0')
	}
	return string(append(buf, s...))
}

func parseSeq(s string) (uint64, bool) {
	if len(s) != 1+seqDigits || s[0] != '1' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
