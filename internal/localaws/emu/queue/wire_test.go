package queue_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// post sends a raw AWS JSON 1.0 request, as the SDKs do.
func (b *testBundle) post(t *testing.T, target, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, b.endpoint+"/", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amzn-Query-Mode", "true")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), "body %q", raw)
	return resp.StatusCode, resp.Header, out
}

func TestWireShapes(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "wire", nil)

	errorCases := []struct {
		name, target, body string
		status             int
		typ, queryCode     string
		message            string
	}{
		{"QueueDoesNotExist", "AmazonSQS.GetQueueUrl", `{"QueueName":"nope"}`, 400,
			"com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue;Sender", "The specified queue does not exist."},
		{"MissingMessageBody", "AmazonSQS.SendMessage", `{"QueueUrl":"` + url + `"}`, 400,
			"com.amazonaws.sqs#MissingRequiredParameterException", "MissingParameter;Sender", "The request must contain the parameter MessageBody."},
		{"MissingQueueUrl", "AmazonSQS.ReceiveMessage", `{}`, 400,
			"com.amazonaws.sqs#MissingRequiredParameterException", "MissingParameter;Sender", "The request must contain the parameter QueueUrl."},
		{"UnknownOperation", "AmazonSQS.FooBar", `{}`, 400,
			"com.amazonaws.sqs#UnknownOperationException", "InvalidAction;Sender", "The action FooBar is not valid for this endpoint."},
		{"MalformedJSON", "AmazonSQS.SendMessage", `{"QueueUrl":`, 400,
			"com.amazonaws.sqs#SerializationException", "SerializationException;Sender", ""},
		{"WrongMemberType", "AmazonSQS.ReceiveMessage", `{"QueueUrl":"` + url + `","MaxNumberOfMessages":"ten"}`, 400,
			"com.amazonaws.sqs#SerializationException", "SerializationException;Sender", ""},
		{"ReceiptHandleIsInvalid", "AmazonSQS.DeleteMessage", `{"QueueUrl":"` + url + `","ReceiptHandle":"garbage"}`, 404,
			"com.amazonaws.sqs#ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid;Sender", `The input receipt handle "garbage" is not a valid receipt handle.`},
		// Beyond the model's integer type: deserialization fails, as for
		// any value of the wrong type (awsmodel's typeError).
		{"VisibilityOutOfRange", "AmazonSQS.ChangeMessageVisibility", `{"QueueUrl":"` + url + `","ReceiptHandle":"x","VisibilityTimeout":99999999999999}`, 400,
			"com.amazonaws.sqs#SerializationException", "SerializationException;Sender", "can not be converted to an Integer"},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, hdr, body := b.post(t, tc.target, tc.body)
			require.Equal(t, tc.status, status)
			require.Equal(t, "application/x-amz-json-1.0", hdr.Get("Content-Type"))
			require.Equal(t, tc.queryCode, hdr.Get("x-amzn-query-error"))
			require.Equal(t, tc.typ, body["__type"])
			require.Contains(t, body["message"], tc.message)
		})
	}

	t.Run("SuccessShapes", func(t *testing.T) {
		t.Parallel()
		status, hdr, body := b.post(t, "AmazonSQS.SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"message-1","DelaySeconds":0}`)
		require.Equal(t, 200, status)
		require.Equal(t, "application/x-amz-json-1.0", hdr.Get("Content-Type"))
		require.NotEmpty(t, hdr.Get("x-amzn-RequestId"))
		require.Equal(t, "3d6b824fd8c1520e9a047d21fee6fb1f", body["MD5OfMessageBody"]) // AWS-recorded
		require.NotContains(t, body, "MD5OfMessageAttributes")

		// VisibilityTimeout 0 (which the Go SDK cannot send) makes the
		// message visible again at once.
		status, _, body = b.post(t, "AmazonSQS.ReceiveMessage", `{"QueueUrl":"`+url+`","VisibilityTimeout":0}`)
		require.Equal(t, 200, status)
		require.Len(t, body["Messages"], 1)
		status, _, body = b.post(t, "AmazonSQS.ReceiveMessage", `{"QueueUrl":"`+url+`","AttributeNames":["All"]}`)
		require.Equal(t, 200, status)
		msgs := body["Messages"].([]any)
		require.Len(t, msgs, 1)
		require.Equal(t, "2", msgs[0].(map[string]any)["Attributes"].(map[string]any)["ApproximateReceiveCount"])

		status, _, body = b.post(t, "AmazonSQS.ReceiveMessage", `{"QueueUrl":"`+url+`"}`)
		require.Equal(t, 200, status)
		require.Empty(t, body, "no Messages member when nothing is received")

		status, _, body = b.post(t, "AmazonSQS.PurgeQueue", `{"QueueUrl":"`+url+`"}`)
		require.Equal(t, 200, status)
		require.Empty(t, body)

		status, _, body = b.post(t, "AmazonSQS.ListDeadLetterSourceQueues", `{"QueueUrl":"`+url+`"}`)
		require.Equal(t, 200, status)
		require.Equal(t, map[string]any{"queueUrls": []any{}}, body, "lower-case, required member")
	})

	t.Run("QueryProtocolGetsXMLError", func(t *testing.T) {
		t.Parallel()
		req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, b.endpoint+"/", strings.NewReader("Action=ListQueues&Version=2012-11-05"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=x")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Contains(t, string(raw), "<Code>InvalidAction</Code>")
		require.Contains(t, string(raw), "AWS JSON 1.0 protocol only")
	})
}
