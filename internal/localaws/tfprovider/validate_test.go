package tfprovider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func newTestServer(t testing.TB, env map[string]string, opts ...Option) *Server {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	srv, err := NewServer(realCatalog(t), append([]Option{WithEnv(env)}, opts...)...)
	require.NoError(t, err)
	return srv
}

func validateResource(t testing.TB, srv *Server, typeName string, cfg cty.Value) []*tfprotov5.Diagnostic {
	t.Helper()
	dv, err := encodeValue(cfg, ImpliedType(srv.cat.Resources[typeName].Block))
	require.NoError(t, err)
	resp, err := srv.ValidateResourceTypeConfig(context.Background(), &tfprotov5.ValidateResourceTypeConfigRequest{TypeName: typeName, Config: dv})
	require.NoError(t, err)
	return resp.Diagnostics
}

const (
	testRole  = `"arn:aws:iam::000000000000:role/r"`
	testQueue = `"arn:aws:sqs:us-east-1:000000000000:q"`
)

// pipeJSON is a valid pipe whose dynamodb_stream_parameters get extra.
func pipeJSON(ddbExtra, top string) string {
	if ddbExtra != "" {
		ddbExtra = ", " + ddbExtra
	}
	if top != "" {
		top = ", " + top
	}
	return `{"role_arn":` + testRole + `,"source":"arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2024","target":` + testQueue +
		`,"source_parameters":[{"dynamodb_stream_parameters":[{"starting_position":"LATEST"` + ddbExtra + `}]}]` + top + `}`
}

// filterPipe is a pipe with n filters of the given pattern.
func filterPipe(n int, pattern string) string {
	return `{"role_arn":` + testRole + `,"source":"s","target":` + testQueue + `,` + filters(n, pattern) + `}`
}

func filters(n int, pattern string) string {
	var fs []string
	for i := 0; i < n; i++ {
		fs = append(fs, fmt.Sprintf(`{"pattern":%q}`, pattern))
	}
	return `"source_parameters":[{"dynamodb_stream_parameters":[{"starting_position":"LATEST"}],"filter_criteria":[{"filter":[` + strings.Join(fs, ",") + `]}]}]`
}

func TestValidateResourceConfig(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	fn := func(extra string) string {
		return `{"function_name":"f","role":` + testRole + `,"handler":"bootstrap","runtime":"provided.al2023","filename":"f.zip"` + extra + `}`
	}
	esm := func(extra string) string { return `{"function_name":"f","event_source_arn":` + testQueue + extra + `}` }
	alarm := func(extra string) string { return `{"alarm_name":"a"` + extra + `}` }
	sched := func(expr, mode string) string {
		return `{"schedule_expression":"` + expr + `","flexible_time_window":[{"mode":"` + mode + `"}],"target":[{"arn":"arn:aws:lambda:us-east-1:000000000000:function:f","role_arn":` + testRole + `}]}`
	}
	redrive := func(n string) string {
		return `{"redrive_policy":"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:dlq\",\"maxReceiveCount\":` + n + `}"}`
	}
	tests := []struct {
		name, typ, cfg string
		wantErr        string // "" = valid
	}{
		// aws_pipes_pipe dynamodb_stream_parameters (docs/aws-behaviour.md §7.1, §1.1).
		{"pipe batch 0", "aws_pipes_pipe", pipeJSON(`"batch_size":0`, ""), "batch_size to be in the range (1 - 10000), got 0"},
		{"pipe batch 1", "aws_pipes_pipe", pipeJSON(`"batch_size":1`, ""), ""},
		{"pipe batch 10000", "aws_pipes_pipe", pipeJSON(`"batch_size":10000`, ""), ""},
		{"pipe batch 10001", "aws_pipes_pipe", pipeJSON(`"batch_size":10001`, ""), "got 10001"},
		{"pipe window -1", "aws_pipes_pipe", pipeJSON(`"maximum_batching_window_in_seconds":-1`, ""), "(0 - 300)"},
		{"pipe window 0", "aws_pipes_pipe", pipeJSON(`"maximum_batching_window_in_seconds":0`, ""), ""},
		{"pipe window 300", "aws_pipes_pipe", pipeJSON(`"maximum_batching_window_in_seconds":300`, ""), ""},
		{"pipe window 301", "aws_pipes_pipe", pipeJSON(`"maximum_batching_window_in_seconds":301`, ""), "(0 - 300)"},
		{"pipe age -2", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":-2`, ""), "maximum_record_age_in_seconds"},
		{"pipe age -1", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":-1`, ""), ""},
		{"pipe age 0", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":0`, ""), "(60 - 604800)"},
		{"pipe age 59", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":59`, ""), "(60 - 604800)"},
		{"pipe age 60", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":60`, ""), ""},
		{"pipe age 604800", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":604800`, ""), ""},
		{"pipe age 604801", "aws_pipes_pipe", pipeJSON(`"maximum_record_age_in_seconds":604801`, ""), "(60 - 604800)"},
		{"pipe retries -2", "aws_pipes_pipe", pipeJSON(`"maximum_retry_attempts":-2`, ""), "(-1 - 10000)"},
		{"pipe retries -1", "aws_pipes_pipe", pipeJSON(`"maximum_retry_attempts":-1`, ""), ""},
		{"pipe retries 10000", "aws_pipes_pipe", pipeJSON(`"maximum_retry_attempts":10000`, ""), ""},
		{"pipe retries 10001", "aws_pipes_pipe", pipeJSON(`"maximum_retry_attempts":10001`, ""), "(-1 - 10000)"},
		{"pipe retries 1.5", "aws_pipes_pipe", pipeJSON(`"maximum_retry_attempts":1.5`, ""), "to be integer"},
		{"pipe parallel 0", "aws_pipes_pipe", pipeJSON(`"parallelization_factor":0`, ""), "(1 - 10)"},
		{"pipe parallel 1", "aws_pipes_pipe", pipeJSON(`"parallelization_factor":1`, ""), ""},
		{"pipe parallel 10", "aws_pipes_pipe", pipeJSON(`"parallelization_factor":10`, ""), ""},
		{"pipe parallel 11", "aws_pipes_pipe", pipeJSON(`"parallelization_factor":11`, ""), "(1 - 10)"},
		{"pipe start trim", "aws_pipes_pipe", strings.Replace(pipeJSON("", ""), "LATEST", "TRIM_HORIZON", 1), ""},
		{"pipe start at_timestamp", "aws_pipes_pipe", strings.Replace(pipeJSON("", ""), "LATEST", "AT_TIMESTAMP", 1), "starting_position to be one of"},
		{"pipe start lowercase", "aws_pipes_pipe", strings.Replace(pipeJSON("", ""), "LATEST", "latest", 1), "starting_position to be one of"},
		{"pipe bisect", "aws_pipes_pipe", pipeJSON(`"on_partial_batch_item_failure":"AUTOMATIC_BISECT"`, ""), ""},
		{"pipe bisect bad", "aws_pipes_pipe", pipeJSON(`"on_partial_batch_item_failure":"OFF"`, ""), "on_partial_batch_item_failure"},
		{"pipe desired RUNNING", "aws_pipes_pipe", pipeJSON("", `"desired_state":"RUNNING"`), ""},
		{"pipe desired STOPPED", "aws_pipes_pipe", pipeJSON("", `"desired_state":"STOPPED"`), ""},
		{"pipe desired PAUSED", "aws_pipes_pipe", pipeJSON("", `"desired_state":"PAUSED"`), "desired_state to be one of"},
		{"pipe log TRACE", "aws_pipes_pipe", pipeJSON("", `"log_configuration":[{"level":"TRACE"}]`), ""},
		{"pipe log DEBUG", "aws_pipes_pipe", pipeJSON("", `"log_configuration":[{"level":"DEBUG"}]`), "level to be one of"},
		{"pipe template 8192", "aws_pipes_pipe", pipeJSON("", `"target_parameters":[{"input_template":"`+strings.Repeat("x", 8192)+`"}]`), ""},
		{"pipe template 8193", "aws_pipes_pipe", pipeJSON("", `"target_parameters":[{"input_template":"`+strings.Repeat("x", 8193)+`"}]`), "(0 - 8192)"},
		{"pipe name 64", "aws_pipes_pipe", pipeJSON("", `"name":"`+strings.Repeat("p", 64)+`"`), ""},
		{"pipe name 65", "aws_pipes_pipe", pipeJSON("", `"name":"`+strings.Repeat("p", 65)+`"`), "(1 - 64)"},

		// aws_lambda_event_source_mapping (docs/aws-behaviour.md §7.3).
		{"esm concurrency 1", "aws_lambda_event_source_mapping", esm(`,"scaling_config":[{"maximum_concurrency":1}]`), "to be at least (2), got 1"},
		{"esm concurrency 2", "aws_lambda_event_source_mapping", esm(`,"scaling_config":[{"maximum_concurrency":2}]`), ""},
		{"esm concurrency 1001", "aws_lambda_event_source_mapping", esm(`,"scaling_config":[{"maximum_concurrency":1001}]`), ""},
		{"esm batch 0", "aws_lambda_event_source_mapping", esm(`,"batch_size":0`), "(1 - 10000)"},
		{"esm batch 1", "aws_lambda_event_source_mapping", esm(`,"batch_size":1`), ""},
		{"esm batch 10001", "aws_lambda_event_source_mapping", esm(`,"batch_size":10001`), "(1 - 10000)"},
		{"esm window 300", "aws_lambda_event_source_mapping", esm(`,"maximum_batching_window_in_seconds":300`), ""},
		{"esm window 301", "aws_lambda_event_source_mapping", esm(`,"maximum_batching_window_in_seconds":301`), "(0 - 300)"},
		{"esm response types", "aws_lambda_event_source_mapping", esm(`,"function_response_types":["ReportBatchItemFailures"]`), ""},
		{"esm response types bad", "aws_lambda_event_source_mapping", esm(`,"function_response_types":["ReportFailures"]`), "ReportBatchItemFailures"},

		// aws_sqs_queue and redrive documents (docs/aws-behaviour.md §7.2).
		{"sqs visibility -1", "aws_sqs_queue", `{"visibility_timeout_seconds":-1}`, "(0 - 43200)"},
		{"sqs visibility 0", "aws_sqs_queue", `{"visibility_timeout_seconds":0}`, ""},
		{"sqs visibility 43200", "aws_sqs_queue", `{"visibility_timeout_seconds":43200}`, ""},
		{"sqs visibility 43201", "aws_sqs_queue", `{"visibility_timeout_seconds":43201}`, "(0 - 43200)"},
		{"sqs retention 59", "aws_sqs_queue", `{"message_retention_seconds":59}`, "(60 - 1209600)"},
		{"sqs retention 60", "aws_sqs_queue", `{"message_retention_seconds":60}`, ""},
		{"sqs retention 1209600", "aws_sqs_queue", `{"message_retention_seconds":1209600}`, ""},
		{"sqs retention 1209601", "aws_sqs_queue", `{"message_retention_seconds":1209601}`, "(60 - 1209600)"},
		{"sqs size 1023", "aws_sqs_queue", `{"max_message_size":1023}`, "(1024 - 1048576)"},
		{"sqs size 1048576", "aws_sqs_queue", `{"max_message_size":1048576}`, ""},
		{"sqs size 1048577", "aws_sqs_queue", `{"max_message_size":1048577}`, "(1024 - 1048576)"},
		{"sqs delay 900", "aws_sqs_queue", `{"delay_seconds":900}`, ""},
		{"sqs delay 901", "aws_sqs_queue", `{"delay_seconds":901}`, "(0 - 900)"},
		{"sqs wait 20", "aws_sqs_queue", `{"receive_wait_time_seconds":20}`, ""},
		{"sqs wait 21", "aws_sqs_queue", `{"receive_wait_time_seconds":21}`, "(0 - 20)"},
		{"sqs redrive 0", "aws_sqs_queue", redrive("0"), "maxReceiveCount must be between 1 and 1000, got 0"},
		{"sqs redrive 1", "aws_sqs_queue", redrive("1"), ""},
		{"sqs redrive 1000", "aws_sqs_queue", redrive("1000"), ""},
		{"sqs redrive 1001", "aws_sqs_queue", redrive("1001"), "got 1001"},
		{"sqs redrive string count", "aws_sqs_queue", redrive(`\"3\"`), ""},
		{"sqs redrive not json", "aws_sqs_queue", `{"redrive_policy":"{maxReceiveCount: 3"}`, "invalid JSON"},
		{"sqs redrive no arn", "aws_sqs_queue", `{"redrive_policy":"{\"maxReceiveCount\":3}"}`, "deadLetterTargetArn is required"},
		{"redrive resource 0", "aws_sqs_queue_redrive_policy", strings.Replace(redrive("0"), "{", `{"queue_url":"u",`, 1), "maxReceiveCount"},
		{"allow byQueue", "aws_sqs_queue_redrive_allow_policy", `{"queue_url":"u","redrive_allow_policy":"{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"a\"]}"}`, ""},
		{"allow bad permission", "aws_sqs_queue_redrive_allow_policy", `{"queue_url":"u","redrive_allow_policy":"{\"redrivePermission\":\"some\"}"}`, "allowAll, denyAll or byQueue"},

		// aws_lambda_function (docs/aws-behaviour.md §7.4).
		{"lambda timeout 0", "aws_lambda_function", fn(`,"timeout":0`), "(1 - 900)"},
		{"lambda timeout 1", "aws_lambda_function", fn(`,"timeout":1`), ""},
		{"lambda timeout 900", "aws_lambda_function", fn(`,"timeout":900`), ""},
		{"lambda timeout 901", "aws_lambda_function", fn(`,"timeout":901`), "(1 - 900)"},
		{"lambda memory 127", "aws_lambda_function", fn(`,"memory_size":127`), "(128 - 10240)"},
		{"lambda memory 128", "aws_lambda_function", fn(`,"memory_size":128`), ""},
		{"lambda memory 10240", "aws_lambda_function", fn(`,"memory_size":10240`), ""},
		{"lambda memory 10241", "aws_lambda_function", fn(`,"memory_size":10241`), "(128 - 10240)"},
		{"lambda arm64", "aws_lambda_function", fn(`,"architectures":["arm64"]`), ""},
		{"lambda x86_64", "aws_lambda_function", fn(`,"architectures":["x86_64"]`), ""},
		{"lambda amd64", "aws_lambda_function", fn(`,"architectures":["amd64"]`), "architectures.0 to be one of"},
		{"lambda two archs", "aws_lambda_function", fn(`,"architectures":["arm64","x86_64"]`), "1 item maximum"},
		{"lambda runtime bad", "aws_lambda_function", strings.Replace(fn(""), "provided.al2023", "provided.al2099", 1), "runtime to be one of"},
		{"lambda reserved -2", "aws_lambda_function", fn(`,"reserved_concurrent_executions":-2`), "at least (-1)"},
		{"lambda reserved -1", "aws_lambda_function", fn(`,"reserved_concurrent_executions":-1`), ""},
		{"lambda reserved 0", "aws_lambda_function", fn(`,"reserved_concurrent_executions":0`), ""},
		{"lambda log format", "aws_lambda_function", fn(`,"logging_config":[{"log_format":"JSON","application_log_level":"INFO"}]`), ""},
		{"lambda log format bad", "aws_lambda_function", fn(`,"logging_config":[{"log_format":"XML"}]`), "log_format to be one of"},

		// aws_dynamodb_table (docs/aws-behaviour.md §7.7).
		{"ddb billing", "aws_dynamodb_table", `{"name":"t","billing_mode":"PAY_PER_REQUEST"}`, ""},
		{"ddb billing bad", "aws_dynamodb_table", `{"name":"t","billing_mode":"ON_DEMAND"}`, "billing_mode to be one of"},
		{"ddb view", "aws_dynamodb_table", `{"name":"t","stream_view_type":"NEW_AND_OLD_IMAGES"}`, ""},
		{"ddb view bad", "aws_dynamodb_table", `{"name":"t","stream_view_type":"NEW_AND_OLD"}`, "stream_view_type to be one of"},
		{"ddb attr type", "aws_dynamodb_table", `{"name":"t","attribute":[{"name":"id","type":"S"}]}`, ""},
		{"ddb attr type bad", "aws_dynamodb_table", `{"name":"t","attribute":[{"name":"id","type":"X"}]}`, "type to be one of"},

		// aws_cloudwatch_log_group and aws_cloudwatch_metric_alarm.
		{"logs retention 0", "aws_cloudwatch_log_group", `{"retention_in_days":0}`, ""},
		{"logs retention 14", "aws_cloudwatch_log_group", `{"retention_in_days":14}`, ""},
		{"logs retention 15", "aws_cloudwatch_log_group", `{"retention_in_days":15}`, "retention_in_days to be one of"},
		{"logs retention 3653", "aws_cloudwatch_log_group", `{"retention_in_days":3653}`, ""},
		{"alarm operator", "aws_cloudwatch_metric_alarm", alarm(`,"comparison_operator":"GreaterThanOrEqualToThreshold"`), ""},
		{"alarm operator bad", "aws_cloudwatch_metric_alarm", alarm(`,"comparison_operator":">="`), "comparison_operator to be one of"},
		{"alarm statistic", "aws_cloudwatch_metric_alarm", alarm(`,"statistic":"Maximum"`), ""},
		{"alarm statistic bad", "aws_cloudwatch_metric_alarm", alarm(`,"statistic":"Max"`), "statistic to be one of"},
		{"alarm missing data", "aws_cloudwatch_metric_alarm", alarm(`,"treat_missing_data":"notBreaching"`), ""},
		{"alarm missing data case", "aws_cloudwatch_metric_alarm", alarm(`,"treat_missing_data":"NOTBREACHING"`), ""},
		{"alarm missing data bad", "aws_cloudwatch_metric_alarm", alarm(`,"treat_missing_data":"never"`), "treat_missing_data to be one of"},

		// aws_scheduler_schedule (docs/aws-behaviour.md §6.1).
		{"schedule rate", "aws_scheduler_schedule", sched("rate(5 minutes)", "OFF"), ""},
		{"schedule rate 1", "aws_scheduler_schedule", sched("rate(1 minute)", "OFF"), ""},
		{"schedule cron", "aws_scheduler_schedule", sched("cron(0/5 * * * ? *)", "OFF"), ""},
		{"schedule at", "aws_scheduler_schedule", sched("at(2030-01-01T00:00:00)", "OFF"), ""},
		{"schedule prose", "aws_scheduler_schedule", sched("every 5 minutes", "OFF"), "is not a schedule expression"},
		{"schedule cron 3 fields", "aws_scheduler_schedule", sched("cron(* * *)", "OFF"), "6 fields"},
		{"schedule rate 0", "aws_scheduler_schedule", sched("rate(0 minutes)", "OFF"), "is not a schedule expression"},
		{"schedule mode flexible", "aws_scheduler_schedule", sched("rate(5 minutes)", "FLEXIBLE"), ""},
		{"schedule mode bad", "aws_scheduler_schedule", sched("rate(5 minutes)", "ON"), "mode to be one of"},

		// IAM.
		{"role name 64", "aws_iam_role", `{"name":"` + strings.Repeat("r", 64) + `","assume_role_policy":"{}"}`, ""},
		{"role name 65", "aws_iam_role", `{"name":"` + strings.Repeat("r", 65) + `","assume_role_policy":"{}"}`, "(1 - 64)"},
		{"role name char", "aws_iam_role", `{"name":"a b","assume_role_policy":"{}"}`, `must match`},
		{"role trust not json", "aws_iam_role", `{"name":"r","assume_role_policy":"{"}`, "invalid JSON policy"},
		{"role trust array", "aws_iam_role", `{"name":"r","assume_role_policy":"[]"}`, "not a JSON object"},
		{"role policy json", "aws_iam_role_policy", `{"role":"r","policy":"{\"Version\":\"2012-10-17\",\"Statement\":[]}"}`, ""},
		{"role policy bad", "aws_iam_role_policy", `{"role":"r","policy":"Statement"}`, "invalid JSON policy"},
	}
	// Five filters are fine, six are not; patterns are 1–4096 characters.
	tests = append(tests, []struct{ name, typ, cfg, wantErr string }{
		{"pipe 5 filters", "aws_pipes_pipe", filterPipe(5, `{"a":[1]}`), ""},
		{"pipe 6 filters", "aws_pipes_pipe", filterPipe(6, `{"a":[1]}`), "5 item maximum"},
		{"pipe empty pattern", "aws_pipes_pipe", filterPipe(1, ""), "(1 - 4096)"},
		{"pipe pattern 4096", "aws_pipes_pipe", filterPipe(1, strings.Repeat("p", 4096)), ""},
		{"pipe pattern 4097", "aws_pipes_pipe", filterPipe(1, strings.Repeat("p", 4097)), "(1 - 4096)"},
	}...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := configOf(t, srv.cat.Resources[tc.typ].Block, tc.cfg)
			diags := validateResource(t, srv, tc.typ, cfg)
			if tc.wantErr == "" {
				require.Empty(t, diags)
				return
			}
			require.Len(t, diags, 1, "diagnostics: %v", diagSummaries(diags))
			require.Equal(t, tfprotov5.DiagnosticSeverityError, diags[0].Severity)
			require.Contains(t, diags[0].Summary, tc.wantErr)
			require.NotNil(t, diags[0].Attribute, "a validation error points at its attribute")
		})
	}
}

func TestValidateDiagnosticPath(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	cfg := configOf(t, srv.cat.Resources["aws_pipes_pipe"].Block, pipeJSON(`"batch_size":0`, ""))
	diags := validateResource(t, srv, "aws_pipes_pipe", cfg)
	require.Len(t, diags, 1)
	want := tftypes.NewAttributePath().WithAttributeName("source_parameters").WithElementKeyInt(0).
		WithAttributeName("dynamodb_stream_parameters").WithElementKeyInt(0).WithAttributeName("batch_size")
	require.True(t, diags[0].Attribute.Equal(want), "got %s", diags[0].Attribute)
	require.Equal(t, "expected source_parameters.0.dynamodb_stream_parameters.0.batch_size to be in the range (1 - 10000), got 0", diags[0].Summary)
}

// Values computed at plan time are unknown during validation and must not
// be judged.
func TestValidateSkipsUnknownValues(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	tests := []struct {
		typ, cfg string
		path     cty.Path
	}{
		{"aws_pipes_pipe", pipeJSON(`"batch_size":0`, ""), cty.GetAttrPath("source_parameters").IndexInt(0).GetAttr("dynamodb_stream_parameters").IndexInt(0).GetAttr("batch_size")},
		{"aws_sqs_queue", `{"redrive_policy":"nope"}`, cty.GetAttrPath("redrive_policy")},
		{"aws_iam_role", `{"assume_role_policy":"nope"}`, cty.GetAttrPath("assume_role_policy")},
		{"aws_lambda_function", `{"function_name":"f","role":"r","filename":"f.zip","timeout":0}`, cty.GetAttrPath("timeout")},
		{"aws_pipes_pipe", filterPipe(6, "{}"),
			cty.GetAttrPath("source_parameters").IndexInt(0).GetAttr("filter_criteria").IndexInt(0).GetAttr("filter")},
	}
	for _, tc := range tests {
		t.Run(tc.typ+" "+pathString(tc.path), func(t *testing.T) {
			t.Parallel()
			cfg := configOf(t, srv.cat.Resources[tc.typ].Block, tc.cfg)
			require.NotEmpty(t, validateResource(t, srv, tc.typ, cfg), "the known value is invalid")
			require.Empty(t, validateResource(t, srv, tc.typ, withUnknown(t, cfg, tc.path)))
		})
	}
}

func TestValidateProviderConfig(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	b := srv.cat.Provider.Block
	tests := []struct{ cfg, wantErr string }{
		{`{"region":"us-east-1","retry_mode":"adaptive","skip_metadata_api_check":"true"}`, ""},
		{`{"retry_mode":"fast"}`, "retry_mode to be one of"},
		{`{"skip_metadata_api_check":"yes"}`, "cannot parse 'yes' as boolean"},
		{`{"assume_role":[{"role_arn":"arn:aws:iam::1:role/x","duration":"5m"}]}`, "between 15 minutes"},
	}
	for _, tc := range tests {
		dv, err := encodeValue(configOf(t, b, tc.cfg), ImpliedType(b))
		require.NoError(t, err)
		resp, err := srv.PrepareProviderConfig(context.Background(), &tfprotov5.PrepareProviderConfigRequest{Config: dv})
		require.NoError(t, err)
		if tc.wantErr == "" {
			require.Empty(t, resp.Diagnostics, tc.cfg)
			continue
		}
		require.Len(t, resp.Diagnostics, 1, tc.cfg)
		require.Contains(t, resp.Diagnostics[0].Summary, tc.wantErr)
	}
}

func diagSummaries(diags []*tfprotov5.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+" "+d.Detail)
	}
	return out
}
