package dynamostore

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Attribute names of the task row beyond the four fixed by the task package
// (task.AttrTaskID, task.AttrRunID, task.AttrURL, task.AttrStatus). Times
// are numbers in epoch milliseconds, except AttrExpiresAt, which is in epoch
// seconds because DynamoDB TTL requires that.
const (
	AttrAttempts       = "attempts"
	AttrMaxAttempts    = "maxAttempts"
	AttrClaimToken     = "claimToken"
	AttrLeaseExpiresAt = "leaseExpiresAt"
	AttrCreatedAt      = "createdAt"
	AttrUpdatedAt      = "updatedAt"
	AttrFinishedAt     = "finishedAt"
	AttrLastError      = "lastError"
	AttrErrorKind      = "errorKind"
	AttrResult         = "result"
	// AttrLiveKey is the partition key of IndexLive: "live#<shard>". Only
	// Pending and Running rows have it, which keeps the index sparse; it
	// does not change while the task is live, so a claim or a release
	// writes no index entry.
	AttrLiveKey = "liveKey"
	// AttrLiveSince is the sort key of IndexLive: when the task became
	// live (its creation, or an operator's retry), in epoch milliseconds.
	AttrLiveSince = "liveSince"
	// AttrDoneRun is the partition key of IndexDone: the run id, set by
	// the write that makes the task terminal and removed by a retry.
	AttrDoneRun = "doneRun"
	// AttrExpiresAt is the TTL attribute, set on terminal rows when
	// Options.ResultTTL is positive.
	AttrExpiresAt = "expiresAt"
)

// Index names.
const (
	// IndexLive lists live (Pending or Running) tasks by the time they
	// became live: partition key liveKey, sort key liveSince, projecting
	// runId besides the keys.
	IndexLive = "live"
	// IndexDone lists the terminal tasks of one run in task-id order:
	// partition key doneRun, sort key taskId, projection ALL.
	IndexDone = "done"
)

// noRun is the doneRun of a row that has no runId (one written by another
// writer): a secondary index key cannot be empty.
const noRun = "-"

// shardOf returns the live-index shard of a task id: fnv32a(id) % shards.
func shardOf(id string, shards int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id)) // hash.Hash never returns an error
	return int(h.Sum32() % uint32(shards))
}

// liveKey returns the IndexLive partition key of a shard.
func liveKey(shard int) string {
	return fmt.Sprintf("live#%02d", shard)
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
func msv(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: ms(t)}
}

// Item returns the row that stores t, including the index attributes: for
// a live task liveKey and liveSince (for a Pending task UpdatedAt, or
// CreatedAt when UpdatedAt is zero; for a Running task CreatedAt, or its
// lease end when that is earlier or CreatedAt is zero), for a terminal one
// doneRun and, with Options.ResultTTL set, expiresAt. Times are kept to the millisecond.
// The Store never writes rows this way; Item exists for seeding tests and
// for tools that import rows.
func (s *Store) Item(t task.Task) (map[string]types.AttributeValue, error) {
	if t.ID == "" {
		return nil, fmt.Errorf("dynamostore: item: %w: empty task id", ErrInvalidInput)
	}
	if !t.State.Valid() {
		return nil, fmt.Errorf("dynamostore: item %s: %w: unknown state %q", t.ID, ErrInvalidInput, t.State)
	}
	item := map[string]types.AttributeValue{
		task.AttrTaskID: sv(t.ID),
		task.AttrURL:    sv(t.URL),
		task.AttrStatus: sv(string(t.State)),
		AttrAttempts:    nv(int64(t.Attempts)),
		AttrMaxAttempts: nv(int64(t.MaxAttempts)),
	}
	putS := func(name, v string) {
		if v != "" {
			item[name] = sv(v)
		}
	}
	putT := func(name string, v time.Time) {
		if !v.IsZero() {
			item[name] = msv(v)
		}
	}
	putS(task.AttrRunID, t.RunID)
	putS(AttrClaimToken, t.ClaimToken)
	putT(AttrLeaseExpiresAt, t.LeaseExpiresAt)
	putT(AttrCreatedAt, t.CreatedAt)
	putT(AttrUpdatedAt, t.UpdatedAt)
	putT(AttrFinishedAt, t.FinishedAt)
	putS(AttrLastError, t.LastError)
	putS(AttrErrorKind, string(t.ErrorKind))
	putS(AttrResult, string(t.Result))
	switch t.State {
	case task.StatePending:
		since := t.UpdatedAt
		if since.IsZero() {
			since = t.CreatedAt
		}
		item[AttrLiveKey] = sv(liveKey(shardOf(t.ID, s.shards)))
		item[AttrLiveSince] = msv(since)
	case task.StateRunning:
		// liveSince must not be after the lease end, or ListLive, which
		// selects candidates by liveSince, would miss an expired lease.
		since := t.CreatedAt
		if since.IsZero() || t.LeaseExpiresAt.Before(since) {
			since = t.LeaseExpiresAt
		}
		item[AttrLiveKey] = sv(liveKey(shardOf(t.ID, s.shards)))
		item[AttrLiveSince] = msv(since)
	default:
		item[AttrDoneRun] = sv(cmp.Or(t.RunID, noRun))
		if s.ttl > 0 {
			end := t.FinishedAt
			if end.IsZero() {
				end = t.UpdatedAt
			}
			item[AttrExpiresAt] = nv(s.expiresAt(end))
		}
	}
	return item, nil
}

// expiresAt returns the TTL value, in epoch seconds, of a row that became
// terminal at end.
func (s *Store) expiresAt(end time.Time) int64 {
	return end.Add(s.ttl).Unix()
}

// TaskFromItem decodes a task row. It needs taskId, a valid status,
// attempts and maxAttempts; other missing attributes decode as zero values. Times come back in UTC.
func TaskFromItem(item map[string]types.AttributeValue) (task.Task, error) {
	t, err := decode(item)
	if err != nil {
		return task.Task{}, fmt.Errorf("dynamostore: %w", err)
	}
	return t, nil
}

// decode is TaskFromItem without the package prefix, for callers that add
// their own.
func decode(item map[string]types.AttributeValue) (task.Task, error) {
	var (
		t   task.Task
		err error
	)
	if t.ID, err = getS(item, task.AttrTaskID, true); err != nil {
		return task.Task{}, fmt.Errorf("decode task: %w", err)
	}
	fail := func(err error) (task.Task, error) {
		return task.Task{}, fmt.Errorf("decode task %s: %w", t.ID, err)
	}
	status, err := getS(item, task.AttrStatus, true)
	if err != nil {
		return fail(err)
	}
	if t.State, err = task.ParseState(status); err != nil {
		return fail(err)
	}
	var result, kind string
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{task.AttrRunID, &t.RunID},
		{task.AttrURL, &t.URL},
		{AttrClaimToken, &t.ClaimToken},
		{AttrLastError, &t.LastError},
		{AttrErrorKind, &kind},
		{AttrResult, &result},
	} {
		if *f.dst, err = getS(item, f.name, false); err != nil {
			return fail(err)
		}
	}
	t.ErrorKind = task.ErrorKind(kind)
	if result != "" {
		t.Result = json.RawMessage(result)
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{AttrAttempts, &t.Attempts},
		{AttrMaxAttempts, &t.MaxAttempts},
	} {
		// Required: read as 0 they would make a task look exhausted.
		if _, ok := item[f.name]; !ok {
			return fail(fmt.Errorf("attribute %s missing", f.name))
		}
		n, err := getN(item, f.name)
		if err != nil {
			return fail(err)
		}
		*f.dst = int(n)
	}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{
		{AttrLeaseExpiresAt, &t.LeaseExpiresAt},
		{AttrCreatedAt, &t.CreatedAt},
		{AttrUpdatedAt, &t.UpdatedAt},
		{AttrFinishedAt, &t.FinishedAt},
	} {
		if _, ok := item[f.name]; !ok {
			continue
		}
		n, err := getN(item, f.name)
		if err != nil {
			return fail(err)
		}
		*f.dst = time.UnixMilli(n).UTC()
	}
	return t, nil
}

func getS(item map[string]types.AttributeValue, name string, required bool) (string, error) {
	v, ok := item[name]
	if !ok {
		if required {
			return "", fmt.Errorf("attribute %s missing", name)
		}
		return "", nil
	}
	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("attribute %s is %T, want S", name, v)
	}
	return s.Value, nil
}

func getN(item map[string]types.AttributeValue, name string) (int64, error) {
	v, ok := item[name]
	if !ok {
		return 0, nil
	}
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("attribute %s is %T, want N", name, v)
	}
	i, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("attribute %s: %w", name, err)
	}
	return i, nil
}
