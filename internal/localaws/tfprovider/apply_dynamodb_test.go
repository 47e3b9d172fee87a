package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// TestApplyDynamoDBTable applies the task table (stream, two indexes,
// PITR, SSE, TTL) and a bare provisioned table.
func TestApplyDynamoDBTable(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "dynamodb")
	ctx := context.Background()
	db := dynamodb.NewFromConfig(e.cfg)

	e.apply()
	st := e.state()
	tasks := attrs(t, st, "aws_dynamodb_table.tasks")
	require.Equal(t, "tasks", tasks["id"])
	require.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/tasks", tasks["arn"])
	require.Regexp(t, `^arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$`, tasks["stream_arn"])
	require.Equal(t, tasks["stream_arn"], "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/"+tasks["stream_label"].(string))
	require.Equal(t, "NEW_AND_OLD_IMAGES", tasks["stream_view_type"])
	require.Equal(t, "STANDARD", tasks["table_class"])
	require.Equal(t, []any{map[string]any{"enabled": true, "recovery_period_in_days": float64(35)}}, tasks["point_in_time_recovery"])
	require.Equal(t, []any{map[string]any{"enabled": true, "kms_key_arn": ""}}, tasks["server_side_encryption"],
		"the AWS managed key is recorded as unset (clearSSEDefaultKey)")
	require.Len(t, tasks["global_secondary_index"], 2)
	plain := attrs(t, st, "aws_dynamodb_table.plain")
	require.Equal(t, "PROVISIONED", plain["billing_mode"])
	require.Equal(t, []any{}, plain["ttl"])

	pitr, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.PointInTimeRecoveryStatusEnabled, pitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)

	e.requireNoChanges()

	// In place: TTL on, PITR off.
	p := e.plan("ttl=true", "pitr=false")
	require.Equal(t, map[string]tfjson.Actions{"aws_dynamodb_table.tasks": {tfjson.ActionUpdate}}, changes(p))
	e.apply("ttl=true", "pitr=false")
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	require.Equal(t, ddbtypes.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	require.Equal(t, "expiresAt", aws.ToString(ttl.TimeToLiveDescription.AttributeName))
	e.requireNoChanges("ttl=true", "pitr=false")

	// Drift: PITR turned on out of band; the plain table deleted.
	_, err = db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("tasks"),
		PointInTimeRecoverySpecification: &ddbtypes.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	require.NoError(t, err)
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("plain")})
	require.NoError(t, err)
	p = e.plan("ttl=true", "pitr=false")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_dynamodb_table.tasks": {tfjson.ActionUpdate},
		"aws_dynamodb_table.plain": {tfjson.ActionCreate},
	}, changes(p))
	e.apply("ttl=true", "pitr=false")
	e.requireNoChanges("ttl=true", "pitr=false")

	e.destroy("ttl=true", "pitr=false")
	left, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Empty(t, left.TableNames)
}
