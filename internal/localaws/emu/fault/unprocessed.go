package fault

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// UnprocessedItems returns a middleware that makes BatchWriteItem leave
// unprocessed the put requests on table whose item leave reports true: the
// rest of the batch goes on to next (the DynamoDB service), and the answer
// lists the left-out requests under UnprocessedItems next to whatever next
// left out itself, as DynamoDB answers a batch it could only partly write
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html).
//
// It is for tests of a writer's handling of UnprocessedItems (the task
// store's Create): the Injector's rates fail whole requests and cannot pick
// items. leave sees each item as DynamoDB JSON by attribute name and may be
// called concurrently.
func UnprocessedItems(table string, next http.Handler, leave func(item map[string]json.RawMessage) bool) emu.Middleware {
	return func(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
		if op.Service != emu.ServiceDynamoDB || op.Operation != "BatchWriteItem" {
			return false
		}
		body, err := peekBody(r, maxInspectBody)
		if err != nil {
			return false // the service answers the request as it is
		}
		var in map[string]json.RawMessage
		var items map[string][]writeRequest
		if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &items) != nil {
			return false
		}
		var kept, left []writeRequest
		for _, wr := range items[table] {
			if wr.PutRequest != nil && leave(wr.PutRequest.Item) {
				left = append(left, wr)
			} else {
				kept = append(kept, wr)
			}
		}
		if len(left) == 0 {
			return false
		}
		if len(kept) > 0 {
			items[table] = kept
		} else {
			delete(items, table)
		}

		out := map[string]json.RawMessage{}
		var unprocessed map[string][]writeRequest
		if len(items) > 0 {
			in["RequestItems"], _ = json.Marshal(items) // re-encoding decoded JSON cannot fail
			fwd, _ := json.Marshal(in)
			rr := r.Clone(r.Context())
			rr.Body, rr.ContentLength = io.NopCloser(bytes.NewReader(fwd)), int64(len(fwd))
			rec := newRecorder()
			next.ServeHTTP(rec, rr)
			if rec.status != 0 && rec.status != http.StatusOK {
				rec.copyTo(w)
				return true
			}
			// An answer this cannot merge into is passed on as it is.
			if json.Unmarshal(rec.body.Bytes(), &out) != nil {
				rec.copyTo(w)
				return true
			}
			if raw, ok := out["UnprocessedItems"]; ok && json.Unmarshal(raw, &unprocessed) != nil {
				rec.copyTo(w)
				return true
			}
		}
		if unprocessed == nil {
			unprocessed = map[string][]writeRequest{}
		}
		unprocessed[table] = append(unprocessed[table], left...)
		out["UnprocessedItems"], _ = json.Marshal(unprocessed)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(out) // the client went away; nothing left to tell it
		return true
	}
}

// writeRequest is one entry of a BatchWriteItem request, kept as JSON.
type writeRequest struct {
	PutRequest *struct {
		Item map[string]json.RawMessage `json:"Item"`
	} `json:"PutRequest,omitempty"`
	DeleteRequest json.RawMessage `json:"DeleteRequest,omitempty"`
}
