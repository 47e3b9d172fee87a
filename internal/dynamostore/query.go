package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

const liveCondition = "#liveKey = :liveKey AND #liveSince < :before"

var liveNames = names(liveCondition)

// ListLive implements task.Store. It queries the live index one shard at a
// time for the tasks live since before DueBefore (liveKey = "live#NN" AND
// liveSince < DueBefore, oldest first within a shard; a task's due time is
// never before the time it became live), reads those rows with
// BatchGetItem, and keeps the ones in p.State that are due before
// DueBefore. It never scans. On the happy path no task has been live that
// long, so a pass costs one query per shard and no row read.
//
// A page holds up to Limit tasks (0 means DefaultListLimit) and may span
// shards; its NextCursor, opaque to callers, records the shard and
// DynamoDB's LastEvaluatedKey. Index and row reads are eventually
// consistent, so a task that just changed may still be listed in its old
// state: callers act through fenced writes, never on the listing alone.
func (s *Store) ListLive(ctx context.Context, p task.ListLiveParams) (task.LivePage, error) {
	fail := func(err error) (task.LivePage, error) {
		return task.LivePage{}, fmt.Errorf("dynamostore: list live %s: %w", p.State, err)
	}
	if p.State != task.StatePending && p.State != task.StateRunning {
		return fail(fmt.Errorf("%w: state %q is not live (want Pending or Running)", ErrInvalidInput, p.State))
	}
	if p.DueBefore.IsZero() {
		return fail(fmt.Errorf("%w: zero due-before time", ErrInvalidInput))
	}
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return fail(err)
	}
	c := cursor{Kind: cursorLive, Scope: string(p.State)}
	if p.Cursor != "" {
		if c, err = decodeCursor(p.Cursor, cursorLive, string(p.State), s.shards); err != nil {
			return fail(err)
		}
	}
	before := ceilMs(p.DueBefore)
	var page task.LivePage
	for {
		// Gather up to a page of candidates across shards, then read
		// their rows in as few BatchGetItem calls as they fit in.
		var entries []map[string]types.AttributeValue
		end := false
		for !end && len(page.Tasks)+len(entries) < limit {
			out, err := s.api.Query(ctx, &dynamodb.QueryInput{
				TableName:                aws.String(s.table),
				IndexName:                aws.String(IndexLive),
				KeyConditionExpression:   aws.String(liveCondition),
				ExpressionAttributeNames: liveNames,
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":liveKey": sv(liveKey(c.Shard)),
					":before":  nv(before),
				},
				ExclusiveStartKey: c.Key,
				Limit:             aws.Int32(int32(limit - len(page.Tasks) - len(entries))),
				ScanIndexForward:  aws.Bool(true),
			})
			if err != nil {
				return fail(fmt.Errorf("query shard %d: %w", c.Shard, err))
			}
			entries = append(entries, out.Items...)
			if len(out.LastEvaluatedKey) > 0 {
				c.Key = out.LastEvaluatedKey
			} else {
				c.Shard, c.Key = c.Shard+1, nil
				end = c.Shard == s.shards
			}
		}
		rows, err := s.rows(ctx, entries)
		if err != nil {
			return fail(err)
		}
		for _, t := range rows {
			if t.State == p.State && dueAt(t).UnixMilli() < before {
				page.Tasks = append(page.Tasks, t)
			}
		}
		if end {
			return page, nil
		}
		if len(page.Tasks) >= limit {
			if page.NextCursor, err = c.encode(); err != nil {
				return fail(err)
			}
			return page, nil
		}
	}
}

// dueAt is when a live task needs the reconciler: for Pending the time it
// became Pending (its last update, or its creation), for Running its
// lease end.
func dueAt(t task.Task) time.Time {
	if t.State == task.StateRunning {
		return t.LeaseExpiresAt
	}
	if !t.UpdatedAt.IsZero() {
		return t.UpdatedAt
	}
	return t.CreatedAt
}

// batchGetSize is BatchGetItem's limit of 100 keys per call
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html).
const batchGetSize = 100

// rows reads the table rows of index entries (which carry the table key),
// eventually consistent, in the entries' order. A row deleted since the
// index was read is left out. Keys returned as UnprocessedKeys are asked
// again with backoff, up to Options.BatchAttempts calls per batch.
func (s *Store) rows(ctx context.Context, entries []map[string]types.AttributeValue) ([]task.Task, error) {
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		id, err := getS(e, task.AttrTaskID, true)
		if err != nil {
			return nil, fmt.Errorf("index entry: %w", err)
		}
		ids = append(ids, id)
	}
	got := make(map[string]task.Task, len(ids))
	for start := 0; start < len(ids); start += batchGetSize {
		keys := make([]map[string]types.AttributeValue, 0, batchGetSize)
		for _, id := range ids[start:min(start+batchGetSize, len(ids))] {
			keys = append(keys, key(id))
		}
		if err := s.getBatch(ctx, keys, got); err != nil {
			return nil, err
		}
	}
	out := make([]task.Task, 0, len(got))
	for _, id := range ids {
		if t, ok := got[id]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *Store) getBatch(ctx context.Context, keys []map[string]types.AttributeValue, got map[string]task.Task) error {
	for attempt := 1; ; attempt++ {
		out, err := s.api.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{s.table: {Keys: keys}},
		})
		if err != nil {
			return fmt.Errorf("batch get: %w", err)
		}
		for _, item := range out.Responses[s.table] {
			t, err := decode(item)
			if err != nil {
				return fmt.Errorf("batch get: %w", err)
			}
			got[t.ID] = t
		}
		left := out.UnprocessedKeys[s.table].Keys
		if len(left) == 0 {
			return nil
		}
		if attempt >= s.batchAttempts {
			return fmt.Errorf("batch get: %w after %d attempts (%d keys)", ErrUnprocessed, attempt, len(left))
		}
		if err := s.sleep(ctx, s.backoff(attempt-1)); err != nil {
			return fmt.Errorf("batch get backoff: %w", err)
		}
		keys = left
	}
}

// ceilMs rounds t up to whole epoch milliseconds, so that "stored
// millisecond < ceilMs(t)" means exactly "stored time is before t".
func ceilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}

func pageLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultListLimit, nil
	case n < 0:
		return 0, fmt.Errorf("%w: negative limit %d", ErrInvalidInput, n)
	case n > 1<<20:
		return 0, fmt.Errorf("%w: limit %d too large", ErrInvalidInput, n)
	}
	return n, nil
}

// RunPage is one page of RunTasks.
type RunPage struct {
	Tasks []task.Task
	// NextCursor is empty on the last page.
	NextCursor string
}

const (
	doneCondition   = "#doneRun = :runId"
	liveRunKey      = "#liveKey = :liveKey"
	liveRunFilter   = "#runId = :runId"
	countProjection = "#taskId, #status"
)

var (
	doneNames    = names(doneCondition)
	liveRunNames = names(liveRunKey, liveRunFilter)
	countNames   = names(doneCondition, countProjection)
)

// RunTasks returns one page of a run's tasks in task-id order, the
// terminal ones from the done index (projection ALL, so without reading
// the table) merged with the live ones, found in the live index (filtered
// on runId) and read from the table: a finished run reads no row. Reads
// are eventually consistent, so a task that changes during the listing may
// be listed twice or not at all; callers that need every task list again
// once the run is quiet. Limit 0 means DefaultListLimit.
func (s *Store) RunTasks(ctx context.Context, runID, cursorText string, limit int) (RunPage, error) {
	fail := func(err error) (RunPage, error) {
		return RunPage{}, fmt.Errorf("dynamostore: run %s tasks: %w", runID, err)
	}
	if runID == "" {
		return fail(fmt.Errorf("%w: empty run id", ErrInvalidInput))
	}
	limit, err := pageLimit(limit)
	if err != nil {
		return fail(err)
	}
	c := cursor{Kind: cursorRun, Scope: runID}
	if cursorText != "" {
		if c, err = decodeCursor(cursorText, cursorRun, runID, 1); err != nil {
			return fail(err)
		}
	}
	live, err := s.runLiveIDs(ctx, runID, c.After)
	if err != nil {
		return fail(err)
	}
	var done []task.Task
	doneMore := false
	if !c.DoneEnd {
		out, err := s.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(IndexDone),
			KeyConditionExpression:    aws.String(doneCondition),
			ExpressionAttributeNames:  doneNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{":runId": sv(runID)},
			ExclusiveStartKey:         c.Key,
			Limit:                     aws.Int32(int32(limit)),
		})
		if err != nil {
			return fail(err)
		}
		for _, item := range out.Items {
			t, err := decode(item)
			if err != nil {
				return fail(err)
			}
			done = append(done, t)
		}
		doneMore = len(out.LastEvaluatedKey) > 0
	}
	// Merge by id. While the done index has more, a live id beyond its
	// last fetched entry waits for the next page.
	var (
		picks     []string // live ids taken, in order
		order     []string // every id taken, in order
		fromDone  = map[string]task.Task{}
		di, li    int
		doneTaken int
	)
	// donePos is how far the done index has been listed ("" for not at
	// all); doneAll says it has been listed to its end.
	donePos := ""
	if id, ok := c.Key[task.AttrTaskID].(*types.AttributeValueMemberS); ok {
		donePos = id.Value
	}
merge:
	for len(order) < limit {
		switch {
		case di < len(done) && (li == len(live) || done[di].ID <= live[li]):
			t := done[di]
			di++
			doneTaken++
			donePos = t.ID
			if li < len(live) && live[li] == t.ID {
				li++ // it became terminal; the done entry speaks for it
			}
			fromDone[t.ID] = t
			order = append(order, t.ID)
		case li < len(live) && (!doneMore || (len(done) > 0 && live[li] < done[len(done)-1].ID)):
			picks = append(picks, live[li])
			order = append(order, live[li])
			li++
		default:
			break merge
		}
	}
	if doneTaken > 0 {
		c.Key = map[string]types.AttributeValue{AttrDoneRun: sv(runID), task.AttrTaskID: sv(donePos)}
	}
	if !c.DoneEnd && !doneMore && doneTaken == len(done) {
		c.DoneEnd = true
	}
	doneAll := c.DoneEnd
	rows, err := s.rows(ctx, idEntries(picks))
	if err != nil {
		return fail(err)
	}
	fromLive := make(map[string]task.Task, len(rows))
	for _, t := range rows {
		fromLive[t.ID] = t
	}
	var page RunPage
	for _, id := range order {
		if t, ok := fromDone[id]; ok {
			page.Tasks = append(page.Tasks, t)
			continue
		}
		t, ok := fromLive[id]
		// A live task that became terminal after the done index was read
		// is listed from the done index later, unless the listing of the
		// done index is already past it.
		if !ok || (t.State.Terminal() && !doneAll && id > donePos) {
			continue
		}
		page.Tasks = append(page.Tasks, t)
	}
	if len(picks) > 0 {
		c.After = picks[len(picks)-1]
	}
	if c.DoneEnd && li == len(live) {
		return page, nil
	}
	if page.NextCursor, err = c.encode(); err != nil {
		return fail(err)
	}
	return page, nil
}

// runLiveIDs returns, sorted, the ids above after of the run's entries in
// the live index.
func (s *Store) runLiveIDs(ctx context.Context, runID, after string) ([]string, error) {
	var ids []string
	for shard := range s.shards {
		err := s.queryAll(ctx, &dynamodb.QueryInput{
			TableName:                aws.String(s.table),
			IndexName:                aws.String(IndexLive),
			KeyConditionExpression:   aws.String(liveRunKey),
			FilterExpression:         aws.String(liveRunFilter),
			ExpressionAttributeNames: liveRunNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":liveKey": sv(liveKey(shard)), ":runId": sv(runID),
			},
		}, func(item map[string]types.AttributeValue) error {
			id, err := getS(item, task.AttrTaskID, true)
			if err == nil && id > after {
				ids = append(ids, id)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("live shard %d: %w", shard, err)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// queryAll runs in page after page, passing each item to fn.
func (s *Store) queryAll(ctx context.Context, in *dynamodb.QueryInput, fn func(map[string]types.AttributeValue) error) error {
	for {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return err
		}
		for _, item := range out.Items {
			if err := fn(item); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// idEntries makes index-entry-shaped items of task ids, for rows.
func idEntries(ids []string) []map[string]types.AttributeValue {
	out := make([]map[string]types.AttributeValue, len(ids))
	for i, id := range ids {
		out[i] = key(id)
	}
	return out
}

// RunCounts counts a run's tasks per state, with every state present in the
// map. Live tasks are found in the live index, filtered on runId, and
// their status is read from the table, half a read unit per live task (the
// index leaves the status out so that a claim writes no index entry).
// Terminal tasks are then counted from the done index, projecting only the
// id and the status (DynamoDB still charges reads by the size of each
// index entry). Reading live before done, and letting a task's done entry
// replace its live reading, counts a task that ends in between once.
func (s *Store) RunCounts(ctx context.Context, runID string) (map[task.State]int, error) {
	fail := func(err error) (map[task.State]int, error) {
		return nil, fmt.Errorf("dynamostore: run %s counts: %w", runID, err)
	}
	if runID == "" {
		return nil, fmt.Errorf("dynamostore: run counts: %w: empty run id", ErrInvalidInput)
	}
	live, err := s.runLiveIDs(ctx, runID, "")
	if err != nil {
		return fail(err)
	}
	rows, err := s.rows(ctx, idEntries(live))
	if err != nil {
		return fail(err)
	}
	state := make(map[string]task.State, len(rows))
	for _, t := range rows {
		// Terminal by now: its done entry counts it.
		if !t.State.Terminal() {
			state[t.ID] = t.State
		}
	}
	err = s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(IndexDone),
		KeyConditionExpression:    aws.String(doneCondition),
		ProjectionExpression:      aws.String(countProjection),
		ExpressionAttributeNames:  countNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{":runId": sv(runID)},
	}, func(item map[string]types.AttributeValue) error {
		id, err := getS(item, task.AttrTaskID, true)
		if err != nil {
			return err
		}
		status, err := getS(item, task.AttrStatus, true)
		if err != nil {
			return err
		}
		state[id], err = task.ParseState(status)
		return err
	})
	if err != nil {
		return fail(err)
	}
	counts := make(map[task.State]int, len(task.States()))
	for _, st := range task.States() {
		counts[st] = 0
	}
	for _, st := range state {
		counts[st]++
	}
	return counts, nil
}

// Cursor kinds, so that a cursor from one listing cannot be fed to another.
const (
	cursorLive = "live"
	cursorRun  = "run"
)

// cursor is the decoded form of a page cursor.
type cursor struct {
	Kind  string
	Scope string // the state (live) or run id (run) it was issued for
	Shard int    // live: the live index's shard
	// Key is the ExclusiveStartKey: of the live index's shard (live), or
	// of the done index (run).
	Key map[string]types.AttributeValue
	// After is the last live task id a run listing returned, and DoneEnd
	// says it has read the whole done index.
	After   string
	DoneEnd bool
}

// cursorWire is the JSON inside the base64url text. Key values are S or N
// only, which is all the table's and indexes' keys use.
type cursorWire struct {
	Kind  string              `json:"k"`
	Scope string              `json:"s"`
	Shard int                 `json:"h,omitempty"`
	Key   map[string]keyValue `json:"e,omitempty"`
	After string              `json:"a,omitempty"`
	Done  bool                `json:"d,omitempty"`
}

type keyValue struct {
	S *string `json:"S,omitempty"`
	N *string `json:"N,omitempty"`
}

// maxCursorBytes bounds the text decodeCursor accepts: three keys of at
// most 2 KiB each (an index's two and the table's), plus framing.
const maxCursorBytes = 16 << 10

var errBadCursor = errors.New("malformed cursor")

func (c cursor) encode() (string, error) {
	w := cursorWire{Kind: c.Kind, Scope: c.Scope, Shard: c.Shard, After: c.After, Done: c.DoneEnd}
	if len(c.Key) > 0 {
		w.Key = make(map[string]keyValue, len(c.Key))
		for name, v := range c.Key {
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				w.Key[name] = keyValue{S: &v.Value}
			case *types.AttributeValueMemberN:
				w.Key[name] = keyValue{N: &v.Value}
			default:
				return "", fmt.Errorf("encode cursor: key attribute %s is %T", name, v)
			}
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return "", fmt.Errorf("encode cursor: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeCursor parses a cursor issued for kind and scope; its shard number
// must be below shards.
func decodeCursor(text, kind, scope string, shards int) (cursor, error) {
	if len(text) > maxCursorBytes {
		return cursor{}, fmt.Errorf("%w: %w: %d bytes", ErrInvalidInput, errBadCursor, len(text))
	}
	b, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return cursor{}, fmt.Errorf("%w: %w: %w", ErrInvalidInput, errBadCursor, err)
	}
	var w cursorWire
	if err := json.Unmarshal(b, &w); err != nil {
		return cursor{}, fmt.Errorf("%w: %w: %w", ErrInvalidInput, errBadCursor, err)
	}
	if w.Kind != kind || w.Scope != scope {
		return cursor{}, fmt.Errorf("%w: cursor belongs to a %s listing of %q, not %s %q", ErrInvalidInput, w.Kind, w.Scope, kind, scope)
	}
	if w.Shard < 0 || w.Shard >= shards {
		return cursor{}, fmt.Errorf("%w: %w: shard %d out of range", ErrInvalidInput, errBadCursor, w.Shard)
	}
	if len(w.After) > maxKeyBytes {
		return cursor{}, fmt.Errorf("%w: %w: task id of %d bytes", ErrInvalidInput, errBadCursor, len(w.After))
	}
	c := cursor{Kind: w.Kind, Scope: w.Scope, Shard: w.Shard, After: w.After, DoneEnd: w.Done}
	if len(w.Key) > 0 {
		if len(w.Key) > 3 {
			return cursor{}, fmt.Errorf("%w: %w: %d key attributes", ErrInvalidInput, errBadCursor, len(w.Key))
		}
		c.Key = make(map[string]types.AttributeValue, len(w.Key))
		for name, v := range w.Key {
			switch {
			case v.S != nil && v.N == nil:
				c.Key[name] = sv(*v.S)
			case v.N != nil && v.S == nil:
				if _, err := strconv.ParseInt(*v.N, 10, 64); err != nil {
					return cursor{}, fmt.Errorf("%w: %w: key %s: %w", ErrInvalidInput, errBadCursor, name, err)
				}
				c.Key[name] = &types.AttributeValueMemberN{Value: *v.N}
			default:
				return cursor{}, fmt.Errorf("%w: %w: key %s needs exactly one of S or N", ErrInvalidInput, errBadCursor, name)
			}
		}
		if _, ok := c.Key[task.AttrTaskID]; !ok {
			return cursor{}, fmt.Errorf("%w: %w: key lacks %s", ErrInvalidInput, errBadCursor, task.AttrTaskID)
		}
	}
	return c, nil
}
