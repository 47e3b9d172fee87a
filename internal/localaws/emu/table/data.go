package table

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/truora/minidyn/server"
)

// The data plane forwards to minidyn's in-memory client (no HTTP round
// trip) and encodes the results itself, for two reasons: minidyn's encoder
// drops empty lists and maps, and writes must be wrapped in stream capture.

var bg = context.Background()

// legacy rejects the pre-expression parameters (Expected, AttributeUpdates,
// KeyConditions, ...). minidyn ignores them silently, which would turn a
// conditional write into an unconditional one, so they fail loudly instead.
func legacy(params map[string]bool) error {
	for name, present := range params {
		if present {
			return validation("legacy parameter %s is not emulated by the taskpipe local cloud; use the expression parameters", name)
		}
	}
	return nil
}

// dataTable looks up the table of a data-plane request; callers hold s.mu.
func (s *Service) dataTable(name *string) (*table, error) {
	n := aws.ToString(name)
	if err := validateTableName(n); err != nil {
		return nil, err
	}
	t := s.table(n)
	if t == nil {
		return nil, errDataNotFound()
	}
	return t, nil
}

// fullKey returns the key of an item that must carry it (PutItem and
// put requests), with AWS's message when a key attribute is missing.
func (t *table) fullKey(it item) (item, error) {
	k := t.keyOf(it)
	for _, name := range []string{t.hashKey, t.rangeKey} {
		if name == "" {
			continue
		}
		if _, ok := k[name]; !ok {
			return nil, validation("One or more parameter values were invalid: Missing the key %s in the item", name)
		}
	}
	return k, nil
}

// keyString identifies an item within its table (numbers by value).
func keyString(k item) string {
	var b strings.Builder
	for _, name := range sortedKeys(k) {
		v := k[name]
		b.WriteString(name)
		b.WriteByte('=')
		switch {
		case v == nil:
		case v.S != nil:
			b.WriteString("S:" + *v.S)
		case v.N != nil:
			b.WriteString("N:" + canonicalNumber(*v.N))
		case v.B != nil:
			b.WriteString("B:" + base64.StdEncoding.EncodeToString(v.B))
		default:
			b.WriteString("?")
		}
		b.WriteByte(0)
	}
	return b.String()
}

// target is one item a write may change.
type target struct {
	t   *table
	key item
}

// capture runs write with the targets' tables write-locked and appends one
// stream record per changed item. Images are read before and after the
// write; comparing them, rather than trusting the operation, is what makes
// no-op writes produce nothing (docs/aws-behaviour.md §2.5).
//
// A write that fails changes nothing on AWS (conditions and validation are
// checked before anything is applied, and transactions are atomic), but
// minidyn can leave partial changes behind: BatchWriteItem applies requests
// one by one until one fails, and UpdateItem mutates the stored item in
// place before an expression error surfaces. So after a failed write every
// target that changed is put back to its old image, and no record is
// emitted. The returned old images are nil when the item did not exist.
func (s *Service) capture(targets []target, write func() error) ([]item, error) {
	var locked []*table
	for _, tg := range targets {
		if !slices.Contains(locked, tg.t) {
			locked = append(locked, tg.t)
		}
	}
	slices.SortFunc(locked, func(a, b *table) int { return strings.Compare(a.name, b.name) })
	for _, t := range locked {
		t.writeMu.Lock()
	}
	defer func() {
		for _, t := range locked {
			t.writeMu.Unlock()
		}
	}()
	defer viewLocks(locked, true)()

	olds := make([]item, len(targets))
	for i, tg := range targets {
		old, err := s.read(tg.t, tg.key)
		if err != nil {
			// The write would fail the same key validation; nothing ran.
			return nil, err
		}
		olds[i] = cloneItem(old)
	}
	if werr := guard(write); werr != nil {
		if err := s.restore(targets, olds); err != nil {
			return olds, err
		}
		return olds, werr
	}
	batches := map[*Stream][]*Record{}
	var order []*Stream
	for i, tg := range targets {
		st := tg.t.stream
		if st == nil && len(tg.t.gsis)+len(tg.t.lsis) == 0 {
			continue // no record to emit, no index entry to drop
		}
		nw, err := s.read(tg.t, tg.key)
		if err != nil {
			return olds, captureFault("read new image of "+tg.t.name, err)
		}
		if err := s.dropLeftEntries(tg.t, tg.key, olds[i], nw); err != nil {
			return olds, err
		}
		if st == nil {
			continue
		}
		if r := s.record(tg.t, st, olds[i], nw); r != nil {
			if batches[st] == nil {
				order = append(order, st)
			}
			batches[st] = append(batches[st], r)
		}
	}
	for _, st := range order {
		st.append(batches[st])
	}
	return olds, nil
}

// guard runs a minidyn write, turning a panic into an error so that the
// caller can still restore the items it touched.
func guard(write func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	return write()
}

// restore puts every target that differs from its old image back.
func (s *Service) restore(targets []target, olds []item) error {
	for i, tg := range targets {
		cur, err := s.read(tg.t, tg.key)
		if err != nil {
			return captureFault("read image after failed write to "+tg.t.name, err)
		}
		switch {
		case equalItems(cur, olds[i]):
		case olds[i] == nil:
			_, err = s.db.DeleteItem(bg, &server.DeleteItemInput{TableName: aws.String(tg.t.name), Key: tg.key})
		default:
			_, err = s.db.PutItem(bg, &server.PutItemInput{TableName: aws.String(tg.t.name), Item: cloneItem(olds[i])})
		}
		if err != nil {
			return captureFault("undo failed write to "+tg.t.name, err)
		}
		if err := s.dropLeftEntries(tg.t, tg.key, cur, olds[i]); err != nil {
			return err
		}
	}
	return nil
}

func captureFault(what string, err error) *APIError {
	return &APIError{Code: "InternalServerError", Status: http.StatusInternalServerError,
		Message: fmt.Sprintf("local cloud: %s: %v", what, err)}
}

// read returns the current item with that key, nil when there is none.
func (s *Service) read(t *table, key item) (item, error) {
	out, err := s.db.GetItem(bg, &server.GetItemInput{TableName: aws.String(t.name), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fromMinidyn(err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// record builds the stream record for one item change, or nil when the
// item did not change. Images follow the view type (docs/aws-behaviour.md §2.5);
// SizeBytes counts the keys and the images included (docs/aws-behaviour.md §2.4).
func (s *Service) record(t *table, st *Stream, old, nw item) *Record {
	var name string
	switch {
	case old == nil && nw == nil:
		return nil
	case old == nil:
		name = EventInsert
	case nw == nil:
		name = EventRemove
	case equalItems(old, nw):
		return nil
	default:
		name = EventModify
	}
	src := nw
	if src == nil {
		src = old
	}
	keys := t.keyOf(src)
	now := s.now()
	r := &Record{
		EventID: eventID(), EventName: name, EventVersion: "1.1", EventSource: "aws:dynamodb",
		AWSRegion: s.opts.Region, at: now,
	}
	d := &r.DynamoDB
	d.ApproximateCreationDateTime = now.Unix()
	d.StreamViewType = st.viewType
	d.Keys = appendItemJSON(nil, keys)
	d.SizeBytes = itemSize(keys)
	if nw != nil && (st.viewType == ViewNewImage || st.viewType == ViewNewAndOldImage) {
		d.NewImage = appendItemJSON(nil, nw)
		d.SizeBytes += itemSize(nw)
	}
	if old != nil && (st.viewType == ViewOldImage || st.viewType == ViewNewAndOldImage) {
		d.OldImage = appendItemJSON(nil, old)
		d.SizeBytes += itemSize(old)
	}
	r.seq = s.seq.Add(1)
	d.SequenceNumber = formatSeq(r.seq)
	return r
}

// withOldItem adds the item to a ConditionalCheckFailedException when the
// caller asked for ReturnValuesOnConditionCheckFailure=ALL_OLD (minidyn
// honours it for UpdateItem only).
func withOldItem(err error, want ddbtypes.ReturnValuesOnConditionCheckFailure, old item) error {
	ae := fromMinidyn(err)
	if ae.Code == "ConditionalCheckFailedException" && want == ddbtypes.ReturnValuesOnConditionCheckFailureAllOld && old != nil {
		ae.Extra = map[string]any{"Item": wireItem(old)}
	}
	return ae
}

type attributesOutput struct {
	Attributes wireItem `json:"Attributes,omitempty"`
}

func (s *Service) getItemOp(body []byte) (any, error) {
	var in server.GetItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"AttributesToGet": len(in.AttributesToGet) > 0}); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	defer viewLocks([]*table{t}, false)()
	out, err := s.db.GetItem(bg, &in)
	if err != nil {
		return nil, err
	}
	return struct {
		Item wireItem `json:"Item,omitempty"`
	}{wireItem(out.Item)}, nil
}

// noneOrAllOld accepts the ReturnValues that PutItem and DeleteItem allow.
func noneOrAllOld(rv ddbtypes.ReturnValue) error {
	switch rv {
	case "", ddbtypes.ReturnValueNone, ddbtypes.ReturnValueAllOld:
		return nil
	}
	return validation("Return values set to invalid value")
}

func (s *Service) putItem(body []byte) (any, error) {
	var in server.PutItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"Expected": len(in.Expected) > 0, "ConditionalOperator": in.ConditionalOperator != ""}); err != nil {
		return nil, err
	}
	if err := noneOrAllOld(in.ReturnValues); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	key, err := t.fullKey(in.Item)
	if err != nil {
		return nil, err
	}
	if err := firstErr(validateSets(in.Item), checkItemSize(in.Item), validateValues(in.ExpressionAttributeValues)); err != nil {
		return nil, err
	}
	olds, err := s.capture([]target{{t, key}}, func() error {
		// minidyn answers with the new item whatever ReturnValues says;
		// the response is built from the old image instead.
		_, err := s.db.PutItem(bg, &in)
		return err
	})
	if err != nil {
		if olds == nil {
			return nil, err
		}
		return nil, withOldItem(err, in.ReturnValuesOnConditionCheckFailure, olds[0])
	}
	if in.ReturnValues == ddbtypes.ReturnValueAllOld {
		return attributesOutput{wireItem(olds[0])}, nil
	}
	return attributesOutput{}, nil
}

func (s *Service) updateItem(body []byte) (any, error) {
	var in server.UpdateItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"AttributeUpdates": len(in.AttributeUpdates) > 0, "Expected": len(in.Expected) > 0,
		"ConditionalOperator": in.ConditionalOperator != ""}); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := validateValues(in.ExpressionAttributeValues); err != nil {
		return nil, err
	}
	if _, err := updateReturn(in.ReturnValues, nil, nil); err != nil {
		return nil, err
	}
	var old, nw item
	if _, err := s.capture([]target{{t, in.Key}}, func() error {
		var err error
		old, nw, err = s.applyUpdate(t, in)
		return err
	}); err != nil {
		return nil, err
	}
	attrs, err := updateReturn(in.ReturnValues, old, nw)
	if err != nil {
		return nil, err
	}
	return attributesOutput{wireItem(attrs)}, nil
}

func (s *Service) deleteItem(body []byte) (any, error) {
	var in server.DeleteItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"Expected": len(in.Expected) > 0, "ConditionalOperator": in.ConditionalOperator != ""}); err != nil {
		return nil, err
	}
	if err := noneOrAllOld(in.ReturnValues); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := validateValues(in.ExpressionAttributeValues); err != nil {
		return nil, err
	}
	var out *server.DeleteItemOutput
	olds, err := s.capture([]target{{t, in.Key}}, func() error {
		var err error
		out, err = s.db.DeleteItem(bg, &in)
		return err
	})
	if err != nil {
		if olds == nil {
			return nil, err
		}
		return nil, withOldItem(err, in.ReturnValuesOnConditionCheckFailure, olds[0])
	}
	return attributesOutput{wireItem(out.Attributes)}, nil
}

type pageOutput struct {
	Count            int32      `json:"Count"`
	Items            []wireItem `json:"Items,omitempty"`
	LastEvaluatedKey wireItem   `json:"LastEvaluatedKey,omitempty"`
	// ScannedCount equals Count: minidyn does not report how many items a
	// filter discarded.
	ScannedCount int32 `json:"ScannedCount"`
}

func page(items []item, last item, sel ddbtypes.Select) pageOutput {
	out := pageOutput{Count: int32(len(items)), ScannedCount: int32(len(items)), LastEvaluatedKey: wireItem(last)}
	if sel != ddbtypes.SelectCount {
		out.Items = wireItems(items)
		if out.Items == nil {
			out.Items = []wireItem{}
		}
	}
	return out
}

func checkLimit(limit *int32) error {
	if limit != nil && *limit < 1 {
		return validation("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *limit)
	}
	return nil
}

func (s *Service) query(body []byte) (any, error) {
	var in server.QueryInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"KeyConditions": len(in.KeyConditions) > 0, "QueryFilter": len(in.QueryFilter) > 0,
		"AttributesToGet": len(in.AttributesToGet) > 0, "ConditionalOperator": in.ConditionalOperator != ""}); err != nil {
		return nil, err
	}
	if err := checkLimit(in.Limit); err != nil {
		return nil, err
	}
	if aws.ToString(in.KeyConditionExpression) == "" {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := t.checkConsistentRead(in.IndexName, in.ConsistentRead); err != nil {
		return nil, err
	}
	defer viewLocks([]*table{t}, false)()
	if attr, ok := t.numberSortKey(aws.ToString(in.IndexName)); ok {
		return s.queryNumeric(t, &in, attr)
	}
	out, err := s.db.Query(bg, &in)
	if err != nil {
		return nil, err
	}
	return page(out.Items, out.LastEvaluatedKey, in.Select), nil
}

func (s *Service) scan(body []byte) (any, error) {
	var in server.ScanInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := legacy(map[string]bool{"ScanFilter": len(in.ScanFilter) > 0, "AttributesToGet": len(in.AttributesToGet) > 0,
		"ConditionalOperator": in.ConditionalOperator != ""}); err != nil {
		return nil, err
	}
	if err := checkLimit(in.Limit); err != nil {
		return nil, err
	}
	// Parallel scan: segments may split a table any way as long as each item
	// lands in exactly one; the emulator gives every item to segment 0.
	// minidyn ignores the parameters, and would return the whole table to
	// every segment.
	if (in.Segment == nil) != (in.TotalSegments == nil) {
		return nil, validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	}
	if in.TotalSegments != nil {
		total, seg := *in.TotalSegments, *in.Segment
		if total < 1 || total > 1000000 || seg < 0 || seg >= total {
			return nil, validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", seg, total)
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, err := s.dataTable(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := t.checkConsistentRead(in.IndexName, in.ConsistentRead); err != nil {
		return nil, err
	}
	if in.Segment != nil && *in.Segment > 0 {
		return page(nil, nil, in.Select), nil
	}
	defer viewLocks([]*table{t}, false)()
	out, err := s.db.Scan(bg, &in)
	if err != nil {
		return nil, err
	}
	return page(out.Items, out.LastEvaluatedKey, in.Select), nil
}

type keysAndAttributes struct {
	ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
	Keys                     []wireItem        `json:"Keys"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
}

func (s *Service) batchGetItem(body []byte) (any, error) {
	var in server.BatchGetItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	for _, req := range in.RequestItems {
		if err := legacy(map[string]bool{"AttributesToGet": len(req.AttributesToGet) > 0}); err != nil {
			return nil, err
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var read []*table
	for name := range in.RequestItems {
		t, err := s.dataTable(&name)
		if err != nil {
			return nil, err
		}
		read = append(read, t)
	}
	defer viewLocks(read, false)()
	out, err := s.db.BatchGetItem(bg, &in)
	if err != nil {
		return nil, err
	}
	res := struct {
		Responses       map[string][]wireItem        `json:"Responses"`
		UnprocessedKeys map[string]keysAndAttributes `json:"UnprocessedKeys"`
	}{map[string][]wireItem{}, map[string]keysAndAttributes{}}
	for name, items := range out.Responses {
		res.Responses[name] = append([]wireItem{}, wireItems(items)...)
	}
	for name, ka := range out.UnprocessedKeys {
		res.UnprocessedKeys[name] = keysAndAttributes{ConsistentRead: ka.ConsistentRead, ExpressionAttributeNames: ka.ExpressionAttributeNames,
			Keys: wireItems(ka.Keys), ProjectionExpression: ka.ProjectionExpression}
	}
	return res, nil
}

type writeRequest struct {
	DeleteRequest *struct {
		Key wireItem `json:"Key"`
	} `json:"DeleteRequest,omitempty"`
	PutRequest *struct {
		Item wireItem `json:"Item"`
	} `json:"PutRequest,omitempty"`
}

func (s *Service) batchWriteItem(body []byte) (any, error) {
	var in server.BatchWriteItemInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	n := 0
	for _, reqs := range in.RequestItems {
		n += len(reqs)
	}
	if n == 0 {
		return nil, validation("1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	if n > 25 {
		return nil, validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var targets []target
	for _, name := range sortedKeys(in.RequestItems) {
		t, err := s.dataTable(&name)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, req := range in.RequestItems[name] {
			var key item
			switch {
			case req.PutRequest != nil && req.DeleteRequest == nil:
				if key, err = t.fullKey(req.PutRequest.Item); err != nil {
					return nil, err
				}
				if err := firstErr(validateSets(req.PutRequest.Item), checkItemSize(req.PutRequest.Item)); err != nil {
					return nil, err
				}
			case req.DeleteRequest != nil && req.PutRequest == nil:
				key = req.DeleteRequest.Key
			default:
				return nil, validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			// AWS rejects a batch that names one item twice (API reference,
			// BatchWriteItem), so each target changes at most once.
			ks := keyString(key)
			if seen[ks] {
				return nil, validation("Provided list of item keys contains duplicates")
			}
			seen[ks] = true
			targets = append(targets, target{t, key})
		}
	}
	var out *server.BatchWriteItemOutput
	if _, err := s.capture(targets, func() error {
		var err error
		out, err = s.db.BatchWriteItem(bg, &in)
		return err
	}); err != nil {
		return nil, err
	}
	res := struct {
		UnprocessedItems map[string][]writeRequest `json:"UnprocessedItems"`
	}{map[string][]writeRequest{}}
	for name, reqs := range out.UnprocessedItems {
		for _, r := range reqs {
			var w writeRequest
			if r.PutRequest != nil {
				w.PutRequest = &struct {
					Item wireItem `json:"Item"`
				}{wireItem(r.PutRequest.Item)}
			}
			if r.DeleteRequest != nil {
				w.DeleteRequest = &struct {
					Key wireItem `json:"Key"`
				}{wireItem(r.DeleteRequest.Key)}
			}
			res.UnprocessedItems[name] = append(res.UnprocessedItems[name], w)
		}
	}
	return res, nil
}

func (s *Service) transactWriteItems(body []byte) (any, error) {
	var in server.TransactWriteItemsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if len(in.TransactItems) == 0 || len(in.TransactItems) > 100 {
		return nil, validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100 and greater than or equal to 1")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var (
		targets []target
		idx     []int
	)
	for i, ti := range in.TransactItems {
		var (
			name *string
			key  item
			put  bool
		)
		switch {
		case ti.Put != nil:
			name, key, put = ti.Put.TableName, ti.Put.Item, true
			if err := firstErr(validateSets(ti.Put.Item), checkItemSize(ti.Put.Item), validateValues(ti.Put.ExpressionAttributeValues)); err != nil {
				return nil, err
			}
		case ti.Update != nil:
			name, key = ti.Update.TableName, ti.Update.Key
			if err := validateValues(ti.Update.ExpressionAttributeValues); err != nil {
				return nil, err
			}
		case ti.Delete != nil:
			name, key = ti.Delete.TableName, ti.Delete.Key
			if err := validateValues(ti.Delete.ExpressionAttributeValues); err != nil {
				return nil, err
			}
		case ti.ConditionCheck != nil:
			// A check writes nothing, but its item is staged with the
			// others and its table locked, so the check is atomic too.
			name, key = ti.ConditionCheck.TableName, ti.ConditionCheck.Key
		default:
			return nil, validation("TransactItems can only contain one of Check, Put, Update or Delete")
		}
		t, err := s.dataTable(name)
		if err != nil {
			return nil, err
		}
		if put {
			if key, err = t.fullKey(key); err != nil {
				return nil, err
			}
		}
		targets = append(targets, target{t, key})
		idx = append(idx, i)
	}
	// minidyn rejects two operations on one item and evaluates the whole
	// transaction on the scratch copies first, so the diff yields per-item
	// records or none at all.
	if _, err := s.capture(targets, func() error {
		return s.transactOnScratch(in, targets, idx)
	}); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

func (s *Service) transactGetItems(body []byte) (any, error) {
	var in server.TransactGetItemsInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var read []*table
	for _, ti := range in.TransactItems {
		if ti.Get == nil {
			return nil, validation("1 validation error detected: Value null at 'transactItems.member.get' failed to satisfy constraint: Member must not be null")
		}
		t, err := s.dataTable(ti.Get.TableName)
		if err != nil {
			return nil, err
		}
		read = append(read, t)
	}
	defer viewLocks(read, false)()
	out, err := s.db.TransactGetItems(bg, &in)
	if err != nil {
		return nil, err
	}
	type response struct {
		Item wireItem `json:"Item,omitempty"`
	}
	res := struct {
		Responses []response `json:"Responses"`
	}{make([]response, len(out.Responses))}
	for i, r := range out.Responses {
		res.Responses[i] = response{wireItem(r.Item)}
	}
	return res, nil
}

// validateSets rejects empty sets, which minidyn accepts but DynamoDB
// refuses (DynamoDB developer guide, "Data types": sets must hold at least
// one element), at any nesting depth.
func validateSets(it item) error {
	for _, v := range it {
		if err := validateValueSets(v); err != nil {
			return err
		}
	}
	return nil
}

func validateValueSets(v *server.AttributeValue) error {
	switch {
	case v == nil:
	case v.SS != nil && len(v.SS) == 0:
		return validation("One or more parameter values were invalid: An string set  may not be empty")
	case v.NS != nil && len(v.NS) == 0:
		return validation("One or more parameter values were invalid: An number set  may not be empty")
	case v.BS != nil && len(v.BS) == 0:
		return validation("One or more parameter values were invalid: Binary sets should not be empty")
	case v.L != nil:
		for _, e := range v.L {
			if err := validateValueSets(e); err != nil {
				return err
			}
		}
	case v.M != nil:
		return validateSets(v.M)
	}
	return nil
}

// validateValues applies validateSets to ExpressionAttributeValues, with
// the prefix DynamoDB puts on such errors.
func validateValues(values item) error {
	for _, name := range sortedKeys(values) {
		if err := validateValueSets(values[name]); err != nil {
			ae := err.(*APIError)
			return validation("ExpressionAttributeValues contains invalid value: %s for key %s", ae.Message, name)
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
