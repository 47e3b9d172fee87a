package sqsqueue_test

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/sqsqueue"
)

// fakeSQS is an in-memory stand-in for the three SQS calls, with faults
// keyed by task id.
type fakeSQS struct {
	mu sync.Mutex

	sent       []sentMessage
	batchSizes []int
	visibility []*sqs.ChangeMessageVisibilityInput

	// transient[taskID] entries fail with a server error this many times.
	transient map[string]int
	// senderFault entries always fail as the sender's fault.
	senderFault map[string]bool
	// omit[taskID] entries are left out of the response this many times.
	omit map[string]int
	// callErr fails whole calls while callErrCalls > 0.
	callErr      error
	callErrCalls int
}

type sentMessage struct {
	QueueURL string
	Body     string
	Attrs    map[string]types.MessageAttributeValue
}

var _ sqsqueue.API = (*fakeSQS)(nil)

func taskIDOf(body string) string {
	var m struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	return m.TaskID
}

func (f *fakeSQS) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.callErrCalls > 0 {
		f.callErrCalls--
		return nil, f.callErr
	}
	f.sent = append(f.sent, sentMessage{QueueURL: aws.ToString(in.QueueUrl), Body: aws.ToString(in.MessageBody), Attrs: in.MessageAttributes})
	return &sqs.SendMessageOutput{MessageId: aws.String("fwd")}, nil
}

func (f *fakeSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batchSizes = append(f.batchSizes, len(in.Entries))
	if f.callErrCalls > 0 {
		f.callErrCalls--
		return nil, f.callErr
	}
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		id := taskIDOf(aws.ToString(e.MessageBody))
		switch {
		case f.senderFault[id]:
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InvalidParameterValue"),
				Message: aws.String("bad"), SenderFault: true})
		case f.transient[id] > 0:
			f.transient[id]--
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"),
				Message: aws.String("try again")})
		case f.omit[id] > 0:
			f.omit[id]--
		default:
			f.sent = append(f.sent, sentMessage{QueueURL: aws.ToString(in.QueueUrl), Body: aws.ToString(e.MessageBody)})
			out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id, MessageId: aws.String("id-" + id)})
		}
	}
	return out, nil
}

func (f *fakeSQS) ChangeMessageVisibility(_ context.Context, in *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.callErrCalls > 0 {
		f.callErrCalls--
		return nil, f.callErr
	}
	f.visibility = append(f.visibility, in)
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}

func (f *fakeSQS) sentTaskIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.sent))
	for _, s := range f.sent {
		ids = append(ids, taskIDOf(s.Body))
	}
	return ids
}
