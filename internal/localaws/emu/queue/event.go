package queue

import (
	"maps"

	"github.com/aws/aws-lambda-go/events"
)

// Event returns the message as a Lambda SQS event record, the shape an
// event source mapping (and, as a bare array, a Pipe) delivers
// (docs/aws-behaviour.md §4.8; aws-lambda-go events/sqs.go and
// events/testdata/sqs-event.json): every system attribute, the user
// attributes with lower-camel keys and empty list members, eventSource
// "aws:sqs". Real events carry no md5OfMessageAttributes when there are no
// attributes; callers that marshal the record themselves decide how to
// render the empty string that stands for that here.
func (m Message) Event(queueARN, region string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId:              m.MessageID,
		ReceiptHandle:          m.ReceiptHandle,
		Body:                   m.Body,
		Md5OfBody:              m.MD5OfBody,
		Md5OfMessageAttributes: m.MD5OfMessageAttributes,
		Attributes:             maps.Clone(m.Attributes),
		MessageAttributes:      make(map[string]events.SQSMessageAttribute, len(m.MessageAttributes)),
		EventSourceARN:         queueARN,
		EventSource:            "aws:sqs",
		AWSRegion:              region,
	}
	for name, a := range m.MessageAttributes {
		ea := events.SQSMessageAttribute{DataType: a.DataType, StringListValues: []string{}, BinaryListValues: [][]byte{}}
		if a.isBinary() {
			ea.BinaryValue = a.BinaryValue
		} else {
			v := a.StringValue
			ea.StringValue = &v
		}
		rec.MessageAttributes[name] = ea
	}
	return rec
}
