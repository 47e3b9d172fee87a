package tfprovider

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// The real provider's cross-attribute rules: the SDKv2 schema fields
// ConflictsWith, ExactlyOneOf, AtLeastOneOf and RequiredWith, which the
// provider's JSON schema (schema/aws-6.47.0.json) does not carry. They are
// checked at validation, which Terraform runs again during plan with the
// module's values known, so a planted conflict fails `terraform plan`
// exactly where the real provider fails it.
//
// Semantics and wording follow terraform-plugin-sdk/v2 helper/schema
// (schema.go, schemaMap.validate and validateConflictingAttributes,
// validateExactlyOneAttribute, validateAtLeastOneAttribute,
// validateRequiredWithAttribute):
// https://github.com/hashicorp/terraform-plugin-sdk/blob/main/helper/schema/schema.go
//   - each rule is declared on one attribute (Attr) and checked once per
//     declaring attribute, so a pair that conflicts both ways reports twice,
//     as the SDK does;
//   - ExactlyOneOf and AtLeastOneOf are checked even when Attr is unset,
//     RequiredWith and ConflictsWith only when it is set, ConflictsWith
//     only once Attr's value is known;
//   - "set" is the configuration's view: a null value or an empty block
//     list is unset, an explicit false or "" is set; an unknown value counts
//     as set for AtLeastOneOf and RequiredWith, is skipped by
//     ConflictsWith and makes ExactlyOneOf wait.
//
// Keys are SDKv2 flatmap keys ("source_parameters.0.sqs_queue_parameters"),
// as the provider writes them.

// crossKind is one of the SDKv2 cross-attribute schema fields.
type crossKind string

const (
	conflictsWith crossKind = "ConflictsWith"
	exactlyOneOf  crossKind = "ExactlyOneOf"
	atLeastOneOf  crossKind = "AtLeastOneOf"
	requiredWith  crossKind = "RequiredWith"
)

// crossRuleProviderVersion is the provider release the rules are checked
// against: every attribute they name exists in schema/aws-6.47.0.json
// (TestCrossRulesNameSchemaAttributes).
const crossRuleProviderVersion = "6.47.0"

// crossRule is one cross-attribute rule as the provider declares it.
type crossRule struct {
	Kind crossKind
	// Attr is the declaring attribute (flatmap key).
	Attr string
	// Keys are the keys the schema field lists, as written.
	Keys []string
	// Source is the provider file that declares it, under
	// https://github.com/hashicorp/terraform-provider-aws/tree/main/.
	Source string
}

// mutualConflicts is the provider's pattern for blocks of which at most one
// may be set: each lists every other one in ConflictsWith.
func mutualConflicts(source, prefix string, names ...string) []crossRule {
	var out []crossRule
	for _, n := range names {
		var keys []string
		for _, o := range names {
			if o != n {
				keys = append(keys, prefix+o)
			}
		}
		out = append(out, crossRule{Kind: conflictsWith, Attr: prefix + n, Keys: keys, Source: source})
	}
	return out
}

// nameConflicts is name ConflictsWith name_prefix and back.
func nameConflicts(source string) []crossRule {
	return mutualConflicts(source, "", "name", "name_prefix")
}

// crossRules holds the rules of the resource types the modules use
// (terraform/modules/*/main.tf). Resource types without any are listed
// with none, so that the table says they were read: aws_cloudwatch_dashboard,
// aws_lambda_function_event_invoke_config, aws_sqs_queue_redrive_policy and
// aws_sqs_queue_redrive_allow_policy declare no cross-attribute rule.
var crossRules = map[string][]crossRule{
	"aws_sqs_queue": append(nameConflicts("internal/service/sqs/queue.go"),
		crossRule{Kind: conflictsWith, Attr: "kms_master_key_id", Keys: []string{"sqs_managed_sse_enabled"}, Source: "internal/service/sqs/queue.go"},
		crossRule{Kind: conflictsWith, Attr: "sqs_managed_sse_enabled", Keys: []string{"kms_master_key_id"}, Source: "internal/service/sqs/queue.go"},
	),
	"aws_sqs_queue_redrive_policy":       nil,
	"aws_sqs_queue_redrive_allow_policy": nil,
	"aws_cloudwatch_dashboard":           nil,
	"aws_cloudwatch_log_group":           nameConflicts("internal/service/logs/group.go"),
	"aws_cloudwatch_metric_alarm": {
		{Kind: conflictsWith, Attr: "dimensions", Keys: []string{"metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "extended_statistic", Keys: []string{"statistic", "metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "metric_name", Keys: []string{"metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "metric_query", Keys: []string{"metric_name"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "namespace", Keys: []string{"metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "period", Keys: []string{"metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "statistic", Keys: []string{"extended_statistic", "metric_query"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "threshold", Keys: []string{"threshold_metric_id"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
		{Kind: conflictsWith, Attr: "threshold_metric_id", Keys: []string{"threshold"}, Source: "internal/service/cloudwatch/metric_alarm.go"},
	},
	"aws_dynamodb_table": {
		{Kind: conflictsWith, Attr: "import_table", Keys: []string{"restore_source_name", "restore_source_table_arn"}, Source: "internal/service/dynamodb/table.go"},
		{Kind: conflictsWith, Attr: "read_capacity", Keys: []string{"on_demand_throughput"}, Source: "internal/service/dynamodb/table.go"},
		{Kind: conflictsWith, Attr: "write_capacity", Keys: []string{"on_demand_throughput"}, Source: "internal/service/dynamodb/table.go"},
		{Kind: conflictsWith, Attr: "restore_source_table_arn", Keys: []string{"import_table", "restore_source_name"}, Source: "internal/service/dynamodb/table.go"},
		{Kind: conflictsWith, Attr: "restore_source_name", Keys: []string{"import_table", "restore_source_table_arn"}, Source: "internal/service/dynamodb/table.go"},
	},
	"aws_iam_role":        nameConflicts("internal/service/iam/role.go"),
	"aws_iam_role_policy": nameConflicts("internal/service/iam/role_policy.go"),
	"aws_lambda_event_source_mapping": {
		{Kind: conflictsWith, Attr: "amazon_managed_kafka_event_source_config", Keys: []string{"self_managed_event_source", "self_managed_kafka_event_source_config"}, Source: "internal/service/lambda/event_source_mapping.go"},
		{Kind: exactlyOneOf, Attr: "event_source_arn", Keys: []string{"event_source_arn", "self_managed_event_source"}, Source: "internal/service/lambda/event_source_mapping.go"},
		{Kind: exactlyOneOf, Attr: "self_managed_event_source", Keys: []string{"event_source_arn", "self_managed_event_source"}, Source: "internal/service/lambda/event_source_mapping.go"},
		{Kind: conflictsWith, Attr: "self_managed_kafka_event_source_config", Keys: []string{"event_source_arn", "amazon_managed_kafka_event_source_config"}, Source: "internal/service/lambda/event_source_mapping.go"},
	},
	"aws_lambda_function": {
		{Kind: exactlyOneOf, Attr: "filename", Keys: []string{"filename", "image_uri", "s3_bucket"}, Source: "internal/service/lambda/function.go"},
		{Kind: exactlyOneOf, Attr: "image_uri", Keys: []string{"filename", "image_uri", "s3_bucket"}, Source: "internal/service/lambda/function.go"},
		{Kind: requiredWith, Attr: "replacement_security_group_ids", Keys: []string{"replace_security_groups_on_destroy"}, Source: "internal/service/lambda/function.go"},
		{Kind: exactlyOneOf, Attr: "s3_bucket", Keys: []string{"filename", "image_uri", "s3_bucket"}, Source: "internal/service/lambda/function.go"},
		{Kind: requiredWith, Attr: "s3_bucket", Keys: []string{"s3_key"}, Source: "internal/service/lambda/function.go"},
		{Kind: requiredWith, Attr: "s3_key", Keys: []string{"s3_bucket"}, Source: "internal/service/lambda/function.go"},
		{Kind: conflictsWith, Attr: "s3_object_version", Keys: []string{"filename", "image_uri"}, Source: "internal/service/lambda/function.go"},
		{Kind: conflictsWith, Attr: "source_kms_key_arn", Keys: []string{"image_uri"}, Source: "internal/service/lambda/function.go"},
	},
	"aws_lambda_function_event_invoke_config": nil,
	"aws_pipes_pipe": slices.Concat(
		nameConflicts("internal/service/pipes/pipe.go"),
		mutualConflicts("internal/service/pipes/source_parameters.go", "source_parameters.0.",
			"activemq_broker_parameters", "dynamodb_stream_parameters", "kinesis_stream_parameters",
			"managed_streaming_kafka_parameters", "rabbitmq_broker_parameters", "self_managed_kafka_parameters",
			"sqs_queue_parameters"),
		mutualConflicts("internal/service/pipes/target_parameters.go", "target_parameters.0.",
			"batch_job_parameters", "cloudwatch_logs_parameters", "ecs_task_parameters",
			"eventbridge_event_bus_parameters", "http_parameters", "kinesis_stream_parameters",
			"lambda_function_parameters", "redshift_data_parameters", "sagemaker_pipeline_parameters",
			"sqs_queue_parameters", "step_function_state_machine_parameters"),
	),
	"aws_scheduler_schedule": nameConflicts("internal/service/scheduler/schedule.go"),
	"aws_sns_topic":          nameConflicts("internal/service/sns/topic.go"),
	"aws_s3_bucket":          mutualConflicts("internal/service/s3/bucket.go", "", "bucket", "bucket_prefix"),
	// The bucket settings resources of the result-bucket module are listed
	// without rules: their sources are not read yet, so the table claims
	// none for them (a gap, docs/local-cloud-validation.md).
	"aws_s3_bucket_public_access_block":                  nil,
	"aws_s3_bucket_server_side_encryption_configuration": nil,
	"aws_s3_bucket_versioning":                           nil,
	"aws_s3_bucket_lifecycle_configuration":              nil,
	"aws_s3_bucket_policy":                               nil,
}

// configState is how the SDK sees one key of the configuration.
type configState int

const (
	keyUnset configState = iota
	keySet
	keyUnknown
)

// lookupFlat resolves a flatmap key in a configuration value. ok is false
// when a block on the way does not exist (no element at that index).
func lookupFlat(v cty.Value, key string) (val cty.Value, path cty.Path, ok bool) {
	val = v
	for _, seg := range strings.Split(key, ".") {
		switch {
		case val.IsNull():
			return cty.NilVal, nil, false
		case !val.IsKnown():
			return val, path, true
		}
		ty := val.Type()
		if i, err := strconv.Atoi(seg); err == nil && (ty.IsListType() || ty.IsTupleType()) {
			if i >= val.LengthInt() {
				return cty.NilVal, nil, false
			}
			val = val.Index(cty.NumberIntVal(int64(i)))
			path = append(path, cty.IndexStep{Key: cty.NumberIntVal(int64(i))})
			continue
		}
		if !ty.IsObjectType() || !ty.HasAttribute(seg) {
			return cty.NilVal, nil, false
		}
		val = val.GetAttr(seg)
		path = append(path, cty.GetAttrStep{Name: seg})
	}
	return val, path, true
}

// stateOf is the SDK's ResourceConfig.Get/IsComputed for one key.
func stateOf(v cty.Value, key string) configState {
	val, _, ok := lookupFlat(v, key)
	switch {
	case !ok || val.IsNull():
		return keyUnset
	case !val.IsKnown():
		return keyUnknown
	}
	ty := val.Type()
	if (ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) && val.LengthInt() == 0 {
		// Terraform sends an absent block as an empty list; the SDK's
		// shim drops it.
		return keyUnset
	}
	return keySet
}

// parentExists reports whether the block holding key exists, which is when
// the SDK validates key at all.
func parentExists(v cty.Value, key string) bool {
	i := strings.LastIndex(key, ".")
	if i < 0 {
		return true
	}
	_, _, ok := lookupFlat(v, key[:i])
	return ok
}

func ruleKeys(r crossRule) []string {
	all := append([]string{r.Attr}, r.Keys...)
	sort.Strings(all)
	return slices.Compact(all)
}

// checkCross runs the cross-attribute rules of one resource type over its
// configuration, with the SDK's diagnostics.
func checkCross(typeName string, cfg cty.Value) []*tfprotov5.Diagnostic {
	var diags []*tfprotov5.Diagnostic
	if cfg.IsNull() || !cfg.IsKnown() {
		return nil
	}
	failed := map[string]bool{} // the SDK reports one error per attribute
	for _, r := range crossRules[typeName] {
		if failed[r.Attr] || !parentExists(cfg, r.Attr) {
			continue
		}
		_, p, _ := lookupFlat(cfg, r.Attr)
		if p == nil {
			p = cty.GetAttrPath(r.Attr)
		}
		if d := checkRule(r, cfg); d != "" {
			failed[r.Attr] = true
			diags = append(diags, errorDiag(crossSummary(r.Kind), d, p))
		}
	}
	return diags
}

func crossSummary(k crossKind) string {
	switch k {
	case conflictsWith:
		return "Conflicting configuration arguments"
	case exactlyOneOf:
		return "Invalid combination of arguments"
	default:
		return "Missing required argument"
	}
}

// checkRule returns the SDK's detail for a violated rule, or "".
func checkRule(r crossRule, cfg cty.Value) string {
	self := stateOf(cfg, r.Attr)
	switch r.Kind {
	case exactlyOneOf:
		keys := ruleKeys(r)
		var specified []string
		unknown := 0
		for _, k := range keys {
			switch stateOf(cfg, k) {
			case keyUnknown:
				unknown++
			case keySet:
				specified = append(specified, k)
			}
		}
		if len(specified) == 0 && unknown == 0 {
			return fmt.Sprintf("%q: one of `%s` must be specified", r.Attr, strings.Join(keys, ","))
		}
		if len(specified) > 1 {
			return fmt.Sprintf("%q: only one of `%s` can be specified, but `%s` were specified.", r.Attr, strings.Join(keys, ","), strings.Join(specified, ","))
		}
	case atLeastOneOf:
		keys := ruleKeys(r)
		for _, k := range keys {
			if stateOf(cfg, k) != keyUnset {
				return ""
			}
		}
		return fmt.Sprintf("%q: one of `%s` must be specified", r.Attr, strings.Join(keys, ","))
	case requiredWith:
		if self == keyUnset {
			return ""
		}
		keys := ruleKeys(r)
		for _, k := range keys {
			if stateOf(cfg, k) == keyUnset {
				return fmt.Sprintf("%q: all of `%s` must be specified", r.Attr, strings.Join(keys, ","))
			}
		}
	case conflictsWith:
		if self != keySet {
			return ""
		}
		for _, k := range r.Keys {
			if stateOf(cfg, k) == keySet {
				return fmt.Sprintf("%q: conflicts with %s", r.Attr, k)
			}
		}
	}
	return ""
}
