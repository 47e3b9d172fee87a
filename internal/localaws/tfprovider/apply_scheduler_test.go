package tfprovider_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// TestApplySchedule applies EventBridge Scheduler schedules.
func TestApplySchedule(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "scheduler")
	ctx := context.Background()
	sc := scheduler.NewFromConfig(e.cfg)

	e.apply()
	st := e.state()
	s := attrs(t, st, "aws_scheduler_schedule.reconciler")
	require.Equal(t, "default/reconciler", s["id"], "the id is group/name")
	require.Equal(t, "arn:aws:scheduler:us-east-1:000000000000:schedule/default/reconciler", s["arn"])
	require.Equal(t, "default", s["group_name"])
	require.Equal(t, "UTC", s["schedule_expression_timezone"])
	require.Equal(t, "NONE", s["action_after_completion"])
	plain := attrs(t, st, "aws_scheduler_schedule.plain")
	require.Equal(t, []any{}, plain["target"].([]any)[0].(map[string]any)["retry_policy"],
		"AWS's default retry policy is not recorded for a target without one")

	e.requireNoChanges()

	p := e.plan("expression=rate(1 minute)")
	require.Equal(t, map[string]tfjson.Actions{"aws_scheduler_schedule.reconciler": {tfjson.ActionUpdate}}, changes(p))
	e.apply("expression=rate(1 minute)")
	got, err := sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("reconciler")})
	require.NoError(t, err)
	require.Equal(t, "rate(1 minute)", aws.ToString(got.ScheduleExpression))
	e.requireNoChanges("expression=rate(1 minute)")

	// Drift: disabled out of band.
	got.State = "DISABLED"
	_, err = sc.UpdateSchedule(ctx, &scheduler.UpdateScheduleInput{
		Name: got.Name, ScheduleExpression: got.ScheduleExpression, FlexibleTimeWindow: got.FlexibleTimeWindow, Target: got.Target, State: got.State,
	})
	require.NoError(t, err)
	p = e.plan("expression=rate(1 minute)")
	require.Equal(t, map[string]tfjson.Actions{"aws_scheduler_schedule.reconciler": {tfjson.ActionUpdate}}, changes(p))
	e.apply("expression=rate(1 minute)")

	e.destroy("expression=rate(1 minute)")
	left, err := sc.ListSchedules(ctx, &scheduler.ListSchedulesInput{})
	require.NoError(t, err)
	require.Empty(t, left.Schedules)
}
