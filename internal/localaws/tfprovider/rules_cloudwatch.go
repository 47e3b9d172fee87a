package tfprovider

import (
	"errors"
	"regexp"

	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// CloudWatch rules; both resources are SDKv2.
//
// aws_cloudwatch_log_group, internal/service/logs/group.go: retention_in_days
// Default 0 (never expire) and IntInSlice of the retention periods; name and
// name_prefix ForceNew; skip_destroy Default false. The list of periods is
// the CloudWatch Logs API's (PutRetentionPolicy, retentionInDays) plus 0.
// log_group_class is ForceNew too (the 2026 revision of group.go; a log
// group's class cannot change).
//
// aws_cloudwatch_metric_alarm, internal/service/cloudwatch/metric_alarm.go
// (6.x revision with evaluation_criteria): actions_enabled Default true,
// treat_missing_data Default "missing" (case-insensitive enum),
// metric_query.return_data Default false; alarm_name ForceNew, 1–255
// characters; comparison_operator, statistic and unit enums; period 10, 20,
// 30 or a multiple of 60; evaluation_periods and datapoints_to_alarm ≥ 1;
// CustomizeDiff resourceMetricAlarmCustomizeDiff: comparison_operator and
// evaluation_periods are required for metric alarms, and exactly one of
// statistic or extended_statistic goes with metric_name.
func init() {
	resourceRules["aws_cloudwatch_log_group"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"retention_in_days": cty.NumberIntVal(0),
			"skip_destroy":      cty.False,
		},
		ForceNew: []string{"name", "name_prefix", "log_group_class"},
		Validate: []check{
			{Path: "retention_in_days", Fn: intInSlice(0, 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653)},
			{Path: "name", Fn: allOf(stringLenBetween(1, 512), stringMatch(logGroupNameRE, ""))},
			{Path: "name_prefix", Fn: allOf(stringLenBetween(1, 512-uniqueIDSuffixLength), stringMatch(logGroupNameRE, ""))},
			{Path: "log_group_class", Fn: stringInSlice("STANDARD", "INFREQUENT_ACCESS", "DELIVERY")},
		},
	}

	// aws_cloudwatch_dashboard, internal/service/cloudwatch/dashboard.go:
	// SDKv2; dashboard_name ForceNew; dashboard_body must be JSON (the
	// provider also normalises it; apply keeps an equivalent document's
	// text, see jsonState).
	resourceRules["aws_cloudwatch_dashboard"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"dashboard_name"},
		Validate: []check{{Path: "dashboard_body", Fn: stringIsJSON}},
	}

	period := anyOf(intInSlice(10, 20, 30), intDivisibleBy(60))
	resourceRules["aws_cloudwatch_metric_alarm"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"actions_enabled":            cty.True,
			"treat_missing_data":         cty.StringVal("missing"),
			"metric_query.*.return_data": cty.False,
		},
		ForceNew: []string{"alarm_name"},
		Validate: []check{
			{Path: "alarm_name", Fn: stringLenBetween(1, 255)},
			{Path: "alarm_description", Fn: stringLenBetween(0, 1024)},
			{Path: "comparison_operator", Fn: enumOf(cwtypes.ComparisonOperator("").Values())},
			{Path: "statistic", Fn: enumOf(cwtypes.Statistic("").Values())},
			{Path: "unit", Fn: enumOf(cwtypes.StandardUnit("").Values())},
			{Path: "treat_missing_data", Fn: stringInSliceFold("breaching", "notBreaching", "ignore", "missing")},
			{Path: "evaluate_low_sample_count_percentiles", Fn: stringInSliceFold("evaluate", "ignore")},
			{Path: "evaluation_periods", Fn: intAtLeast(1)},
			{Path: "datapoints_to_alarm", Fn: intAtLeast(1)},
			{Path: "period", Fn: period},
			{Path: "metric_name", Fn: stringLenBetween(1, 255)},
			{Path: "namespace", Fn: stringLenBetween(1, 255)},
			{Path: "ok_actions", Fn: maxElements(5)},
			{Path: "insufficient_data_actions", Fn: maxElements(5)},
			{Path: "metric_query.*.metric.*.period", Fn: anyOf(intInSlice(1, 5, 10, 20, 30), intDivisibleBy(60))},
		},
		Customize: customizeAlarm,
	}
}

// logGroupNameRE is validLogGroupName in internal/service/logs/validate.go.
var logGroupNameRE = regexp.MustCompile(`^[0-9A-Za-z_./#-]+$`)

// intDivisibleBy is validation.IntDivisibleBy.
func intDivisibleBy(d int64) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		i, err := asInt(key, v)
		if err != nil {
			return err
		}
		if i%d != 0 {
			return errors.New("expected " + key + " to be divisible by " + cty.NumberIntVal(d).AsBigFloat().String() + ", got " + v.AsBigFloat().String())
		}
		return nil
	}
}

func customizeAlarm(_ *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	mn, mq := planned.GetAttr("metric_name"), planned.GetAttr("metric_query")
	st, est := planned.GetAttr("statistic"), planned.GetAttr("extended_statistic")
	if !mn.IsKnown() || !mq.IsKnown() || !st.IsKnown() || !est.IsKnown() {
		return planned, nil
	}
	metricName := !sdkZero(mn)
	metricQuery := !mq.IsNull() && mq.LengthInt() > 0
	var diags []*tfprotov5.Diagnostic
	if metricName || metricQuery {
		if co := planned.GetAttr("comparison_operator"); co.IsKnown() && sdkZero(co) {
			diags = append(diags, errorDiag("comparison_operator is required for traditional metric alarms", "", nil))
		}
		if ep := planned.GetAttr("evaluation_periods"); ep.IsKnown() && sdkZero(ep) {
			diags = append(diags, errorDiag("evaluation_periods is required for traditional metric alarms", "", nil))
		}
	}
	if metricName && sdkZero(st) == sdkZero(est) {
		diags = append(diags, errorDiag("One of `statistic` or `extended_statistic` must be set for a cloudwatch metric alarm", "", nil))
	}
	return planned, diags
}
