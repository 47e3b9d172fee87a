package chaos

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// poisonBodies are the shapes of poison the run sends, each a different
// reason for the scraper to refuse a message (message.Parse, and a task id
// the table does not have); %d makes every body unique, so the checker
// finds each in the DLQ by its body.
var poisonBodies = []string{
	"chaos poison %d: not JSON at all",
	`{"chaosPoison": %d, "note": "neither a stream record nor a message with a taskId"}`,
	`{"taskId": %d, "note": "taskId is a number"}`,
	`{"v": 99, "taskId": "chaos-poison/%d", "note": "a contract version from the future"}`,
	`{"taskId": "chaos-poison/%d", "note": "truncated"`,
	`{"taskId": "chaos-poison/%d/ghost", "runId": "chaos", "note": "no such task"}`,
}

// PoisonBody returns the i-th poison message body.
func PoisonBody(i int) string {
	return fmt.Sprintf(poisonBodies[i%len(poisonBodies)], i)
}

// sendPoison puts n poison messages on the work queue, as a broken
// producer would, and returns them with their message ids.
func sendPoison(ctx context.Context, api *sqs.Client, queueURL string, n int) ([]Poison, error) {
	out := make([]Poison, 0, n)
	for i := range n {
		body := PoisonBody(i)
		res, err := api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body)})
		if err != nil {
			return out, fmt.Errorf("chaos: send poison message %d: %w", i, err)
		}
		out = append(out, Poison{MessageID: aws.ToString(res.MessageId), Body: body})
	}
	return out, nil
}
