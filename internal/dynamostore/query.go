package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/taskpipe/taskpipe/internal/task"
)

const liveKeyCondition = "#liveKey = :liveKey AND #dueAt < :due"

var liveNames = names(liveKeyCondition)

// ListLive implements task.Store. It queries the live index one shard at a
// time (liveKey = "<State>#NN" AND dueAt < DueBefore, oldest first within a
// shard) and never scans. A page holds up to Limit tasks (0 means
// DefaultListLimit) and may span shards; its NextCursor, opaque to callers,
// records the shard and DynamoDB's LastEvaluatedKey. Index reads are
// eventually consistent, so a task that just changed may still be listed in
// its old state: callers act through fenced writes, never on the listing
// alone.
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
	var page task.LivePage
	for {
		out, err := s.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                aws.String(s.table),
			IndexName:                aws.String(IndexLive),
			KeyConditionExpression:   aws.String(liveKeyCondition),
			ExpressionAttributeNames: liveNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":liveKey": sv(liveKey(p.State, c.Shard)),
				":due":     nv(ceilMs(p.DueBefore)),
			},
			ExclusiveStartKey: c.Key,
			Limit:             aws.Int32(int32(limit - len(page.Tasks))),
			ScanIndexForward:  aws.Bool(true),
		})
		if err != nil {
			return fail(fmt.Errorf("query shard %d: %w", c.Shard, err))
		}
		for _, item := range out.Items {
			t, err := decode(item)
			if err != nil {
				return fail(err)
			}
			page.Tasks = append(page.Tasks, t)
		}
		if len(out.LastEvaluatedKey) > 0 {
			c.Key = out.LastEvaluatedKey
		} else {
			c.Shard, c.Key = c.Shard+1, nil
			if c.Shard == s.shards {
				return page, nil
			}
		}
		if len(page.Tasks) >= limit {
			if page.NextCursor, err = c.encode(); err != nil {
				return fail(err)
			}
			return page, nil
		}
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

const runKeyCondition = "#runId = :runId"

var runNames = names(runKeyCondition)

// RunTasks returns one page of a run's tasks in task-id order, read from the
// byRun index (eventually consistent). Limit 0 means DefaultListLimit.
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
		if c, err = decodeCursor(cursorText, cursorRun, runID, 0); err != nil {
			return fail(err)
		}
	}
	var page RunPage
	for {
		out, err := s.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(IndexByRun),
			KeyConditionExpression:    aws.String(runKeyCondition),
			ExpressionAttributeNames:  runNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{":runId": sv(runID)},
			ExclusiveStartKey:         c.Key,
			Limit:                     aws.Int32(int32(limit - len(page.Tasks))),
		})
		if err != nil {
			return fail(err)
		}
		for _, item := range out.Items {
			t, err := decode(item)
			if err != nil {
				return fail(err)
			}
			page.Tasks = append(page.Tasks, t)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return page, nil
		}
		c.Key = out.LastEvaluatedKey
		if len(page.Tasks) >= limit {
			if page.NextCursor, err = c.encode(); err != nil {
				return fail(err)
			}
			return page, nil
		}
	}
}

const countProjection = "#status"

var countNames = names(runKeyCondition, countProjection)

// RunCounts counts a run's tasks per state, with every state present in the
// map. It queries the byRun index projecting only the status; DynamoDB
// still charges reads by the size of each index item, so a count costs
// about as much as reading the run.
func (s *Store) RunCounts(ctx context.Context, runID string) (map[task.State]int, error) {
	if runID == "" {
		return nil, fmt.Errorf("dynamostore: run counts: %w: empty run id", ErrInvalidInput)
	}
	counts := make(map[task.State]int, len(task.States()))
	for _, st := range task.States() {
		counts[st] = 0
	}
	var start map[string]types.AttributeValue
	for {
		out, err := s.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(IndexByRun),
			KeyConditionExpression:    aws.String(runKeyCondition),
			ProjectionExpression:      aws.String(countProjection),
			ExpressionAttributeNames:  countNames,
			ExpressionAttributeValues: map[string]types.AttributeValue{":runId": sv(runID)},
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("dynamostore: run %s counts: %w", runID, err)
		}
		for _, item := range out.Items {
			status, err := getS(item, task.AttrStatus, true)
			if err != nil {
				return nil, fmt.Errorf("dynamostore: run %s counts: %w", runID, err)
			}
			st, err := task.ParseState(status)
			if err != nil {
				return nil, fmt.Errorf("dynamostore: run %s counts: %w", runID, err)
			}
			counts[st]++
		}
		if len(out.LastEvaluatedKey) == 0 {
			return counts, nil
		}
		start = out.LastEvaluatedKey
	}
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
	Shard int
	Key   map[string]types.AttributeValue
}

// cursorWire is the JSON inside the base64url text. Key values are S or N
// only, which is all the table's and indexes' keys use.
type cursorWire struct {
	Kind  string              `json:"k"`
	Scope string              `json:"s"`
	Shard int                 `json:"h,omitempty"`
	Key   map[string]keyValue `json:"e,omitempty"`
}

type keyValue struct {
	S *string `json:"S,omitempty"`
	N *string `json:"N,omitempty"`
}

// maxCursorBytes bounds the text decodeCursor accepts: three keys of at
// most 2 KiB each, plus framing.
const maxCursorBytes = 16 << 10

var errBadCursor = errors.New("malformed cursor")

func (c cursor) encode() (string, error) {
	w := cursorWire{Kind: c.Kind, Scope: c.Scope, Shard: c.Shard}
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

// decodeCursor parses a cursor issued for kind and scope. For a live cursor
// shards bounds the shard number.
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
	if w.Shard < 0 || (kind == cursorLive && w.Shard >= shards) || (kind != cursorLive && w.Shard != 0) {
		return cursor{}, fmt.Errorf("%w: %w: shard %d out of range", ErrInvalidInput, errBadCursor, w.Shard)
	}
	c := cursor{Kind: w.Kind, Scope: w.Scope, Shard: w.Shard}
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
