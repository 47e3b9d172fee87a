package table

import (
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/truora/minidyn/server"
)

// Updates are not applied by minidyn in place. minidyn v0.8.2 evaluates
// update expressions correctly but stores their outcome wrongly in two ways
// that taskpipe's store depends on (both reproduced by the task.Store
// conformance suite, which internal/dynamostore runs against this package):
//
//   - REMOVE of a top-level attribute leaves the attribute stored, so a
//     finished task would stay in the sparse live index;
//   - an update that gives an item an index key it did not have overwrites
//     another item's entry in that index, so index queries skip items.
//
// So every update (UpdateItem, and every item of a TransactWriteItems that
// contains one) runs against copies of the affected items in a scratch
// minidyn whose tables have the same key schema and no indexes. minidyn still
// evaluates conditions, update expressions, ReturnValuesOnConditionCheckFailure
// and transaction cancellation reasons there; the REMOVEs are then applied,
// and the resulting images are stored in the real table with PutItem and
// DeleteItem, whose index maintenance is correct.

// scratchName is the name of t's scratch table: the table id, unique per
// table incarnation, so a re-created table never sees stale copies.
func (t *table) scratchName() *string { return aws.String("scratch-" + t.id) }

// ensureScratch creates t's scratch table once. Callers hold t.writeMu.
func (s *Service) ensureScratch(t *table) error {
	if t.scratchReady {
		return nil
	}
	var defs []ddbtypes.AttributeDefinition
	for _, d := range t.attrDefs {
		n := aws.ToString(d.AttributeName)
		if n == t.hashKey || n == t.rangeKey {
			defs = append(defs, d)
		}
	}
	_, err := s.scratch.CreateTable(bg, &server.CreateTableInput{
		TableName:            t.scratchName(),
		AttributeDefinitions: defs,
		KeySchema:            t.keySchema,
		BillingMode:          ddbtypes.BillingModePayPerRequest,
	})
	if err != nil {
		return captureFault("create scratch table for "+t.name, err)
	}
	t.scratchReady = true
	return nil
}

// dropScratch forgets t's scratch table (on DeleteTable).
func (s *Service) dropScratch(t *table) {
	if t.scratchReady {
		_, _ = s.scratch.DeleteTable(bg, &server.DeleteTableInput{TableName: t.scratchName()}) // best effort: it only frees memory
		t.scratchReady = false
	}
}

// stage copies the current image of key (nil: no item) into t's scratch table.
func (s *Service) stage(t *table, key, cur item) error {
	if err := s.ensureScratch(t); err != nil {
		return err
	}
	if _, err := s.scratch.DeleteItem(bg, &server.DeleteItemInput{TableName: t.scratchName(), Key: cloneItem(key)}); err != nil {
		return captureFault("reset scratch item of "+t.name, err)
	}
	if cur == nil {
		return nil
	}
	if _, err := s.scratch.PutItem(bg, &server.PutItemInput{TableName: t.scratchName(), Item: cloneItem(cur)}); err != nil {
		return captureFault("stage scratch item of "+t.name, err)
	}
	return nil
}

// scratchImage reads the scratch copy of key after the evaluation.
func (s *Service) scratchImage(t *table, key item) (item, error) {
	out, err := s.scratch.GetItem(bg, &server.GetItemInput{TableName: t.scratchName(), Key: cloneItem(key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, captureFault("read scratch item of "+t.name, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// store makes the real item equal to img (nil deletes it).
func (s *Service) store(t *table, key, img item) error {
	var err error
	if img == nil {
		_, err = s.db.DeleteItem(bg, &server.DeleteItemInput{TableName: aws.String(t.name), Key: cloneItem(key)})
	} else {
		_, err = s.db.PutItem(bg, &server.PutItemInput{TableName: aws.String(t.name), Item: cloneItem(img)})
	}
	if err != nil {
		return captureFault("store evaluated item in "+t.name, err)
	}
	return nil
}

// applyUpdate evaluates one UpdateItem on the scratch copy of its item and
// stores the outcome. It returns the old and new images. Callers hold
// t.writeMu (inside capture).
func (s *Service) applyUpdate(t *table, in server.UpdateItemInput) (old, nw item, err error) {
	if old, err = s.read(t, in.Key); err != nil {
		return nil, nil, err
	}
	if err := s.stage(t, in.Key, old); err != nil {
		return nil, nil, err
	}
	in.TableName = t.scratchName()
	if _, err := s.scratch.UpdateItem(bg, &in); err != nil {
		return old, nil, err
	}
	if nw, err = s.scratchImage(t, in.Key); err != nil {
		return old, nil, err
	}
	removeTopLevel(nw, aws.ToString(in.UpdateExpression), in.ExpressionAttributeNames)
	return old, nw, s.store(t, in.Key, nw)
}

// removeTopLevel deletes from img the top-level attributes that the update
// expression's REMOVE clauses name.
func removeTopLevel(img item, expr string, names map[string]string) {
	for _, n := range topLevelRemoves(expr, names) {
		delete(img, n)
	}
}

// clauseKeyword finds update-expression clause keywords; a keyword inside
// a placeholder (#set, :remove) or a longer name is not one.
var clauseKeyword = regexp.MustCompile(`(?i)(^|[^#:\w])(SET|REMOVE|ADD|DELETE)\b`)

// topLevelRemoves returns the attribute names that expr's REMOVE clauses
// remove at the top level (no "." or "[" in the path), with #name
// placeholders resolved. minidyn v0.8.2 ignores such removals; this
// package applies them with it.
func topLevelRemoves(expr string, names map[string]string) []string {
	locs := clauseKeyword.FindAllStringSubmatchIndex(expr, -1)
	var out []string
	for i, loc := range locs {
		if !strings.EqualFold(expr[loc[4]:loc[5]], "REMOVE") {
			continue
		}
		end := len(expr)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		for _, path := range strings.Split(expr[loc[5]:end], ",") {
			path = strings.TrimSpace(path)
			if path == "" || strings.ContainsAny(path, ".[") {
				continue
			}
			if n, ok := names[path]; ok {
				path = n
			}
			out = append(out, path)
		}
	}
	return out
}

// updateReturn builds UpdateItem's Attributes for ReturnValues from the old
// and new images. UPDATED_* report the attributes whose value changed or
// that were added or removed.
func updateReturn(rv ddbtypes.ReturnValue, old, nw item) (item, error) {
	switch rv {
	case "", ddbtypes.ReturnValueNone:
		return nil, nil
	case ddbtypes.ReturnValueAllOld:
		return old, nil
	case ddbtypes.ReturnValueAllNew:
		return nw, nil
	case ddbtypes.ReturnValueUpdatedOld, ddbtypes.ReturnValueUpdatedNew:
		from, other := old, nw
		if rv == ddbtypes.ReturnValueUpdatedNew {
			from, other = nw, old
		}
		out := item{}
		for k, v := range from {
			if o, ok := other[k]; !ok || !equalItems(item{k: v}, item{k: o}) {
				out[k] = v
			}
		}
		return out, nil
	}
	return nil, validation("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: "+
		"Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, UPDATED_NEW, ALL_NEW]", rv)
}

// transactOnScratch runs a TransactWriteItems against scratch copies of
// every item it names and stores the outcome. Callers hold the write locks
// of every table involved (inside capture).
// idx[i] is the index in in.TransactItems of targets[i].
func (s *Service) transactOnScratch(in server.TransactWriteItemsInput, targets []target, idx []int) error {
	for _, tg := range targets {
		cur, err := s.read(tg.t, tg.key)
		if err != nil {
			return err
		}
		if err := s.stage(tg.t, tg.key, cur); err != nil {
			return err
		}
	}
	scratchIn := server.TransactWriteItemsInput{TransactItems: make([]server.TransactWriteItem, len(in.TransactItems))}
	rename := func(name *string) *string { return s.tables[aws.ToString(name)].scratchName() }
	for i, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			p := *ti.Put
			p.TableName = rename(p.TableName)
			scratchIn.TransactItems[i].Put = &p
		case ti.Update != nil:
			u := *ti.Update
			u.TableName = rename(u.TableName)
			scratchIn.TransactItems[i].Update = &u
		case ti.Delete != nil:
			d := *ti.Delete
			d.TableName = rename(d.TableName)
			scratchIn.TransactItems[i].Delete = &d
		case ti.ConditionCheck != nil:
			c := *ti.ConditionCheck
			c.TableName = rename(c.TableName)
			scratchIn.TransactItems[i].ConditionCheck = &c
		}
	}
	if _, err := s.scratch.TransactWriteItems(bg, &scratchIn); err != nil {
		return err
	}
	for i, tg := range targets {
		img, err := s.scratchImage(tg.t, tg.key)
		if err != nil {
			return err
		}
		if u := in.TransactItems[idx[i]].Update; u != nil && img != nil {
			removeTopLevel(img, aws.ToString(u.UpdateExpression), u.ExpressionAttributeNames)
		}
		if in.TransactItems[idx[i]].ConditionCheck != nil {
			continue
		}
		if err := s.store(tg.t, tg.key, img); err != nil {
			return err
		}
	}
	return nil
}
