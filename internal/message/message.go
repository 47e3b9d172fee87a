package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// Version is the version of the compact Message this code writes. Parse
// accepts compact messages without a version (an input_template's) and with
// any version up to this one; a newer one is poison for this build, which
// makes a mixed deployment fail loudly into the DLQ instead of guessing.
const Version = 1

// Limits of the contract.
const (
	// MaxTaskIDBytes is DynamoDB's limit for a partition key value.
	MaxTaskIDBytes = 2048
	// MaxURLBytes bounds the url a producer puts in a Message. The url is
	// informational (the scraper reads the row), so a longer one is left
	// out rather than risking the SQS message size limit.
	MaxURLBytes = 8 << 10
)

// Message is the compact work message: which task to work on, plus enough
// context (run, URL, domain) to read a queue or a DLQ without the table.
type Message struct {
	// Version is the contract version; 0 when the producer gave none.
	Version int    `json:"v,omitempty"`
	TaskID  string `json:"taskId"`
	RunID   string `json:"runId,omitempty"`
	// URL is the normalized URL when it normalized, else the row's raw URL.
	URL string `json:"url,omitempty"`
	// Domain is the normalized URL's host, empty when it did not normalize.
	Domain string `json:"domain,omitempty"`
}

// Validate checks what every consumer relies on: a usable task id.
func (m Message) Validate() error {
	if err := validateTaskID(m.TaskID); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	if m.Version < 0 || m.Version > Version {
		return fmt.Errorf("message: unsupported version %d (this build reads up to %d)", m.Version, Version)
	}
	return nil
}

// Marshal validates m and encodes it as compact JSON.
func (m Message) Marshal() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("message: marshal: %w", err)
	}
	return b, nil
}

func validateTaskID(id string) error {
	switch {
	case id == "":
		return errors.New("empty taskId")
	case len(id) > MaxTaskIDBytes:
		return fmt.Errorf("taskId is %d bytes, limit %d", len(id), MaxTaskIDBytes)
	case !utf8.ValidString(id):
		return errors.New("taskId is not valid UTF-8")
	}
	return nil
}

// Parse reads a work-queue message body in any of the three shapes the
// package comment lists and returns it as a Message. Only the task id is
// required. Every error is marked task.Poison: retrying cannot fix a body.
//
// For a stream record, the Message carries the record's raw URL (not
// normalized) and no domain.
func Parse(body []byte) (Message, error) {
	m, err := parse(body)
	if err != nil {
		return Message{}, task.Poison(err)
	}
	return m, nil
}

func parse(body []byte) (Message, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return Message{}, errors.New("message: parse: body is not a JSON object")
	}
	// A map, not a struct, so that the shape is told apart by exact,
	// case-sensitive keys.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return Message{}, fmt.Errorf("message: parse: %w", err)
	}
	if _, ok := top["dynamodb"]; ok {
		return parseRecord(body)
	}
	if _, ok := top["taskId"]; ok {
		return parseCompact(top)
	}
	return Message{}, errors.New("message: parse: neither a stream record nor a message with a taskId")
}

func parseRecord(body []byte) (Message, error) {
	r, err := DecodeRecord(body)
	if err != nil {
		return Message{}, fmt.Errorf("message: parse: %w", err)
	}
	m := Message{Version: Version, TaskID: r.TaskID()}
	if r.NewImage != nil {
		m.RunID, m.URL = r.NewImage.RunID, r.NewImage.URL
	}
	if err := validateTaskID(m.TaskID); err != nil {
		return Message{}, fmt.Errorf("message: parse: stream record: %w", err)
	}
	return m, nil
}

func parseCompact(top map[string]json.RawMessage) (Message, error) {
	var m Message
	if raw, ok := top["v"]; ok {
		if err := json.Unmarshal(raw, &m.Version); err != nil {
			return Message{}, fmt.Errorf("message: parse: v is not an integer: %w", err)
		}
		if m.Version < 1 || m.Version > Version {
			return Message{}, fmt.Errorf("message: parse: unsupported version %d (this build reads up to %d)", m.Version, Version)
		}
	}
	fields := []struct {
		name string
		dst  *string
	}{
		{"taskId", &m.TaskID},
		{"runId", &m.RunID},
		{"url", &m.URL},
		{"domain", &m.Domain},
	}
	for _, f := range fields {
		raw, ok := top[f.name]
		if !ok || string(raw) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return Message{}, fmt.Errorf("message: parse: %s is not a string", f.name)
		}
	}
	if err := validateTaskID(m.TaskID); err != nil {
		return Message{}, fmt.Errorf("message: parse: %w", err)
	}
	return m, nil
}

// New builds the compact message for a task: the URL normalized with
// weburl.Normalize and its domain when it normalizes; otherwise the raw URL
// and no domain, so that the task is not dropped but reaches the scraper,
// which fails it with the reason (the row, not the message, is what the
// scraper reads). A raw URL longer than MaxURLBytes is left out.
func New(taskID, runID, rawURL string) Message {
	m := Message{Version: Version, TaskID: taskID, RunID: runID}
	if u, err := weburl.Normalize(rawURL); err == nil {
		m.URL, m.Domain = u.String(), weburl.Domain(u)
	} else {
		m.URL = rawURL
	}
	if len(m.URL) > MaxURLBytes {
		m.URL, m.Domain = "", ""
	}
	return m
}
