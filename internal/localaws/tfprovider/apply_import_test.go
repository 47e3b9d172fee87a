package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"
)

// TestImport imports objects created with the SDK (with the provider's
// default tag) by their provider ids; the configuration that describes
// them then plans no change.
func TestImport(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "import")
	ctx := context.Background()
	q, err := sqs.NewFromConfig(e.cfg).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("imported"),
		Attributes: map[string]string{"VisibilityTimeout": "120", "MaximumMessageSize": "262144"}, Tags: map[string]string{"suite": "apply"}})
	require.NoError(t, err)
	im := iam.NewFromConfig(e.cfg)
	_, err = im.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("imported-role"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`),
		Tags:                     []iamtypes.Tag{{Key: aws.String("suite"), Value: aws.String("apply")}}})
	require.NoError(t, err)
	_, err = im.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("imported-role"), PolicyName: aws.String("inline"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}]}`)})
	require.NoError(t, err)
	_, err = dynamodb.NewFromConfig(e.cfg).CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("imported"),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		Tags:                 []ddbtypes.Tag{{Key: aws.String("suite"), Value: aws.String("apply")}}})
	require.NoError(t, err)

	for addr, id := range map[string]string{
		"aws_sqs_queue.work":     aws.ToString(q.QueueUrl),
		"aws_iam_role.fn":        "imported-role",
		"aws_iam_role_policy.fn": "imported-role:inline",
		"aws_dynamodb_table.t":   "imported",
	} {
		c, cancel := e.ctx()
		require.NoError(t, e.tf.Import(c, addr, id, tfexec.Var("endpoint="+e.cloud.URL())), addr)
		cancel()
	}
	st := e.state()
	require.Equal(t, aws.ToString(q.QueueUrl), attrs(t, st, "aws_sqs_queue.work")["url"])
	require.Equal(t, "arn:aws:iam::000000000000:role/imported-role", attrs(t, st, "aws_iam_role.fn")["arn"])
	e.requireNoChanges()
}
