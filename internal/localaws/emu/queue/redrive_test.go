package queue_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// redrivePair creates a source queue whose RedrivePolicy targets a DLQ.
func (b *testBundle) redrivePair(t *testing.T, src, dlq string, maxReceives int, srcAttrs map[string]string) (string, string) {
	t.Helper()
	dlqURL := b.createQueue(t, dlq, nil)
	attrs := map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":%d}`, b.arn(dlq), maxReceives)}
	for k, v := range srcAttrs {
		attrs[k] = v
	}
	return b.createQueue(t, src, attrs), dlqURL
}

func TestDeadLetterRedrive(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	srcURL, dlqURL := b.redrivePair(t, "work", "work-dlq", 3, map[string]string{"VisibilityTimeout": "30"})
	trace := "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	sent, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(srcURL), MessageBody: aws.String("poison"),
		MessageAttributes:       map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("task")}},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(trace)}},
	})
	require.NoError(t, err)
	sentAt := strconv.FormatInt(b.clock.Now().UnixMilli(), 10)

	var firstReceive string
	for i := 1; i <= 3; i++ {
		got := b.receive(t, srcURL, 1, nil)
		require.Len(t, got.Messages, 1, "receive %d", i)
		require.Equal(t, strconv.Itoa(i), got.Messages[0].Attributes["ApproximateReceiveCount"])
		if i == 1 {
			firstReceive = got.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"]
		}
		b.clock.Advance(31 * time.Second)
	}
	counts, err := b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts, "moved lazily: nothing in the DLQ before the next receive")

	// The receive that would exceed maxReceiveCount moves it instead.
	require.Empty(t, b.receive(t, srcURL, 10, nil).Messages)
	counts, err = b.svc.Counts(srcURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)

	got := b.receive(t, dlqURL, 10, nil)
	require.Len(t, got.Messages, 1)
	m := got.Messages[0]
	require.Equal(t, aws.ToString(sent.MessageId), aws.ToString(m.MessageId), "same message id")
	require.Equal(t, "poison", aws.ToString(m.Body))
	require.Equal(t, aws.ToString(sent.MD5OfMessageAttributes), aws.ToString(m.MD5OfMessageAttributes))
	require.Equal(t, "task", aws.ToString(m.MessageAttributes["kind"].StringValue))
	require.Equal(t, map[string]string{
		"SenderId":                         "AKIDLOCAL",
		"SentTimestamp":                    sentAt,
		"ApproximateReceiveCount":          "4", // continues from the source queue
		"ApproximateFirstReceiveTimestamp": firstReceive,
		"AWSTraceHeader":                   trace,
		"DeadLetterQueueSourceArn":         b.arn("work"),
	}, m.Attributes)

	sources, err := b.client.ListDeadLetterSourceQueues(b.ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlqURL)})
	require.NoError(t, err)
	require.Equal(t, []string{srcURL}, sources.QueueUrls)
	none, err := b.client.ListDeadLetterSourceQueues(b.ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(srcURL)})
	require.NoError(t, err)
	require.Empty(t, none.QueueUrls)
}

func TestDeadLetterMaxReceiveCountOne(t *testing.T) {
	t.Parallel()
	// AWS-validated LocalStack test_dead_letter_queue_max_receive_count:
	// with maxReceiveCount 1 only one of two receives returns the message.
	b := setup(t, queue.Options{})
	srcURL, dlqURL := b.redrivePair(t, "once", "once-dlq", 1, nil)
	id := b.send(t, srcURL, "test")
	first := b.receive(t, srcURL, 1, nil)
	require.Len(t, first.Messages, 1)
	_, err := b.client.ChangeMessageVisibility(b.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(srcURL), ReceiptHandle: first.Messages[0].ReceiptHandle, VisibilityTimeout: 0})
	require.NoError(t, err)
	require.Empty(t, b.receive(t, srcURL, 1, nil).Messages)
	dlq := b.receive(t, dlqURL, 1, nil)
	require.Len(t, dlq.Messages, 1)
	require.Equal(t, id, aws.ToString(dlq.Messages[0].MessageId))
	require.Equal(t, "2", dlq.Messages[0].Attributes["ApproximateReceiveCount"])
}

func TestDeadLetterRetentionCountsFromOriginalSend(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	dlqURL := b.createQueue(t, "keep-dlq", map[string]string{"MessageRetentionPeriod": "7200"})
	srcURL := b.createQueue(t, "keep", map[string]string{
		"VisibilityTimeout": "60",
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, b.arn("keep-dlq")),
	})
	b.send(t, srcURL, "aging")
	require.Len(t, b.receive(t, srcURL, 1, nil).Messages, 1)
	b.clock.Advance(time.Hour)
	require.Empty(t, b.receive(t, srcURL, 1, nil).Messages) // moved now, one hour after the send
	counts, err := b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 1}, counts)
	b.clock.Advance(time.Hour) // two hours after the send, one after the move
	counts, err = b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts, "DLQ retention counts from the original enqueue time")
}

func TestRedriveAllowPolicy(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	b.createQueue(t, "closed-dlq", map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`})
	srcURL := b.createQueue(t, "src", map[string]string{"VisibilityTimeout": "10"})
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, b.arn("closed-dlq"))
	_, err := b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(srcURL), Attributes: map[string]string{"RedrivePolicy": policy}})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "does not allow this queue")

	// byQueue listing the source admits it.
	dlqURL := b.createQueue(t, "listed-dlq", map[string]string{
		"RedriveAllowPolicy": fmt.Sprintf(`{"redrivePermission":"byQueue","sourceQueueArns":[%q]}`, b.arn("src")),
	})
	policy = fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, b.arn("listed-dlq"))
	_, err = b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(srcURL), Attributes: map[string]string{"RedrivePolicy": policy}})
	require.NoError(t, err)
	out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL), AttributeNames: []types.QueueAttributeName{"RedriveAllowPolicy"}})
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"redrivePermission":"byQueue","sourceQueueArns":[%q]}`, b.arn("src")), out.Attributes["RedriveAllowPolicy"])

	// A later denyAll on the DLQ stops redrive: the message stays and is delivered.
	_, err = b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(dlqURL), Attributes: map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`}})
	require.NoError(t, err)
	b.send(t, srcURL, "kept")
	require.Len(t, b.receive(t, srcURL, 1, nil).Messages, 1)
	b.clock.Advance(11 * time.Second)
	again := b.receive(t, srcURL, 1, nil)
	require.Len(t, again.Messages, 1)
	require.Equal(t, "2", again.Messages[0].Attributes["ApproximateReceiveCount"])
}

// waitForTask polls ListMessageMoveTasks until the newest task leaves the
// running states. Polling (not sleeping a fixed time) keeps it fast and
// free of timing assumptions.
func (b *testBundle) waitForTask(t *testing.T, sourceARN string) types.ListMessageMoveTasksResultEntry {
	t.Helper()
	var last types.ListMessageMoveTasksResultEntry
	require.Eventually(t, func() bool {
		out, err := b.client.ListMessageMoveTasks(b.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(sourceARN)})
		require.NoError(t, err)
		require.Len(t, out.Results, 1)
		last = out.Results[0]
		s := aws.ToString(last.Status)
		return s != "RUNNING" && s != "CANCELLING"
	}, 10*time.Second, 5*time.Millisecond)
	return last
}

// fillDLQ redrives n messages from src into its DLQ (maxReceiveCount 1).
func (b *testBundle) fillDLQ(t *testing.T, srcURL string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		ids = append(ids, b.send(t, srcURL, fmt.Sprintf("message-%d", i)))
	}
	for range n {
		require.Len(t, b.receive(t, srcURL, 1, nil).Messages, 1)
	}
	b.clock.Advance(31 * time.Second)
	require.Empty(t, b.receive(t, srcURL, 10, nil).Messages) // moves everything due
	return ids
}

func TestMoveTaskReturnsMessagesToTheirSource(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	dlqURL := b.createQueue(t, "shared-dlq", nil)
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, b.arn("shared-dlq"))
	srcA := b.createQueue(t, "source-a", map[string]string{"RedrivePolicy": policy})
	srcB := b.createQueue(t, "source-b", map[string]string{"RedrivePolicy": policy})
	idsA := b.fillDLQ(t, srcA, 2)
	idsB := b.fillDLQ(t, srcB, 2)
	counts, err := b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{Visible: 4}, counts)

	start, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(b.arn("shared-dlq"))})
	require.NoError(t, err)
	require.NotEmpty(t, aws.ToString(start.TaskHandle))
	task := b.waitForTask(t, b.arn("shared-dlq"))
	require.Equal(t, "COMPLETED", aws.ToString(task.Status))
	require.Equal(t, int64(4), task.ApproximateNumberOfMessagesMoved)
	require.Equal(t, int64(4), aws.ToInt64(task.ApproximateNumberOfMessagesToMove))
	require.Nil(t, task.DestinationArn, "no DestinationArn when returning to sources (AWS-recorded)")
	require.Nil(t, task.MaxNumberOfMessagesPerSecond)
	require.Nil(t, task.TaskHandle, "handles are listed only for running tasks")
	require.Equal(t, b.clock.Now().UnixMilli(), task.StartedTimestamp)

	for url, oldIDs := range map[string][]string{srcA: idsA, srcB: idsB} {
		got := b.receive(t, url, 10, nil)
		require.Len(t, got.Messages, 2)
		var bodies []string
		for _, m := range got.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
			require.NotContains(t, oldIDs, aws.ToString(m.MessageId), "moved messages get new ids")
			require.Equal(t, "1", m.Attributes["ApproximateReceiveCount"])
			require.NotContains(t, m.Attributes, "DeadLetterQueueSourceArn")
		}
		sort.Strings(bodies)
		require.Equal(t, []string{"message-0", "message-1"}, bodies)
	}
	counts, err = b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, queue.Counts{}, counts)
}

func TestMoveTaskToDestinationAndErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	srcURL, dlqURL := b.redrivePair(t, "origin", "origin-dlq", 1, nil)
	destURL := b.createQueue(t, "elsewhere", nil)
	plainURL := b.createQueue(t, "plain", nil)
	b.fillDLQ(t, srcURL, 3)
	dlqARN := b.arn("origin-dlq")

	t.Run("SourceMustBeADLQ", func(t *testing.T) {
		_, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(b.arn("plain"))})
		requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
		require.Contains(t, err.Error(), "Source queue must be configured as a Dead Letter Queue.")
		_ = plainURL
	})
	t.Run("SourceMustExist", func(t *testing.T) {
		_, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(b.arn("nope"))})
		var nf *types.ResourceNotFoundException
		requireAPIError(t, err, &nf, "ResourceNotFoundException", http.StatusNotFound)
	})
	t.Run("DestinationMustExist", func(t *testing.T) {
		_, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), DestinationArn: aws.String(b.arn("elsewhere") + "doesntexist")})
		var nf *types.ResourceNotFoundException
		requireAPIError(t, err, &nf, "ResourceNotFoundException", http.StatusNotFound)
		require.Equal(t, "The resource that you specified for the DestinationArn parameter doesn't exist.", nf.ErrorMessage())
	})
	t.Run("RateAtMost500", func(t *testing.T) {
		_, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), MaxNumberOfMessagesPerSecond: aws.Int32(501)})
		requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	})
	t.Run("CancelInvalidHandle", func(t *testing.T) {
		_, err := b.client.CancelMessageMoveTask(b.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String("foobared")})
		requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
		require.Contains(t, err.Error(), "Value for parameter TaskHandle is invalid.")
	})
	t.Run("CancelUnknownTask", func(t *testing.T) {
		// The handle format real SQS decodes (AWS-validated LocalStack
		// test_cancel_with_invalid_task_id_in_task_handle).
		h := base64.StdEncoding.EncodeToString([]byte(`{"taskId":"10f57157-fc38-4da9-a113-4de7e12d05aa","sourceArn":"` + dlqARN + `"}`))
		_, err := b.client.CancelMessageMoveTask(b.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(h)})
		var nf *types.ResourceNotFoundException
		requireAPIError(t, err, &nf, "ResourceNotFoundException", http.StatusNotFound)
		require.Equal(t, "Task does not exist.", nf.ErrorMessage())
	})

	start, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), DestinationArn: aws.String(b.arn("elsewhere")), MaxNumberOfMessagesPerSecond: aws.Int32(500)})
	require.NoError(t, err)
	require.NotEmpty(t, aws.ToString(start.TaskHandle))
	task := b.waitForTask(t, dlqARN)
	require.Equal(t, "COMPLETED", aws.ToString(task.Status))
	require.Equal(t, b.arn("elsewhere"), aws.ToString(task.DestinationArn))
	require.Equal(t, int32(500), aws.ToInt32(task.MaxNumberOfMessagesPerSecond))
	require.Len(t, b.receive(t, destURL, 10, nil).Messages, 3)
	require.Empty(t, b.receive(t, dlqURL, 10, nil).Messages)
	require.Empty(t, b.receive(t, srcURL, 10, nil).Messages)
}

func TestMoveTaskCancelAndFailure(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	srcURL, dlqURL := b.redrivePair(t, "slow", "slow-dlq", 1, nil)
	destURL := b.createQueue(t, "slow-dest", nil)
	b.fillDLQ(t, srcURL, 10)
	dlqARN := b.arn("slow-dlq")

	// One message per second: the first moves at once, the task is still
	// running when we look, and a second task is refused.
	start, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), DestinationArn: aws.String(b.arn("slow-dest")), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	_, err = b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN)})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")

	list, err := b.client.ListMessageMoveTasks(b.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN)})
	require.NoError(t, err)
	require.Len(t, list.Results, 1)
	require.Equal(t, "RUNNING", aws.ToString(list.Results[0].Status))
	require.Equal(t, aws.ToString(start.TaskHandle), aws.ToString(list.Results[0].TaskHandle))
	require.Equal(t, int64(10), aws.ToInt64(list.Results[0].ApproximateNumberOfMessagesToMove))

	cancel, err := b.client.CancelMessageMoveTask(b.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: start.TaskHandle})
	require.NoError(t, err)
	require.Less(t, cancel.ApproximateNumberOfMessagesMoved, int64(10))
	task := b.waitForTask(t, dlqARN)
	require.Equal(t, "CANCELLED", aws.ToString(task.Status))
	moved := task.ApproximateNumberOfMessagesMoved
	destCounts, err := b.svc.Counts(destURL)
	require.NoError(t, err)
	dlqCounts, err := b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Equal(t, int(moved), destCounts.Visible)
	require.Equal(t, 10-int(moved), dlqCounts.Visible, "messages not moved stay in the DLQ")

	// Cancelling a finished task is refused.
	_, err = b.client.CancelMessageMoveTask(b.ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: start.TaskHandle})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)

	// Deleting the destination mid-task fails the task with the AWS-recorded reason.
	_, err = b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), DestinationArn: aws.String(b.arn("slow-dest")), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	_, err = b.client.DeleteQueue(b.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(destURL)})
	require.NoError(t, err)
	failed := b.waitForTask(t, dlqARN)
	require.Equal(t, "FAILED", aws.ToString(failed.Status))
	require.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", aws.ToString(failed.FailureReason))

	all, err := b.client.ListMessageMoveTasks(b.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN), MaxResults: aws.Int32(10)})
	require.NoError(t, err)
	require.Len(t, all.Results, 2)
	require.Equal(t, "FAILED", aws.ToString(all.Results[0].Status), "newest first")
	require.Equal(t, "CANCELLED", aws.ToString(all.Results[1].Status))
	dlqCounts, err = b.svc.Counts(dlqURL)
	require.NoError(t, err)
	require.Positive(t, dlqCounts.Visible, "the failed task left messages in the DLQ")
}

func TestMoveTaskWithoutSourceFails(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	_, dlqURL := b.redrivePair(t, "direct", "direct-dlq", 1, nil)
	b.send(t, dlqURL, "sent straight to the DLQ")
	_, err := b.client.StartMessageMoveTask(b.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(b.arn("direct-dlq"))})
	require.NoError(t, err)
	task := b.waitForTask(t, b.arn("direct-dlq"))
	require.Equal(t, "FAILED", aws.ToString(task.Status))
	require.Contains(t, aws.ToString(task.FailureReason), "no DeadLetterQueueSourceArn")
}
