package terraform_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mutate replaces the single occurrence of old in file (relative to dir);
// an empty old deletes the file. It fails when old does not occur exactly
// once, so a mutation can never silently stop applying.
func mutate(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	if old == "" {
		require.NoError(t, os.Remove(path))
		return
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), old), "mutation anchor %q must occur once in %s", old, file)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644))
}

// TestContractsCatchMutations breaks a copy of the tree in one place at a
// time, plans it (the complete example, and the probes the contract asks
// for) and requires the matching contract to report it, or Terraform to
// refuse the plan: proof that each contract can fail.
func TestContractsCatchMutations(t *testing.T) {
	t.Parallel()
	schema := awsSchema(t)

	tests := []struct {
		name     string
		contract string
		file     string
		old, new string
		want     string
	}{
		{
			name: "SwitchNotEnable", contract: "ConventionalNames",
			file: "modules/result-bucket/variables.tf",
			old:  `variable "enable_force_destroy" {`, new: `variable "force_destroy" {`,
			want: "modules/result-bucket: variable force_destroy is a switch; name it enable_*",
		},
		{
			name: "TimeoutWithoutUnit", contract: "ConventionalNames",
			file: "modules/go-lambda/variables.tf",
			old:  `variable "timeout_seconds" {`, new: `variable "timeout" {`,
			want: "modules/go-lambda: variable timeout is a duration; name it *_seconds",
		},
		{
			name: "BisectTurnedOff", contract: "PipeBisect",
			file: "modules/dispatch/main.tf",
			old:  `on_partial_batch_item_failure = "AUTOMATIC_BISECT"`, new: `on_partial_batch_item_failure = "OFF"`,
			want: `on_partial_batch_item_failure to be one of ["AUTOMATIC_BISECT"], got OFF`, // the provider's schema refuses it
		},
		{
			name: "StreamParameterLeftUnset", contract: "PipeStreamParametersExplicit",
			file: "modules/dispatch/main.tf",
			old:  "      parallelization_factor        = var.parallelization_factor\n", new: "",
			want: "dynamodb_stream_parameters.parallelization_factor is not a known value",
		},
		{
			name: "RecordAgeDefaultIsStreamRetention", contract: "PipeFiniteRetriesAndAge",
			file: "modules/dispatch/variables.tf",
			old:  "default     = 3600", new: "default     = 86400",
			want: "maximum_record_age_in_seconds must be at least 60 and below 86400",
		},
		{
			name: "RetryValidationAcceptsForever", contract: "PipeFiniteRetriesAndAge",
			file: "modules/dispatch/variables.tf",
			old:  "var.maximum_retry_attempts >= 1 &&", new: "var.maximum_retry_attempts >= -1 &&",
			want: "maximum_retry_attempts accepts -1",
		},
		{
			name: "PartialBatchResponsesIgnored", contract: "ReportBatchItemFailures",
			file: "modules/go-lambda/main.tf",
			old:  `function_response_types = ["ReportBatchItemFailures"]`, new: `function_response_types = []`,
			want: "lacks ReportBatchItemFailures",
		},
		{
			name: "ScraperBatchOfTen", contract: "ReportBatchItemFailures",
			file: "modules/pipeline/main.tf",
			old:  "sqs_batch_size                         = 1", new: "sqs_batch_size                         = 10",
			want: "scraper batch_size 10, want 1",
		},
		{
			name: "WildcardInPipeRole", contract: "NoWildcardActions",
			file: "modules/dispatch/main.tf",
			old:  `Action   = ["dynamodb:ListStreams"]`, new: `Action   = ["dynamodb:List*"]`,
			want: `wildcard action "dynamodb:List*"`,
		},
		{
			name: "ResourceStarInPipeRole", contract: "NoWildcardActions",
			file: "modules/dispatch/main.tf",
			old:  `Resource = [var.target_queue_arn]`, new: `Resource = ["*"]`,
			want: `grants Resource "*"`,
		},
		{
			name: "WildcardInCallerStatement", contract: "NoWildcardActions",
			file: "modules/pipeline/main.tf",
			old:  `actions   = ["sqs:ChangeMessageVisibility"]`, new: `actions   = ["sqs:*"]`,
			want: `wildcard action "sqs:*"`,
		},
		{
			name: "WildcardValidationRemoved", contract: "NoWildcardActions",
			file: "modules/go-lambda/variables.tf",
			old:  `length(regexall("\\*", a)) == 0`, new: `true`,
			want: "policy_statements accepts",
		},
		{
			name: "ListStreamsScopedToStreams", contract: "ListStreamsOnAnyResource",
			file: "modules/dispatch/main.tf",
			old:  `Resource = ["*"]`, new: `Resource = ["${split("/stream/", var.source_stream_arn)[0]}/stream/*"]`,
			want: `dynamodb:ListStreams is granted on`,
		},
		{
			name: "ListStreamsSharesStatement", contract: "ListStreamsOnAnyResource",
			file: "modules/dispatch/main.tf",
			old:  `Action   = ["dynamodb:ListStreams"]`, new: `Action   = ["dynamodb:ListStreams", "dynamodb:DescribeStream"]`,
			want: `shares its "*" statement`,
		},
		{
			name: "ScraperGetItemGranted", contract: "FunctionLeastPrivilege",
			file: "modules/pipeline/main.tf",
			old:  "sid       = \"ClaimAndFinishTasks\"\n      actions   = [\"dynamodb:UpdateItem\"]", new: "sid       = \"ClaimAndFinishTasks\"\n      actions   = [\"dynamodb:GetItem\", \"dynamodb:UpdateItem\"]",
			want: "want exactly",
		},
		{
			name: "DuplicateSidAccepted", contract: "FunctionLeastPrivilege",
			file: "modules/go-lambda/variables.tf",
			old:  `length(distinct([for s in var.policy_statements : s.sid])) == length(var.policy_statements) &&`, new: ``,
			want: "policy_statements accepts",
		},
		{
			name: "OldestTaskAlarmAcrossDeployments", contract: "DLQAlarms",
			file: "modules/pipeline/monitoring.tf",
			old:  "  metric_name         = \"OldestLiveTaskAge\"\n  dimensions          = { Deployment = var.name }\n", new: "  metric_name         = \"OldestLiveTaskAge\"\n",
			want: "want exactly {Deployment",
		},
		{
			name: "DeploymentNameNotInEnvironment", contract: "DLQAlarms",
			file: "modules/pipeline/main.tf",
			old:  "    DEPLOYMENT_NAME = var.name\n", new: "",
			want: "has no DEPLOYMENT_NAME",
		},
		{
			name: "QueueCustomerKey", contract: "EncryptionNeedsNoGrants",
			file: "modules/work-queue/main.tf",
			old:  "  sqs_managed_sse_enabled   = true\n", new: "  sqs_managed_sse_enabled   = false\n  kms_master_key_id         = \"alias/taskpipe\"\n",
			want: `"sqs_managed_sse_enabled": conflicts with kms_master_key_id`, // the provider refuses it at plan
		},
		{
			name: "TableCustomerKey", contract: "EncryptionNeedsNoGrants",
			file: "modules/task-table/main.tf",
			old:  "    enabled = true\n  }", new: "    enabled     = true\n    kms_key_arn = \"arn:aws:kms:eu-west-1:123456789012:key/x\"\n  }",
			want: "sets server_side_encryption.kms_key_arn",
		},
		{
			name: "PipeDLQNotAlarmed", contract: "DLQAlarms",
			file: "modules/pipeline/monitoring.tf",
			old:  "dimensions        = { QueueName = module.dispatch.dlq_name }", new: "dimensions        = { QueueName = module.queue.dlq_name }",
			want: "no alarm watches the dispatch DLQ",
		},
		{
			name: "RedrivePolicyResourceRemoved", contract: "DeadLetterQueues",
			file: "modules/dispatch/main.tf",
			old:  "Resource = [aws_sqs_queue.dlq.arn]", new: "Resource = [var.target_queue_arn]",
			want: "cannot sqs:SendMessage to aws_sqs_queue.dlq",
		},
		{
			name: "DLQRetentionCheckWeakened", contract: "DLQRetention",
			file: "modules/work-queue/main.tf",
			old:  "var.dlq_message_retention_seconds > var.message_retention_seconds", new: "var.dlq_message_retention_seconds >= var.message_retention_seconds",
			want: "equal queue and DLQ retention passes the plan",
		},
		{
			name: "VisibilityDefaultTooShort", contract: "VisibilityTimeout",
			file: "modules/work-queue/variables.tf",
			old:  "default     = 5400", new: "default     = 600",
			want: "Resource precondition failed",
		},
		{
			name: "VisibilityPreconditionWeakened", contract: "VisibilityTimeout",
			file: "modules/work-queue/main.tf",
			old:  "6 * var.consumer_timeout_seconds", new: "1 * var.consumer_timeout_seconds",
			want: "visibility 2519 with scraper timeout 420 passes the plan",
		},
		{
			name: "UndescribedVariable", contract: "VariablesTypedAndDescribed",
			file: "modules/task-table/variables.tf",
			old:  "  description = \"Tags for the table.\"\n", new: "",
			want: "variable tags has no description",
		},
		{
			name: "ModuleReadmeMissing", contract: "ModuleFiles",
			file: "modules/go-lambda/README.md",
			want: "modules/go-lambda: README.md is missing",
		},
		{
			name: "LiveIndexProjectsAll", contract: "TableMatchesStore",
			file: "modules/task-table/main.tf",
			old:  "name               = local.live_index_name\n    projection_type    = \"INCLUDE\"", new: "name               = local.live_index_name\n    projection_type    = \"ALL\"",
			want: "global secondary indexes",
		},
		{
			name: "LiveIndexProjectsStatus", contract: "TableMatchesStore",
			file: "modules/task-table/main.tf",
			old:  `non_key_attributes = ["runId"]`, new: `non_key_attributes = ["runId", "status"]`,
			want: "global secondary indexes",
		},
		{
			name: "IndexWithDeprecatedKeys", contract: "TableMatchesStore",
			file: "modules/task-table/main.tf",
			old:  "name            = local.done_index_name\n", new: "name            = local.done_index_name\n    hash_key        = \"doneRun\"\n",
			want: "uses the deprecated hash_key/range_key",
		},
		{
			name: "FilterMatchesExistingStatus", contract: "PipeFilterDefault",
			file: "modules/dispatch/variables.tf",
			old:  `\"exists\":false`, new: `\"exists\":true`,
			want: "filter_patterns default",
		},
		{
			name: "RunningGraceEqualsVisibility", contract: "LambdaEnvironment",
			file: "modules/pipeline/main.tf",
			old:  "module.queue.visibility_timeout_seconds + 600)", new: "module.queue.visibility_timeout_seconds)",
			want: "Resource precondition failed",
		},
		{
			name: "EnvironmentKeyDropped", contract: "LambdaEnvironment",
			file: "modules/pipeline/main.tf",
			old:  "    LIVE_SHARDS                           = tostring(var.live_shards)\n", new: "",
			want: "environment lacks LIVE_SHARDS",
		},
		{
			name: "EnvironmentTheFunctionsReject", contract: "LambdaEnvironment",
			file: "modules/pipeline/main.tf",
			old:  "LOG_LEVEL                             = var.lambda_log_level", new: `LOG_LEVEL = "verbose"`,
			want: "rejects its planned environment",
		},
		{
			name: "PipelineRepeatsLeafDefault", contract: "LeafModulesOwnDefaults",
			file: "modules/pipeline/variables.tf",
			old:  "Concurrent pipe batches per stream shard; null keeps the dispatch module's default.\"\n  type        = number\n  default     = null",
			new:  "Concurrent pipe batches per stream shard; null keeps the dispatch module's default.\"\n  type        = number\n  default     = 1",
			want: "pipeline: variable pipe_parallelization_factor repeats the default of dispatch.parallelization_factor",
		},
		{
			name: "PipelineRepeatsLeafValidation", contract: "LeafModulesOwnDefaults",
			file: "modules/pipeline/variables.tf",
			old:  "Log format of the functions: Text or JSON; null keeps the go-lambda module's default.\"\n  type        = string\n  default     = null\n",
			new:  "Log format of the functions: Text or JSON; null keeps the go-lambda module's default.\"\n  type        = string\n  default     = null\n\n  validation {\n    condition     = var.lambda_log_format == null || contains([\"Text\", \"JSON\"], coalesce(var.lambda_log_format, \"Text\"))\n    error_message = \"lambda_log_format must be Text or JSON.\"\n  }\n",
			want: "pipeline: variable lambda_log_format repeats a validation of go-lambda.log_format",
		},
		{
			name: "LeafTakesNullAsNull", contract: "LeafModulesOwnDefaults",
			file: "modules/dispatch/variables.tf",
			old:  "Records per batch; an SQS target takes at most 10.\"\n  type        = number\n  nullable    = false\n", new: "Records per batch; an SQS target takes at most 10.\"\n  type        = number\n",
			want: "dispatch: variable batch_size is not nullable = false",
		},
		{
			name: "ProviderFloorLowered", contract: "ProviderFloor",
			file: "modules/pipeline/versions.tf",
			old:  `version = "~> 6.47"`, new: `version = ">= 5.61"`,
			want: "must be ~> 6.47",
		},
		{
			name: "ScraperTimeoutChanged", contract: "ProductionDefaults",
			file: "modules/pipeline/variables.tf",
			old:  "default     = 420", new: "default     = 300",
			want: "scraper timeout is 300, want 420",
		},
		{
			name: "DefaultBreaksValidation", contract: "DefaultsPassValidation",
			file: "modules/pipeline/variables.tf",
			old:  `default     = "rate(5 minutes)"`, new: `default     = "every 5 minutes"`,
			want: "reconciler_schedule_expression must be rate(N unit) or cron(...)",
		},
	}

	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.contract] = true
	}
	for _, ct := range contracts {
		require.True(t, covered[ct.name], "contract %s has no mutation test", ct.name)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mutant(t, func(tree string) { mutate(t, tree, tt.file, tt.old, tt.new) }, "complete")
			violations := runContract(t, s, schema, tt.contract)
			t.Logf("violations: %q", violations)
			require.NotEmpty(t, violations, "contract %s missed the mutation", tt.contract)
			require.Contains(t, strings.Join(violations, "\n"), tt.want)
		})
	}
}
