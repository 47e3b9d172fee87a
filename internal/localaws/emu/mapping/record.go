package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// record is one entry of the {"Records":[…]} event an SQS mapping delivers:
// aws-lambda-go's events.SQSMessage with the key order of AWS-recorded
// events, except that md5OfMessageAttributes is null when the message has
// no attributes, as recorded events show (docs/aws-behaviour.md §4.8; LocalStack
// test_lambda_integration_sqs.snapshot.json, test_sqs_event_source_mapping).
type record struct {
	MessageID              string                                `json:"messageId"`
	ReceiptHandle          string                                `json:"receiptHandle"`
	Body                   string                                `json:"body"`
	Attributes             map[string]string                     `json:"attributes"`
	MessageAttributes      map[string]events.SQSMessageAttribute `json:"messageAttributes"`
	Md5OfMessageAttributes *string                               `json:"md5OfMessageAttributes"`
	Md5OfBody              string                                `json:"md5OfBody"`
	EventSource            string                                `json:"eventSource"`
	EventSourceARN         string                                `json:"eventSourceARN"`
	AWSRegion              string                                `json:"awsRegion"`
}

// newRecord renders a received message.
func newRecord(m queue.Message, queueARN, region string) record {
	ev := m.Event(queueARN, region)
	r := record{
		MessageID:         ev.MessageId,
		ReceiptHandle:     ev.ReceiptHandle,
		Body:              ev.Body,
		Attributes:        ev.Attributes,
		MessageAttributes: ev.MessageAttributes,
		Md5OfBody:         ev.Md5OfBody,
		EventSource:       ev.EventSource,
		EventSourceARN:    ev.EventSourceARN,
		AWSRegion:         ev.AWSRegion,
	}
	if ev.Md5OfMessageAttributes != "" {
		v := ev.Md5OfMessageAttributes
		r.Md5OfMessageAttributes = &v
	}
	return r
}

// eventPayload is the invocation payload: {"Records":[…]}.
func eventPayload(recs []record) ([]byte, error) {
	b, err := json.Marshal(struct {
		Records []record `json:"Records"`
	}{recs})
	if err != nil {
		return nil, fmt.Errorf("mapping: encode event: %w", err)
	}
	return b, nil
}

// filter is one compiled FilterCriteria pattern.
type filter struct {
	pattern *eventpattern.Pattern
	// bodyFields is set when the pattern addresses fields inside body
	// ({"body":{…}} or "body.x" keys), which only a JSON body can satisfy.
	bodyFields bool
}

// errInvalidFilter is AWS's answer to every malformed pattern: null, a
// plain string, a non-array leaf, an empty array, malformed JSON
// (AWS-recorded, docs/aws-behaviour.md §5.9; LocalStack test_sqs_invalid_event_filter).
func errInvalidFilter() *Error {
	return errorf(ErrInvalidParameterValue, "Invalid filter pattern definition.")
}

// compileFilters validates and compiles FilterCriteria. A nil or empty
// criteria compiles to no filters (every record passes).
func compileFilters(fc *FilterCriteria) ([]filter, error) {
	if fc == nil || len(fc.Filters) == 0 {
		return nil, nil
	}
	if len(fc.Filters) > maxFilters {
		return nil, errorf(ErrInvalidParameterValue,
			"The number of filters (%d) exceeds the limit of %d filters per event source mapping.", len(fc.Filters), maxFilters)
	}
	out := make([]filter, 0, len(fc.Filters))
	for _, f := range fc.Filters {
		if f.Pattern == nil {
			return nil, errInvalidFilter()
		}
		if len(*f.Pattern) > maxPatternLength {
			return nil, errorf(ErrValidation,
				"1 validation error detected: Value at 'filterCriteria.filters.member.pattern' failed to satisfy constraint: Member must have length less than or equal to %d", maxPatternLength)
		}
		src := []byte(*f.Pattern)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(src, &top); err != nil || top == nil {
			return nil, errInvalidFilter()
		}
		p, err := eventpattern.Compile(src)
		if err != nil {
			return nil, errInvalidFilter()
		}
		fl := filter{pattern: p}
		for k, v := range top {
			if k == "body" && firstByte(v) == '{' || len(k) > 5 && k[:5] == "body." {
				fl.bodyFields = true
			}
		}
		out = append(out, fl)
	}
	return out, nil
}

// firstByte returns the first non-space byte of raw JSON, or 0.
func firstByte(raw []byte) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// jsonBody reports whether an SQS body counts as JSON for filtering: a
// JSON object or array. Other bodies, including bare JSON scalars, are
// plain strings (docs/aws-behaviour.md §5.9 distinguishes only "plain string"
// and "valid JSON"; treating scalars as strings is the emulator's choice).
func jsonBody(body string) bool {
	b := firstByte([]byte(body))
	return (b == '{' || b == '[') && json.Valid([]byte(body))
}

// matches reports whether a record passes the filters: any filter matching
// is enough. The body is seen as parsed JSON when it is JSON, so patterns
// can address its fields; a pattern on body fields never matches a plain
// body, and a plain-value body pattern never matches a JSON body (the
// Lambda SQS filtering table, docs/aws-behaviour.md §5.9).
func matches(filters []filter, r record) (bool, error) {
	if len(filters) == 0 {
		return true, nil
	}
	isJSON := jsonBody(r.Body)
	doc := struct {
		record
		Body any `json:"body"`
	}{record: r, Body: r.Body}
	if isJSON {
		doc.Body = json.RawMessage(r.Body)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return false, fmt.Errorf("mapping: encode record for filtering: %w", err)
	}
	for _, f := range filters {
		if f.bodyFields && !isJSON {
			continue
		}
		ok, err := f.pattern.Match(b)
		if err != nil {
			return false, fmt.Errorf("mapping: match filter: %w", err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}
