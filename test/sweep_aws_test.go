//go:build aws

package test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// purposeTag is the tag every resource of the suite carries (Prepare);
// its Deployment tag is the name every resource's name starts with.
const purposeTag, purposeValue = "Purpose", "taskpipe-integration-test"

var (
	sweep       = flag.Bool("sweep", false, "TestSweep: delete the leftovers of earlier AWS runs (tagged Purpose=taskpipe-integration-test)")
	sweepDryRun = flag.Bool("sweep.dry-run", false, "TestSweep: list what would be deleted, delete nothing")
	sweepMinAge = flag.Duration("sweep.min-age", 3*time.Hour, "TestSweep: leave deployments younger than this (a run in progress)")
)

// TestSweep deletes what interrupted AWS runs left: it finds the suite's
// deployments by the Purpose tag on their functions and tables (older
// than -sweep.min-age), then deletes every resource whose name starts
// with the deployment's name, service by service, in dependency order.
// Only with -sweep: go test -tags aws -run TestSweep -sweep ./test/.
func TestSweep(t *testing.T) {
	if !*sweep {
		t.Skip("deletes resources: run with -sweep (and -sweep.dry-run to list them)")
	}
	ctx := context.Background()
	region := envOr("AWS_REGION", os.Getenv("AWS_DEFAULT_REGION"))
	if region == "" {
		t.Fatal("the sweeper needs AWS_REGION")
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		t.Fatalf("AWS configuration: %v", err)
	}
	names, err := sweepDeployments(ctx, cfg, time.Now().Add(-*sweepMinAge))
	if err != nil {
		t.Fatalf("find the suite's deployments: %v", err)
	}
	t.Logf("%d deployments tagged %s=%s older than %s in %s: %v", len(names), purposeTag, purposeValue, *sweepMinAge, region, names)
	for _, name := range names {
		s := &sweeper{t: t, cfg: cfg, prefix: name + "-", dry: *sweepDryRun}
		s.run(ctx)
	}
}

// sweepDeployments returns the Deployment tag of the suite's functions
// and tables created before cutoff.
func sweepDeployments(ctx context.Context, cfg aws.Config, cutoff time.Time) ([]string, error) {
	found := map[string]bool{}
	var order []string
	add := func(tags map[string]string, created time.Time) {
		if d := tags["Deployment"]; tags[purposeTag] == purposeValue && d != "" && created.Before(cutoff) && !found[d] {
			found[d] = true
			order = append(order, d)
		}
	}
	lc := lambda.NewFromConfig(cfg)
	for p := lambda.NewListFunctionsPaginator(lc, &lambda.ListFunctionsInput{}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list functions: %w", err)
		}
		for _, f := range page.Functions {
			tags, err := lc.ListTags(ctx, &lambda.ListTagsInput{Resource: f.FunctionArn})
			if err != nil {
				return nil, fmt.Errorf("tags of %s: %w", aws.ToString(f.FunctionName), err)
			}
			// LastModified: "2006-01-02T15:04:05.000+0000" (Lambda API Reference, FunctionConfiguration).
			modified, err := time.Parse("2006-01-02T15:04:05.000-0700", aws.ToString(f.LastModified))
			if err != nil {
				return nil, fmt.Errorf("LastModified of %s: %w", aws.ToString(f.FunctionName), err)
			}
			add(tags.Tags, modified)
		}
	}
	dc := dynamodb.NewFromConfig(cfg)
	for p := dynamodb.NewListTablesPaginator(dc, &dynamodb.ListTablesInput{}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list tables: %w", err)
		}
		for _, name := range page.TableNames {
			desc, err := dc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				return nil, fmt.Errorf("describe table %s: %w", name, err)
			}
			out, err := dc.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: desc.Table.TableArn})
			if err != nil {
				return nil, fmt.Errorf("tags of table %s: %w", name, err)
			}
			tags := map[string]string{}
			for _, tg := range out.Tags {
				tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
			}
			add(tags, aws.ToTime(desc.Table.CreationDateTime))
		}
	}
	return order, nil
}

// sweeper deletes one deployment's resources by name prefix.
type sweeper struct {
	t      *testing.T
	cfg    aws.Config
	prefix string
	dry    bool
}

// del logs and (unless dry) runs one deletion; a failure is reported and
// the sweep goes on.
func (s *sweeper) del(what string, fn func() error) {
	s.t.Helper()
	if s.dry {
		s.t.Logf("would delete %s", what)
		return
	}
	if err := fn(); err != nil {
		s.t.Errorf("delete %s: %v", what, err)
		return
	}
	s.t.Logf("deleted %s", what)
}

func (s *sweeper) list(what string, err error) bool {
	s.t.Helper()
	if err != nil {
		s.t.Errorf("list %s of %s*: %v", what, s.prefix, err)
		return false
	}
	return true
}

// run deletes the pipe and the schedule first (they feed the rest), then
// the functions and their mappings, queues, table, alarms, dashboard,
// log groups, topic and roles.
func (s *sweeper) run(ctx context.Context) {
	pc := pipes.NewFromConfig(s.cfg)
	if out, err := pc.ListPipes(ctx, &pipes.ListPipesInput{NamePrefix: aws.String(s.prefix)}); s.list("pipes", err) {
		for _, p := range out.Pipes {
			s.del("pipe "+aws.ToString(p.Name), func() error {
				_, err := pc.DeletePipe(ctx, &pipes.DeletePipeInput{Name: p.Name})
				return err
			})
		}
	}
	sc := scheduler.NewFromConfig(s.cfg)
	if out, err := sc.ListSchedules(ctx, &scheduler.ListSchedulesInput{NamePrefix: aws.String(s.prefix)}); s.list("schedules", err) {
		for _, sch := range out.Schedules {
			s.del("schedule "+aws.ToString(sch.Name), func() error {
				_, err := sc.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: sch.Name, GroupName: sch.GroupName})
				return err
			})
		}
	}
	lc := lambda.NewFromConfig(s.cfg)
	for p := lambda.NewListFunctionsPaginator(lc, &lambda.ListFunctionsInput{}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if !s.list("functions", err) {
			break
		}
		for _, f := range page.Functions {
			if !strings.HasPrefix(aws.ToString(f.FunctionName), s.prefix) {
				continue
			}
			if m, err := lc.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{FunctionName: f.FunctionName}); s.list("event source mappings", err) {
				for _, esm := range m.EventSourceMappings {
					s.del("event source mapping "+aws.ToString(esm.UUID), func() error {
						_, err := lc.DeleteEventSourceMapping(ctx, &lambda.DeleteEventSourceMappingInput{UUID: esm.UUID})
						return err
					})
				}
			}
			s.del("function "+aws.ToString(f.FunctionName), func() error {
				_, err := lc.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: f.FunctionName})
				return err
			})
		}
	}
	qc := sqs.NewFromConfig(s.cfg)
	if out, err := qc.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(s.prefix)}); s.list("queues", err) {
		for _, u := range out.QueueUrls {
			s.del("queue "+u, func() error {
				_, err := qc.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
				return err
			})
		}
	}
	dc := dynamodb.NewFromConfig(s.cfg)
	if out, err := dc.ListTables(ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(strings.TrimSuffix(s.prefix, "-"))}); s.list("tables", err) {
		for _, name := range out.TableNames {
			if !strings.HasPrefix(name, s.prefix) {
				continue
			}
			s.del("table "+name, func() error {
				// Deletion protection (the complete example may turn it on)
				// refuses DeleteTable.
				if _, err := dc.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
					return fmt.Errorf("turn off deletion protection: %w", err)
				}
				_, err := dc.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				return err
			})
		}
	}
	cw := cloudwatch.NewFromConfig(s.cfg)
	if out, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNamePrefix: aws.String(s.prefix)}); s.list("alarms", err) {
		var names []string
		for _, a := range out.MetricAlarms {
			names = append(names, aws.ToString(a.AlarmName))
		}
		if len(names) > 0 {
			s.del(fmt.Sprintf("alarms %v", names), func() error {
				_, err := cw.DeleteAlarms(ctx, &cloudwatch.DeleteAlarmsInput{AlarmNames: names})
				return err
			})
		}
	}
	if out, err := cw.ListDashboards(ctx, &cloudwatch.ListDashboardsInput{DashboardNamePrefix: aws.String(strings.TrimSuffix(s.prefix, "-"))}); s.list("dashboards", err) {
		var names []string
		for _, d := range out.DashboardEntries {
			names = append(names, aws.ToString(d.DashboardName))
		}
		if len(names) > 0 {
			s.del(fmt.Sprintf("dashboards %v", names), func() error {
				_, err := cw.DeleteDashboards(ctx, &cloudwatch.DeleteDashboardsInput{DashboardNames: names})
				return err
			})
		}
	}
	logs := cloudwatchlogs.NewFromConfig(s.cfg)
	if out, err := logs.DescribeLogGroups(ctx, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePattern: aws.String(s.prefix)}); s.list("log groups", err) {
		for _, g := range out.LogGroups {
			s.del("log group "+aws.ToString(g.LogGroupName), func() error {
				_, err := logs.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: g.LogGroupName})
				return err
			})
		}
	}
	nc := sns.NewFromConfig(s.cfg)
	for p := sns.NewListTopicsPaginator(nc, &sns.ListTopicsInput{}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if !s.list("topics", err) {
			break
		}
		for _, tp := range page.Topics {
			arn := aws.ToString(tp.TopicArn)
			if strings.HasPrefix(arn[strings.LastIndex(arn, ":")+1:], s.prefix) {
				s.del("topic "+arn, func() error {
					_, err := nc.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
					return err
				})
			}
		}
	}
	s.roles(ctx)
}

// roles deletes the deployment's IAM roles with their policies (IAM
// refuses to delete a role that still has any).
func (s *sweeper) roles(ctx context.Context) {
	ic := iam.NewFromConfig(s.cfg)
	for p := iam.NewListRolesPaginator(ic, &iam.ListRolesInput{}); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if !s.list("roles", err) {
			return
		}
		for _, r := range page.Roles {
			if !strings.HasPrefix(aws.ToString(r.RoleName), s.prefix) {
				continue
			}
			s.del("role "+aws.ToString(r.RoleName), func() error {
				var errs []error
				if out, err := ic.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: r.RoleName}); err != nil {
					errs = append(errs, fmt.Errorf("list inline policies: %w", err))
				} else {
					for _, name := range out.PolicyNames {
						if _, err := ic.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: r.RoleName, PolicyName: aws.String(name)}); err != nil {
							errs = append(errs, fmt.Errorf("delete inline policy %s: %w", name, err))
						}
					}
				}
				if out, err := ic.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: r.RoleName}); err != nil {
					errs = append(errs, fmt.Errorf("list attached policies: %w", err))
				} else {
					for _, ap := range out.AttachedPolicies {
						if _, err := ic.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: r.RoleName, PolicyArn: ap.PolicyArn}); err != nil {
							errs = append(errs, fmt.Errorf("detach %s: %w", aws.ToString(ap.PolicyArn), err))
						}
					}
				}
				if len(errs) > 0 {
					return errors.Join(errs...)
				}
				_, err := ic.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: r.RoleName})
				return err
			})
		}
	}
}
