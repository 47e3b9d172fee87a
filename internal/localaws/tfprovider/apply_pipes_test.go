package tfprovider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

const urgentFilter = `filters=["{\"dynamodb\":{\"NewImage\":{\"status\":{\"S\":[\"Pending\"]},\"urgent\":{\"BOOL\":[true]}}}}"]`

// TestApplyPipe applies a DynamoDB stream → SQS pipe, edits its filter in
// place and watches the new filter work, then checks drift and destroy.
func TestApplyPipe(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "pipes")
	ctx := context.Background()
	pc := pipes.NewFromConfig(e.cfg)
	db := dynamodb.NewFromConfig(e.cfg)
	q := sqs.NewFromConfig(e.cfg)
	workURL := e.cloud.URL() + "/000000000000/work"

	e.apply()
	st := e.state()
	p := attrs(t, st, "aws_pipes_pipe.dispatch")
	require.Equal(t, "dispatch", p["id"])
	require.Equal(t, "arn:aws:pipes:us-east-1:000000000000:pipe/dispatch", p["arn"])
	require.Equal(t, attrs(t, st, "aws_dynamodb_table.tasks")["stream_arn"], p["source"])
	require.Equal(t, "RUNNING", p["desired_state"])
	require.Equal(t, "Managed by Terraform", p["description"])
	got, err := pc.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, "RUNNING", string(got.CurrentState))

	e.requireNoChanges()

	// The filter edit updates only the pipe, in place.
	plan := e.plan(urgentFilter)
	require.Equal(t, map[string]tfjson.Actions{"aws_pipes_pipe.dispatch": {tfjson.ActionUpdate}}, changes(plan))
	e.apply(urgentFilter)
	e.requireNoChanges(urgentFilter)

	// A Pending row without urgent no longer passes; an urgent one does.
	put := func(id string, urgent bool) {
		item := map[string]ddbtypes.AttributeValue{"taskId": &ddbtypes.AttributeValueMemberS{Value: id}, "status": &ddbtypes.AttributeValueMemberS{Value: "Pending"}}
		if urgent {
			item["urgent"] = &ddbtypes.AttributeValueMemberBOOL{Value: true}
		}
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: item})
		require.NoError(t, err)
	}
	put("plain", false)
	put("urgent", true)
	var bodies []string
	deadline := time.Now().Add(30 * time.Second)
	for len(bodies) == 0 && time.Now().Before(deadline) {
		out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(workURL), WaitTimeSeconds: 2, MaxNumberOfMessages: 10})
		require.NoError(t, err)
		for _, m := range out.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
		}
	}
	require.Len(t, bodies, 1, "only the urgent row passes the new filter")
	require.Contains(t, bodies[0], `"urgent"`)
	require.False(t, strings.Contains(bodies[0], `"plain"`))

	// Drift: the pipe stopped out of band; the batch size changed.
	_, err = pc.StopPipe(ctx, &pipes.StopPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	plan = e.plan(urgentFilter, "batch_size=5")
	require.Equal(t, map[string]tfjson.Actions{"aws_pipes_pipe.dispatch": {tfjson.ActionUpdate}}, changes(plan))
	for _, rc := range plan.ResourceChanges {
		if rc.Address != "aws_pipes_pipe.dispatch" {
			continue
		}
		require.Equal(t, "STOPPED", rc.Change.Before.(map[string]any)["desired_state"])
		require.Equal(t, "RUNNING", rc.Change.After.(map[string]any)["desired_state"])
	}
	e.apply(urgentFilter, "batch_size=5")
	got, err = pc.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, "RUNNING", string(got.CurrentState))
	require.EqualValues(t, 5, aws.ToInt32(got.SourceParameters.DynamoDBStreamParameters.BatchSize))
	e.requireNoChanges(urgentFilter, "batch_size=5")

	e.destroy(urgentFilter, "batch_size=5")
	left, err := pc.ListPipes(ctx, &pipes.ListPipesInput{})
	require.NoError(t, err)
	require.Empty(t, left.Pipes)
}
