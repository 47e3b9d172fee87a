package terraform_test

// Contracts on real plans: terraform plan with the local provider (the
// hashicorp/aws 6.47.0 schema), read back with terraform show -json. They
// cover what a first apply on a real account depends on and only a plan
// shows: planned names, counts and nested blocks (issue 12).

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
)

// planOf plans the workspace's example with vars and returns the plan.
func planOf(t *testing.T, w *workspace, name string, vars map[string]any) *tfjson.Plan {
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
	return plan
}

// afterOf returns the planned values of every managed resource instance of
// type typ, by address.
func afterOf(t *testing.T, plan *tfjson.Plan, typ string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, rc := range plan.ResourceChanges {
		if rc.Mode != tfjson.ManagedResourceMode || rc.Type != typ {
			continue
		}
		after, ok := rc.Change.After.(map[string]any)
		require.True(t, ok, "%s has no planned value", rc.Address)
		out[rc.Address] = after
	}
	return out
}

// one returns the planned values of the single instance at addr.
func one(t *testing.T, plan *tfjson.Plan, typ, addr string) map[string]any {
	t.Helper()
	all := afterOf(t, plan, typ)
	v, ok := all[addr]
	require.True(t, ok, "no %s in the plan (have %v)", addr, sortedKeys(all))
	return v
}

// nested returns the single nested block name of v.
func nested(t *testing.T, v map[string]any, name string) map[string]any {
	t.Helper()
	list, ok := v[name].([]any)
	require.True(t, ok && len(list) == 1, "%s: want one block, got %v", name, v[name])
	b, ok := list[0].(map[string]any)
	require.True(t, ok)
	return b
}

const (
	scraperFn      = "module.pipeline.module.scraper.aws_lambda_function.this"
	reconcilerFn   = "module.pipeline.module.reconciler.aws_lambda_function.this"
	scraperMapping = "module.pipeline.module.scraper.aws_lambda_event_source_mapping.sqs[0]"
	table          = "module.pipeline.module.table.aws_dynamodb_table.this"
)

// globalNames returns the names of the plan's account-global resources: IAM
// roles and CloudWatch dashboards.
func globalNames(t *testing.T, plan *tfjson.Plan) []string {
	t.Helper()
	var out []string
	for typ, attr := range map[string]string{"aws_iam_role": "name", "aws_cloudwatch_dashboard": "dashboard_name"} {
		for addr, v := range afterOf(t, plan, typ) {
			name, ok := v[attr].(string)
			require.True(t, ok && name != "", "%s: %s is not known at plan time", addr, attr)
			out = append(out, name)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestPlanSecondRegionSharesNoGlobalName: the complete example planned with
// the same name in two regions of one account names its IAM roles and its
// dashboard differently, so the second apply neither collides
// (EntityAlreadyExists) nor overwrites the first region's dashboard
// (issue 12 #5).
func TestPlanSecondRegionSharesNoGlobalName(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "complete", nil)
	first := globalNames(t, planOf(t, w, "eu-west-1", map[string]any{"name": "twice", "region": "eu-west-1"}))
	second := globalNames(t, planOf(t, w, "us-east-1", map[string]any{"name": "twice", "region": "us-east-1"}))

	seen := map[string]bool{}
	for _, n := range first {
		require.False(t, seen[n], "%s twice in one region", n)
		seen[n] = true
	}
	for _, n := range second {
		require.False(t, seen[n], "%s is planned in both regions: IAM roles and dashboards are account-global", n)
	}
	for _, n := range append(first, second...) {
		require.LessOrEqual(t, len(n), 64, "IAM role names have at most 64 characters: %s", n)
	}
}

// TestPlanUnreservedConcurrency: both functions may run unreserved (for
// accounts whose concurrency quota cannot spare 141 on top of the 100 AWS
// keeps unreserved), while the mapping still caps the scrapers
// (issue 12 #3).
func TestPlanUnreservedConcurrency(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "complete", func(tree string) {
		require.NoError(t, os.WriteFile(filepath.Join(tree, "examples", "complete", "unreserved_override.tf"), []byte(`module "pipeline" {
  scraper_reserved_concurrency    = null
  reconciler_reserved_concurrency = null
}
`), 0o644))
	})
	plan := planOf(t, w, "unreserved", map[string]any{"name": "small-account"})
	for _, fn := range []string{scraperFn, reconcilerFn} {
		require.EqualValues(t, -1, one(t, plan, "aws_lambda_function", fn)["reserved_concurrent_executions"], "%s is unreserved", fn)
	}
	scaling := nested(t, one(t, plan, "aws_lambda_event_source_mapping", scraperMapping), "scaling_config")
	require.EqualValues(t, 140, scaling["maximum_concurrency"], "the mapping still caps the scrapers")
}

// TestPlanProductionHardening checks the complete example's plan for the
// hardening items of issue 12 (#6, #12).
func TestPlanProductionHardening(t *testing.T) {
	t.Parallel()
	const name = "hardened"
	w := newWorkspace(t, "complete", nil)
	plan := planOf(t, w, "complete", map[string]any{"name": name, "tags": map[string]string{"Owner": "ops"}})

	t.Run("DeletionProtection", func(t *testing.T) {
		require.Equal(t, true, one(t, plan, "aws_dynamodb_table", table)["deletion_protection_enabled"])
	})
	t.Run("IndexesUseKeySchema", func(t *testing.T) {
		gsis, ok := one(t, plan, "aws_dynamodb_table", table)["global_secondary_index"].([]any)
		require.True(t, ok)
		require.Len(t, gsis, 2)
		for _, g := range gsis {
			idx := g.(map[string]any)
			keys, ok := idx["key_schema"].([]any)
			require.True(t, ok && len(keys) == 2, "index %v: want a HASH and a RANGE key_schema block", idx["name"])
			require.Nil(t, idx["range_key"], "index %v: range_key is deprecated", idx["name"])
		}
	})
	t.Run("MappingMetricsAndTags", func(t *testing.T) {
		m := one(t, plan, "aws_lambda_event_source_mapping", scraperMapping)
		require.ElementsMatch(t, []any{"EventCount"}, nested(t, m, "metrics_config")["metrics"])
		require.Equal(t, map[string]any{"Owner": "ops"}, m["tags"])
	})
	t.Run("MappingAlarms", func(t *testing.T) {
		metrics := map[string]bool{}
		for _, a := range afterOf(t, plan, "aws_cloudwatch_metric_alarm") {
			if a["namespace"] == "AWS/Lambda" {
				metrics[a["metric_name"].(string)] = true
			}
		}
		for _, m := range []string{"DroppedEventCount", "FailedInvokeEventCount"} {
			require.True(t, metrics[m], "no alarm on the mapping's %s", m)
		}
	})
	t.Run("DeploymentDimension", func(t *testing.T) {
		for addr, fn := range afterOf(t, plan, "aws_lambda_function") {
			env := nested(t, fn, "environment")["variables"].(map[string]any)
			require.Equal(t, name, env[handler.EnvDeployment], "%s", addr)
		}
		found := false
		for _, a := range afterOf(t, plan, "aws_cloudwatch_metric_alarm") {
			if a["namespace"] != emf.Namespace {
				continue
			}
			found = true
			require.Equal(t, map[string]any{emf.DimDeployment: name}, a["dimensions"], "alarm %v", a["alarm_name"])
		}
		require.True(t, found, "no alarm on the %s namespace", emf.Namespace)
	})
}

// TestPlanRefusesSecretLookingEnvironment: lambda_environment values are
// plain text in plans and state, so a key that looks like a secret is
// refused at plan, and a secret's reference passes (issue 15 #13).
func TestPlanRefusesSecretLookingEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, env string
		refused   bool
	}{
		{"Ordinary", `{ FEATURE_FLAGS = "a,b" }`, false},
		{"SecretReference", `{ DB_PASSWORD_SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:111122223333:secret:db" }`, false},
		{"ApiToken", `{ API_TOKEN = "x" }`, true},
		{"DatabasePassword", `{ db_password = "x" }`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, "minimal", func(tree string) {
				require.NoError(t, os.WriteFile(filepath.Join(tree, "examples", "minimal", "env_override.tf"),
					[]byte("module \"pipeline\" {\n  lambda_environment = "+tt.env+"\n}\n"), 0o644))
			})
			vars, err := json.Marshal(map[string]any{"name": "env-check", "dist_dir": w.dist})
			require.NoError(t, err)
			varFile := filepath.Join(t.TempDir(), "vars.tfvars.json")
			require.NoError(t, os.WriteFile(varFile, vars, 0o644))
			_, err = w.tf.Plan(context.Background(), tfexec.VarFile(varFile), tfexec.Lock(false), tfexec.Refresh(false))
			if !tt.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), "keys that look like secrets")
		})
	}
}

// TestPlanPipeWaitsForPropagation: on AWS the pipe is created only after a
// time_sleep that follows its role policy and the new stream, because
// CreatePipe fails with "Cannot access stream" until both have propagated;
// the local example skips the wait (issue 12 #1).
func TestPlanPipeWaitsForPropagation(t *testing.T) {
	t.Parallel()
	const (
		sleep = "module.pipeline.module.dispatch.time_sleep.propagation[0]"
		pipe  = "module.pipeline.module.dispatch.aws_pipes_pipe.this"
	)
	tests := []struct {
		example string
		want    string // create_duration; "" for no wait
	}{
		{"complete", "90s"},
		{"local", ""},
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tt.example, nil)
			plan := planOf(t, w, tt.example, map[string]any{"name": "propagation"})
			sleeps := afterOf(t, plan, "time_sleep")
			if tt.want == "" {
				require.Empty(t, sleeps)
				return
			}
			require.Contains(t, sleeps, sleep)
			require.Equal(t, tt.want, sleeps[sleep]["create_duration"])

			dispatch := plan.Config.RootModule.ModuleCalls["pipeline"].Module.ModuleCalls["dispatch"].Module
			var deps []string
			for _, r := range dispatch.Resources {
				if r.Address == "aws_pipes_pipe.this" {
					deps = r.DependsOn
				}
			}
			require.Contains(t, deps, "time_sleep.propagation", "%s waits for the time_sleep", pipe)
		})
	}
}
