package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	tfjson "github.com/hashicorp/terraform-json"
)

// stateRoles returns the names of the IAM roles in a Terraform state: IAM
// has no listing in the local cloud, so the check after destroy asks for
// each by name.
func stateRoles(st *tfjson.State) []string {
	var out []string
	var walk func(m *tfjson.StateModule)
	walk = func(m *tfjson.StateModule) {
		if m == nil {
			return
		}
		for _, r := range m.Resources {
			if r.Type == "aws_iam_role" {
				if v, ok := r.AttributeValues["name"].(string); ok {
					out = append(out, v)
				}
			}
		}
		for _, c := range m.ChildModules {
			walk(c)
		}
	}
	if st != nil && st.Values != nil {
		walk(st.Values.RootModule)
	}
	return out
}

// leftovers lists what is left in the local cloud, through the same SDK
// calls a user would make: tables, queues, functions, event source
// mappings, pipes, schedules, alarms, dashboards, log groups, and the
// given roles.
func leftovers(ctx context.Context, cfg aws.Config, roles []string) ([]string, error) {
	var left []string
	var errs []error
	note := func(kind string, names ...string) {
		for _, n := range names {
			left = append(left, kind+" "+n)
		}
	}
	if out, err := dynamodb.NewFromConfig(cfg).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		errs = append(errs, err)
	} else {
		note("table", out.TableNames...)
	}
	if out, err := sqs.NewFromConfig(cfg).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
		errs = append(errs, err)
	} else {
		note("queue", out.QueueUrls...)
	}
	lc := lambda.NewFromConfig(cfg)
	if out, err := lc.ListFunctions(ctx, &lambda.ListFunctionsInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, f := range out.Functions {
			note("function", aws.ToString(f.FunctionName))
		}
	}
	if out, err := lc.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, m := range out.EventSourceMappings {
			note("event source mapping", aws.ToString(m.UUID))
		}
	}
	if out, err := pipes.NewFromConfig(cfg).ListPipes(ctx, &pipes.ListPipesInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, p := range out.Pipes {
			note("pipe", aws.ToString(p.Name))
		}
	}
	if out, err := scheduler.NewFromConfig(cfg).ListSchedules(ctx, &scheduler.ListSchedulesInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, s := range out.Schedules {
			note("schedule", aws.ToString(s.Name))
		}
	}
	cw := cloudwatch.NewFromConfig(cfg)
	if out, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, a := range out.MetricAlarms {
			note("alarm", aws.ToString(a.AlarmName))
		}
	}
	if out, err := cw.ListDashboards(ctx, &cloudwatch.ListDashboardsInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, d := range out.DashboardEntries {
			note("dashboard", aws.ToString(d.DashboardName))
		}
	}
	if out, err := cloudwatchlogs.NewFromConfig(cfg).DescribeLogGroups(ctx, &cloudwatchlogs.DescribeLogGroupsInput{}); err != nil {
		errs = append(errs, err)
	} else {
		for _, g := range out.LogGroups {
			note("log group", aws.ToString(g.LogGroupName))
		}
	}
	im := iam.NewFromConfig(cfg)
	for _, r := range roles {
		_, err := im.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(r)})
		var apiErr smithy.APIError
		switch {
		case err == nil:
			note("role", r)
		case errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchEntity":
		default:
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return left, fmt.Errorf("demo: list what destroy left: %w", err)
	}
	return left, nil
}
