package dynamostoretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	miniserver "github.com/truora/minidyn/server"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// RepairMinidyn wraps a minidyn v0.8.2 HTTP handler so that UpdateItem
// behaves like DynamoDB in the two places where the task store depends on it
// and minidyn gets it wrong:
//
//  1. REMOVE of a top-level attribute is ignored: the interpreter deletes it
//     from its evaluation environment but only copies the environment back
//     into the stored item (interpreter/language.go, Language.Update →
//     Environment.Apply). DynamoDB removes it, which is how a row leaves a
//     sparse index
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-indexes-general-sparse-indexes.html).
//  2. An UpdateItem that gives an item a secondary-index key it did not have
//     corrupts that index: index.updateData looks up the item's previous
//     index key, finds none, and overwrites the first entry of the sorted
//     key list (core/index.go), after which Query on the index skips items.
//
// The repair runs each UpdateItem on a private scratch copy of the item, in
// a scratch minidyn table with the same primary key and no indexes (so the
// condition, the update and ReturnValuesOnConditionCheckFailure are still
// minidyn's), deletes the top-level attributes named in REMOVE from the
// result, and stores it in the real table with PutItem, whose index
// bookkeeping is correct. Every request through the wrapper is serialized,
// so that read-modify-write is atomic. A failed condition writes nothing and
// returns minidyn's own error, old item included.
//
// Limits: ReturnValues NONE, ALL_NEW and ALL_OLD are supported (UPDATED_*
// get a ValidationException rather than a wrong answer); updates inside
// TransactWriteItems are not repaired. TestMinidynBugs fails once minidyn
// fixes these bugs, so that this wrapper can then be dropped.
func RepairMinidyn(next http.Handler) http.Handler {
	return &repair{next: next, scratch: miniserver.NewServer(), tables: map[string]bool{}}
}

type repair struct {
	mu      sync.Mutex
	next    http.Handler
	scratch *miniserver.Server
	tables  map[string]bool // tables created in scratch
}

const targetPrefix = "DynamoDB_20120810."

func (f *repair) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("X-Amz-Target") != targetPrefix+"UpdateItem" {
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "SerializationException", "read body: "+err.Error())
		return
	}
	if rec := f.update(body); rec != nil {
		copyResponse(w, rec)
	}
}

type updateInput struct {
	TableName                string
	Key                      map[string]map[string]json.RawMessage
	UpdateExpression         string
	ExpressionAttributeNames map[string]string
	ReturnValues             string
}

// update performs one UpdateItem and returns the response to send.
func (f *repair) update(body []byte) *httptest.ResponseRecorder {
	var (
		raw map[string]json.RawMessage
		in  updateInput
	)
	if err := json.Unmarshal(body, &raw); err != nil {
		return errRecorder(http.StatusBadRequest, "SerializationException", err.Error())
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return errRecorder(http.StatusBadRequest, "SerializationException", err.Error())
	}
	switch in.ReturnValues {
	case "", "NONE", "ALL_NEW", "ALL_OLD":
	default:
		return errRecorder(http.StatusBadRequest, "ValidationException",
			fmt.Sprintf("dynamostoretest: RepairMinidyn does not support ReturnValues %s", in.ReturnValues))
	}
	if rec := f.ensureScratchTable(in); rec != nil {
		return rec
	}

	// The current item, copied into the scratch table (or cleared there).
	get, _ := json.Marshal(map[string]any{"TableName": in.TableName, "Key": in.Key, "ConsistentRead": true})
	rec := call(f.next, "GetItem", get)
	if rec.Code != http.StatusOK {
		return rec
	}
	var old struct{ Item json.RawMessage }
	if err := json.Unmarshal(rec.Body.Bytes(), &old); err != nil {
		return errRecorder(http.StatusInternalServerError, "InternalServerError", "repair: decode GetItem: "+err.Error())
	}
	exists := len(old.Item) > 0 && string(old.Item) != "null" && string(old.Item) != "{}"
	if exists {
		put, _ := json.Marshal(map[string]any{"TableName": in.TableName, "Item": old.Item})
		if rec = call(f.scratch, "PutItem", put); rec.Code != http.StatusOK {
			return rec
		}
	}

	// minidyn evaluates the condition and the update on the copy, which is
	// then dropped so that the scratch table stays small.
	raw["ReturnValues"] = json.RawMessage(`"ALL_NEW"`)
	fwd, _ := json.Marshal(raw)
	rec = call(f.scratch, "UpdateItem", fwd)
	del, _ := json.Marshal(map[string]any{"TableName": in.TableName, "Key": in.Key})
	if drop := call(f.scratch, "DeleteItem", del); drop.Code != http.StatusOK {
		return drop
	}
	if rec.Code != http.StatusOK {
		return rec // e.g. ConditionalCheckFailedException: nothing was written
	}
	var out struct{ Attributes map[string]json.RawMessage }
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return errRecorder(http.StatusInternalServerError, "InternalServerError", "repair: decode UpdateItem: "+err.Error())
	}
	for _, name := range table.TopLevelRemoves(in.UpdateExpression, in.ExpressionAttributeNames) {
		delete(out.Attributes, name)
	}
	put, _ := json.Marshal(map[string]any{"TableName": in.TableName, "Item": out.Attributes})
	if rec := call(f.next, "PutItem", put); rec.Code != http.StatusOK {
		return rec
	}

	var resp any = struct{}{}
	switch {
	case in.ReturnValues == "ALL_NEW":
		resp = map[string]any{"Attributes": out.Attributes}
	case in.ReturnValues == "ALL_OLD" && exists:
		resp = map[string]any{"Attributes": old.Item}
	}
	b, _ := json.Marshal(resp)
	rec = httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_, _ = rec.Write(b)
	return rec
}

// ensureScratchTable creates the scratch twin of in.TableName: the same
// primary key (names from DescribeTable, types from the request's Key) and
// no indexes.
func (f *repair) ensureScratchTable(in updateInput) *httptest.ResponseRecorder {
	if f.tables[in.TableName] {
		return nil
	}
	desc, _ := json.Marshal(map[string]string{"TableName": in.TableName})
	rec := call(f.next, "DescribeTable", desc)
	if rec.Code != http.StatusOK {
		return rec
	}
	var out struct {
		Table struct {
			KeySchema []struct{ AttributeName, KeyType string }
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return errRecorder(http.StatusInternalServerError, "InternalServerError", "repair: decode DescribeTable: "+err.Error())
	}
	type def struct{ AttributeName, AttributeType string }
	var defs []def
	for _, k := range out.Table.KeySchema {
		for typ := range in.Key[k.AttributeName] {
			defs = append(defs, def{k.AttributeName, typ})
		}
	}
	if len(defs) != len(out.Table.KeySchema) {
		return errRecorder(http.StatusBadRequest, "ValidationException", "The provided key element does not match the schema")
	}
	create, _ := json.Marshal(map[string]any{
		"TableName":            in.TableName,
		"KeySchema":            out.Table.KeySchema,
		"AttributeDefinitions": defs,
		"BillingMode":          "PAY_PER_REQUEST",
	})
	if rec := call(f.scratch, "CreateTable", create); rec.Code != http.StatusOK {
		return rec
	}
	f.tables[in.TableName] = true
	return nil
}

// call sends one request to h in process.
func call(h http.Handler, op string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func errRecorder(code int, typ, msg string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	writeErr(rec, code, typ, msg)
	return rec
}

func writeErr(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}
