package queue

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const fuzzQueueURL = "http://localhost:4566/000000000000/fuzz"

// fuzzSeeds are one plausible body per operation, in the shapes of
// aws-sdk-go-v2's request_snapshot files.
var fuzzSeeds = []struct{ op, body string }{
	{"SendMessage", `{"QueueUrl":"` + fuzzQueueURL + `","MessageBody":"hello","DelaySeconds":1,"MessageAttributes":{"k":{"DataType":"String","StringValue":"v"},"b":{"DataType":"Binary","BinaryValue":"YmxvYg=="}},"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1"}}}`},
	{"SendMessageBatch", `{"QueueUrl":"` + fuzzQueueURL + `","Entries":[{"Id":"a","MessageBody":"x"},{"Id":"b","MessageBody":"y","DelaySeconds":2}]}`},
	{"ReceiveMessage", `{"QueueUrl":"` + fuzzQueueURL + `","AttributeNames":["All"],"MaxNumberOfMessages":10,"MessageAttributeNames":["All"],"VisibilityTimeout":0}`},
	{"DeleteMessage", `{"QueueUrl":"` + fuzzQueueURL + `","ReceiptHandle":"YXJu"}`},
	{"DeleteMessageBatch", `{"QueueUrl":"` + fuzzQueueURL + `","Entries":[{"Id":"a","ReceiptHandle":"x"}]}`},
	{"ChangeMessageVisibility", `{"QueueUrl":"` + fuzzQueueURL + `","ReceiptHandle":"x","VisibilityTimeout":1}`},
	{"ChangeMessageVisibilityBatch", `{"QueueUrl":"` + fuzzQueueURL + `","Entries":[{"Id":"a","ReceiptHandle":"x","VisibilityTimeout":1}]}`},
	{"CreateQueue", `{"QueueName":"q1","Attributes":{"VisibilityTimeout":"10","RedrivePolicy":"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:fuzz-dlq\",\"maxReceiveCount\":\"3\"}"},"tags":{"a":"b"}}`},
	{"GetQueueUrl", `{"QueueName":"fuzz","QueueOwnerAWSAccountId":"000000000000"}`},
	{"GetQueueAttributes", `{"QueueUrl":"` + fuzzQueueURL + `","AttributeNames":["All"]}`},
	{"SetQueueAttributes", `{"QueueUrl":"` + fuzzQueueURL + `","Attributes":{"RedriveAllowPolicy":"{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"arn:aws:sqs:us-east-1:000000000000:x\"]}"}}`},
	{"DeleteQueue", `{"QueueUrl":"` + fuzzQueueURL + `"}`},
	{"PurgeQueue", `{"QueueUrl":"` + fuzzQueueURL + `"}`},
	{"ListQueues", `{"MaxResults":1,"NextToken":"ZnV6eg","QueueNamePrefix":"f"}`},
	{"ListDeadLetterSourceQueues", `{"QueueUrl":"http://localhost:4566/000000000000/fuzz-dlq","MaxResults":1}`},
	{"TagQueue", `{"QueueUrl":"` + fuzzQueueURL + `","Tags":{"k":"v"}}`},
	{"UntagQueue", `{"QueueUrl":"` + fuzzQueueURL + `","TagKeys":["k"]}`},
	{"ListQueueTags", `{"QueueUrl":"` + fuzzQueueURL + `"}`},
	{"AddPermission", `{"QueueUrl":"` + fuzzQueueURL + `","Label":"l","AWSAccountIds":["1"],"Actions":["SendMessage"]}`},
	{"RemovePermission", `{"QueueUrl":"` + fuzzQueueURL + `","Label":"l"}`},
	{"StartMessageMoveTask", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:fuzz-dlq","MaxNumberOfMessagesPerSecond":500}`},
	{"ListMessageMoveTasks", `{"SourceArn":"arn:aws:sqs:us-east-1:000000000000:fuzz-dlq","MaxResults":10}`},
	{"CancelMessageMoveTask", `{"TaskHandle":"eyJ0YXNrSWQiOiJ4Iiwic291cmNlQXJuIjoieSJ9"}`},
	{"Unknown", `{}`},
}

// FuzzServeHTTP feeds arbitrary bodies to every operation: the handler must
// answer with an SQS status and a JSON body, never panic or fail with a 500
// (a 500 is allowed only when the request's own context ended).
func FuzzServeHTTP(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.op, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, op string, body []byte) {
		svc := New(Options{})
		defer func() { _ = svc.Close() }()
		dlq := `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:fuzz-dlq","maxReceiveCount":1}`
		if _, err := svc.CreateQueue("fuzz-dlq", nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CreateQueue("fuzz", map[string]string{"RedrivePolicy": dlq}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Send(context.Background(), "fuzz", "seed message", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://localhost:4566/", strings.NewReader(string(body)))
		req.Header.Set("X-Amz-Target", "AmazonSQS."+op)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound:
		case http.StatusInternalServerError:
			if ctx.Err() == nil {
				t.Fatalf("500 for %s %q: %s", op, body, rec.Body.String())
			}
		default:
			t.Fatalf("status %d for %s %q: %s", rec.Code, op, body, rec.Body.String())
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("response to %s %q is not JSON: %v: %s", op, body, err, rec.Body.String())
		}
		if rec.Code != http.StatusOK && rec.Header().Get("x-amzn-query-error") == "" {
			t.Fatalf("error without x-amzn-query-error: %s", rec.Body.String())
		}
	})
}

// FuzzReceiptHandle checks that decoding never panics and that whatever
// decodes survives a re-encode.
func FuzzReceiptHandle(f *testing.F) {
	f.Add(encodeReceipt(receipt{queueARN: "arn:aws:sqs:us-east-1:000000000000:q", messageID: "id", receiveNo: 3}, 42))
	f.Add("garbage")
	f.Add("")
	f.Fuzz(func(t *testing.T, handle string) {
		r, ok := decodeReceipt(handle)
		if !ok {
			return
		}
		again, ok := decodeReceipt(encodeReceipt(r, 7))
		if !ok || again != r {
			t.Fatalf("round trip of %+v gave %+v (%v)", r, again, ok)
		}
		if th, ok := decodeTaskHandle(handle); ok && (th.TaskID == "" || th.SourceArn == "") {
			t.Fatalf("task handle with empty fields: %+v", th)
		}
	})
}

// FuzzRedrivePolicy checks that any RedrivePolicy value is either rejected
// with an SQS error or accepted in a form that reads back the same.
func FuzzRedrivePolicy(f *testing.F) {
	f.Add(`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":5}`)
	f.Add(`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"5"}`)
	f.Add(`{"deadLetterTargetArn": "dummy", "maxReceiveCount": 42}`)
	f.Add(`{}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, v string) {
		svc := New(Options{})
		defer func() { _ = svc.Close() }()
		if _, err := svc.CreateQueue("dlq", nil, nil); err != nil {
			t.Fatal(err)
		}
		src, err := svc.CreateQueue("src", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = svc.SetAttributes("src", map[string]string{AttrRedrivePolicy: v})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("non-SQS error %T: %v", err, err)
			}
			return
		}
		attrs, err := svc.Attributes(src.ARN, AttrRedrivePolicy)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := attrs[AttrRedrivePolicy]; ok {
			if err := svc.SetAttributes("src", map[string]string{AttrRedrivePolicy: got}); err != nil {
				t.Fatalf("canonical policy %q rejected: %v", got, err)
			}
		}
	})
}
