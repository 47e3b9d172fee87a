package terraform_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
)

// insertOnlyPattern dispatches INSERTs of Pending tasks only: a plausible
// edit of the default "becomes Pending" filter.
const insertOnlyPattern = `{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`

// plannedChanges plans the workspace's example with vars and returns each
// resource's planned "after" value (known parts and the unknown map) by
// address.
func plannedChanges(t *testing.T, w *workspace, name string, vars map[string]any) map[string]string {
	t.Helper()
	ctx := context.Background()
	vars["dist_dir"] = w.dist
	varFile := filepath.Join(t.TempDir(), name+".tfvars.json")
	raw, err := json.Marshal(vars)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(varFile, raw, 0o644))

	planFile := filepath.Join(t.TempDir(), name+".tfplan")
	_, err = w.tf.Plan(ctx, tfexec.VarFile(varFile), tfexec.Out(planFile), tfexec.Lock(false), tfexec.Refresh(false))
	require.NoError(t, err, "terraform plan (%s)", name)
	plan, err := w.tf.ShowPlanFile(ctx, planFile)
	require.NoError(t, err)

	out := map[string]string{}
	for _, rc := range plan.ResourceChanges {
		if rc.Mode != tfjson.ManagedResourceMode {
			continue
		}
		after, err := json.Marshal(map[string]any{"after": rc.Change.After, "after_unknown": rc.Change.AfterUnknown, "actions": rc.Change.Actions})
		require.NoError(t, err)
		out[rc.Address] = string(after)
	}
	require.NotEmpty(t, out)
	return out
}

// TestFilterEditChangesOnlyThePipe: editing the pipe's filter is a
// Terraform variable change that touches the pipe and nothing else; in
// particular no function is redeployed (docs/design.md §4, "editable without code
// deploys"). Both plans start from empty state: an apply-then-plan version
// that checks for an in-place update needs a provider that can apply.
func TestFilterEditChangesOnlyThePipe(t *testing.T) {
	t.Parallel()

	const pipe = "module.pipeline.module.dispatch.aws_pipes_pipe.this"
	for _, example := range []string{"complete", "minimal", "local"} {
		t.Run(example, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, example, nil)
			before := plannedChanges(t, w, "default", map[string]any{"name": "filter-edit"})
			after := plannedChanges(t, w, "edited", map[string]any{
				"name":                 "filter-edit",
				"pipe_filter_patterns": []string{insertOnlyPattern},
			})

			require.Equal(t, sortedKeys(before), sortedKeys(after), "the same resources are planned")
			var differ []string
			for addr := range before {
				if before[addr] != after[addr] {
					differ = append(differ, addr)
				}
			}
			sort.Strings(differ)
			require.Equal(t, []string{pipe}, differ, "only the pipe may change")
			for _, addr := range differ {
				require.NotContains(t, addr, "aws_lambda_function")
			}

			var got struct {
				After struct {
					SourceParameters []struct {
						FilterCriteria []struct {
							Filter []struct {
								Pattern string `json:"pattern"`
							} `json:"filter"`
						} `json:"filter_criteria"`
					} `json:"source_parameters"`
				} `json:"after"`
			}
			require.NoError(t, json.Unmarshal([]byte(after[pipe]), &got))
			require.Len(t, got.After.SourceParameters, 1)
			require.Len(t, got.After.SourceParameters[0].FilterCriteria, 1)
			var patterns []string
			for _, f := range got.After.SourceParameters[0].FilterCriteria[0].Filter {
				patterns = append(patterns, f.Pattern)
			}
			require.Equal(t, []string{insertOnlyPattern}, patterns)
			require.True(t, strings.Contains(before[pipe], "anything-but"), "the default plan has the default filters")
			require.False(t, reflect.DeepEqual(before[pipe], after[pipe]))
		})
	}
}
