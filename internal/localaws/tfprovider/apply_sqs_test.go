package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// TestApplySQSAndIAM applies queues, their redrive policies and an IAM
// role with an inline policy into the local cloud, then checks a clean
// second plan, an in-place update, drift after out-of-band changes, and
// that destroy leaves nothing behind.
func TestApplySQSAndIAM(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "sqs")
	ctx := context.Background()
	q := sqs.NewFromConfig(e.cfg)
	im := iam.NewFromConfig(e.cfg)

	e.apply()
	st := e.state()
	work := attrs(t, st, "aws_sqs_queue.work")
	url := e.cloud.URL() + "/000000000000/work"
	require.Equal(t, url, work["id"], "the queue's id is its URL")
	require.Equal(t, url, work["url"])
	require.Equal(t, "arn:aws:sqs:us-east-1:000000000000:work", work["arn"])
	require.EqualValues(t, 180, work["visibility_timeout_seconds"])
	require.EqualValues(t, 262144, work["max_message_size"], "the provider's default is sent on create")
	require.EqualValues(t, 300, work["kms_data_key_reuse_period_seconds"])
	require.Equal(t, true, work["sqs_managed_sse_enabled"])
	require.Equal(t, map[string]any{"team": "a"}, work["tags"])
	require.Equal(t, map[string]any{"team": "a", "suite": "apply"}, work["tags_all"])
	require.Equal(t, url, attrs(t, st, "aws_sqs_queue_redrive_policy.work")["id"])
	require.Equal(t, "work-consumer:consume", attrs(t, st, "aws_iam_role_policy.consumer")["id"])
	role := attrs(t, st, "aws_iam_role.consumer")
	require.Equal(t, "work-consumer", role["id"])
	require.Equal(t, "arn:aws:iam::000000000000:role/work-consumer", role["arn"])
	require.Regexp(t, `^AROA`, role["unique_id"])

	got, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
	require.NoError(t, err)
	require.Equal(t, "180", got.Attributes["VisibilityTimeout"])
	require.JSONEq(t, `{"redrivePermission":"byQueue","sourceQueueArns":["arn:aws:sqs:us-east-1:000000000000:work"]}`,
		mustAttr(t, q, e.cloud.URL()+"/000000000000/work-dlq", "RedriveAllowPolicy"))
	tags, err := q.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"team": "a", "suite": "apply"}, tags.Tags, "default_tags reach AWS")

	e.requireNoChanges()
	e.refresh()
	require.Equal(t, `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:work-dlq","maxReceiveCount":3}`,
		attrs(t, e.state(), "aws_sqs_queue.work")["redrive_policy"], "the queue reads the policy its redrive-policy resource set")

	// In place: visibility timeout and tags.
	p := e.plan("visibility=240", "team=b")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_sqs_queue.work":    {tfjson.ActionUpdate},
		"aws_iam_role.consumer": {tfjson.ActionUpdate},
	}, changes(p))
	e.apply("visibility=240", "team=b")
	require.Equal(t, "240", mustAttr(t, q, url, "VisibilityTimeout"))
	tags, err = q.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"team": "b", "suite": "apply"}, tags.Tags)
	e.requireNoChanges("visibility=240", "team=b")

	// Drift: an attribute changed, an inline policy and the DLQ's allow
	// policy removed out of band.
	_, err = q.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: map[string]string{"VisibilityTimeout": "99"}})
	require.NoError(t, err)
	_, err = im.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("work-consumer"), PolicyName: aws.String("consume")})
	require.NoError(t, err)
	_, err = q.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(e.cloud.URL() + "/000000000000/work-dlq"), Attributes: map[string]string{"RedriveAllowPolicy": ""}})
	require.NoError(t, err)
	p = e.plan("visibility=240", "team=b")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_sqs_queue.work":                     {tfjson.ActionUpdate},
		"aws_iam_role_policy.consumer":           {tfjson.ActionCreate},
		"aws_sqs_queue_redrive_allow_policy.dlq": {tfjson.ActionCreate},
	}, changes(p))
	for _, rc := range p.ResourceChanges {
		if rc.Address == "aws_sqs_queue.work" {
			require.EqualValues(t, 99, rc.Change.Before.(map[string]any)["visibility_timeout_seconds"])
			require.EqualValues(t, 240, rc.Change.After.(map[string]any)["visibility_timeout_seconds"])
		}
	}
	e.apply("visibility=240", "team=b")
	e.requireNoChanges("visibility=240", "team=b")

	e.destroy("visibility=240", "team=b")
	left, err := q.ListQueues(ctx, &sqs.ListQueuesInput{})
	require.NoError(t, err)
	require.Empty(t, left.QueueUrls)
	_, err = im.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("work-consumer")})
	require.ErrorContains(t, err, "NoSuchEntity")
}

func mustAttr(t *testing.T, q *sqs.Client, url, name string) string {
	t.Helper()
	out, err := q.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeName(name)}})
	require.NoError(t, err)
	return out.Attributes[name]
}
