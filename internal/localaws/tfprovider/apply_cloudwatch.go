package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/zclconf/go-cty/cty"
)

// CloudWatch handlers. Source: hashicorp/terraform-provider-aws
// internal/service/cloudwatch/metric_alarm.go (resourceMetricAlarmCreate/
// Read/Update/Delete, expandPutMetricAlarmInput; id = alarm_name) and
// dashboard.go (resourceDashboardPut/Read/Delete; id = dashboard_name).

func (c *clients) cloudwatch(ctx context.Context, pc *Config, region string) (*cloudwatch.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "cloudwatch")
	return cloudwatch.NewFromConfig(cfg, func(o *cloudwatch.Options) { o.BaseEndpoint = ep }), nil
}

type alarmHandler struct{ c *clients }

var alarmUnsupported = map[string]string{
	"metric_query":        "metric math is not emulated by the local cloud",
	"evaluation_criteria": "PromQL alarms are not emulated by the local cloud",
	"evaluation_interval": "PromQL alarms are not emulated by the local cloud",
	"threshold_metric_id": "anomaly detection is not emulated by the local cloud",
}

// alarmInput is expandPutMetricAlarmInput.
func alarmInput(p cty.Value, pc *Config) *cloudwatch.PutMetricAlarmInput {
	in := &cloudwatch.PutMetricAlarmInput{
		AlarmName:                        strp(p, "alarm_name"),
		ActionsEnabled:                   boolp(p, "actions_enabled"),
		AlarmActions:                     strs(p, "alarm_actions"),
		AlarmDescription:                 strp(p, "alarm_description"),
		ComparisonOperator:               cwtypes.ComparisonOperator(str(p, "comparison_operator")),
		DatapointsToAlarm:                int32p(p, "datapoints_to_alarm"),
		EvaluateLowSampleCountPercentile: strp(p, "evaluate_low_sample_count_percentiles"),
		EvaluationPeriods:                int32p(p, "evaluation_periods"),
		ExtendedStatistic:                strp(p, "extended_statistic"),
		InsufficientDataActions:          strs(p, "insufficient_data_actions"),
		MetricName:                       strp(p, "metric_name"),
		Namespace:                        strp(p, "namespace"),
		OKActions:                        strs(p, "ok_actions"),
		Period:                           int32p(p, "period"),
		Statistic:                        cwtypes.Statistic(str(p, "statistic")),
		TreatMissingData:                 strp(p, "treat_missing_data"),
		Unit:                             cwtypes.StandardUnit(str(p, "unit")),
	}
	if t := getAttr(p, "threshold"); known(t) {
		f, _ := t.AsBigFloat().Float64()
		in.Threshold = aws.Float64(f)
	}
	dims := strMap(p, "dimensions")
	for _, k := range sortedKeys(dims) {
		in.Dimensions = append(in.Dimensions, cwtypes.Dimension{Name: aws.String(k), Value: aws.String(dims[k])})
	}
	for _, k := range sortedKeys(tagsIn(p, pc)) {
		in.Tags = append(in.Tags, cwtypes.Tag{Key: aws.String(k), Value: aws.String(tagsIn(p, pc)[k])})
	}
	return in
}

// Create is resourceMetricAlarmCreate: PutMetricAlarm with tags, then Read.
func (h *alarmHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_cloudwatch_metric_alarm", req.Config, alarmUnsupported, sortedKeys(alarmUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.cloudwatch(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(p, "alarm_name")
	if _, err := cl.PutMetricAlarm(ctx, alarmInput(p, pc)); err != nil {
		return cty.NilVal, fmt.Errorf("creating CloudWatch Metric Alarm (%s): %w", name, err)
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *alarmHandler) readBack(ctx context.Context, cl *cloudwatch.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading CloudWatch Metric Alarm (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceMetricAlarmRead: DescribeAlarms by name.
func (h *alarmHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.cloudwatch(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *alarmHandler) read(ctx context.Context, cl *cloudwatch.Client, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{name}, AlarmTypes: []cwtypes.AlarmType{cwtypes.AlarmTypeMetricAlarm}})
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading CloudWatch Metric Alarm (%s): %w", name, err)
	}
	var a *cwtypes.MetricAlarm
	for i := range out.MetricAlarms {
		if aws.ToString(out.MetricAlarms[i].AlarmName) == name {
			a = &out.MetricAlarms[i]
		}
	}
	if a == nil {
		return cty.NullVal(cur.Type()), nil
	}
	dims := map[string]string{}
	for _, d := range a.Dimensions {
		dims[aws.ToString(d.Name)] = aws.ToString(d.Value)
	}
	vals := map[string]cty.Value{
		"id":                                    sv(name),
		"arn":                                   sv(aws.ToString(a.AlarmArn)),
		"alarm_name":                            sv(name),
		"actions_enabled":                       bvp(a.ActionsEnabled),
		"alarm_actions":                         setOf(a.AlarmActions),
		"alarm_description":                     svp(a.AlarmDescription),
		"comparison_operator":                   sv(string(a.ComparisonOperator)),
		"datapoints_to_alarm":                   ivp32(a.DatapointsToAlarm),
		"dimensions":                            stringMap(dims),
		"evaluate_low_sample_count_percentiles": sv(aws.ToString(a.EvaluateLowSampleCountPercentile)),
		"evaluation_periods":                    ivp32(a.EvaluationPeriods),
		"extended_statistic":                    svp(a.ExtendedStatistic),
		"insufficient_data_actions":             setOf(a.InsufficientDataActions),
		"metric_name":                           svp(a.MetricName),
		"namespace":                             svp(a.Namespace),
		"ok_actions":                            setOf(a.OKActions),
		"period":                                ivp32(a.Period),
		"statistic":                             sv(string(a.Statistic)),
		"treat_missing_data":                    svp(a.TreatMissingData),
		"unit":                                  sv(string(a.Unit)),
		"threshold_metric_id":                   svp(a.ThresholdMetricId),
	}
	// DatapointsToAlarm defaults to EvaluationPeriods (PutMetricAlarm API
	// reference). AWS omits it when it was not set; the local cloud
	// reports the default. The default is recorded as unset where the
	// state has it unset, so both read the same.
	if ref := getAttr(cur, "datapoints_to_alarm"); !known(ref) && a.DatapointsToAlarm != nil && aws.ToInt32(a.DatapointsToAlarm) == aws.ToInt32(a.EvaluationPeriods) {
		vals["datapoints_to_alarm"] = cty.NullVal(cty.Number)
	}
	if a.Threshold != nil {
		vals["threshold"] = cty.NumberVal(new(big.Float).SetFloat64(*a.Threshold))
		if ref := getAttr(cur, "threshold"); known(ref) && ref.Type() == cty.Number {
			if f, _ := ref.AsBigFloat().Float64(); f == *a.Threshold {
				vals["threshold"] = ref
			}
		}
	}
	tags, err := cl.ListTagsForResource(ctx, &cloudwatch.ListTagsForResourceInput{ResourceARN: a.AlarmArn})
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for CloudWatch Metric Alarm (%s): %w", name, err)
	}
	apiTags := map[string]string{}
	for _, t := range tags.Tags {
		apiTags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, apiTags)
	return with(cur, vals), nil
}

// Update is resourceMetricAlarmUpdate: PutMetricAlarm with the whole
// definition, then tag changes.
func (h *alarmHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_cloudwatch_metric_alarm", req.Config, alarmUnsupported, sortedKeys(alarmUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.cloudwatch(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(req.Prior, "id")
	in := alarmInput(p, pc)
	in.Tags = nil // tags are applied below, by difference
	if _, err := cl.PutMetricAlarm(ctx, in); err != nil {
		return cty.NilVal, fmt.Errorf("updating CloudWatch Metric Alarm (%s): %w", name, err)
	}
	set, remove := tagDiff(tagsIn(req.Prior, pc), tagsIn(p, pc))
	arnStr := aws.String(str(req.Prior, "arn"))
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &cloudwatch.UntagResourceInput{ResourceARN: arnStr, TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging CloudWatch Metric Alarm (%s): %w", name, err)
		}
	}
	if len(set) > 0 {
		tin := &cloudwatch.TagResourceInput{ResourceARN: arnStr}
		keys := sortedKeys(set)
		sort.Strings(keys)
		for _, k := range keys {
			tin.Tags = append(tin.Tags, cwtypes.Tag{Key: aws.String(k), Value: aws.String(set[k])})
		}
		if _, err := cl.TagResource(ctx, tin); err != nil {
			return cty.NilVal, fmt.Errorf("tagging CloudWatch Metric Alarm (%s): %w", name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

// Delete is resourceMetricAlarmDelete: DeleteAlarms.
func (h *alarmHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.cloudwatch(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	if _, err := cl.DeleteAlarms(ctx, &cloudwatch.DeleteAlarmsInput{AlarmNames: []string{name}}); err != nil && !isCode(err, "ResourceNotFound", "ResourceNotFoundException") {
		return fmt.Errorf("deleting CloudWatch Metric Alarm (%s): %w", name, err)
	}
	return nil
}

// Import takes the alarm name.
func (h *alarmHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "alarm_name": sv(req.ID)}), nil
}

type dashboardHandler struct{ c *clients }

func dashboardGone(err error) bool {
	var nf *cwtypes.ResourceNotFound
	var nf2 *cwtypes.ResourceNotFoundException
	return errors.As(err, &nf) || errors.As(err, &nf2) || isCode(err, "ResourceNotFound", "ResourceNotFoundException")
}

func (h *dashboardHandler) put(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	pc, p := req.Provider, req.Planned
	cl, err := h.c.cloudwatch(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(p, "dashboard_name")
	if _, err := cl.PutDashboard(ctx, &cloudwatch.PutDashboardInput{DashboardName: aws.String(name), DashboardBody: strp(p, "dashboard_body")}); err != nil {
		return cty.NilVal, fmt.Errorf("putting CloudWatch Dashboard (%s): %w", name, err)
	}
	st, err := h.read(ctx, cl, with(p, map[string]cty.Value{"id": sv(name)}))
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading CloudWatch Dashboard (%s): not found after put", name))
	}
	return settle(req.Schema.Block, st, p), nil
}

// Create is resourceDashboardPut.
func (h *dashboardHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

// Update is resourceDashboardPut again.
func (h *dashboardHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.put(ctx, req)
}

// Read is resourceDashboardRead: GetDashboard; the body is recorded as the
// state's string when it is the same JSON document.
func (h *dashboardHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.cloudwatch(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *dashboardHandler) read(ctx context.Context, cl *cloudwatch.Client, cur cty.Value) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.GetDashboard(ctx, &cloudwatch.GetDashboardInput{DashboardName: aws.String(name)})
	if dashboardGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading CloudWatch Dashboard (%s): %w", name, err)
	}
	return with(cur, map[string]cty.Value{
		"id":             sv(name),
		"dashboard_name": sv(aws.ToString(out.DashboardName)),
		"dashboard_arn":  sv(aws.ToString(out.DashboardArn)),
		"dashboard_body": jsonState(aws.ToString(out.DashboardBody), getAttr(cur, "dashboard_body")),
	}), nil
}

// Delete is resourceDashboardDelete: DeleteDashboards.
func (h *dashboardHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.cloudwatch(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	if _, err := cl.DeleteDashboards(ctx, &cloudwatch.DeleteDashboardsInput{DashboardNames: []string{name}}); err != nil && !dashboardGone(err) {
		return fmt.Errorf("deleting CloudWatch Dashboard (%s): %w", name, err)
	}
	return nil
}

// Import takes the dashboard name.
func (h *dashboardHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "dashboard_name": sv(req.ID)}), nil
}
