package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// parseItemFailures reads a partial batch response the way Lambda does for
// a mapping with ReportBatchItemFailures (Lambda developer guide,
// services-sqs-errorhandling.html "Implementing partial batch responses";
// docs/aws-behaviour.md §4.9), and returns the message ids to keep.
//
// Complete success (nothing kept): an empty or null response, a response
// without batchItemFailures (unknown keys are ignored, so a misspelt key
// also counts as success, as on AWS), and a null or empty list.
//
// An error means the whole batch failed: invalid JSON, a response or list
// entry of the wrong JSON type, an entry without the itemIdentifier key
// (a wrong key name), a null, non-string or empty itemIdentifier, or an
// identifier that is not a message of the batch.
func parseItemFailures(payload []byte, batch map[string]bool) (map[string]bool, error) {
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 || string(payload) == "null" {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(payload, &top); err != nil {
		return nil, fmt.Errorf("mapping: partial batch response is not a JSON object: %w", err)
	}
	raw, ok := top["batchItemFailures"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("mapping: batchItemFailures is not a list: %w", err)
	}
	failed := make(map[string]bool, len(items))
	for i, item := range items {
		var entry map[string]json.RawMessage
		if err := json.Unmarshal(item, &entry); err != nil || entry == nil {
			return nil, fmt.Errorf("mapping: batchItemFailures[%d] is not an object", i)
		}
		idRaw, ok := entry["itemIdentifier"]
		if !ok {
			return nil, fmt.Errorf("mapping: batchItemFailures[%d] has no itemIdentifier key", i)
		}
		var id *string
		if err := json.Unmarshal(idRaw, &id); err != nil {
			return nil, fmt.Errorf("mapping: batchItemFailures[%d].itemIdentifier is not a string: %w", i, err)
		}
		if id == nil || *id == "" {
			return nil, fmt.Errorf("mapping: batchItemFailures[%d].itemIdentifier is null or empty", i)
		}
		if !batch[*id] {
			return nil, fmt.Errorf("mapping: batchItemFailures[%d].itemIdentifier %q is not a message of the batch", i, *id)
		}
		failed[*id] = true
	}
	return failed, nil
}
