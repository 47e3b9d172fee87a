package tfprovider

import (
	"fmt"
	"regexp"
	"strings"

	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/zclconf/go-cty/cty"
)

// aws_scheduler_schedule is an SDKv2 resource. Source:
// hashicorp/terraform-provider-aws internal/service/scheduler/schedule.go
// (commit ba2931406ac6b8627b6360a3b0194a255b070c8e):
//   - Defaults: schedule_expression_timezone "UTC", state ENABLED,
//     target.retry_policy maximum_event_age_in_seconds 86400 and
//     maximum_retry_attempts 185, target.ecs_parameters task_count 1 and
//     network_configuration assign_public_ip false;
//   - ForceNew: name, name_prefix, group_name;
//   - ranges: description ≤ 512, flexible_time_window
//     maximum_window_in_minutes 1–1440 and mode enum, retry_policy
//     maximum_event_age_in_seconds 60–86400 and maximum_retry_attempts
//     0–185, schedule_expression 1–256 characters, timezone 1–50, name
//     1–64 of [0-9A-Za-z_.-].
//
// Stricter than the provider: the schedule_expression shape (rate(),
// cron() with six fields, or at(yyyy-mm-ddThh:mm:ss)) from the EventBridge
// Scheduler User Guide, "Schedule types"; the provider leaves it to the API.
func init() {
	nameRE := regexp.MustCompile(`^[0-9A-Za-z_.-]+$`)
	resourceRules["aws_scheduler_schedule"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"schedule_expression_timezone": cty.StringVal("UTC"),
			"state":                        cty.StringVal(string(schedtypes.ScheduleStateEnabled)),
			"target.*.retry_policy.*.maximum_event_age_in_seconds":               cty.NumberIntVal(86400),
			"target.*.retry_policy.*.maximum_retry_attempts":                     cty.NumberIntVal(185),
			"target.*.ecs_parameters.*.task_count":                               cty.NumberIntVal(1),
			"target.*.ecs_parameters.*.network_configuration.*.assign_public_ip": cty.False,
		},
		ForceNew: []string{"name", "name_prefix", "group_name"},
		Validate: []check{
			{Path: "name", Fn: allOf(stringLenBetween(1, 64), stringMatch(nameRE, "The name must consist of alphanumerics, hyphens, and underscores."))},
			{Path: "name_prefix", Fn: allOf(stringLenBetween(1, 64-uniqueIDSuffixLength), stringMatch(nameRE, "The name must consist of alphanumerics, hyphens, and underscores."))},
			{Path: "group_name", Fn: stringLenBetween(1, 64)},
			{Path: "description", Fn: stringLenBetween(0, 512)},
			{Path: "schedule_expression", Fn: allOf(stringLenBetween(1, 256), scheduleExpression)},
			{Path: "schedule_expression_timezone", Fn: stringLenBetween(1, 50)},
			{Path: "state", Fn: enumOf(schedtypes.ScheduleState("").Values())},
			{Path: "action_after_completion", Fn: enumOf(schedtypes.ActionAfterCompletion("").Values())},
			{Path: "flexible_time_window.*.mode", Fn: enumOf(schedtypes.FlexibleTimeWindowMode("").Values())},
			{Path: "flexible_time_window.*.maximum_window_in_minutes", Fn: intBetween(1, 1440)},
			{Path: "target.*.retry_policy.*.maximum_event_age_in_seconds", Fn: intBetween(60, 86400)},
			{Path: "target.*.retry_policy.*.maximum_retry_attempts", Fn: intBetween(0, 185)},
		},
	}
}

var (
	rateExprRE = regexp.MustCompile(`^rate\(([1-9][0-9]*) (minute|minutes|hour|hours|day|days)\)$`)
	atExprRE   = regexp.MustCompile(`^at\([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\)$`)
)

// scheduleExpression accepts rate(value unit), cron(six fields) and
// at(yyyy-mm-ddThh:mm:ss).
func scheduleExpression(key string, v cty.Value) error {
	s := v.AsString()
	switch {
	case rateExprRE.MatchString(s), atExprRE.MatchString(s):
		return nil
	case strings.HasPrefix(s, "cron(") && strings.HasSuffix(s, ")"):
		if n := len(strings.Fields(s[len("cron(") : len(s)-1])); n != 6 {
			return fmt.Errorf("%s: a cron expression has 6 fields (minutes hours day-of-month month day-of-week year), got %d in %q", key, n, s)
		}
		return nil
	}
	return fmt.Errorf("%s: %q is not a schedule expression: use rate(value unit), cron(fields) or at(yyyy-mm-ddThh:mm:ss)", key, s)
}
