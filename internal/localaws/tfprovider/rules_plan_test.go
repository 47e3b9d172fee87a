package tfprovider

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func runRealPlanCases(t *testing.T, typeName string, cases []planCase) {
	t.Helper()
	cat := realCatalog(t)
	runPlanCases(t, typeName, cat.Resources[typeName], resourceRules[typeName], cases)
}

func TestPlanSQSQueue(t *testing.T) {
	t.Parallel()
	runRealPlanCases(t, "aws_sqs_queue", []planCase{
		{
			name: "create applies the SDKv2 defaults", config: `{"name":"work"}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("visibility_timeout_seconds"), cty.NumberIntVal(30))
				requireVal(t, p, path("message_retention_seconds"), cty.NumberIntVal(345600))
				requireVal(t, p, path("max_message_size"), cty.NumberIntVal(262144))
				requireVal(t, p, path("delay_seconds"), cty.NumberIntVal(0))
				requireVal(t, p, path("receive_wait_time_seconds"), cty.NumberIntVal(0))
				requireVal(t, p, path("fifo_queue"), cty.False)
				requireUnknown(t, p, path("arn"), path("url"), path("id"), path("redrive_policy"), path("name_prefix"))
			},
		},
		{
			name: "configured values win over defaults", config: `{"name":"work","visibility_timeout_seconds":5400}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("visibility_timeout_seconds"), cty.NumberIntVal(5400))
			},
		},
		{
			name: "SQS-managed SSE leaves the data key reuse period to the read", config: `{"name":"work","sqs_managed_sse_enabled":true}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireUnknown(t, p, path("kms_data_key_reuse_period_seconds"))
			},
		},
		{
			name: "renaming replaces the queue", prior: `{"name":"work"}`, config: `{"name":"work2"}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("name")}, replace)
			},
		},
		{
			name: "changing the visibility timeout is in place", prior: `{"name":"work"}`, config: `{"name":"work","visibility_timeout_seconds":60}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) { require.Empty(t, replace) },
		},
		{name: "invalid name", config: `{"name":"bad name"}`, wantError: "invalid queue name: bad name"},
		{name: "name too long", config: `{"name":"` + strings.Repeat("q", 81) + `"}`, wantError: "invalid queue name"},
		{name: "prefix too long", config: `{"name_prefix":"` + strings.Repeat("q", 55) + `"}`, wantError: "invalid queue name"},
		{name: "fifo name needs the suffix", config: `{"name":"q","fifo_queue":true}`, wantError: "invalid queue name: q"},
		{
			name: "fifo name", config: `{"name":"q.fifo","fifo_queue":true,"content_based_deduplication":true}`,
			check: func(t *testing.T, _, _ cty.Value, _ []cty.Path) {},
		},
		{name: "content-based deduplication needs FIFO", config: `{"name":"q","content_based_deduplication":true}`, wantError: "only be set for FIFO queue"},
	})
}

func TestPlanLambdaFunction(t *testing.T) {
	t.Parallel()
	const fn = `{"function_name":"scraper","role":"arn:aws:iam::000000000000:role/r","handler":"bootstrap","runtime":"provided.al2023","filename":"f.zip","source_code_hash":"h1"`
	runRealPlanCases(t, "aws_lambda_function", []planCase{
		{
			name: "create applies the SDKv2 defaults", config: fn + `}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("memory_size"), cty.NumberIntVal(128))
				requireVal(t, p, path("timeout"), cty.NumberIntVal(3))
				requireVal(t, p, path("package_type"), cty.StringVal("Zip"))
				requireVal(t, p, path("publish"), cty.False)
				requireVal(t, p, path("reserved_concurrent_executions"), cty.NumberIntVal(-1))
				requireUnknown(t, p, path("arn"), path("version"), path("last_modified"), path("qualified_arn"), path("architectures"))
			},
		},
		{
			name:  "new code: last_modified and the package digest are unknown, version stays without publish",
			prior: fn + `}`, config: strings.Replace(fn, `"h1"`, `"h2"`, 1) + `}`,
			check: func(t *testing.T, prior, p cty.Value, replace []cty.Path) {
				require.Empty(t, replace)
				requireUnknown(t, p, path("last_modified"), path("code_sha256"), path("source_code_size"))
				for _, k := range []string{"version", "qualified_arn", "arn", "invoke_arn"} {
					requireVal(t, p, path(k), attr(prior, path(k)))
				}
			},
		},
		{
			name:  "published: a configuration change makes a new version",
			prior: fn + `,"publish":true}`, config: fn + `,"publish":true,"timeout":420}`,
			check: func(t *testing.T, prior, p cty.Value, _ []cty.Path) {
				requireUnknown(t, p, path("version"), path("qualified_arn"), path("qualified_invoke_arn"))
				// UpdateFunctionConfiguration moves LastModified too.
				requireUnknown(t, p, path("last_modified"))
			},
		},
		{
			name: "unchanged function plans the prior state", prior: fn + `,"timeout":420,"memory_size":256}`, config: fn + `,"timeout":420,"memory_size":256}`,
			check: func(t *testing.T, prior, p cty.Value, replace []cty.Path) {
				require.Empty(t, replace)
				require.True(t, prior.RawEquals(p))
			},
		},
		{
			name: "renaming replaces the function", prior: fn + `}`, config: strings.Replace(fn, "scraper", "scraper2", 1) + `}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("function_name")}, replace)
			},
		},
		{name: "zip without handler", config: `{"function_name":"f","role":"r","runtime":"provided.al2023","filename":"f.zip"}`, wantError: "handler and runtime must be set when PackageType is Zip"},
		{
			name: "unknown handler is not judged", config: `{"function_name":"f","role":"r","handler":"h","runtime":"provided.al2023","filename":"f.zip"}`,
			mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("handler")) },
			check:  func(t *testing.T, _, _ cty.Value, _ []cty.Path) {},
		},
	})
}

func TestPlanPipe(t *testing.T) {
	t.Parallel()
	pipe := func(start, batch string) string {
		return `{"name":"tasks","role_arn":"r","source":"arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1","target":"q",
			"source_parameters":[{"dynamodb_stream_parameters":[{"starting_position":"` + start + `","batch_size":` + batch + `}]}]}`
	}
	runRealPlanCases(t, "aws_pipes_pipe", []planCase{
		{
			name: "create: defaults and unknown computed stream parameters", config: pipe("LATEST", "1"),
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("description"), cty.StringVal("Managed by Terraform"))
				requireVal(t, p, path("desired_state"), cty.StringVal("RUNNING"))
				ddb := path("source_parameters", 0, "dynamodb_stream_parameters", 0)
				requireVal(t, p, append(ddb, cty.GetAttrStep{Name: "batch_size"}), cty.NumberIntVal(1))
				requireUnknown(t, p, append(ddb, cty.GetAttrStep{Name: "maximum_batching_window_in_seconds"}), path("arn"), path("id"))
				requireVal(t, p, append(ddb, cty.GetAttrStep{Name: "maximum_retry_attempts"}), cty.NullVal(cty.Number))
			},
		},
		{
			name: "changing starting_position replaces the pipe", prior: pipe("LATEST", "1"), config: pipe("TRIM_HORIZON", "1"),
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("source_parameters", 0, "dynamodb_stream_parameters", 0, "starting_position")}, replace)
			},
		},
		{
			name: "changing batch_size is in place", prior: pipe("LATEST", "1"), config: pipe("LATEST", "10"),
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) { require.Empty(t, replace) },
		},
	})
}

func TestPlanOtherResources(t *testing.T) {
	t.Parallel()
	t.Run("event source mapping", func(t *testing.T) {
		t.Parallel()
		esm := `{"function_name":"f","event_source_arn":"arn:aws:sqs:us-east-1:000000000000:q","batch_size":1,"scaling_config":[{"maximum_concurrency":140}]}`
		runRealPlanCases(t, "aws_lambda_event_source_mapping", []planCase{
			{name: "enabled defaults to true", config: esm, check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("enabled"), cty.True)
				requireUnknown(t, p, path("uuid"), path("function_arn"), path("state"))
			}},
			{name: "a new source replaces the mapping", prior: esm, config: strings.Replace(esm, ":q\"", ":q2\"", 1),
				check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
					require.Equal(t, []cty.Path{path("event_source_arn")}, replace)
				}},
		})
	})
	t.Run("dynamodb table", func(t *testing.T) {
		t.Parallel()
		runRealPlanCases(t, "aws_dynamodb_table", []planCase{
			{name: "billing mode defaults to PROVISIONED", config: `{"name":"t","hash_key":"id","read_capacity":1,"write_capacity":1,"attribute":[{"name":"id","type":"S"}]}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireVal(t, p, path("billing_mode"), cty.StringVal("PROVISIONED"))
					requireUnknown(t, p, path("stream_arn"), path("arn"))
				}},
			{name: "stream without view type", config: `{"name":"t","hash_key":"id","billing_mode":"PAY_PER_REQUEST","stream_enabled":true,"attribute":[{"name":"id","type":"S"}]}`,
				wantError: "stream_view_type is required when stream_enabled = true"},
			{name: "stream view type empty", config: `{"name":"t","hash_key":"id","stream_enabled":true,"stream_view_type":"","attribute":[{"name":"id","type":"S"}]}`,
				wantError: "stream_view_type must be non-empty when stream_enabled = true"},
			{name: "stream view type from an unknown value", config: `{"name":"t","hash_key":"id","stream_enabled":true,"stream_view_type":"KEYS_ONLY","attribute":[{"name":"id","type":"S"}]}`,
				mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("stream_view_type")) },
				check:  func(t *testing.T, _, _ cty.Value, _ []cty.Path) {}},
			{name: "stream with view type", config: `{"name":"t","hash_key":"id","stream_enabled":true,"stream_view_type":"NEW_AND_OLD_IMAGES","attribute":[{"name":"id","type":"S"}]}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireUnknown(t, p, path("stream_arn"), path("stream_label"))
				}},
			{name: "attribute that is not a key", config: `{"name":"t","hash_key":"id","attribute":[{"name":"id","type":"S"},{"name":"status","type":"S"}]}`,
				wantError: `all attributes must be indexed. Unused attributes: ["status"]`},
			{name: "key without attribute", config: `{"name":"t","hash_key":"id","range_key":"sk","attribute":[{"name":"id","type":"S"}]}`,
				wantError: `Unmatched indexes: ["sk"]`},
			{name: "index keys count as keys", config: `{"name":"t","hash_key":"id","billing_mode":"PAY_PER_REQUEST","attribute":[{"name":"id","type":"S"},{"name":"status","type":"S"}],
				"global_secondary_index":[{"name":"by_status","hash_key":"status","projection_type":"ALL"}]}`,
				check: func(t *testing.T, _, _ cty.Value, _ []cty.Path) {}},
			{name: "changing the hash key replaces the table", prior: `{"name":"t","hash_key":"id","attribute":[{"name":"id","type":"S"},{"name":"pk","type":"S"}],"global_secondary_index":[{"name":"i","hash_key":"pk","projection_type":"ALL"}]}`,
				config: `{"name":"t","hash_key":"pk","attribute":[{"name":"id","type":"S"},{"name":"pk","type":"S"}],"global_secondary_index":[{"name":"i","hash_key":"id","projection_type":"ALL"}]}`,
				check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
					require.Equal(t, []cty.Path{path("hash_key")}, replace)
				}},
		})
	})
	t.Run("metric alarm", func(t *testing.T) {
		t.Parallel()
		runRealPlanCases(t, "aws_cloudwatch_metric_alarm", []planCase{
			{name: "defaults", config: `{"alarm_name":"a","metric_name":"m","namespace":"AWS/SQS","statistic":"Maximum","comparison_operator":"GreaterThanOrEqualToThreshold","evaluation_periods":1,"period":60,"threshold":1}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireVal(t, p, path("treat_missing_data"), cty.StringVal("missing"))
					requireVal(t, p, path("actions_enabled"), cty.True)
				}},
			{name: "metric alarm needs an operator", config: `{"alarm_name":"a","metric_name":"m","statistic":"Maximum","evaluation_periods":1}`,
				wantError: "comparison_operator is required"},
			{name: "metric alarm needs a statistic", config: `{"alarm_name":"a","metric_name":"m","comparison_operator":"GreaterThanThreshold","evaluation_periods":1}`,
				wantError: "One of `statistic` or `extended_statistic`"},
		})
	})
	t.Run("schedule", func(t *testing.T) {
		t.Parallel()
		runRealPlanCases(t, "aws_scheduler_schedule", []planCase{
			{name: "defaults, including inside an empty retry_policy", config: `{"name":"r","schedule_expression":"rate(5 minutes)","flexible_time_window":[{"mode":"OFF"}],
				"target":[{"arn":"arn:aws:lambda:us-east-1:000000000000:function:f","role_arn":"r","retry_policy":[{}]}]}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireVal(t, p, path("state"), cty.StringVal("ENABLED"))
					requireVal(t, p, path("schedule_expression_timezone"), cty.StringVal("UTC"))
					requireVal(t, p, path("target", 0, "retry_policy", 0, "maximum_event_age_in_seconds"), cty.NumberIntVal(86400))
					requireVal(t, p, path("target", 0, "retry_policy", 0, "maximum_retry_attempts"), cty.NumberIntVal(185))
					requireUnknown(t, p, path("group_name"), path("arn"))
				}},
		})
	})
	t.Run("log group and role", func(t *testing.T) {
		t.Parallel()
		runRealPlanCases(t, "aws_cloudwatch_log_group", []planCase{
			{name: "retention defaults to never expire", config: `{"name":"/aws/lambda/f"}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireVal(t, p, path("retention_in_days"), cty.NumberIntVal(0))
				}},
		})
		runRealPlanCases(t, "aws_iam_role", []planCase{
			{name: "defaults", config: `{"name":"r","assume_role_policy":"{}"}`,
				check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
					requireVal(t, p, path("path"), cty.StringVal("/"))
					requireVal(t, p, path("max_session_duration"), cty.NumberIntVal(3600))
					requireVal(t, p, path("force_detach_policies"), cty.False)
					requireUnknown(t, p, path("arn"), path("unique_id"), path("managed_policy_arns"))
				}},
			{name: "renaming replaces the role", prior: `{"name":"r","assume_role_policy":"{}"}`, config: `{"name":"r2","assume_role_policy":"{}"}`,
				check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
					require.Equal(t, []cty.Path{path("name")}, replace)
				}},
		})
	})
}

// A region change forces replacement (forceNewIfRegionChanges); a region
// left out follows the provider.
func TestPlanRegion(t *testing.T) {
	t.Parallel()
	runRealPlanCases(t, "aws_sqs_queue", []planCase{
		{name: "region follows the provider", config: `{"name":"q"}`, check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
			requireVal(t, p, path("region"), cty.StringVal("eu-west-1"))
		}},
		{name: "a new region replaces", prior: `{"name":"q"}`, config: `{"name":"q","region":"us-west-2"}`, check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
			require.Equal(t, []cty.Path{path("region")}, replace)
		}},
	})
}
