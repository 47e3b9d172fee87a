package tfprovider

import (
	"regexp"

	pipetypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/zclconf/go-cty/cty"
)

// aws_pipes_pipe is an SDKv2 resource. Sources, in
// hashicorp/terraform-provider-aws internal/service/pipes/:
//   - pipe.go (commit 02b9d32f9ef5cf585ea16bde8a4a7ec0945b1e29): description
//     Default "Managed by Terraform", desired_state Default RUNNING
//     (enum RequestedPipeState), name/name_prefix/source ForceNew, name
//     length 1–64, name_prefix 1–38 (64 minus the 26-character unique suffix);
//   - source_parameters.go (commit ba2931406ac6b8627b6360a3b0194a255b070c8e):
//     dynamodb_stream_parameters ranges and starting_position Required +
//     ForceNew; filter_criteria.filter MaxItems 5 and pattern 1–4096;
//   - target_parameters.go / enrichment_parameters.go: input_template
//     StringLenBetween(0, 8192);
//   - log_configuration.go (commit c0dfb8bb343647013e598aa1765fe2ddf8675e2f):
//     level enum LogLevel, s3 output_format enum S3OutputFormat.
//
// Also summarised in docs/aws-behaviour.md §7.1 and §1.1.
func init() {
	const ddb = "source_parameters.*.dynamodb_stream_parameters.*."
	const kin = "source_parameters.*.kinesis_stream_parameters.*."
	const sqs = "source_parameters.*.sqs_queue_parameters.*."
	nameRE := regexp.MustCompile(`^[\.\-_A-Za-z0-9]+`)
	resourceRules["aws_pipes_pipe"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"description":   cty.StringVal("Managed by Terraform"),
			"desired_state": cty.StringVal(string(pipetypes.RequestedPipeStateRunning)),
		},
		ForceNew: []string{
			"name", "name_prefix", "source",
			ddb + "starting_position",
			kin + "starting_position", kin + "starting_position_timestamp",
			"source_parameters.*.activemq_broker_parameters.*.queue_name",
			"source_parameters.*.rabbitmq_broker_parameters.*.queue_name",
			"source_parameters.*.rabbitmq_broker_parameters.*.virtual_host",
			"source_parameters.*.managed_streaming_kafka_parameters.*.starting_position",
			"source_parameters.*.managed_streaming_kafka_parameters.*.topic_name",
			"source_parameters.*.self_managed_kafka_parameters.*.additional_bootstrap_servers",
			"source_parameters.*.self_managed_kafka_parameters.*.consumer_group_id",
			"source_parameters.*.self_managed_kafka_parameters.*.starting_position",
			"source_parameters.*.self_managed_kafka_parameters.*.topic_name",
		},
		Validate: []check{
			{Path: "name", Fn: allOf(stringLenBetween(1, 64), stringMatch(nameRE, ""))},
			{Path: "name_prefix", Fn: allOf(stringLenBetween(1, 64-26), stringMatch(nameRE, ""))},
			{Path: "desired_state", Fn: enumOf(pipetypes.RequestedPipeState("").Values())},

			{Path: ddb + "batch_size", Fn: intBetween(1, 10000)},
			{Path: ddb + "maximum_batching_window_in_seconds", Fn: intBetween(0, 300)},
			{Path: ddb + "maximum_record_age_in_seconds", Fn: anyOf(intInSlice(-1), intBetween(60, 604_800))},
			{Path: ddb + "maximum_retry_attempts", Fn: intBetween(-1, 10_000)},
			{Path: ddb + "parallelization_factor", Fn: intBetween(1, 10)},
			{Path: ddb + "starting_position", Fn: enumOf(pipetypes.DynamoDBStreamStartPosition("").Values())},
			{Path: ddb + "on_partial_batch_item_failure", Fn: enumOf(pipetypes.OnPartialBatchItemFailureStreams("").Values())},

			{Path: kin + "batch_size", Fn: intBetween(1, 10000)},
			{Path: kin + "maximum_batching_window_in_seconds", Fn: intBetween(0, 300)},
			{Path: kin + "maximum_record_age_in_seconds", Fn: anyOf(intInSlice(-1), intBetween(60, 604_800))},
			{Path: kin + "maximum_retry_attempts", Fn: intBetween(-1, 10_000)},
			{Path: kin + "parallelization_factor", Fn: intBetween(1, 10)},
			{Path: kin + "on_partial_batch_item_failure", Fn: enumOf(pipetypes.OnPartialBatchItemFailureStreams("").Values())},

			{Path: sqs + "batch_size", Fn: intBetween(1, 10000)},
			{Path: sqs + "maximum_batching_window_in_seconds", Fn: intBetween(0, 300)},

			// The schema's max_items already limits filters to 5, but
			// dynamic blocks are only counted once expanded; count again.
			{Path: "source_parameters.*.filter_criteria.*.filter", Fn: maxElements(5)},
			{Path: "source_parameters.*.filter_criteria.*.filter.*.pattern", Fn: stringLenBetween(1, 4096)},

			{Path: "target_parameters.*.input_template", Fn: stringLenBetween(0, 8192)},
			{Path: "enrichment_parameters.*.input_template", Fn: stringLenBetween(0, 8192)},

			{Path: "log_configuration.*.level", Fn: enumOf(pipetypes.LogLevel("").Values())},
			{Path: "log_configuration.*.include_execution_data", Fn: eachElement(enumOf(pipetypes.IncludeExecutionDataOption("").Values()))},
			{Path: "log_configuration.*.s3_log_destination.*.output_format", Fn: enumOf(pipetypes.S3OutputFormat("").Values())},
		},
	}
}
