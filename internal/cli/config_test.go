package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
)

// repoTerraform is the repository's own terraform build (make tools). The
// test needs it and fails without it: a skipped config test would hide a
// broken --tf-dir.
func repoTerraform(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Terraform: not in the -short tier")
	}
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
	bin := filepath.Join(dir, "bin", "terraform")
	require.FileExists(t, bin, "run `make tools` to build bin/terraform")
	return bin
}

// TestConfigFromTerraformOutputs applies a root module whose outputs are the
// local cloud's resource names (static strings, no providers) with the real
// terraform binary, then runs commands with only --tf-dir.
func TestConfigFromTerraformOutputs(t *testing.T) {
	t.Parallel()
	bin := repoTerraform(t)
	tc := newTestCloud(t)
	dir := t.TempDir()
	module := fmt.Sprintf(`
output "table_name"     { value = %q }
output "work_queue_url" { value = %q }
output "work_dlq_url"   { value = %q }
output "pipe_dlq_url"   { value = %q }
output "lambda_environment" {
  value = { TABLE_NAME = %q, LIVE_SHARDS = "4" }
}
`, tc.table, tc.workQ, tc.workDLQ, tc.pipeDLQ, tc.table)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(module), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tf, err := tfexec.NewTerraform(dir, bin)
	require.NoError(t, err)
	require.NoError(t, tf.SetEnv(map[string]string{"CHECKPOINT_DISABLE": "1", "TF_PLUGIN_CACHE_DIR": ""}))
	require.NoError(t, tf.Init(ctx))
	require.NoError(t, tf.Apply(ctx))

	// Exactly what the commands will read.
	outs, err := cli.ReadTerraformOutputs(ctx, dir, bin)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf("%q", tc.workQ), string(outs[cli.OutputWorkQueueURL]))

	env, stdout, stderr := tc.env("a.example.com\nb.example.com\n")
	env.Getenv = func(k string) string { return map[string]string{cli.EnvTerraform: bin}[k] }
	require.NoError(t, env.Submit(ctx, []string{"--tf-dir", dir, "--run", "tf"}), "stderr: %s", stderr)
	require.Equal(t, "tf\n", stdout.String())
	require.Len(t, tc.runTasks(t, "tf"), 2)

	tc.send(t, tc.pipeDLQ, `{"context":{"condition":"RetryAttemptsExhausted"}}`)
	env, stdout, stderr = tc.env("")
	env.Getenv = func(k string) string { return map[string]string{cli.EnvTerraform: bin, cli.EnvTFDir: dir}[k] }
	require.NoError(t, env.DLQList(ctx, nil), "stderr: %s", stderr)
	require.Contains(t, stdout.String(), "work DLQ "+tc.workDLQ+": 0 messages shown")
	require.Contains(t, stdout.String(), "pipe DLQ "+tc.pipeDLQ+": 1 messages shown")

	// A flag still wins over the outputs.
	env, _, _ = tc.env("c.example.com\n")
	env.Getenv = func(k string) string { return map[string]string{cli.EnvTerraform: bin}[k] }
	err = env.Submit(ctx, []string{"--tf-dir", dir, "--table", "other-table"})
	require.ErrorContains(t, err, "wrote 0 of 1 tasks")
}
