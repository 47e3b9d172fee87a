package queue_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

func TestSendReceiveDelete(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "work", nil)
	trace := "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	sent, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{
		QueueUrl:    aws.String(url),
		MessageBody: aws.String("msg"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"Help.Me": {DataType: aws.String("String"), StringValue: aws.String("Me")},
			"Hello":   {DataType: aws.String("String"), StringValue: aws.String("There")},
			"General": {DataType: aws.String("String"), StringValue: aws.String("Kenobi")},
		},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(trace)},
		},
	})
	// The SDK's own checksum validation of MD5OfMessageBody passed if err is nil.
	require.NoError(t, err)
	// AWS-recorded digests (LocalStack test_receive_message_message_attribute_names_filters,
	// test_system_attributes_have_no_effect_on_attr_md5).
	require.Equal(t, "6e2baaf3b97dbeef01c0043275f9a0e7", aws.ToString(sent.MD5OfMessageBody))
	require.Equal(t, "4c360f3fdafd970e05fae2f149d997f5", aws.ToString(sent.MD5OfMessageAttributes))
	require.Equal(t, "5ae4d5d7636402d80f4eb6d213245a88", aws.ToString(sent.MD5OfMessageSystemAttributes))

	b.clock.Advance(1500 * time.Millisecond)
	got := b.receive(t, url, 10, nil)
	require.Len(t, got.Messages, 1)
	m := got.Messages[0]
	require.Equal(t, aws.ToString(sent.MessageId), aws.ToString(m.MessageId))
	require.Equal(t, "msg", aws.ToString(m.Body))
	require.Equal(t, "6e2baaf3b97dbeef01c0043275f9a0e7", aws.ToString(m.MD5OfBody))
	require.Equal(t, "4c360f3fdafd970e05fae2f149d997f5", aws.ToString(m.MD5OfMessageAttributes))
	require.Equal(t, "There", aws.ToString(m.MessageAttributes["Hello"].StringValue))
	sentAt := b.clock.Now().Add(-1500 * time.Millisecond).UnixMilli()
	require.Equal(t, map[string]string{
		"SenderId":                         "AKIDLOCAL",
		"SentTimestamp":                    strconv.FormatInt(sentAt, 10),
		"ApproximateReceiveCount":          "1",
		"ApproximateFirstReceiveTimestamp": strconv.FormatInt(b.clock.Now().UnixMilli(), 10),
		"AWSTraceHeader":                   trace,
	}, m.Attributes)
	require.NotEmpty(t, aws.ToString(m.ReceiptHandle))

	// In flight: not delivered again.
	require.Empty(t, b.receive(t, url, 10, nil).Messages)
	_, err = b.client.DeleteMessage(b.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
	require.NoError(t, err)
	b.clock.Advance(time.Minute)
	require.Empty(t, b.receive(t, url, 10, nil).Messages)
	counts, err := b.svc.Counts(url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)
}

func TestBinaryAndNumberAttributes(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "typed", nil)
	bin := []byte("traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")
	sent, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(url), MessageBody: aws.String("test"),
		MessageAttributes: map[string]types.MessageAttributeValue{"attr1": {DataType: aws.String("Binary"), BinaryValue: bin}},
	})
	require.NoError(t, err)
	require.Equal(t, "8cbe4db156db8a94db8b801b7addb984", aws.ToString(sent.MD5OfMessageAttributes)) // AWS-recorded
	_, err = b.client.SendMessage(b.ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(url), MessageBody: aws.String("test"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"timestamp": {DataType: aws.String("Number"), StringValue: aws.String("1614717034367")},
			"price":     {DataType: aws.String("Number.float"), StringValue: aws.String("-1.5e3")},
		},
	})
	require.NoError(t, err)
	got := b.receive(t, url, 10, nil)
	require.Len(t, got.Messages, 2)
	require.Equal(t, bin, got.Messages[0].MessageAttributes["attr1"].BinaryValue)
	require.Equal(t, "Binary", aws.ToString(got.Messages[0].MessageAttributes["attr1"].DataType))
	require.Equal(t, "1614717034367", aws.ToString(got.Messages[1].MessageAttributes["timestamp"].StringValue))
	require.Equal(t, "Number.float", aws.ToString(got.Messages[1].MessageAttributes["price"].DataType))
}

func TestReceiveAttributeFilters(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "filters", map[string]string{"VisibilityTimeout": "0"})
	_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(url), MessageBody: aws.String("msg"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"Help.Me": {DataType: aws.String("String"), StringValue: aws.String("Me")},
			"Hello":   {DataType: aws.String("String"), StringValue: aws.String("There")},
			"General": {DataType: aws.String("String"), StringValue: aws.String("Kenobi")},
		},
	})
	require.NoError(t, err)

	// Expected names and digests are AWS-recorded (LocalStack
	// test_receive_message_message_attribute_names_filters snapshot).
	cases := []struct {
		name    string
		filter  []string
		want    []string
		wantMD5 string
	}{
		{"Empty", nil, nil, ""},
		{"All", []string{"All"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"Asterisk", []string{"*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"DotAsterisk", []string{".*"}, []string{"General", "Hello", "Help.Me"}, "4c360f3fdafd970e05fae2f149d997f5"},
		{"OnlyNonExisting", []string{"Foo", "Help"}, nil, ""},
		{"OnlyExisting", []string{"Hello", "General"}, []string{"General", "Hello"}, "fca026605781cb4126a1e9044df24232"},
		{"ExistingAndNot", []string{"Foo", "Hello"}, []string{"Hello"}, "a311262e065454b75da111d535b8dacd"},
		{"Prefix", []string{"Hel.*"}, []string{"Hello", "Help.Me"}, "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"IllegalAWSPrefix", []string{"AWS."}, nil, ""},
		{"IllegalDots", []string{"..foo"}, nil, ""},
	}
	for _, tc := range cases {
		out, err := b.client.ReceiveMessage(b.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MessageAttributeNames: tc.filter})
		require.NoError(t, err, tc.name)
		require.Len(t, out.Messages, 1, tc.name)
		m := out.Messages[0]
		var names []string
		for n := range m.MessageAttributes {
			names = append(names, n)
		}
		require.ElementsMatch(t, tc.want, names, tc.name)
		require.Equal(t, tc.wantMD5, aws.ToString(m.MD5OfMessageAttributes), tc.name)
		require.Empty(t, m.Attributes, tc.name)
	}

	// System attribute names: the deprecated AttributeNames and the new
	// member are one list; names that do not apply are ignored.
	out, err := b.client.ReceiveMessage(b.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		AttributeNames:              []types.QueueAttributeName{"SenderId"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SequenceNumber", "ApproximateReceiveCount"}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	require.Equal(t, map[string]string{"SenderId": "AKIDLOCAL", "ApproximateReceiveCount": strconv.Itoa(len(cases) + 1)}, out.Messages[0].Attributes)
}

func TestSendValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "strict", map[string]string{"MaximumMessageSize": "1024"})
	str := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	tooMany := map[string]types.MessageAttributeValue{}
	for i := range 11 {
		tooMany[fmt.Sprintf("a%d", i)] = str("v")
	}
	cases := []struct {
		name     string
		in       sqs.SendMessageInput
		code     string
		contains string
	}{
		{"InvalidBodyChars", sqs.SendMessageInput{MessageBody: aws.String("Invalid-\x00-\x08")}, "InvalidMessageContents", "#x0"},
		{"NonCharacterFFFF", sqs.SendMessageInput{MessageBody: aws.String("x\uffffy")}, "InvalidMessageContents", "#xFFFF"},
		{"TooLarge", sqs.SendMessageInput{MessageBody: aws.String(strings.Repeat("a", 1024-len("k")-len("String")-len("x")+1)),
			MessageAttributes: map[string]types.MessageAttributeValue{"k": str("x")}}, "InvalidParameterValue",
			"One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes."},
		{"DelayTooLong", sqs.SendMessageInput{MessageBody: aws.String("x"), DelaySeconds: 901}, "InvalidParameterValue",
			"Value 901 for parameter DelaySeconds is invalid."},
		{"EmptyStringAttribute", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"ErrorDetails": str("")}},
			"InvalidParameterValue", "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'."},
		{"ControlCharInAttribute", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"attr1": str("Invalid-\b,\v")}},
			"InvalidParameterValue", "attr1"},
		{"AWSPrefix", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"aWs.-x": str("v")}}, "InvalidParameterValue", "aWs.-x"},
		{"AmazonPrefix", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"AMAZON.x": str("v")}}, "InvalidParameterValue", "AMAZON.x"},
		{"LeadingDot", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{".x": str("v")}}, "InvalidParameterValue", ".x"},
		{"TrailingDot", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"Invalid.": str("v")}}, "InvalidParameterValue", "Invalid."},
		{"BadNameChar", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"Invalid-§-attr": str("v")}}, "InvalidParameterValue", "Invalid-§-attr"},
		{"NameTooLong", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{strings.Repeat("L", 257): str("v")}}, "InvalidParameterValue", "256"},
		{"BadType", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("Invalid"), StringValue: aws.String("v")}}}, "InvalidParameterValue", "type"},
		{"TypeTooLong", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("Number." + strings.Repeat("L", 256)), StringValue: aws.String("1")}}}, "InvalidParameterValue", "data type"},
		{"NotANumber", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"n": {DataType: aws.String("Number"), StringValue: aws.String("twelve")}}}, "InvalidParameterValue", "to a number"},
		{"EmptyBinary", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"b": {DataType: aws.String("Binary")}}}, "InvalidParameterValue", "'Binary'"},
		{"TooManyAttributes", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: tooMany}, "InvalidParameterValue", "[11] exceeds the allowed maximum [10]"},
		{"ListValuesReserved", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"l": {DataType: aws.String("String"), StringValue: aws.String("a"), StringListValues: []string{"a"}}}}, "InvalidParameterValue", "reserved"},
		{"UnknownSystemAttribute", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"Other": {DataType: aws.String("String"), StringValue: aws.String("v")}}}, "InvalidAttributeName", "Unknown Attribute Other."},
		{"DeduplicationIDOnStandard", sqs.SendMessageInput{MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d1")}, "InvalidParameterValue", "not valid for this queue type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := tc.in
			in.QueueUrl = aws.String(url)
			_, err := b.client.SendMessage(b.ctx, &in)
			requireAPIError(t, err, nil, tc.code, http.StatusBadRequest)
			require.Contains(t, err.Error(), tc.contains)
		})
	}

	t.Run("ValidEdgeCases", func(t *testing.T) {
		t.Parallel()
		q := b.createQueue(t, "edges", nil)
		for _, body := range []string{"{\r\n\"machineID\" : \"d357006e26ff47439e1ef894225d4307\"}", `"&quot;&quot;` + "\r", "emoji 🚀 and \U0010FFFD"} {
			_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(body),
				MessageAttributes: map[string]types.MessageAttributeValue{"attr.1øßä": str("Valida")}})
			require.NoError(t, err)
			got := b.receive(t, q, 1, nil)
			require.Len(t, got.Messages, 1)
			require.Equal(t, body, aws.ToString(got.Messages[0].Body))
		}
		// Exactly the maximum size is fine.
		_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("a", 1024))})
		require.NoError(t, err)
	})
}

func TestVisibilityTimeoutRedelivers(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "vis", map[string]string{"VisibilityTimeout": "30"})
	id := b.send(t, url, "again")

	first := b.receive(t, url, 1, nil)
	require.Len(t, first.Messages, 1)
	b.clock.Advance(29 * time.Second)
	require.Empty(t, b.receive(t, url, 1, nil).Messages, "still in flight")
	counts, err := b.svc.Counts(url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{InFlight: 1}, counts)

	b.clock.Advance(time.Second)
	second := b.receive(t, url, 1, nil)
	require.Len(t, second.Messages, 1)
	m := second.Messages[0]
	require.Equal(t, id, aws.ToString(m.MessageId))
	require.Equal(t, "2", m.Attributes["ApproximateReceiveCount"])
	require.Equal(t, first.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"], m.Attributes["ApproximateFirstReceiveTimestamp"])
	require.NotEqual(t, aws.ToString(first.Messages[0].ReceiptHandle), aws.ToString(m.ReceiptHandle))

	// A receive-level VisibilityTimeout overrides the queue's. (The Go SDK
	// cannot send VisibilityTimeout=0: it omits zero int32 members; the Go
	// API and boto3 tests cover a zero timeout.)
	b.clock.Advance(30 * time.Second)
	third := b.receive(t, url, 1, ptr(int32(5)))
	require.Len(t, third.Messages, 1)
	b.clock.Advance(4 * time.Second)
	require.Empty(t, b.receive(t, url, 1, nil).Messages)
	b.clock.Advance(time.Second)
	fourth := b.receive(t, url, 1, nil)
	require.Len(t, fourth.Messages, 1)
	require.Equal(t, "4", fourth.Messages[0].Attributes["ApproximateReceiveCount"])
}

func TestChangeMessageVisibility(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "change", nil)
	b.send(t, url, "m")
	m := b.receive(t, url, 1, nil).Messages[0]
	change := func(handle *string, timeout int32) error {
		_, err := b.client.ChangeMessageVisibility(b.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: handle, VisibilityTimeout: timeout})
		return err
	}

	// Counted from the call: 20 s later a 60 s extension hides it until t=80.
	b.clock.Advance(20 * time.Second)
	require.NoError(t, change(m.ReceiptHandle, 60))
	b.clock.Advance(59 * time.Second)
	require.Empty(t, b.receive(t, url, 1, nil).Messages)

	// Beyond 12 hours in total since the receive.
	err := change(m.ReceiptHandle, 43200)
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "Total VisibilityTimeout for the message is beyond the limit [43200 seconds]")

	// Zero: visible at once; the old handle is now stale.
	require.NoError(t, change(m.ReceiptHandle, 0))
	again := b.receive(t, url, 1, nil).Messages[0]
	err = change(m.ReceiptHandle, 10)
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "Reason: Message does not exist or is not available for visibility timeout change.")

	// Expired visibility, not yet received again: not in flight.
	b.clock.Advance(31 * time.Second)
	var notInflight *types.MessageNotInflight
	requireAPIError(t, change(again.ReceiptHandle, 10), &notInflight, "AWS.SimpleQueueService.MessageNotInflight", http.StatusBadRequest)

	// Garbage: ReceiptHandleIsInvalid (404).
	var invalid *types.ReceiptHandleIsInvalid
	requireAPIError(t, change(aws.String("INVALID"), 60), &invalid, "ReceiptHandleIsInvalid", http.StatusNotFound)

	// Deleted: the AWS-validated InvalidParameterValue.
	third := b.receive(t, url, 1, nil).Messages[0]
	_, err = b.client.DeleteMessage(b.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: third.ReceiptHandle})
	require.NoError(t, err)
	err = change(third.ReceiptHandle, 42)
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "Value "+aws.ToString(third.ReceiptHandle)+" for parameter ReceiptHandle is invalid.")
}

func TestDeleteMessageSemantics(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "deletes", map[string]string{"VisibilityTimeout": "10"})
	other := b.createQueue(t, "other", nil)
	del := func(q string, handle *string) error {
		_, err := b.client.DeleteMessage(b.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q), ReceiptHandle: handle})
		return err
	}

	t.Run("GarbageHandle", func(t *testing.T) {
		var invalid *types.ReceiptHandleIsInvalid
		err := del(url, aws.String("garbage"))
		requireAPIError(t, err, &invalid, "ReceiptHandleIsInvalid", http.StatusNotFound)
		require.Equal(t, `The input receipt handle "garbage" is not a valid receipt handle.`, invalid.ErrorMessage())
	})

	t.Run("HandleOfAnotherQueue", func(t *testing.T) {
		b.send(t, url, "mine")
		m := b.receive(t, url, 1, nil).Messages[0]
		requireAPIError(t, del(other, m.ReceiptHandle), nil, "ReceiptHandleIsInvalid", http.StatusNotFound)
		require.NoError(t, del(url, m.ReceiptHandle))
	})

	t.Run("DeletingTwiceSucceeds", func(t *testing.T) {
		b.send(t, url, "twice")
		m := b.receive(t, url, 1, nil).Messages[0]
		for range 3 {
			require.NoError(t, del(url, m.ReceiptHandle))
		}
	})

	t.Run("LatestHandleDeletesAfterTimeout", func(t *testing.T) {
		b.send(t, url, "late")
		m := b.receive(t, url, 1, nil).Messages[0]
		b.clock.Advance(11 * time.Second)
		require.NoError(t, del(url, m.ReceiptHandle))
		counts, err := b.svc.Counts(url)
		require.NoError(t, err)
		require.Equal(t, queue.Counts{}, counts)
	})

	t.Run("StaleHandleSucceedsWithoutDeleting", func(t *testing.T) {
		id := b.send(t, url, "stale")
		first := b.receive(t, url, 1, nil).Messages[0]
		b.clock.Advance(11 * time.Second)
		second := b.receive(t, url, 1, nil).Messages[0]
		require.Equal(t, id, aws.ToString(second.MessageId))
		require.NoError(t, del(url, first.ReceiptHandle))
		counts, err := b.svc.Counts(url)
		require.NoError(t, err)
		require.Equal(t, queue.Counts{InFlight: 1}, counts, "the older handle must not delete the re-received message")
		require.NoError(t, del(url, second.ReceiptHandle))
		counts, err = b.svc.Counts(url)
		require.NoError(t, err)
		require.Equal(t, queue.Counts{}, counts)
	})
}

func TestDelayAndCounts(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "delayed", map[string]string{"DelaySeconds": "10"})
	b.send(t, url, "queue-delay")
	_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("no-delay"), DelaySeconds: 0})
	require.NoError(t, err)
	_, err = b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("long-delay"), DelaySeconds: 20})
	require.NoError(t, err)

	// The Go SDK omits DelaySeconds=0, so the queue's delay applies to it too.
	attrs := func() map[string]string {
		out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"}})
		require.NoError(t, err)
		return out.Attributes
	}
	require.Equal(t, map[string]string{"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "3"}, attrs())
	require.Empty(t, b.receive(t, url, 10, nil).Messages)
	b.clock.Advance(10 * time.Second)
	require.Equal(t, map[string]string{"ApproximateNumberOfMessages": "2", "ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "1"}, attrs())
	got := b.receive(t, url, 10, nil)
	require.Len(t, got.Messages, 2)
	require.Equal(t, map[string]string{"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "2", "ApproximateNumberOfMessagesDelayed": "1"}, attrs())
	b.clock.Advance(10 * time.Second)
	got = b.receive(t, url, 10, nil)
	require.Len(t, got.Messages, 1)
	require.Equal(t, "long-delay", aws.ToString(got.Messages[0].Body))
}

func TestRetentionExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "short-lived", map[string]string{"MessageRetentionPeriod": "120"})
	b.send(t, url, "old")
	b.clock.Advance(60 * time.Second)
	b.send(t, url, "young")
	m := b.receive(t, url, 1, nil).Messages[0] // "old" goes in flight; retention still applies
	require.Equal(t, "old", aws.ToString(m.Body))
	b.clock.Advance(60 * time.Second)
	counts, err := b.svc.Counts(url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 1}, counts, "the in-flight message expired with its retention")
	got := b.receive(t, url, 10, nil)
	require.Len(t, got.Messages, 1)
	require.Equal(t, "young", aws.ToString(got.Messages[0].Body))

	// Shortening the retention period applies to stored messages.
	b.send(t, url, "shortened")
	b.clock.Advance(70 * time.Second)
	_, err = b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: map[string]string{"MessageRetentionPeriod": "60"}})
	require.NoError(t, err)
	counts, err = b.svc.Counts(url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)
}

func TestPurgeQueue(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "purged", nil)
	for i := range 5 {
		b.send(t, url, fmt.Sprintf("m%d", i))
	}
	_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("delayed"), DelaySeconds: 5})
	require.NoError(t, err)
	require.Len(t, b.receive(t, url, 2, nil).Messages, 2)

	_, err = b.client.PurgeQueue(b.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	counts, err := b.svc.Counts(url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts, "visible, in-flight and delayed messages are all purged")

	_, err = b.client.PurgeQueue(b.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	var inProgress *types.PurgeQueueInProgress
	requireAPIError(t, err, &inProgress, "AWS.SimpleQueueService.PurgeQueueInProgress", http.StatusForbidden)
	require.Equal(t, "Only one PurgeQueue operation on purged is allowed every 60 seconds.", inProgress.ErrorMessage())

	b.send(t, url, "after")
	require.Len(t, b.receive(t, url, 10, nil).Messages, 1)
	b.clock.Advance(60 * time.Second)
	_, err = b.client.PurgeQueue(b.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
}

func TestReceiveValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := aws.String(b.createQueue(t, "recv", nil))
	cases := []struct {
		name string
		in   sqs.ReceiveMessageInput
		msg  string
	}{
		{"MaxTooLarge", sqs.ReceiveMessageInput{MaxNumberOfMessages: 11}, "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"MaxNegative", sqs.ReceiveMessageInput{MaxNumberOfMessages: -1}, "Value -1 for parameter MaxNumberOfMessages is invalid."},
		{"WaitTooLong", sqs.ReceiveMessageInput{WaitTimeSeconds: 21}, "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
		{"VisibilityTooLong", sqs.ReceiveMessageInput{VisibilityTimeout: 43201}, "Value 43201 for parameter VisibilityTimeout is invalid."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := tc.in
			in.QueueUrl = url
			_, err := b.client.ReceiveMessage(b.ctx, &in)
			requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}
