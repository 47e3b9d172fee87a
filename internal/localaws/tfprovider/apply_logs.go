package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	logtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/zclconf/go-cty/cty"
)

// aws_cloudwatch_log_group. Source: hashicorp/terraform-provider-aws
// internal/service/logs/group.go (resourceGroupCreate/Read/Update/Delete,
// findLogGroupByName, trimLogGroupARNWildcardSuffix). The id is the name.

func (c *clients) logs(ctx context.Context, pc *Config, region string) (*cloudwatchlogs.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "logs")
	return cloudwatchlogs.NewFromConfig(cfg, func(o *cloudwatchlogs.Options) { o.BaseEndpoint = ep }), nil
}

func logsGone(err error) bool {
	var nf *logtypes.ResourceNotFoundException
	return errors.As(err, &nf) || isCode(err, "ResourceNotFoundException")
}

type logGroupHandler struct{ c *clients }

// Create is resourceGroupCreate: CreateLogGroup with tags, then
// PutRetentionPolicy when a retention is set (not for DELIVERY groups).
func (h *logGroupHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_cloudwatch_log_group", req.Config, map[string]string{
		"kms_key_id": "the local cloud has no KMS",
	}, "kms_key_id"); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.logs(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := generatedName(str(p, "name"), str(p, "name_prefix"), "")
	class := logtypes.LogGroupClass(str(p, "log_group_class"))
	in := &cloudwatchlogs.CreateLogGroupInput{
		LogGroupName:              aws.String(name),
		LogGroupClass:             class,
		DeletionProtectionEnabled: boolp(p, "deletion_protection_enabled"),
	}
	if tags := tagsIn(p, pc); len(tags) > 0 {
		in.Tags = tags
	}
	if _, err := cl.CreateLogGroup(ctx, in); err != nil {
		return cty.NilVal, fmt.Errorf("creating CloudWatch Logs Log Group (%s): %w", name, err)
	}
	if days, _ := intAttr(p, "retention_in_days"); days > 0 && class != logtypes.LogGroupClassDelivery {
		if _, err := cl.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String(name), RetentionInDays: aws.Int32(int32(days))}); err != nil { //nolint:gosec // validated enum of day counts
			return created(req, name, fmt.Errorf("setting CloudWatch Logs Log Group (%s) retention policy: %w", name, err))
		}
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *logGroupHandler) readBack(ctx context.Context, cl *cloudwatchlogs.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading CloudWatch Logs Log Group (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceGroupRead: DescribeLogGroups by prefix, the exact name.
func (h *logGroupHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.logs(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func findLogGroup(ctx context.Context, cl *cloudwatchlogs.Client, name string) (*logtypes.LogGroup, error) {
	pager := cloudwatchlogs.NewDescribeLogGroupsPaginator(cl, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePrefix: aws.String(name)})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for i := range page.LogGroups {
			if aws.ToString(page.LogGroups[i].LogGroupName) == name {
				return &page.LogGroups[i], nil
			}
		}
	}
	return nil, nil
}

func (h *logGroupHandler) read(ctx context.Context, cl *cloudwatchlogs.Client, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	lg, err := findLogGroup(ctx, cl, name)
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading CloudWatch Logs Log Group (%s): %w", name, err)
	}
	if lg == nil {
		return cty.NullVal(cur.Type()), nil
	}
	arn := strings.TrimSuffix(aws.ToString(lg.Arn), ":*")
	vals := map[string]cty.Value{
		"id":                          sv(name),
		"arn":                         sv(arn),
		"kms_key_id":                  svp(lg.KmsKeyId),
		"log_group_class":             sv(string(lg.LogGroupClass)),
		"name":                        sv(name),
		"name_prefix":                 namePrefixFromName(name, ""),
		"retention_in_days":           iv(int64(aws.ToInt32(lg.RetentionInDays))),
		"deletion_protection_enabled": bv(aws.ToBool(lg.DeletionProtectionEnabled)),
	}
	tags, err := cl.ListTagsForResource(ctx, &cloudwatchlogs.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	if logsGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for CloudWatch Logs Log Group (%s): %w", name, err)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, tags.Tags)
	return with(cur, vals), nil
}

// Update is resourceGroupUpdate: retention (put, or delete for 0),
// deletion protection, tags. skip_destroy changes only the state.
func (h *logGroupHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_cloudwatch_log_group", req.Config, map[string]string{
		"kms_key_id": "the local cloud has no KMS",
	}, "kms_key_id"); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.logs(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(req.Prior, "id")
	if changed(req.Prior, p, "retention_in_days") {
		if days, _ := intAttr(p, "retention_in_days"); days > 0 {
			if _, err := cl.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String(name), RetentionInDays: aws.Int32(int32(days))}); err != nil { //nolint:gosec // validated enum
				return cty.NilVal, fmt.Errorf("setting CloudWatch Logs Log Group (%s) retention policy: %w", name, err)
			}
		} else if _, err := cl.DeleteRetentionPolicy(ctx, &cloudwatchlogs.DeleteRetentionPolicyInput{LogGroupName: aws.String(name)}); err != nil {
			return cty.NilVal, fmt.Errorf("deleting CloudWatch Logs Log Group (%s) retention policy: %w", name, err)
		}
	}
	if changed(req.Prior, p, "deletion_protection_enabled") {
		if _, err := cl.PutLogGroupDeletionProtection(ctx, &cloudwatchlogs.PutLogGroupDeletionProtectionInput{
			LogGroupIdentifier: aws.String(name), DeletionProtectionEnabled: aws.Bool(boolAttr(p, "deletion_protection_enabled")),
		}); err != nil {
			return cty.NilVal, fmt.Errorf("updating CloudWatch Logs Log Group (%s) deletion protection: %w", name, err)
		}
	}
	arn := str(req.Prior, "arn")
	set, remove := tagDiff(tagsIn(req.Prior, pc), tagsIn(p, pc))
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &cloudwatchlogs.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging CloudWatch Logs Log Group (%s): %w", name, err)
		}
	}
	if len(set) > 0 {
		if _, err := cl.TagResource(ctx, &cloudwatchlogs.TagResourceInput{ResourceArn: aws.String(arn), Tags: set}); err != nil {
			return cty.NilVal, fmt.Errorf("tagging CloudWatch Logs Log Group (%s): %w", name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

// Delete is resourceGroupDelete: nothing with skip_destroy, else
// DeleteLogGroup (retried while AWS says to try again).
func (h *logGroupHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	if boolAttr(req.Prior, "skip_destroy") {
		return nil
	}
	cl, err := h.c.logs(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	_, err = retryWhen(ctx, time.Minute, func(ctx context.Context) (*cloudwatchlogs.DeleteLogGroupOutput, error) {
		return cl.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String(name)})
	}, func(err error) bool {
		return isCode(err, "OperationAbortedException") && strings.Contains(err.Error(), "try again")
	})
	if logsGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting CloudWatch Logs Log Group (%s): %w", name, err)
	}
	return nil
}

// Import takes the log group name.
func (h *logGroupHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "name": sv(req.ID), "skip_destroy": cty.False}), nil
}
