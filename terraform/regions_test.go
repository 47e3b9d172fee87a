package terraform_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

// completeForLocalCloud edits the complete example in tree for the local
// cloud, which waits for nothing and emulates no SNS: the propagation wait
// and the alarm topic are off; the names and resources at stake are the
// same.
func completeForLocalCloud(t *testing.T, tree string) {
	t.Helper()
	main := filepath.Join(tree, "examples", "complete", "main.tf")
	edit(t, main, "  name         = var.name\n", "  name         = var.name\n  pipe_create_delay_seconds = 0\n")
	edit(t, main, "  enable_alarm_topic = true\n", "  enable_alarm_topic = false\n")
}

// TestApplyCompleteInTwoRegions applies the complete example with one name
// in two regions of one local account, whose IAM roles, dashboards and
// bucket names are account-global as on AWS (issue 12 #5). As shipped both
// applies succeed; with the region taken out of the role names the second
// region's apply fails with IAM's EntityAlreadyExists, the failure a real
// second-region deployment met before the fix.
func TestApplyCompleteInTwoRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("applies the complete example four times")
	}
	t.Parallel()
	noDelay := func(tree string) { completeForLocalCloud(t, tree) }
	tests := []struct {
		name    string
		prepare func(tree string)
		wantErr string // of the second region's apply; "" for success
	}{
		{"as shipped", noDelay, ""},
		{"role names without the region", func(tree string) {
			noDelay(tree)
			edit(t, filepath.Join(tree, "modules", "go-lambda", "main.tf"),
				`role_name      = "${var.name}-${data.aws_region.current.region}"`, `role_name      = var.name`)
		}, "EntityAlreadyExists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			account := localcloud.NewAccount("111122223333", nil)
			for i, region := range []string{"eu-west-1", "us-east-1"} {
				err := applyIn(t, account, region, tt.prepare)
				if i == 0 || tt.wantErr == "" {
					require.NoError(t, err, "terraform apply in %s", region)
					continue
				}
				require.Error(t, err, "the second region's apply must collide")
				require.Contains(t, err.Error(), tt.wantErr)
			}
		})
	}
}

// applyIn applies the complete example, named "twice", against a local
// cloud serving region of account.
func applyIn(t *testing.T, account *localcloud.Account, region string, prepare func(tree string)) error {
	t.Helper()
	_, _, err := applyLocal(t, account, region, prepare)
	return err
}

// applyLocal is applyIn returning the workspace and the variable file the
// apply used, for a later plan of the same state.
func applyLocal(t *testing.T, account *localcloud.Account, region string, prepare func(tree string)) (*workspace, string, error) {
	t.Helper()
	ctx := context.Background()
	cloud := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", Region: region, Account: account})
	require.NoError(t, cloud.Start(ctx))
	t.Cleanup(func() { require.NoError(t, cloud.Close()) })

	w := newWorkspace(t, "complete", prepare)
	require.NoError(t, w.tf.SetEnv(map[string]string{
		"PATH":                  os.Getenv("PATH"),
		"HOME":                  t.TempDir(),
		"TMPDIR":                os.TempDir(),
		"TF_CLI_CONFIG_FILE":    tfprovidertest.CLIConfig(t),
		"CHECKPOINT_DISABLE":    "1",
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION":            region,
		"AWS_ENDPOINT_URL":      cloud.URL(),
	}))
	vars, err := json.Marshal(map[string]any{
		"name": "twice", "region": region, "dist_dir": w.dist, "enable_table_deletion_protection": false,
		"architecture": "x86_64", // the local cloud runs bootstraps natively
	})
	require.NoError(t, err)
	varFile := filepath.Join(t.TempDir(), "vars.tfvars.json")
	require.NoError(t, os.WriteFile(varFile, vars, 0o644))
	return w, varFile, w.tf.Apply(ctx, tfexec.VarFile(varFile), tfexec.Lock(false))
}

// edit replaces old (which must occur) with new in the file at path.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old, "%s", path)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}
