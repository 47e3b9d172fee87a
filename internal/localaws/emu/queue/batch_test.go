package queue_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

func sendEntries(n int) []types.SendMessageBatchRequestEntry {
	out := make([]types.SendMessageBatchRequestEntry, n)
	for i := range out {
		out[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprintf("message-%d", i)), MessageBody: aws.String(fmt.Sprintf("messageBody-%d", i))}
	}
	return out
}

func TestSendMessageBatch(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := aws.String(b.createQueue(t, "batch", map[string]string{"MaximumMessageSize": "2048"}))

	t.Run("PartialFailure", func(t *testing.T) {
		t.Parallel()
		entries := sendEntries(9)
		entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String("9"), MessageBody: aws.String("\x01")})
		out, err := b.client.SendMessageBatch(b.ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: entries})
		require.NoError(t, err) // includes the SDK's per-entry MD5 validation
		require.Len(t, out.Successful, 9)
		require.Len(t, out.Failed, 1)
		// AWS-validated LocalStack test_batch_send_with_invalid_char_should_succeed.
		require.Equal(t, "9", aws.ToString(out.Failed[0].Id))
		require.Equal(t, "InvalidMessageContents", aws.ToString(out.Failed[0].Code))
		require.True(t, out.Failed[0].SenderFault)
	})

	t.Run("IgnoresQueueMaximumMessageSize", func(t *testing.T) {
		t.Parallel()
		// AWS-recorded: a batch entry over the queue's MaximumMessageSize is
		// accepted while the batch stays under 1 MiB.
		out, err := b.client.SendMessageBatch(b.ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("1"), MessageBody: aws.String(strings.Repeat("a", 2048-len("k")-len("String")-len("x"))),
				MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("x")}}},
			{Id: aws.String("2"), MessageBody: aws.String("a")},
		}})
		require.NoError(t, err)
		require.Len(t, out.Successful, 2)
		require.Equal(t, "a45daa70926828a2f0a1db3418e6feb4", aws.ToString(out.Successful[0].MD5OfMessageAttributes))
		require.Equal(t, "0cc175b9c0f1b6a831c399e269772661", aws.ToString(out.Successful[1].MD5OfMessageBody))
	})

	cases := []struct {
		name    string
		entries []types.SendMessageBatchRequestEntry
		target  any
		code    string
		msg     string
	}{
		{"Empty", []types.SendMessageBatchRequestEntry{}, new(*types.EmptyBatchRequest), "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one SendMessageBatchRequestEntry in the request."},
		{"TooMany", sendEntries(20), new(*types.TooManyEntriesInBatchRequest), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", "Maximum number of entries per request are 10. You have sent 20."},
		{"InvalidID", []types.SendMessageBatchRequestEntry{{Id: aws.String("message:1"), MessageBody: aws.String("x")}}, new(*types.InvalidBatchEntryId),
			"AWS.SimpleQueueService.InvalidBatchEntryId", "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."},
		{"LongID", []types.SendMessageBatchRequestEntry{{Id: aws.String(strings.Repeat("testLongId", 10)), MessageBody: aws.String("x")}}, new(*types.InvalidBatchEntryId),
			"AWS.SimpleQueueService.InvalidBatchEntryId", "at most 80 letters long"},
		{"NotDistinct", []types.SendMessageBatchRequestEntry{{Id: aws.String("1"), MessageBody: aws.String("x")}, {Id: aws.String("1"), MessageBody: aws.String("y")}},
			new(*types.BatchEntryIdsNotDistinct), "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", "Id 1 repeated."},
		{"TooLong", []types.SendMessageBatchRequestEntry{
			{Id: aws.String("1"), MessageBody: aws.String(strings.Repeat("a", 1048576-len("k")-len("String")-len("x"))),
				MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("x")}}},
			{Id: aws.String("2"), MessageBody: aws.String("a")},
		}, new(*types.BatchRequestTooLong), "AWS.SimpleQueueService.BatchRequestTooLong", "Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, queue.Options{})
			url := aws.String(b.createQueue(t, "batch", nil))
			_, err := b.client.SendMessageBatch(b.ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: tc.entries})
			requireAPIError(t, err, tc.target, tc.code, http.StatusBadRequest)
			require.Contains(t, err.Error(), tc.msg)
			counts, err := b.svc.Counts(*url)
			require.NoError(t, err)
			require.Equal(t, queue.Counts{}, counts, "a rejected batch sends nothing")
		})
	}
}

func TestDeleteAndChangeVisibilityBatch(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := aws.String(b.createQueue(t, "batch-receipts", nil))
	_, err := b.client.SendMessageBatch(b.ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: sendEntries(4)})
	require.NoError(t, err)
	got := b.receive(t, *url, 10, nil)
	require.Len(t, got.Messages, 4)

	vis, err := b.client.ChangeMessageVisibilityBatch(b.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 0},
		{Id: aws.String("b"), ReceiptHandle: got.Messages[1].ReceiptHandle, VisibilityTimeout: 120},
		{Id: aws.String("c"), ReceiptHandle: aws.String("garbage"), VisibilityTimeout: 10},
	}})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a", "b"}, []string{aws.ToString(vis.Successful[0].Id), aws.ToString(vis.Successful[1].Id)})
	require.Len(t, vis.Failed, 1)
	require.Equal(t, types.BatchResultErrorEntry{Id: aws.String("c"), SenderFault: true, Code: aws.String("ReceiptHandleIsInvalid"),
		Message: aws.String(`The input receipt handle "garbage" is not a valid receipt handle.`)}, vis.Failed[0])
	again := b.receive(t, *url, 10, nil)
	require.Len(t, again.Messages, 1, "only the message with VisibilityTimeout 0 is visible again")
	require.Equal(t, aws.ToString(got.Messages[0].MessageId), aws.ToString(again.Messages[0].MessageId))

	del, err := b.client.DeleteMessageBatch(b.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("0"), ReceiptHandle: again.Messages[0].ReceiptHandle},
		{Id: aws.String("1"), ReceiptHandle: got.Messages[1].ReceiptHandle},
		{Id: aws.String("2"), ReceiptHandle: got.Messages[2].ReceiptHandle},
		{Id: aws.String("3"), ReceiptHandle: got.Messages[3].ReceiptHandle},
		{Id: aws.String("fake-receipt-handle-1"), ReceiptHandle: aws.String("fake-receipt-handle-1")},
	}})
	require.NoError(t, err)
	require.Len(t, del.Successful, 4)
	require.Len(t, del.Failed, 1)
	require.Equal(t, "ReceiptHandleIsInvalid", aws.ToString(del.Failed[0].Code))
	counts, err := b.svc.Counts(*url)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)

	many := make([]types.DeleteMessageBatchRequestEntry, 11)
	for i := range many {
		many[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: aws.String("h")}
	}
	_, err = b.client.DeleteMessageBatch(b.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: many})
	requireAPIError(t, err, nil, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", http.StatusBadRequest)
	_, err = b.client.ChangeMessageVisibilityBatch(b.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}})
	requireAPIError(t, err, nil, "AWS.SimpleQueueService.EmptyBatchRequest", http.StatusBadRequest)
	_, err = b.client.DeleteMessageBatch(b.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String(""), ReceiptHandle: aws.String("testHandle1")}}})
	requireAPIError(t, err, nil, "AWS.SimpleQueueService.InvalidBatchEntryId", http.StatusBadRequest)
}
