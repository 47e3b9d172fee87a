package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxSequenceDigits bounds a stream sequence number (DynamoDB Streams
// documents 21 to 40 digits).
const maxSequenceDigits = 40

// PipePointer is a message an EventBridge Pipe with a DynamoDB stream source
// sends to its DLQ: metadata about a failed batch, not the records
// (docs/aws-behaviour.md §1.6, from the DVLA write-up and an
// AWS-validated LocalStack snapshot):
//
//	{"context":{"partnerResourceArn":"arn:aws:pipes:…:pipe/NAME","condition":"RetryAttemptsExhausted"},
//	 "version":"1.0","timestamp":"…",
//	 "DDBStreamBatchInfo":{"shardId":"…","startSequenceNumber":"…","endSequenceNumber":"…",
//	   "approximateArrivalOfFirstRecord":"…","approximateArrivalOfLastRecord":"…","batchSize":1,"streamArn":"…"}}
type PipePointer struct {
	Context struct {
		PartnerResourceArn string `json:"partnerResourceArn"`
		Condition          string `json:"condition"`
	} `json:"context"`
	Version   string          `json:"version"`
	Timestamp json.RawMessage `json:"timestamp"`
	Batch     *StreamBatch    `json:"DDBStreamBatchInfo"`
}

// StreamBatch is the DDBStreamBatchInfo of a PipePointer: the shard and
// the sequence range of the failed batch, both ends included.
type StreamBatch struct {
	ShardID             string `json:"shardId"`
	StartSequenceNumber string `json:"startSequenceNumber"`
	EndSequenceNumber   string `json:"endSequenceNumber"`
	// The arrival times are shown as given (strings or numbers).
	ApproximateArrivalOfFirstRecord json.RawMessage `json:"approximateArrivalOfFirstRecord"`
	ApproximateArrivalOfLastRecord  json.RawMessage `json:"approximateArrivalOfLastRecord"`
	BatchSize                       int             `json:"batchSize"`
	StreamArn                       string          `json:"streamArn"`
}

// ParsePipePointer decodes and checks a pipe DLQ message body.
func ParsePipePointer(body []byte) (PipePointer, error) {
	var p PipePointer
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&p); err != nil {
		return PipePointer{}, fmt.Errorf("pipe pointer: %w", err)
	}
	if dec.More() {
		return PipePointer{}, errors.New("pipe pointer: trailing data after the JSON object")
	}
	b := p.Batch
	if b == nil {
		return PipePointer{}, errors.New("pipe pointer: no DDBStreamBatchInfo (not a DynamoDB stream pipe's DLQ message)")
	}
	var errs []error
	if b.StreamArn == "" {
		errs = append(errs, errors.New("empty streamArn"))
	}
	if b.ShardID == "" {
		errs = append(errs, errors.New("empty shardId"))
	}
	if !validSequence(b.StartSequenceNumber) {
		errs = append(errs, fmt.Errorf("startSequenceNumber %q is not a sequence number", b.StartSequenceNumber))
	}
	if !validSequence(b.EndSequenceNumber) {
		errs = append(errs, fmt.Errorf("endSequenceNumber %q is not a sequence number", b.EndSequenceNumber))
	}
	if len(errs) == 0 && compareSequence(b.StartSequenceNumber, b.EndSequenceNumber) > 0 {
		errs = append(errs, errors.New("startSequenceNumber is after endSequenceNumber"))
	}
	if b.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("negative batchSize %d", b.BatchSize))
	}
	if len(errs) > 0 {
		return PipePointer{}, fmt.Errorf("pipe pointer: %w", errors.Join(errs...))
	}
	return p, nil
}

func validSequence(s string) bool {
	if s == "" || len(s) > maxSequenceDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareSequence compares two decimal sequence numbers numerically
// (they can be longer than 64 bits).
func compareSequence(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// rawText shows a raw JSON value: a string without quotes, anything else
// as it is.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
