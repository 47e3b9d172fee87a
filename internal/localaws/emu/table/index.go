package table

import (
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/truora/minidyn/server"
)

// An item leaves a sparse index when a write takes away an attribute of
// the index's key: DynamoDB then deletes its index entry
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.sparse).
// minidyn v0.8.2 does not: a PutItem whose item lacks the index key keeps
// the entry that the previous image made. Two things go wrong from there
// (both reproduced by TestIndexLeftThenDeleted and TestIndexesMatchTable):
//
//   - a Query matches the key condition against the stored item, so an
//     item that lost only its index sort key is still listed;
//   - a DeleteItem of the item removes the entry's reference but not its
//     place in the index's sort order, after which every Query of that
//     index pairs places with the wrong references and skips items (a
//     whole run went missing from the task table's done index).
//
// minidyn does maintain its indexes when it deletes an item whose stored
// image has the index key. So after any write that took an item out of an
// index, dropLeftEntries rewrites it: it stores the image with the left
// indexes' key attributes put back (which matches the entries minidyn
// kept), deletes it, and stores the real image again. Readers hold
// table.view shared and writes hold it exclusively, so nobody sees the
// intermediate images.

// indexKeys returns the key schema of each of t's secondary indexes.
func (t *table) indexKeys() [][]ddbtypes.KeySchemaElement {
	out := make([][]ddbtypes.KeySchemaElement, 0, len(t.gsis)+len(t.lsis))
	for _, ix := range slices.Concat(t.gsis, t.lsis) {
		out = append(out, ix.keySchema)
	}
	return out
}

// hasAll reports whether it has every attribute of the key schema.
func hasAll(it item, ks []ddbtypes.KeySchemaElement) bool {
	for _, k := range ks {
		if _, ok := it[aws.ToString(k.AttributeName)]; !ok {
			return false
		}
	}
	return true
}

// leftIndexes returns the attributes of before that after lacks and that
// make up the key of an index before was in and after is not; nil when
// after left no index.
func (t *table) leftIndexes(before, after item) item {
	var extra item
	for _, ks := range t.indexKeys() {
		if !hasAll(before, ks) || hasAll(after, ks) {
			continue
		}
		for _, k := range ks {
			name := aws.ToString(k.AttributeName)
			if _, ok := after[name]; !ok {
				if extra == nil {
					extra = item{}
				}
				extra[name] = before[name]
			}
		}
	}
	return extra
}

// dropLeftEntries makes minidyn forget the index entries of an item that
// left an index: key's stored image is after, and minidyn's entries were
// made by before. Callers hold t.writeMu and t.view.
func (s *Service) dropLeftEntries(t *table, key, before, after item) error {
	if before == nil || after == nil {
		return nil // a new item has no old entries; a deleted one had its own removed
	}
	extra := t.leftIndexes(before, after)
	if extra == nil {
		return nil
	}
	bridge := cloneItem(after)
	for name, v := range extra {
		bridge[name] = cloneValue(v)
	}
	name := aws.String(t.name)
	if _, err := s.db.PutItem(bg, &server.PutItemInput{TableName: name, Item: bridge}); err != nil {
		return captureFault("restore index entries of "+t.name, err)
	}
	if _, err := s.db.DeleteItem(bg, &server.DeleteItemInput{TableName: name, Key: cloneItem(key)}); err != nil {
		return captureFault("drop index entries of "+t.name, err)
	}
	if _, err := s.db.PutItem(bg, &server.PutItemInput{TableName: name, Item: cloneItem(after)}); err != nil {
		return captureFault("store item of "+t.name+" after dropping its index entries", err)
	}
	return nil
}

// viewLocks takes the view lock of each table, in name order (the order
// writes take theirs in), shared or exclusive; it returns the unlock.
func viewLocks(tables []*table, exclusive bool) func() {
	ts := slices.Clone(tables)
	slices.SortFunc(ts, func(a, b *table) int { return strings.Compare(a.name, b.name) })
	ts = slices.CompactFunc(ts, func(a, b *table) bool { return a == b })
	locks := make([]func(), 0, len(ts))
	for _, t := range ts {
		var l sync.Locker = t.view.RLocker()
		if exclusive {
			l = &t.view
		}
		l.Lock()
		locks = append(locks, l.Unlock)
	}
	return func() {
		for _, unlock := range slices.Backward(locks) {
			unlock()
		}
	}
}
