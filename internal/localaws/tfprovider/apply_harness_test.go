package tfprovider_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

// applyEnv is one apply test: a local cloud started in-process on a free
// port, a working directory holding testdata/tf/apply/provider.tf plus one
// configuration, and the real terraform binary with the local provider.
type applyEnv struct {
	t     *testing.T
	cloud *localcloud.Cloud
	tf    *tfexec.Terraform
	dir   string
	log   string
	cfg   aws.Config
	// base are the -var options of every run (name=value).
	base []string
}

// newApplyEnv starts a local cloud and initialises testdata/tf/apply/<name>.
func newApplyEnv(t *testing.T, name string) *applyEnv {
	t.Helper()
	cloud := startCloud(t)
	return newApplyEnvIn(t, cloud, filepath.Join("testdata", "tf", "apply", name))
}

// startCloud starts a local cloud on a free port for the test.
func startCloud(t *testing.T) *localcloud.Cloud {
	t.Helper()
	cloud := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, cloud.Start(ctx))
	t.Cleanup(func() {
		cancel()
		require.NoError(t, cloud.Close())
	})
	return cloud
}

// newApplyEnvIn initialises a copy of src (every file, recursively) plus
// the shared provider.tf against a running cloud.
func newApplyEnvIn(t *testing.T, cloud *localcloud.Cloud, src string) *applyEnv {
	t.Helper()
	cli := tfprovidertest.CLIConfig(t)
	dir := t.TempDir()
	copyTree(t, src, dir)
	b, err := os.ReadFile(filepath.Join("testdata", "tf", "apply", "provider.tf"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "provider.tf"), b, 0o644))
	return initEnv(t, cloud, dir, cli, "endpoint="+cloud.URL())
}

// initEnv runs terraform init in dir, with Terraform's warnings logged to
// dir/terraform.log for requireConsistent.
func initEnv(t *testing.T, cloud *localcloud.Cloud, dir, cli string, base ...string) *applyEnv {
	t.Helper()
	e := &applyEnv{t: t, cloud: cloud, dir: dir, log: filepath.Join(dir, "terraform.log"), base: base}
	e.tf = newTerraform(t, dir, cli)
	require.NoError(t, e.tf.SetLogCore("WARN"))
	require.NoError(t, e.tf.SetLogPath(e.log))
	e.cfg = aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(cloud.URL()),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, e.tf.Init(ctx), "terraform init must work offline from the mirror")
	return e
}

// newTerraform is a terraform-exec handle on dir using the CLI config cli,
// with a clean environment.
func newTerraform(t *testing.T, dir, cli string) *tfexec.Terraform {
	t.Helper()
	tf, err := tfexec.NewTerraform(dir, tfprovidertest.Terraform(t))
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env = tfexec.CleanEnv(env)
	for k := range env {
		// The provider must get its endpoints from the configuration
		// only, never from the developer's environment.
		if strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "TF_AWS_") {
			delete(env, k)
		}
	}
	env["TF_CLI_CONFIG_FILE"] = cli
	env["CHECKPOINT_DISABLE"] = "1"
	delete(env, "TF_PLUGIN_CACHE_DIR")
	require.NoError(t, tf.SetEnv(env))
	return tf
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(p, ".tfstate") || strings.HasSuffix(p, ".tfstate.backup") || d.Name() == ".terraform.lock.hcl" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	}))
}

// vars are the -var options of a run: the base ones plus extra name=value.
func (e *applyEnv) vars(extra ...string) []string {
	return append(append([]string(nil), e.base...), extra...)
}

func (e *applyEnv) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 3*time.Minute)
}

// apply runs terraform apply and then checks that the provider's new
// states matched its plans exactly (see requireConsistent).
func (e *applyEnv) apply(vars ...string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	var opts []tfexec.ApplyOption
	for _, v := range e.vars(vars...) {
		opts = append(opts, tfexec.Var(v))
	}
	require.NoError(e.t, e.tf.Apply(ctx, opts...))
	e.requireConsistent()
}

// refresh runs terraform refresh, so the state records what Read returns.
func (e *applyEnv) refresh(vars ...string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	var opts []tfexec.RefreshCmdOption
	for _, v := range e.vars(vars...) {
		opts = append(opts, tfexec.Var(v))
	}
	require.NoError(e.t, e.tf.Refresh(ctx, opts...))
}

// destroy runs terraform destroy.
func (e *applyEnv) destroy(vars ...string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	var opts []tfexec.DestroyOption
	for _, v := range e.vars(vars...) {
		opts = append(opts, tfexec.Var(v))
	}
	require.NoError(e.t, e.tf.Destroy(ctx, opts...))
	e.requireConsistent()
}

// plan runs terraform plan (with a refresh) and returns the plan.
func (e *applyEnv) plan(vars ...string) *tfjson.Plan {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	out := filepath.Join(e.dir, "plan.bin")
	opts := []tfexec.PlanOption{tfexec.Out(out)}
	for _, v := range e.vars(vars...) {
		opts = append(opts, tfexec.Var(v))
	}
	_, err := e.tf.Plan(ctx, opts...)
	require.NoError(e.t, err)
	p, err := e.tf.ShowPlanFile(ctx, out)
	require.NoError(e.t, err)
	for _, rc := range p.ResourceChanges {
		rc.Change.Before = plainNumbers(rc.Change.Before)
		rc.Change.After = plainNumbers(rc.Change.After)
	}
	return p
}

// requireNoChanges plans and fails on any resource change.
func (e *applyEnv) requireNoChanges(vars ...string) {
	e.t.Helper()
	p := e.plan(vars...)
	for _, rc := range p.ResourceChanges {
		require.Truef(e.t, rc.Change.Actions.NoOp() || rc.Change.Actions.Read(), "%s plans %v, where no change is due:\nbefore %v\nafter  %v\nreplace %v",
			rc.Address, rc.Change.Actions, rc.Change.Before, rc.Change.After, rc.Change.ReplacePaths)
	}
}

// changes lists the addresses and actions a plan would change.
func changes(p *tfjson.Plan) map[string]tfjson.Actions {
	out := map[string]tfjson.Actions{}
	for _, rc := range p.ResourceChanges {
		if !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			out[rc.Address] = rc.Change.Actions
		}
	}
	return out
}

// state returns the resources in the state by address.
func (e *applyEnv) state() map[string]*tfjson.StateResource {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	st, err := e.tf.Show(ctx)
	require.NoError(e.t, err)
	out := map[string]*tfjson.StateResource{}
	if st.Values == nil {
		return out
	}
	var walk func(m *tfjson.StateModule)
	walk = func(m *tfjson.StateModule) {
		for _, r := range m.Resources {
			out[r.Address] = r
		}
		for _, c := range m.ChildModules {
			walk(c)
		}
	}
	walk(st.Values.RootModule)
	return out
}

// requireConsistent fails when Terraform logged that the provider's new
// state differed from its plan. Terraform only warns about that for
// providers built on the legacy SDK (as the real aws provider's SDKv2
// resources are, and as this one declares), so the log is the check.
func (e *applyEnv) requireConsistent() {
	e.t.Helper()
	b, err := os.ReadFile(e.log)
	if os.IsNotExist(err) {
		return
	}
	require.NoError(e.t, err)
	var bad []string
	for _, line := range strings.Split(string(b), "\n") {
		// Refreshes report drift the same way; only apply results must
		// match their plans. Null blocks are normalised silently by
		// legacy-SDK tolerance, so they are flagged too.
		if strings.Contains(line, "produced an unexpected new value") && !strings.Contains(line, "during refresh") ||
			strings.Contains(line, "containing null blocks") {
			bad = append(bad, line)
		}
	}
	if len(bad) > 0 {
		// The details follow each warning line.
		e.t.Fatalf("the provider's new state did not match its plan:\n%s\n\nlog:\n%s", strings.Join(bad, "\n"), excerpt(string(b), "produced an unexpected new value"))
	}
}

// excerpt returns the lines around the first occurrence of needle.
func excerpt(s, needle string) string {
	i := strings.Index(s, needle)
	if i < 0 {
		return ""
	}
	end := i + 4000
	if end > len(s) {
		end = len(s)
	}
	return s[i:end]
}

// attrs returns a state resource's attribute values.
func attrs(t *testing.T, st map[string]*tfjson.StateResource, addr string) map[string]any {
	t.Helper()
	r, ok := st[addr]
	require.Truef(t, ok, "%s is not in the state", addr)
	return plainNumbers(r.AttributeValues).(map[string]any)
}

// plainNumbers turns the json.Number values terraform-json decodes into
// float64, so require.EqualValues can compare them with Go numbers.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x
		}
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainNumbers(e)
		}
		return out
	}
	return v
}

// flatten joins the lines Terraform wraps a diagnostic into.
func flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
