package tfprovider_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	tfprovidertest.Cleanup()
	os.Exit(code)
}

// workdir copies testdata/tf/<name> into a fresh directory and returns a
// terraform-exec handle on it, initialised against the local provider with
// no network (the CLI config excludes hashicorp/aws from direct installs).
func workdir(t *testing.T, name string) (*tfexec.Terraform, string) {
	t.Helper()
	cfg := tfprovidertest.CLIConfig(t)
	dir := t.TempDir()
	src := filepath.Join("testdata", "tf", name)
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	tf, err := tfexec.NewTerraform(dir, tfprovidertest.Terraform(t))
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env = tfexec.CleanEnv(env)
	env["TF_CLI_CONFIG_FILE"] = cfg
	env["CHECKPOINT_DISABLE"] = "1"
	delete(env, "TF_PLUGIN_CACHE_DIR")
	require.NoError(t, tf.SetEnv(env))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, tf.Init(ctx), "terraform init must work offline from the mirror")
	return tf, dir
}

func TestTerraformValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir       string
		valid     bool
		summary   string
		detailHas string
	}{
		{"good", true, "", ""},
		{"bad_argument", false, "Unsupported argument", `An argument named "visibility_timeout" is not expected here`},
		{"bad_block", false, "Unsupported block type", `Blocks of type "dynamodb_stream" are not expected here`},
		{"missing_required", false, "Missing required argument", `The argument "role_arn" is required`},
		{"invalid_value", false, "expected source_parameters.0.dynamodb_stream_parameters.0.batch_size to be in the range (1 - 10000), got 0", ""},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			tf, _ := workdir(t, tc.dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := tf.Validate(ctx)
			require.NoError(t, err)
			if tc.valid {
				require.True(t, out.Valid, "diagnostics: %+v", out.Diagnostics)
				require.Zero(t, out.ErrorCount)
				return
			}
			require.False(t, out.Valid)
			require.Equal(t, 1, out.ErrorCount, "diagnostics: %+v", out.Diagnostics)
			d := out.Diagnostics[0]
			require.Equal(t, tfjson.DiagnosticSeverityError, d.Severity)
			require.Equal(t, tc.summary, d.Summary)
			require.Contains(t, d.Detail, tc.detailHas)
			require.NotNil(t, d.Range, "the error points at the configuration")
			require.Equal(t, "main.tf", d.Range.Filename)
		})
	}
}

func TestTerraformPlanCreate(t *testing.T) {
	t.Parallel()
	tf, dir := workdir(t, "good")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	planFile := filepath.Join(dir, "plan.bin")
	changes, err := tf.Plan(ctx, tfexec.Out(planFile))
	require.NoError(t, err)
	require.True(t, changes)
	plan, err := tf.ShowPlanFile(ctx, planFile)
	require.NoError(t, err)

	rc := map[string]*tfjson.ResourceChange{}
	for _, c := range plan.ResourceChanges {
		rc[c.Address] = c
		require.Equal(t, tfjson.Actions{tfjson.ActionCreate}, c.Change.Actions, c.Address)
		require.Equal(t, "registry.terraform.io/hashicorp/aws", c.ProviderName)
	}
	require.Len(t, rc, 8)

	pipe := rc["aws_pipes_pipe.tasks"].Change
	after := pipe.After.(map[string]any)
	unknown := pipe.AfterUnknown.(map[string]any)
	require.Equal(t, "Managed by Terraform", after["description"], "SDKv2 default")
	require.Equal(t, "RUNNING", after["desired_state"])
	require.Equal(t, map[string]any{"project": "taskpipe"}, after["tags_all"])
	require.Equal(t, true, unknown["arn"])
	require.Equal(t, true, unknown["source"], "the stream ARN is known after the table exists")
	ddb := after["source_parameters"].([]any)[0].(map[string]any)["dynamodb_stream_parameters"].([]any)[0].(map[string]any)
	require.Equal(t, "LATEST", ddb["starting_position"])
	require.EqualValues(t, 1, ddb["batch_size"])
	require.EqualValues(t, 3, ddb["maximum_retry_attempts"])

	queue := rc["aws_sqs_queue.work"].Change
	qa, qu := queue.After.(map[string]any), queue.AfterUnknown.(map[string]any)
	require.EqualValues(t, 5400, qa["visibility_timeout_seconds"])
	require.EqualValues(t, 345600, qa["message_retention_seconds"], "SDKv2 default")
	require.EqualValues(t, 262144, qa["max_message_size"])
	require.Equal(t, "us-east-1", qa["region"])
	require.Equal(t, true, qu["arn"])
	require.Equal(t, true, qu["url"])

	fn := rc["aws_lambda_function.scraper"].Change
	fa, fu := fn.After.(map[string]any), fn.AfterUnknown.(map[string]any)
	require.EqualValues(t, 128, fa["memory_size"])
	require.EqualValues(t, 420, fa["timeout"])
	require.Equal(t, "Zip", fa["package_type"])
	require.EqualValues(t, -1, fa["reserved_concurrent_executions"])
	for _, k := range []string{"arn", "invoke_arn", "version", "last_modified", "qualified_arn"} {
		require.Equal(t, true, fu[k], k)
	}

	esm := rc["aws_lambda_event_source_mapping.scraper"].Change
	require.Equal(t, true, esm.After.(map[string]any)["enabled"])
	require.Equal(t, true, esm.AfterUnknown.(map[string]any)["event_source_arn"])

	// Data sources are read at plan time.
	require.Equal(t, "us-east-1", plan.PlannedValues.Outputs["region"].Value)
	require.Equal(t, "aws", plan.PlannedValues.Outputs["partition"].Value)
}

func TestTerraformPlanReplace(t *testing.T) {
	t.Parallel()
	tf, dir := workdir(t, "replace")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The configuration that created the state plans no change at all.
	// The state's pipe exists in no cloud, so nothing is refreshed (the
	// provider's handlers would call the Pipes API).
	changes, err := tf.Plan(ctx, tfexec.Var("starting_position=LATEST"), tfexec.Refresh(false))
	require.NoError(t, err)
	require.False(t, changes, "a config matching the state must plan no changes")

	planFile := filepath.Join(dir, "plan.bin")
	changes, err = tf.Plan(ctx, tfexec.Out(planFile), tfexec.Refresh(false))
	require.NoError(t, err)
	require.True(t, changes)
	plan, err := tf.ShowPlanFile(ctx, planFile)
	require.NoError(t, err)
	require.Len(t, plan.ResourceChanges, 1)
	c := plan.ResourceChanges[0]
	require.Equal(t, "aws_pipes_pipe.tasks", c.Address)
	require.True(t, c.Change.Actions.Replace(), "actions %v", c.Change.Actions)
	require.Equal(t, tfjson.ActionReasonReplaceBecauseCannotUpdate, c.ActionReason)
	require.Equal(t, []any{[]any{"source_parameters", float64(0), "dynamodb_stream_parameters", float64(0), "starting_position"}}, c.Change.ReplacePaths)
	// The replacement is a new pipe: its computed values are unknown again.
	require.Equal(t, true, c.Change.AfterUnknown.(map[string]any)["arn"])
}
