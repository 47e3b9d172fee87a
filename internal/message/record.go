package message

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/task"
)

// Stream event names (the eventName of a DynamoDB stream record).
const (
	EventInsert = "INSERT"
	EventModify = "MODIFY"
	EventRemove = "REMOVE"
)

// Record is the part of one DynamoDB stream record that taskpipe reads.
type Record struct {
	EventID string
	// EventName is EventInsert, EventModify, EventRemove, or empty when the
	// record did not carry one.
	EventName      string
	SequenceNumber string
	// KeyTaskID is Keys.taskId, empty when the record has no such key.
	KeyTaskID string
	// NewImage is nil when the record has none (REMOVE, or a KEYS_ONLY or
	// OLD_IMAGE stream); OldImage likewise (INSERT).
	NewImage *Image
	OldImage *Image
}

// Image holds the contract attributes of one item image (task.AttrTaskID
// and friends). An attribute that is absent or NULL is the empty string.
type Image struct {
	TaskID string
	RunID  string
	URL    string
	Status string
}

// TaskID returns the task id the record is about: the new image's taskId,
// else the key's.
func (r Record) TaskID() string {
	if r.NewImage != nil && r.NewImage.TaskID != "" {
		return r.NewImage.TaskID
	}
	return r.KeyTaskID
}

// wireRecord is the JSON shape of a stream record as Pipes and Lambda
// deliver it (docs/aws-behaviour.md §1.2). Images stay raw: only the four contract
// attributes are decoded, so an odd value in an attribute taskpipe does not
// read cannot fail the record.
type wireRecord struct {
	EventID   string      `json:"eventID"`
	EventName string      `json:"eventName"`
	DynamoDB  *wireChange `json:"dynamodb"`
}

type wireChange struct {
	Keys           map[string]json.RawMessage `json:"Keys"`
	NewImage       map[string]json.RawMessage `json:"NewImage"`
	OldImage       map[string]json.RawMessage `json:"OldImage"`
	SequenceNumber string                     `json:"SequenceNumber"`
}

// DecodeRecord decodes one stream record. It fails when raw is not a JSON
// object with a "dynamodb" object, when eventName is not one of the three
// stream event names, when a contract attribute (taskId, runId, url, status)
// holds anything but a string (S) or NULL, or when the key and the new
// image disagree on the task id.
func DecodeRecord(raw []byte) (Record, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Record{}, fmt.Errorf("message: decode record: not a JSON object")
	}
	var w wireRecord
	if err := json.Unmarshal(raw, &w); err != nil {
		return Record{}, fmt.Errorf("message: decode record: %w", err)
	}
	if w.DynamoDB == nil {
		return Record{}, fmt.Errorf("message: decode record: no dynamodb object")
	}
	switch w.EventName {
	case "", EventInsert, EventModify, EventRemove:
	default:
		return Record{}, fmt.Errorf("message: decode record: unknown eventName %q", w.EventName)
	}
	r := Record{
		EventID:        w.EventID,
		EventName:      w.EventName,
		SequenceNumber: w.DynamoDB.SequenceNumber,
	}
	var err error
	if r.KeyTaskID, err = stringAttr(w.DynamoDB.Keys, task.AttrTaskID); err != nil {
		return Record{}, fmt.Errorf("message: decode record: Keys: %w", err)
	}
	if r.NewImage, err = decodeImage(w.DynamoDB.NewImage); err != nil {
		return Record{}, fmt.Errorf("message: decode record: NewImage: %w", err)
	}
	if r.OldImage, err = decodeImage(w.DynamoDB.OldImage); err != nil {
		return Record{}, fmt.Errorf("message: decode record: OldImage: %w", err)
	}
	if r.NewImage != nil && r.NewImage.TaskID != "" && r.KeyTaskID != "" && r.NewImage.TaskID != r.KeyTaskID {
		return Record{}, fmt.Errorf("message: decode record: key taskId %q differs from NewImage taskId %q",
			r.KeyTaskID, r.NewImage.TaskID)
	}
	return r, nil
}

func decodeImage(m map[string]json.RawMessage) (*Image, error) {
	if m == nil {
		return nil, nil
	}
	var img Image
	fields := []struct {
		name string
		dst  *string
	}{
		{task.AttrTaskID, &img.TaskID},
		{task.AttrRunID, &img.RunID},
		{task.AttrURL, &img.URL},
		{task.AttrStatus, &img.Status},
	}
	for _, f := range fields {
		v, err := stringAttr(m, f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	return &img, nil
}

// attributeTypes are the members of a DynamoDB AttributeValue union
// (DynamoDB API reference, AttributeValue).
var attributeTypes = map[string]bool{
	"S": true, "N": true, "B": true, "BOOL": true, "NULL": true,
	"M": true, "L": true, "SS": true, "NS": true, "BS": true,
}

// stringAttr reads attribute name of m as a string. Absent and NULL give "".
func stringAttr(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok {
		return "", nil
	}
	var av map[string]json.RawMessage
	if err := json.Unmarshal(raw, &av); err != nil || av == nil {
		return "", fmt.Errorf("attribute %s: not a typed attribute value", name)
	}
	if len(av) != 1 {
		return "", fmt.Errorf("attribute %s: want exactly one type member, got %d", name, len(av))
	}
	var typ string
	var v json.RawMessage
	for t, val := range av { // exactly one member
		typ, v = t, val
	}
	switch {
	case typ == "S":
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("attribute %s: S is not a JSON string", name)
		}
		return s, nil
	case typ == "NULL":
		return "", nil
	case attributeTypes[typ]:
		return "", fmt.Errorf("attribute %s: type %s, want S", name, typ)
	default:
		return "", fmt.Errorf("attribute %s: unknown type %q", name, typ)
	}
}
