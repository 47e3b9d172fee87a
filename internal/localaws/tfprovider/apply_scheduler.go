package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// aws_scheduler_schedule. Source: hashicorp/terraform-provider-aws
// internal/service/scheduler/schedule.go (resourceScheduleCreate/Read/
// Update/Delete, id "group_name/name", retry on the role's propagation)
// and flex.go (expandTarget, flattenTarget, flattenRetryPolicy). Schedules
// have no tags argument.

func (c *clients) scheduler(ctx context.Context, pc *Config, region string) (*scheduler.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "scheduler")
	return scheduler.NewFromConfig(cfg, func(o *scheduler.Options) { o.BaseEndpoint = ep }), nil
}

func scheduleGone(err error) bool {
	var nf *schedtypes.ResourceNotFoundException
	return errors.As(err, &nf) || isCode(err, "ResourceNotFoundException")
}

// Defaults Scheduler reports for a target without a retry policy
// (Scheduler API reference, RetryPolicy).
const (
	defaultScheduleEventAge = 86400
	defaultScheduleRetries  = 185
)

type scheduleHandler struct{ c *clients }

var scheduleUnsupported = map[string]string{
	"kms_key_arn":                            "the local cloud has no KMS",
	"target.*.ecs_parameters":                "the local scheduler invokes Lambda functions only",
	"target.*.eventbridge_parameters":        "the local scheduler invokes Lambda functions only",
	"target.*.kinesis_parameters":            "the local scheduler invokes Lambda functions only",
	"target.*.sagemaker_pipeline_parameters": "the local scheduler invokes Lambda functions only",
	"target.*.sqs_parameters":                "the local scheduler invokes Lambda functions only",
}

// scheduleID splits "group/name" (ResourceScheduleParseID).
func scheduleID(id string) (group, name string, err error) {
	group, name, ok := strings.Cut(id, "/")
	if !ok || group == "" || name == "" {
		return "", "", fmt.Errorf("schedule ID %q: expected group-name/schedule-name", id)
	}
	return group, name, nil
}

func parseDate(key, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return &t, nil
}

type scheduleFields struct {
	expr, tz, desc, state, after *string
	window                       *schedtypes.FlexibleTimeWindow
	target                       *schedtypes.Target
	start, end                   *time.Time
}

func scheduleInput(p cty.Value) (*scheduleFields, error) {
	f := &scheduleFields{
		expr: strp(p, "schedule_expression"), tz: strp(p, "schedule_expression_timezone"), desc: strp(p, "description"),
		state: strp(p, "state"), after: strp(p, "action_after_completion"),
	}
	var err error
	if f.start, err = parseDate("start_date", str(p, "start_date")); err != nil {
		return nil, err
	}
	if f.end, err = parseDate("end_date", str(p, "end_date")); err != nil {
		return nil, err
	}
	if w := block(p, "flexible_time_window"); known(w) {
		f.window = &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowMode(str(w, "mode")), MaximumWindowInMinutes: int32p(w, "maximum_window_in_minutes")}
	}
	if t := block(p, "target"); known(t) {
		f.target = &schedtypes.Target{Arn: strp(t, "arn"), RoleArn: strp(t, "role_arn"), Input: strp(t, "input")}
		if rp := block(t, "retry_policy"); known(rp) {
			f.target.RetryPolicy = &schedtypes.RetryPolicy{MaximumEventAgeInSeconds: int32p(rp, "maximum_event_age_in_seconds"), MaximumRetryAttempts: int32p(rp, "maximum_retry_attempts")}
		}
		if dl := block(t, "dead_letter_config"); known(dl) {
			f.target.DeadLetterConfig = &schedtypes.DeadLetterConfig{Arn: strp(dl, "arn")}
		}
	}
	return f, nil
}

// roleNotReady matches Scheduler's complaint while a new role cannot be
// assumed yet (schedule.go retries ValidationException "assume role").
func roleNotReady(err error) bool {
	return isCode(err, "ValidationException") && strings.Contains(err.Error(), "assume")
}

// Create is resourceScheduleCreate.
func (h *scheduleHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_scheduler_schedule", req.Config, scheduleUnsupported, sortedKeys(scheduleUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.scheduler(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	f, err := scheduleInput(p)
	if err != nil {
		return cty.NilVal, err
	}
	name := generatedName(str(p, "name"), str(p, "name_prefix"), "")
	in := &scheduler.CreateScheduleInput{
		Name: aws.String(name), GroupName: strp(p, "group_name"), ScheduleExpression: f.expr,
		ScheduleExpressionTimezone: f.tz, Description: f.desc, FlexibleTimeWindow: f.window, Target: f.target,
		StartDate: f.start, EndDate: f.end,
	}
	if f.state != nil {
		in.State = schedtypes.ScheduleState(*f.state)
	}
	if f.after != nil {
		in.ActionAfterCompletion = schedtypes.ActionAfterCompletion(*f.after)
	}
	if _, err := retryWhen(ctx, iamPropagation, func(ctx context.Context) (*scheduler.CreateScheduleOutput, error) {
		return cl.CreateSchedule(ctx, in)
	}, roleNotReady); err != nil {
		return cty.NilVal, fmt.Errorf("creating EventBridge Scheduler Schedule (%s): %w", name, err)
	}
	group := str(p, "group_name")
	if group == "" {
		group = "default"
	}
	return h.readBack(ctx, cl, req, group+"/"+name)
}

func (h *scheduleHandler) readBack(ctx context.Context, cl *scheduler.Client, req *ApplyRequest, id string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(id)}))
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading EventBridge Scheduler Schedule (%s): not found after apply", id))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceScheduleRead: GetSchedule.
func (h *scheduleHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.scheduler(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

// dateState records a date read back: the reference string when it is the
// same instant, else RFC 3339 in UTC.
func dateState(t *time.Time, ref cty.Value) cty.Value {
	if t == nil {
		return cty.NullVal(cty.String)
	}
	if known(ref) && ref.Type() == cty.String {
		if rt, err := time.Parse(time.RFC3339, ref.AsString()); err == nil && rt.Equal(*t) {
			return ref
		}
	}
	return sv(t.UTC().Format(time.RFC3339))
}

func (h *scheduleHandler) read(ctx context.Context, cl *scheduler.Client, sch *tfjson.SchemaBlock, cur cty.Value) (cty.Value, error) {
	id := str(cur, "id")
	group, name, err := scheduleID(id)
	if err != nil {
		return cty.NilVal, err
	}
	out, err := cl.GetSchedule(ctx, &scheduler.GetScheduleInput{GroupName: aws.String(group), Name: aws.String(name)})
	if scheduleGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading EventBridge Scheduler Schedule (%s): %w", id, err)
	}
	vals := map[string]cty.Value{
		"id":                           sv(id),
		"arn":                          sv(aws.ToString(out.Arn)),
		"action_after_completion":      sv(string(out.ActionAfterCompletion)),
		"description":                  svp(out.Description),
		"group_name":                   sv(aws.ToString(out.GroupName)),
		"kms_key_arn":                  svp(out.KmsKeyArn),
		"name":                         sv(aws.ToString(out.Name)),
		"name_prefix":                  namePrefixFromName(aws.ToString(out.Name), ""),
		"schedule_expression":          sv(aws.ToString(out.ScheduleExpression)),
		"schedule_expression_timezone": sv(aws.ToString(out.ScheduleExpressionTimezone)),
		"state":                        sv(string(out.State)),
		"start_date":                   dateState(out.StartDate, getAttr(cur, "start_date")),
		"end_date":                     dateState(out.EndDate, getAttr(cur, "end_date")),
	}
	if w := out.FlexibleTimeWindow; w != nil {
		vals["flexible_time_window"] = blockOf(nestedType(sch, "flexible_time_window"),
			map[string]cty.Value{"mode": sv(string(w.Mode)), "maximum_window_in_minutes": ivp32(w.MaximumWindowInMinutes)})
	}
	if t := out.Target; t != nil {
		curT := block(cur, "target")
		m := map[string]cty.Value{"arn": svp(t.Arn), "role_arn": svp(t.RoleArn), "input": svp(t.Input)}
		if known(getAttr(curT, "input")) && t.Input != nil {
			m["input"] = jsonOrString(*t.Input, getAttr(curT, "input"))
		}
		// retry_policy: AWS reports its defaults for a target without one;
		// as for other Optional+Computed blocks, they are recorded only
		// where the state has the block or the values differ.
		if rp := t.RetryPolicy; rp != nil {
			age, tries := aws.ToInt32(rp.MaximumEventAgeInSeconds), aws.ToInt32(rp.MaximumRetryAttempts)
			if age != defaultScheduleEventAge || tries != defaultScheduleRetries || len(blocks(curT, "retry_policy")) > 0 {
				m["retry_policy"] = blockOf(nestedType(sch, "target", "retry_policy"),
					map[string]cty.Value{"maximum_event_age_in_seconds": ivp32(rp.MaximumEventAgeInSeconds), "maximum_retry_attempts": ivp32(rp.MaximumRetryAttempts)})
			}
		}
		if dl := t.DeadLetterConfig; dl != nil && aws.ToString(dl.Arn) != "" {
			m["dead_letter_config"] = blockOf(nestedType(sch, "target", "dead_letter_config"), map[string]cty.Value{"arn": svp(dl.Arn)})
		}
		vals["target"] = blockOf(nestedType(sch, "target"), m)
	}
	return with(cur, vals), nil
}

// jsonOrString keeps the reference string when it is the same JSON value
// (target input is a free-form string, usually JSON).
func jsonOrString(api string, ref cty.Value) cty.Value {
	if known(ref) && jsonEqual(ref.AsString(), api) {
		return ref
	}
	return sv(api)
}

// Update is resourceScheduleUpdate: UpdateSchedule with the whole
// definition (the API replaces the schedule).
func (h *scheduleHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_scheduler_schedule", req.Config, scheduleUnsupported, sortedKeys(scheduleUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.scheduler(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	id := str(req.Prior, "id")
	group, name, err := scheduleID(id)
	if err != nil {
		return cty.NilVal, err
	}
	f, err := scheduleInput(p)
	if err != nil {
		return cty.NilVal, err
	}
	in := &scheduler.UpdateScheduleInput{
		Name: aws.String(name), GroupName: aws.String(group), ScheduleExpression: f.expr,
		ScheduleExpressionTimezone: f.tz, Description: f.desc, FlexibleTimeWindow: f.window, Target: f.target,
		StartDate: f.start, EndDate: f.end,
	}
	if f.state != nil {
		in.State = schedtypes.ScheduleState(*f.state)
	}
	if f.after != nil {
		in.ActionAfterCompletion = schedtypes.ActionAfterCompletion(*f.after)
	}
	if _, err := retryWhen(ctx, iamPropagation, func(ctx context.Context) (*scheduler.UpdateScheduleOutput, error) {
		return cl.UpdateSchedule(ctx, in)
	}, roleNotReady); err != nil {
		return cty.NilVal, fmt.Errorf("updating EventBridge Scheduler Schedule (%s): %w", id, err)
	}
	return h.readBack(ctx, cl, req, id)
}

// Delete is resourceScheduleDelete.
func (h *scheduleHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.scheduler(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	group, name, err := scheduleID(id)
	if err != nil {
		return err
	}
	if _, err := cl.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{GroupName: aws.String(group), Name: aws.String(name)}); err != nil && !scheduleGone(err) {
		return fmt.Errorf("deleting EventBridge Scheduler Schedule (%s): %w", id, err)
	}
	return nil
}

// Import takes "group/name".
func (h *scheduleHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	if _, _, err := scheduleID(req.ID); err != nil {
		return cty.NilVal, err
	}
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}
