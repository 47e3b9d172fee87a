package schedule_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/stretchr/testify/require"
)

func TestAPIScheduleLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("reconcile", "rate(5 minutes)")
	in.Description = aws.String("Runs the reconciler.")
	in.Target.Input = aws.String(`{}`)
	in.State = types.ScheduleStateDisabled
	created, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	arn := "arn:aws:scheduler:us-east-1:000000000000:schedule/default/reconcile"
	require.Equal(t, arn, aws.ToString(created.ScheduleArn))

	got, err := b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("reconcile")})
	require.NoError(t, err)
	// The defaults AWS reports (AWS-recorded GetSchedule responses).
	require.Equal(t, arn, aws.ToString(got.Arn))
	require.Equal(t, "reconcile", aws.ToString(got.Name))
	require.Equal(t, "default", aws.ToString(got.GroupName))
	require.Equal(t, types.ActionAfterCompletionNone, got.ActionAfterCompletion)
	require.Equal(t, "UTC", aws.ToString(got.ScheduleExpressionTimezone))
	require.Equal(t, "rate(5 minutes)", aws.ToString(got.ScheduleExpression))
	require.Equal(t, types.ScheduleStateDisabled, got.State)
	require.Equal(t, "Runs the reconciler.", aws.ToString(got.Description))
	require.Equal(t, types.FlexibleTimeWindowModeOff, got.FlexibleTimeWindow.Mode)
	require.Nil(t, got.FlexibleTimeWindow.MaximumWindowInMinutes)
	require.Equal(t, lambdaARN("reconciler"), aws.ToString(got.Target.Arn))
	require.Equal(t, roleARN, aws.ToString(got.Target.RoleArn))
	require.Equal(t, `{}`, aws.ToString(got.Target.Input))
	require.Equal(t, int32(86400), aws.ToInt32(got.Target.RetryPolicy.MaximumEventAgeInSeconds))
	require.Equal(t, int32(185), aws.ToInt32(got.Target.RetryPolicy.MaximumRetryAttempts))
	require.True(t, start.Equal(aws.ToTime(got.CreationDate)), "CreationDate %v", got.CreationDate)
	require.True(t, start.Equal(aws.ToTime(got.LastModificationDate)))
	require.Nil(t, got.StartDate)
	require.Nil(t, got.EndDate)

	// UpdateSchedule replaces everything: the description goes away.
	b.clock.Advance(time.Minute)
	up := &scheduler.UpdateScheduleInput{
		Name:                       aws.String("reconcile"),
		ScheduleExpression:         aws.String("cron(0/5 * * * ? *)"),
		ScheduleExpressionTimezone: aws.String("Europe/Berlin"),
		FlexibleTimeWindow:         &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeFlexible, MaximumWindowInMinutes: aws.Int32(15)},
		Target: &types.Target{
			Arn: aws.String(lambdaARN("reconciler") + ":live"), RoleArn: aws.String(roleARN),
			RetryPolicy:      &types.RetryPolicy{MaximumEventAgeInSeconds: aws.Int32(300), MaximumRetryAttempts: aws.Int32(2)},
			DeadLetterConfig: &types.DeadLetterConfig{Arn: aws.String("arn:aws:sqs:us-east-1:000000000000:schedule-dlq")},
		},
		ActionAfterCompletion: types.ActionAfterCompletionDelete,
		State:                 types.ScheduleStateDisabled,
	}
	updated, err := b.client.UpdateSchedule(b.ctx, up)
	require.NoError(t, err)
	require.Equal(t, arn, aws.ToString(updated.ScheduleArn))
	got, err = b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("reconcile"), GroupName: aws.String("default")})
	require.NoError(t, err)
	require.Nil(t, got.Description)
	require.Equal(t, "Europe/Berlin", aws.ToString(got.ScheduleExpressionTimezone))
	require.Equal(t, int32(15), aws.ToInt32(got.FlexibleTimeWindow.MaximumWindowInMinutes))
	require.Equal(t, int32(2), aws.ToInt32(got.Target.RetryPolicy.MaximumRetryAttempts))
	require.Equal(t, "arn:aws:sqs:us-east-1:000000000000:schedule-dlq", aws.ToString(got.Target.DeadLetterConfig.Arn))
	require.Nil(t, got.Target.Input)
	require.Equal(t, types.ActionAfterCompletionDelete, got.ActionAfterCompletion)
	require.True(t, start.Equal(aws.ToTime(got.CreationDate)))
	require.True(t, start.Add(time.Minute).Equal(aws.ToTime(got.LastModificationDate)))

	_, err = b.client.DeleteSchedule(b.ctx, &scheduler.DeleteScheduleInput{Name: aws.String("reconcile")})
	require.NoError(t, err)
	_, err = b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("reconcile")})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	// AWS-recorded message.
	require.Equal(t, "Schedule reconcile does not exist.", aws.ToString(notFound.Message))
	_, err = b.client.DeleteSchedule(b.ctx, &scheduler.DeleteScheduleInput{Name: aws.String("reconcile")})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	_, err = b.client.UpdateSchedule(b.ctx, up)
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
}

func TestAPIConflictAndClientToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := createInput("once", "rate(1 hour)")
	in.ClientToken = aws.String("token-1")
	first, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	again, err := b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err, "a retry with the same client token is idempotent")
	require.Equal(t, aws.ToString(first.ScheduleArn), aws.ToString(again.ScheduleArn))

	in.ClientToken = aws.String("token-2")
	_, err = b.client.CreateSchedule(b.ctx, in)
	var conflict *types.ConflictException
	require.ErrorAs(t, err, &conflict)
	requireAPIError(t, err, "ConflictException", http.StatusConflict)
}

func TestAPIValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mod := func(f func(in *scheduler.CreateScheduleInput)) *scheduler.CreateScheduleInput {
		in := createInput("v", "rate(1 minute)")
		f(in)
		return in
	}
	tests := []struct {
		name    string
		in      *scheduler.CreateScheduleInput
		code    string
		status  int
		message string
	}{
		{name: "CronBothDays", in: mod(func(in *scheduler.CreateScheduleInput) { in.ScheduleExpression = aws.String("cron(0 1 * * * *)") }), code: "ValidationException", status: 400, message: "Invalid Schedule Expression cron(0 1 * * * *)."},
		{name: "RateSeconds", in: mod(func(in *scheduler.CreateScheduleInput) { in.ScheduleExpression = aws.String("rate(10 seconds)") }), code: "ValidationException", status: 400, message: "Invalid Schedule Expression rate(10 seconds)."},
		{name: "AtWithZone", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.ScheduleExpression = aws.String("at(2021-12-31T23:59:59Z)")
		}), code: "ValidationException", status: 400, message: "Invalid Schedule Expression at(2021-12-31T23:59:59Z)."},
		{name: "BadName", in: mod(func(in *scheduler.CreateScheduleInput) { in.Name = aws.String("has space") }), code: "ValidationException", status: 400, message: "regular expression pattern"},
		{name: "LongName", in: mod(func(in *scheduler.CreateScheduleInput) { in.Name = aws.String(string(make([]byte, 65))) }), code: "ValidationException", status: 400, message: "length"},
		{name: "SQSTarget", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.Target.Arn = aws.String("arn:aws:sqs:us-east-1:000000000000:work")
		}), code: "ValidationException", status: 400, message: "invokes only AWS Lambda function targets"},
		{name: "OtherTargetParameters", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.Target.SqsParameters = &types.SqsParameters{MessageGroupId: aws.String("g")}
		}), code: "ValidationException", status: 400, message: "invokes only AWS Lambda function targets"},
		{name: "BadRole", in: mod(func(in *scheduler.CreateScheduleInput) { in.Target.RoleArn = aws.String("reconciler-role") }), code: "ValidationException", status: 400, message: "target.roleArn"},
		{name: "InputNotJSON", in: mod(func(in *scheduler.CreateScheduleInput) { in.Target.Input = aws.String("not json") }), code: "ValidationException", status: 400, message: "well-formed JSON"},
		{name: "FlexibleWithoutWindow", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.FlexibleTimeWindow = &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeFlexible}
		}), code: "ValidationException", status: 400, message: "MaximumWindowInMinutes is required"},
		{name: "OffWithWindow", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.FlexibleTimeWindow.MaximumWindowInMinutes = aws.Int32(5)
		}), code: "ValidationException", status: 400, message: "only valid when"},
		{name: "WindowTooLong", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.FlexibleTimeWindow = &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeFlexible, MaximumWindowInMinutes: aws.Int32(1441)}
		}), code: "ValidationException", status: 400, message: "less than or equal to 1440"},
		{name: "ModeUnknown", in: mod(func(in *scheduler.CreateScheduleInput) { in.FlexibleTimeWindow.Mode = "SOMETIMES" }), code: "ValidationException", status: 400, message: "enum value set: [OFF, FLEXIBLE]"},
		{name: "RetryAgeTooShort", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.Target.RetryPolicy = &types.RetryPolicy{MaximumEventAgeInSeconds: aws.Int32(59)}
		}), code: "ValidationException", status: 400, message: "greater than or equal to 60"},
		{name: "RetryAttemptsTooMany", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.Target.RetryPolicy = &types.RetryPolicy{MaximumRetryAttempts: aws.Int32(186)}
		}), code: "ValidationException", status: 400, message: "less than or equal to 185"},
		{name: "BadDLQ", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.Target.DeadLetterConfig = &types.DeadLetterConfig{Arn: aws.String("arn:aws:sns:us-east-1:000000000000:topic")}
		}), code: "ValidationException", status: 400, message: "deadLetterConfig.arn"},
		{name: "BadTimezone", in: mod(func(in *scheduler.CreateScheduleInput) { in.ScheduleExpressionTimezone = aws.String("Mars/Olympus") }), code: "ValidationException", status: 400, message: "Mars/Olympus"},
		{name: "BadState", in: mod(func(in *scheduler.CreateScheduleInput) { in.State = "PAUSED" }), code: "ValidationException", status: 400, message: "enum value set: [ENABLED, DISABLED]"},
		{name: "StartDateLongPast", in: mod(func(in *scheduler.CreateScheduleInput) { in.StartDate = aws.Time(start.Add(-time.Hour)) }), code: "ValidationException", status: 400, message: "5 minutes prior"},
		{name: "EndBeforeStart", in: mod(func(in *scheduler.CreateScheduleInput) {
			in.StartDate = aws.Time(start.Add(time.Hour))
			in.EndDate = aws.Time(start.Add(time.Minute))
		}), code: "ValidationException", status: 400, message: "after the StartDate"},
		{name: "UnknownGroup", in: mod(func(in *scheduler.CreateScheduleInput) { in.GroupName = aws.String("nope") }), code: "ResourceNotFoundException", status: 404, message: "Schedule group nope does not exist."},
	}
	t.Run("Cases", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				_, err := b.client.CreateSchedule(b.ctx, tt.in)
				requireAPIError(t, err, tt.code, tt.status)
				require.Contains(t, err.Error(), tt.message)
			})
		}
	})
	out, err := b.client.ListSchedules(b.ctx, &scheduler.ListSchedulesInput{})
	require.NoError(t, err)
	require.Empty(t, out.Schedules, "refused requests create nothing")
}

func TestAPIListSchedules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.client.CreateScheduleGroup(b.ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("ops")})
	require.NoError(t, err)
	for _, n := range []string{"b-nightly", "a-hourly", "c-weekly"} {
		in := createInput(n, "rate(1 hour)")
		if n == "c-weekly" {
			in.State = types.ScheduleStateDisabled
		}
		_, err := b.client.CreateSchedule(b.ctx, in)
		require.NoError(t, err)
	}
	in := createInput("a-hourly", "rate(1 hour)")
	in.GroupName = aws.String("ops")
	_, err = b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err, "the same name in another group")

	names := func(in *scheduler.ListSchedulesInput) []string {
		t.Helper()
		var out []string
		p := scheduler.NewListSchedulesPaginator(b.client, in)
		for p.HasMorePages() {
			page, err := p.NextPage(b.ctx)
			require.NoError(t, err)
			for _, s := range page.Schedules {
				out = append(out, aws.ToString(s.GroupName)+"/"+aws.ToString(s.Name))
				require.Equal(t, lambdaARN("reconciler"), aws.ToString(s.Target.Arn))
			}
		}
		return out
	}
	require.Equal(t, []string{"default/a-hourly", "default/b-nightly", "default/c-weekly", "ops/a-hourly"}, names(&scheduler.ListSchedulesInput{}))
	require.Equal(t, []string{"default/a-hourly", "default/b-nightly", "default/c-weekly", "ops/a-hourly"}, names(&scheduler.ListSchedulesInput{MaxResults: aws.Int32(1)}))
	require.Equal(t, []string{"ops/a-hourly"}, names(&scheduler.ListSchedulesInput{GroupName: aws.String("ops")}))
	require.Equal(t, []string{"default/a-hourly", "ops/a-hourly"}, names(&scheduler.ListSchedulesInput{NamePrefix: aws.String("a-")}))
	require.Equal(t, []string{"default/c-weekly"}, names(&scheduler.ListSchedulesInput{State: types.ScheduleStateDisabled}))

	_, err = b.client.ListSchedules(b.ctx, &scheduler.ListSchedulesInput{MaxResults: aws.Int32(101)})
	requireAPIError(t, err, "ValidationException", http.StatusBadRequest)
}

func TestAPIGroupsAndTags(t *testing.T) {
	t.Parallel()
	b := setup(t)
	def, err := b.client.GetScheduleGroup(b.ctx, &scheduler.GetScheduleGroupInput{Name: aws.String("default")})
	require.NoError(t, err)
	require.Equal(t, "arn:aws:scheduler:us-east-1:000000000000:schedule-group/default", aws.ToString(def.Arn))
	require.Equal(t, types.ScheduleGroupStateActive, def.State)

	created, err := b.client.CreateScheduleGroup(b.ctx, &scheduler.CreateScheduleGroupInput{
		Name: aws.String("ops"), Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("scrape")}},
	})
	require.NoError(t, err)
	arn := aws.ToString(created.ScheduleGroupArn)
	require.Equal(t, "arn:aws:scheduler:us-east-1:000000000000:schedule-group/ops", arn)
	_, err = b.client.CreateScheduleGroup(b.ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("ops")})
	requireAPIError(t, err, "ConflictException", http.StatusConflict)

	groups, err := b.client.ListScheduleGroups(b.ctx, &scheduler.ListScheduleGroupsInput{})
	require.NoError(t, err)
	require.Len(t, groups.ScheduleGroups, 2)
	require.Equal(t, "default", aws.ToString(groups.ScheduleGroups[0].Name))
	require.Equal(t, "ops", aws.ToString(groups.ScheduleGroups[1].Name))

	_, err = b.client.TagResource(b.ctx, &scheduler.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("local")}}})
	require.NoError(t, err)
	_, err = b.client.UntagResource(b.ctx, &scheduler.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team"}})
	require.NoError(t, err)
	tags, err := b.client.ListTagsForResource(b.ctx, &scheduler.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, []types.Tag{{Key: aws.String("env"), Value: aws.String("local")}}, tags.Tags)
	_, err = b.client.ListTagsForResource(b.ctx, &scheduler.ListTagsForResourceInput{ResourceArn: aws.String("arn:aws:scheduler:us-east-1:000000000000:schedule-group/nope")})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)

	in := createInput("job", "rate(1 day)")
	in.GroupName = aws.String("ops")
	_, err = b.client.CreateSchedule(b.ctx, in)
	require.NoError(t, err)
	_, err = b.client.DeleteScheduleGroup(b.ctx, &scheduler.DeleteScheduleGroupInput{Name: aws.String("ops")})
	require.NoError(t, err)
	_, err = b.client.GetSchedule(b.ctx, &scheduler.GetScheduleInput{Name: aws.String("job"), GroupName: aws.String("ops")})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	_, err = b.client.GetScheduleGroup(b.ctx, &scheduler.GetScheduleGroupInput{Name: aws.String("ops")})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	_, err = b.client.DeleteScheduleGroup(b.ctx, &scheduler.DeleteScheduleGroupInput{Name: aws.String("default")})
	requireAPIError(t, err, "ValidationException", http.StatusBadRequest)
}
