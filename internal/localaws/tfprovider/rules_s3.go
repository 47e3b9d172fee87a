package tfprovider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// S3 rules. Source: hashicorp/terraform-provider-aws internal/service/s3:
//   - bucket.go (SDKv2): bucket and bucket_prefix ForceNew, force_destroy
//     Default false, object_lock_enabled ForceNew; bucket names follow
//     validBucketName (3-63 characters of a-z, 0-9, '.', '-', starting and
//     ending with a letter or digit,
//     https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html);
//   - bucket_public_access_block.go, bucket_policy.go,
//     bucket_server_side_encryption_configuration.go, bucket_versioning.go
//     (SDKv2): bucket ForceNew; sse_algorithm one of the
//     ServerSideEncryption values; versioning status Enabled, Suspended or
//     Disabled (the provider's own value for "never versioned");
//   - bucket_lifecycle_configuration.go (Plugin Framework): bucket
//     RequiresReplace, rule status Enabled or Disabled.
func init() {
	bucketName := stringMatch(regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`),
		"must be 3-63 characters of a-z, 0-9, '.' and '-', starting and ending with a letter or digit")
	resourceRules["aws_s3_bucket"] = resourceRule{
		Legacy:   true,
		Defaults: map[string]cty.Value{"force_destroy": cty.False},
		ForceNew: []string{"bucket", "bucket_prefix", "object_lock_enabled"},
		Validate: []check{{Path: "bucket", Fn: bucketName}, {Path: "policy", Fn: iamPolicyJSON}},
	}
	resourceRules["aws_s3_bucket_public_access_block"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"bucket"},
		Validate: []check{{Path: "bucket", Fn: bucketName}},
	}
	resourceRules["aws_s3_bucket_policy"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"bucket"},
		Validate: []check{{Path: "bucket", Fn: bucketName}, {Path: "policy", Fn: iamPolicyJSON}},
	}
	resourceRules["aws_s3_bucket_server_side_encryption_configuration"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"bucket", "expected_bucket_owner"},
		Validate: []check{
			{Path: "bucket", Fn: bucketName},
			{Path: "rule.*.apply_server_side_encryption_by_default.*.sse_algorithm", Fn: stringInSlice("AES256", "aws:kms", "aws:kms:dsse")},
		},
		Customize: customizeEncryption,
	}
	resourceRules["aws_s3_bucket_versioning"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"bucket", "expected_bucket_owner"},
		Validate: []check{
			{Path: "bucket", Fn: bucketName},
			{Path: "versioning_configuration.*.status", Fn: stringInSlice("Enabled", "Suspended", "Disabled")},
			{Path: "versioning_configuration.*.mfa_delete", Fn: stringInSlice("Enabled", "Disabled")},
		},
	}
	resourceRules["aws_s3_bucket_lifecycle_configuration"] = resourceRule{
		ForceNew: []string{"bucket", "expected_bucket_owner"},
		Validate: []check{
			{Path: "bucket", Fn: bucketName},
			{Path: "rule.*.status", Fn: stringInSlice("Enabled", "Disabled")},
			{Path: "rule.*.id", Fn: stringLenBetween(1, 255)},
			{Path: "transition_default_minimum_object_size", Fn: stringInSlice("all_storage_classes_128K", "varies_by_storage_class")},
		},
	}
}

// customizeEncryption plans the computed parts of an encryption rule that
// S3 leaves empty: no KMS key unless one is configured (SSE-S3, or the
// AWS managed key), and no blocked
// encryption types unless configured. The rule set's elements are then
// wholly known, so the applied set pairs with the planned one.
func customizeEncryption(_ *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	out, _ := cty.Transform(planned, func(p cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsKnown() || len(p) == 0 {
			return v, nil
		}
		step, ok := p[len(p)-1].(cty.GetAttrStep)
		if !ok {
			return v, nil
		}
		switch step.Name {
		case "blocked_encryption_types":
			return cty.NullVal(v.Type()), nil
		case "kms_master_key_id":
			return cty.NullVal(v.Type()), nil
		}
		return v, nil
	})
	return out, nil
}
