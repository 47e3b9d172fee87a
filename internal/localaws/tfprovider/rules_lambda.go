package tfprovider

import (
	"regexp"

	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// Lambda rules. All three resources are SDKv2. Sources, in
// hashicorp/terraform-provider-aws internal/service/lambda/:
//
// function.go (resourceFunction, the v5/v6 revision using names.AttrVersion):
//   - Defaults: memory_size 128, package_type "Zip", publish false,
//     reserved_concurrent_executions -1, skip_destroy false, timeout 3,
//     logging_config application_log_level and system_log_level "",
//     vpc_config ipv6_allowed_for_dual_stack false;
//   - ranges: memory_size 128–10240, timeout 1–900,
//     reserved_concurrent_executions ≥ -1, ephemeral_storage size
//     512–10240, handler 1–128 characters, architectures ≤ 1 of enum
//     Architecture, runtime enum Runtime (provided.al2023 since v5.26.0,
//     docs/aws-behaviour.md §7.4), logging_config/tracing_config enums;
//   - ForceNew: function_name, package_type, tenancy_config (the last
//     in the 2025 revision of function.go, present in the 6.47.0 schema);
//   - CustomizeDiff: checkHandlerRuntimeForZipFunction ("handler and runtime
//     must be set when PackageType is Zip") and
//     updateComputedAttributesOnPublish: last_modified is unknown when the
//     code changes (filename, source_code_hash, s3_bucket, s3_key,
//     s3_object_version, image_uri, architectures); with publish = true,
//     version, qualified_arn and qualified_invoke_arn are unknown when code,
//     configuration or publish change.
//     Inferred, not in that function: code_sha256 and source_code_size
//     describe the package itself, so they are planned unknown on a code
//     change too (6.x made code_sha256 Optional+Computed; a configured value
//     is kept).
//
// event_source_mapping.go (resourceEventSourceMapping, after PR #37980):
//   - enabled Default true; document_db full_document Default "Default";
//   - scaling_config.maximum_concurrency IntAtLeast(2) (the 1000 cap was
//     removed, docs/aws-behaviour.md §7.3 and §7.8), maximum_record_age_in_seconds -1 or
//     60–604800, maximum_retry_attempts -1–10000, parallelization_factor
//     1–10, tumbling_window_in_seconds 0–900, filter pattern ≤ 4096,
//     function_response_types enum FunctionResponseType, starting_position
//     enum EventSourcePosition;
//   - ForceNew: event_source_arn, starting_position,
//     starting_position_timestamp, queues, topics, self_managed_event_source,
//     amazon_managed_kafka_event_source_config,
//     self_managed_kafka_event_source_config.
//     Stricter than the provider (it leaves them to the API): batch_size
//     1–10000 and maximum_batching_window_in_seconds 0–300 (Lambda API
//     Reference, CreateEventSourceMapping).
//
// permission.go: every argument is ForceNew (the resource has no Update).
// function_event_invoke_config.go: function_name and qualifier ForceNew;
// maximum_event_age_in_seconds 60–21600, maximum_retry_attempts 0–2 with
// Default 2.
func init() {
	codeChange := []string{"filename", "source_code_hash", "s3_bucket", "s3_key", "s3_object_version", "image_uri", "architectures"}
	configChange := []string{
		"description", "handler", "file_system_config", "image_config", "memory_size", "role", "timeout",
		"kms_key_arn", "layers", "dead_letter_config", "tracing_config", "vpc_config", "runtime",
		"environment", "ephemeral_storage", "snap_start", "logging_config",
	}
	published := func(prior, planned cty.Value) bool {
		if !knownTrue(planned.GetAttr("publish")) {
			return false
		}
		return anyChanged(codeChange...)(prior, planned) || anyChanged(configChange...)(prior, planned) ||
			anyChanged("publish")(prior, planned)
	}
	resourceRules["aws_lambda_function"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"memory_size":                              cty.NumberIntVal(128),
			"package_type":                             cty.StringVal(string(lambdatypes.PackageTypeZip)),
			"publish":                                  cty.False,
			"reserved_concurrent_executions":           cty.NumberIntVal(-1),
			"skip_destroy":                             cty.False,
			"timeout":                                  cty.NumberIntVal(3),
			"logging_config.*.application_log_level":   cty.StringVal(""),
			"logging_config.*.system_log_level":        cty.StringVal(""),
			"vpc_config.*.ipv6_allowed_for_dual_stack": cty.False,
		},
		ForceNew: []string{"function_name", "package_type", "tenancy_config"},
		Recompute: []recompute{
			// LastModified moves with UpdateFunctionConfiguration as well as
			// UpdateFunctionCode (Lambda API reference,
			// FunctionConfiguration.LastModified: "The date and time that
			// the function was last updated"); the provider only marks it
			// for code changes and relies on SDKv2's tolerance otherwise.
			{Attrs: []string{"last_modified"}, When: func(prior, planned cty.Value) bool {
				return anyChanged(codeChange...)(prior, planned) || anyChanged(configChange...)(prior, planned)
			}},
			{Attrs: []string{"code_sha256", "source_code_size"}, When: func(prior, planned cty.Value) bool {
				return anyChanged(codeChange...)(prior, planned)
			}},
			{Attrs: []string{"version", "qualified_arn", "qualified_invoke_arn"}, When: published},
		},
		Validate: []check{
			{Path: "function_name", Fn: allOf(stringLenBetween(1, 140), stringMatch(functionNameRE, ""))},
			{Path: "memory_size", Fn: intBetween(128, 10240)},
			{Path: "timeout", Fn: intBetween(1, 900)},
			{Path: "reserved_concurrent_executions", Fn: intAtLeast(-1)},
			{Path: "handler", Fn: stringLenBetween(1, 128)},
			{Path: "architectures", Fn: allOf(maxElements(1), eachElement(enumOf(lambdatypes.Architecture("").Values())))},
			{Path: "runtime", Fn: enumOf(lambdatypes.Runtime("").Values())},
			{Path: "package_type", Fn: enumOf(lambdatypes.PackageType("").Values())},
			{Path: "layers", Fn: maxElements(5)},
			{Path: "ephemeral_storage.*.size", Fn: intBetween(512, 10240)},
			{Path: "logging_config.*.log_format", Fn: enumOf(lambdatypes.LogFormat("").Values())},
			{Path: "logging_config.*.application_log_level", Fn: anyOf(stringInSlice(""), enumOf(lambdatypes.ApplicationLogLevel("").Values()))},
			{Path: "logging_config.*.system_log_level", Fn: anyOf(stringInSlice(""), enumOf(lambdatypes.SystemLogLevel("").Values()))},
			{Path: "tracing_config.*.mode", Fn: enumOf(lambdatypes.TracingMode("").Values())},
			{Path: "snap_start.*.apply_on", Fn: stringInSlice("PublishedVersions", "None")},
		},
		Customize: customizeFunction,
	}

	resourceRules["aws_lambda_event_source_mapping"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"enabled": cty.True,
			"document_db_event_source_config.*.full_document": cty.StringVal("Default"),
		},
		ForceNew: []string{
			"event_source_arn", "starting_position", "starting_position_timestamp", "queues", "topics",
			"self_managed_event_source", "amazon_managed_kafka_event_source_config",
			"self_managed_kafka_event_source_config",
		},
		// UpdateEventSourceMapping moves LastModified, and a change of
		// enabled moves State through Enabling/Disabling (Lambda API
		// reference, EventSourceMappingConfiguration); planned unknown so
		// the applied state matches the plan.
		Recompute: []recompute{
			{Attrs: []string{"last_modified", "state", "state_transition_reason"}, When: anyChanged(esmUpdatable...)},
		},
		Validate: []check{
			{Path: "batch_size", Fn: intBetween(1, 10000)},
			{Path: "maximum_batching_window_in_seconds", Fn: intBetween(0, 300)},
			{Path: "maximum_record_age_in_seconds", Fn: anyOf(intInSlice(-1), intBetween(60, 604_800))},
			{Path: "maximum_retry_attempts", Fn: intBetween(-1, 10_000)},
			{Path: "parallelization_factor", Fn: intBetween(1, 10)},
			{Path: "tumbling_window_in_seconds", Fn: intBetween(0, 900)},
			{Path: "scaling_config.*.maximum_concurrency", Fn: intAtLeast(2)},
			{Path: "function_response_types", Fn: eachElement(enumOf(lambdatypes.FunctionResponseType("").Values()))},
			{Path: "starting_position", Fn: enumOf(lambdatypes.EventSourcePosition("").Values())},
			{Path: "filter_criteria.*.filter", Fn: maxElements(10)},
			{Path: "filter_criteria.*.filter.*.pattern", Fn: stringLenBetween(0, 4096)},
			{Path: "queues", Fn: maxElements(1)},
		},
	}

	resourceRules["aws_lambda_permission"] = resourceRule{
		Legacy: true,
		ForceNew: []string{
			"action", "event_source_token", "function_name", "function_url_auth_type", "invoked_via_function_url",
			"principal", "principal_org_id", "qualifier", "source_account", "source_arn",
			"statement_id", "statement_id_prefix",
		},
	}

	resourceRules["aws_lambda_function_event_invoke_config"] = resourceRule{
		Legacy:   true,
		Defaults: map[string]cty.Value{"maximum_retry_attempts": cty.NumberIntVal(2)},
		ForceNew: []string{"function_name", "qualifier"},
		Validate: []check{
			{Path: "maximum_event_age_in_seconds", Fn: intBetween(60, 21600)},
			{Path: "maximum_retry_attempts", Fn: intBetween(0, 2)},
		},
	}
}

// esmUpdatable are the arguments resourceEventSourceMappingUpdate sends
// with UpdateEventSourceMapping.
var esmUpdatable = []string{
	"batch_size", "bisect_batch_on_function_error", "destination_config", "document_db_event_source_config",
	"enabled", "filter_criteria", "function_name", "function_response_types", "kms_key_arn",
	"maximum_batching_window_in_seconds", "maximum_record_age_in_seconds", "maximum_retry_attempts",
	"metrics_config", "parallelization_factor", "provisioned_poller_config", "scaling_config",
	"source_access_configuration", "tumbling_window_in_seconds", "amazon_managed_kafka_event_source_config",
	"self_managed_kafka_event_source_config",
}

// functionNameRE is validFunctionName() in internal/service/lambda/validate.go:
// a name, partial ARN or ARN, optionally qualified.
var functionNameRE = regexp.MustCompile(`^(arn:[\w-]+:lambda:)?([a-z]{2}-(?:[a-z]+-){1,2}\d{1}:)?(\d{12}:)?(function:)?([0-9A-Za-z_-]+)(:(\$LATEST|[0-9A-Za-z_-]+))?$`)

// customizeFunction is checkHandlerRuntimeForZipFunction.
func customizeFunction(_ *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	pt := planned.GetAttr("package_type")
	if !pt.IsKnown() || pt.IsNull() || pt.AsString() != string(lambdatypes.PackageTypeZip) {
		return planned, nil
	}
	h, r := planned.GetAttr("handler"), planned.GetAttr("runtime")
	if !h.IsKnown() || !r.IsKnown() {
		return planned, nil
	}
	if h.IsNull() || h.AsString() == "" || r.IsNull() || r.AsString() == "" {
		return planned, []*tfprotov5.Diagnostic{errorDiag("handler and runtime must be set when PackageType is Zip", "", nil)}
	}
	return planned, nil
}

// anyChanged is the SDK's d.HasChange for top-level attributes: an unknown
// new value counts as a change, and null equals the zero value.
func anyChanged(attrs ...string) func(prior, planned cty.Value) bool {
	return func(prior, planned cty.Value) bool {
		for _, a := range attrs {
			if !planned.Type().HasAttribute(a) {
				continue
			}
			o, n := prior.GetAttr(a), planned.GetAttr(a)
			if !n.IsWhollyKnown() {
				return true
			}
			if sdkZero(o) && sdkZero(n) {
				continue
			}
			if !o.RawEquals(n) {
				return true
			}
		}
		return false
	}
}

// sdkZero: SDKv2 state cannot tell null from the zero value.
func sdkZero(v cty.Value) bool {
	if v.IsNull() {
		return true
	}
	if !v.IsKnown() {
		return false
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString() == ""
	case ty == cty.Bool:
		return v.False()
	case ty == cty.Number:
		return v.AsBigFloat().Sign() == 0
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType():
		return v.LengthInt() == 0
	}
	return false
}
