package demo

import (
	"math"
	"strings"

	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// Index is a global secondary index as the write-unit arithmetic needs
// it: its key attributes and what it projects.
type Index struct {
	Name        string
	Hash, Range string
	// ProjectsWhole is projection ALL; otherwise the entry holds the
	// index keys, the table key and Projected.
	ProjectsWhole bool
	Projected     []string
}

// tableKey is the task table's partition key, part of every index entry.
const tableKey = "taskId"

// taskIndexes are the task table's indexes (internal/dynamostore doc.go,
// terraform/modules/task-table/main.tf): the sparse live index (liveKey,
// liveSince) projecting runId, and the sparse done index (doneRun,
// taskId) projecting ALL.
var taskIndexes = []Index{
	{Name: "live", Hash: "liveKey", Range: "liveSince", Projected: []string{"runId"}},
	{Name: "done", Hash: "doneRun", Range: "taskId", ProjectsWhole: true},
}

// DynamoUsage is the DynamoDB work of the run: writes priced from the
// stream's images, reads and failed conditional writes estimated from the
// request counts.
type DynamoUsage struct {
	// StreamRecords by event: every successful write left one.
	Inserts, Modifies, Removes int
	// TableWriteUnits and IndexWriteUnits are the write request units the
	// successful writes consumed (see WriteUnits).
	TableWriteUnits float64
	IndexWriteUnits float64
	// WriteRequests counts UpdateItem, PutItem and DeleteItem calls and
	// the items of BatchWriteItem (one per INSERT record: the submitter
	// only creates); FailedWrites are the single-item writes that left no
	// stream record: conditional writes that lost (a claim of a task
	// another worker holds, a fenced finish). Each costs at least 1 unit.
	WriteRequests int64
	BatchWrites   int64
	FailedWrites  int64
	// PipelineReads are GetItem and Query calls by the functions; each is
	// priced at half a read unit (an eventually consistent read of at most
	// 4 KB), a lower bound. OperatorReads are the client's reads (the
	// demo's status polls), reported but not priced per task.
	PipelineReads int64
	OperatorReads int64
}

// StreamRecords is the number of stream records read.
func (u DynamoUsage) StreamRecords() int { return u.Inserts + u.Modifies + u.Removes }

// WriteUnits is the total write request units: the successful writes plus
// one per failed conditional write.
func (u DynamoUsage) WriteUnits() float64 {
	return u.TableWriteUnits + u.IndexWriteUnits + float64(u.FailedWrites)
}

// ReadUnits is the estimated read request units of the pipeline's reads.
func (u DynamoUsage) ReadUnits() float64 { return 0.5 * float64(u.PipelineReads) }

// addRecord adds one stream record's write units.
func (u *DynamoUsage) addRecord(rec streamtypes.Record) {
	if rec.Dynamodb == nil {
		return
	}
	old, nw := rec.Dynamodb.OldImage, rec.Dynamodb.NewImage
	switch rec.EventName {
	case streamtypes.OperationTypeInsert:
		u.Inserts++
	case streamtypes.OperationTypeModify:
		u.Modifies++
	case streamtypes.OperationTypeRemove:
		u.Removes++
	}
	t, i := WriteUnits(old, nw, taskIndexes)
	u.TableWriteUnits += t
	u.IndexWriteUnits += i
}

// addRequests derives the request-based figures from the run's counts.
func (u *DynamoUsage) addRequests(counts []localcloud.CallerCount) {
	for _, c := range counts {
		if c.Service != "dynamodb" {
			continue
		}
		switch c.Operation {
		case "UpdateItem", "PutItem", "DeleteItem":
			u.WriteRequests += c.Count
		case "BatchWriteItem":
			u.BatchWrites += c.Count
		case "GetItem", "Query", "BatchGetItem", "Scan":
			if c.Caller == localcloud.ClientCaller {
				u.OperatorReads += c.Count
			} else {
				u.PipelineReads += c.Count
			}
		}
	}
	// Records of single-item writes: every record but the submitter's
	// INSERTs, which came in batches.
	single := int64(u.Modifies + u.Removes)
	if u.BatchWrites == 0 {
		single += int64(u.Inserts)
	}
	u.FailedWrites = max(0, u.WriteRequests-single)
}

// WriteUnits returns the write request units one successful write
// consumed, given the item's old and new images (nil when absent): on the
// table, the larger image in 1 KB units; on each index, a put, an update
// or a delete of the index entry, two writes when the index key changed,
// and none when neither the key nor a projected attribute changed. Per the DynamoDB developer guide, "Capacity unit consumption
// for write operations" and "Provisioned throughput considerations for
// Global Secondary Indexes" (GSI.html#GSI.ThroughputConsiderations.Writes).
func WriteUnits(old, nw map[string]streamtypes.AttributeValue, indexes []Index) (table, index float64) {
	oldSize, newSize := ItemSize(old), ItemSize(nw)
	if old == nil && nw == nil {
		return 0, 0
	}
	table = kbUnits(max(oldSize, newSize))
	for _, ix := range indexes {
		inOld := old != nil && has(old, ix.Hash) && (ix.Range == "" || has(old, ix.Range))
		inNew := nw != nil && has(nw, ix.Hash) && (ix.Range == "" || has(nw, ix.Range))
		oldEntry, newEntry := oldSize, newSize
		if !ix.ProjectsWhole {
			oldEntry, newEntry = entrySize(old, ix), entrySize(nw, ix)
		}
		switch {
		case inOld && inNew && sameKey(old, nw, ix):
			if ix.ProjectsWhole || !sameAttrs(old, nw, ix.Projected) {
				index += kbUnits(max(oldEntry, newEntry))
			}
		case inOld && inNew:
			index += kbUnits(oldEntry) + kbUnits(newEntry)
		case inNew:
			index += kbUnits(newEntry)
		case inOld:
			index += kbUnits(oldEntry)
		}
	}
	return table, index
}

// kbUnits is size in 1 KB write units, at least one.
func kbUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

func has(item map[string]streamtypes.AttributeValue, name string) bool {
	_, ok := item[name]
	return ok
}

func sameKey(a, b map[string]streamtypes.AttributeValue, ix Index) bool {
	return attrString(a[ix.Hash]) == attrString(b[ix.Hash]) && (ix.Range == "" || attrString(a[ix.Range]) == attrString(b[ix.Range]))
}

// entrySize is the size of a projecting index's entry: its keys, the
// table key and the projected attributes the item has.
func entrySize(item map[string]streamtypes.AttributeValue, ix Index) int {
	n := 0
	seen := map[string]bool{}
	for _, k := range append([]string{ix.Hash, ix.Range, tableKey}, ix.Projected...) {
		if v, ok := item[k]; ok && k != "" && !seen[k] {
			seen[k] = true
			n += len(k) + attrSize(v)
		}
	}
	return n
}

func sameAttrs(a, b map[string]streamtypes.AttributeValue, names []string) bool {
	for _, k := range names {
		av, aok := a[k]
		bv, bok := b[k]
		if aok != bok || (aok && attrString(av) != attrString(bv)) {
			return false
		}
	}
	return true
}

// attrString is a comparable rendering of a key attribute (S, N or B).
func attrString(v streamtypes.AttributeValue) string {
	switch x := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return "S" + x.Value
	case *streamtypes.AttributeValueMemberN:
		return "N" + x.Value
	case *streamtypes.AttributeValueMemberB:
		return "B" + string(x.Value)
	}
	return ""
}

// ItemSize is an item's size as DynamoDB counts it: the UTF-8 length of
// each attribute name plus the size of its value (DynamoDB developer
// guide, "Item sizes and formats", CapacityUnitCalculations.html).
func ItemSize(item map[string]streamtypes.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + attrSize(v)
	}
	return n
}

// attrSize is a value's size: strings and binaries by length, numbers by
// significant digits (about one byte per two digits plus one), null and
// booleans one byte, lists and maps 3 bytes plus their elements (each
// element one more byte), sets the sum of their elements.
func attrSize(v streamtypes.AttributeValue) int {
	switch x := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return len(x.Value)
	case *streamtypes.AttributeValueMemberN:
		return numberSize(x.Value)
	case *streamtypes.AttributeValueMemberB:
		return len(x.Value)
	case *streamtypes.AttributeValueMemberBOOL, *streamtypes.AttributeValueMemberNULL:
		return 1
	case *streamtypes.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *streamtypes.AttributeValueMemberNS:
		n := 0
		for _, s := range x.Value {
			n += numberSize(s)
		}
		return n
	case *streamtypes.AttributeValueMemberBS:
		n := 0
		for _, b := range x.Value {
			n += len(b)
		}
		return n
	case *streamtypes.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + attrSize(e)
		}
		return n
	case *streamtypes.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + attrSize(e)
		}
		return n
	}
	return 0
}

// numberSize approximates a number's stored size: its significant digits
// (leading and trailing zeros dropped) halved, rounded up, plus one.
func numberSize(s string) int {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, ".", "")
	s = strings.Trim(s, "0")
	if s == "" {
		return 1
	}
	return (len(s)+1)/2 + 1
}
