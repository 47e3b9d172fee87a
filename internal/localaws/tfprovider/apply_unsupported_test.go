package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"
)

// TestApplyUnsupported: configuration the local cloud cannot honour fails
// the apply with a diagnostic that says what and why, and creates nothing.
func TestApplyUnsupported(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "unsupported")
	cases := []struct{ name, want string }{
		{"sns", "the taskpipe local cloud does not emulate SNS, so aws_sns_topic cannot be created there"},
		{"fifo", "aws_sqs_queue: fifo_queue = true is not supported by the taskpipe local provider"},
		{"kms", "aws_sqs_queue: kms_master_key_id is not supported by the taskpipe local provider (the local cloud has no KMS"},
		{"vpc", "aws_lambda_function: vpc_config is not supported by the taskpipe local provider (the local cloud has no VPCs)"},
		{"function_dlq", "aws_lambda_function: dead_letter_config is not supported by the taskpipe local provider"},
		{"replica", "aws_dynamodb_table: replica is not supported by the taskpipe local provider"},
	}
	for _, tc := range cases {
		ctx, cancel := e.ctx()
		err := e.tf.Apply(ctx, tfexec.Var("endpoint="+e.cloud.URL()), tfexec.Var("case="+tc.name))
		cancel()
		require.Error(t, err, tc.name)
		require.Contains(t, flatten(err.Error()), tc.want, tc.name)
		require.Empty(t, e.state(), "%s: a failed create leaves nothing in the state", tc.name)
	}
	queues, err := sqs.NewFromConfig(e.cfg).ListQueues(context.Background(), &sqs.ListQueuesInput{})
	require.NoError(t, err)
	require.Empty(t, queues.QueueUrls)
	tables, err := dynamodb.NewFromConfig(e.cfg).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Empty(t, tables.TableNames)
}
