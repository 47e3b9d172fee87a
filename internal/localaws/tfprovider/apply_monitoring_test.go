package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// TestApplyMonitoring applies a log group, metric alarms and a dashboard.
func TestApplyMonitoring(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "monitoring")
	ctx := context.Background()
	logs := cloudwatchlogs.NewFromConfig(e.cfg)
	cw := cloudwatch.NewFromConfig(e.cfg)

	e.apply()
	st := e.state()
	lg := attrs(t, st, "aws_cloudwatch_log_group.fn")
	require.Equal(t, "/aws/lambda/work-scraper", lg["id"])
	require.Equal(t, "arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/work-scraper", lg["arn"], "without the :* suffix")
	require.EqualValues(t, 1, lg["retention_in_days"])
	require.Equal(t, "STANDARD", lg["log_group_class"])
	alarm := attrs(t, st, "aws_cloudwatch_metric_alarm.dlq")
	require.Equal(t, "work-dlq-not-empty", alarm["id"])
	require.Equal(t, "arn:aws:cloudwatch:us-east-1:000000000000:alarm:work-dlq-not-empty", alarm["arn"])
	require.Equal(t, map[string]any{"QueueName": "work-dlq"}, alarm["dimensions"])
	require.EqualValues(t, 21600.5, attrs(t, st, "aws_cloudwatch_metric_alarm.age")["threshold"])
	dash := attrs(t, st, "aws_cloudwatch_dashboard.main")
	require.Equal(t, "work", dash["id"])
	require.Equal(t, "arn:aws:cloudwatch::000000000000:dashboard/work", dash["dashboard_arn"])

	e.requireNoChanges()

	p := e.plan("retention=7", "threshold=2")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_cloudwatch_log_group.fn":     {tfjson.ActionUpdate},
		"aws_cloudwatch_metric_alarm.dlq": {tfjson.ActionUpdate},
	}, changes(p))
	e.apply("retention=7", "threshold=2")
	got, err := logs.DescribeLogGroups(ctx, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePrefix: aws.String("/aws/lambda/work-scraper")})
	require.NoError(t, err)
	require.EqualValues(t, 7, aws.ToInt32(got.LogGroups[0].RetentionInDays))
	alarms, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{"work-dlq-not-empty"}})
	require.NoError(t, err)
	require.InDelta(t, 2, aws.ToFloat64(alarms.MetricAlarms[0].Threshold), 0)
	e.requireNoChanges("retention=7", "threshold=2")

	// Drift: the retention changed and the dashboard deleted out of band.
	_, err = logs.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String("/aws/lambda/work-scraper"), RetentionInDays: aws.Int32(30)})
	require.NoError(t, err)
	_, err = cw.DeleteDashboards(ctx, &cloudwatch.DeleteDashboardsInput{DashboardNames: []string{"work"}})
	require.NoError(t, err)
	p = e.plan("retention=7", "threshold=2")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_cloudwatch_log_group.fn":   {tfjson.ActionUpdate},
		"aws_cloudwatch_dashboard.main": {tfjson.ActionCreate},
	}, changes(p))
	e.apply("retention=7", "threshold=2")

	e.destroy("retention=7", "threshold=2")
	lgs, err := logs.DescribeLogGroups(ctx, &cloudwatchlogs.DescribeLogGroupsInput{})
	require.NoError(t, err)
	require.Empty(t, lgs.LogGroups)
	alarms, err = cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{})
	require.NoError(t, err)
	require.Empty(t, alarms.MetricAlarms)
	dashes, err := cw.ListDashboards(ctx, &cloudwatch.ListDashboardsInput{})
	require.NoError(t, err)
	require.Empty(t, dashes.DashboardEntries)
}
