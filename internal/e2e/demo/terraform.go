package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// stack is the demo's Terraform working copy and its variables.
type stack struct {
	tf   *tfexec.Terraform
	dir  string // the root module inside the copy
	vars []string
	log  io.Writer
}

// logged runs a command whose human-readable output belongs in the log;
// the JSON of show and output does not.
func (s *stack) logged(f func() error) error {
	s.tf.SetStdout(s.log)
	defer s.tf.SetStdout(io.Discard)
	return f()
}

// copyStack copies the root module and the repository's Terraform modules
// (which the example reaches as ../../modules) into tmp, keeping their
// relative layout, so init and apply never write into the repository.
func copyStack(root, tfDir, tmp string) (string, error) {
	rel, err := filepath.Rel(root, tfDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		// A root module outside the repository is copied alone; its
		// module sources must then not be relative to the repository.
		rel = filepath.Base(tfDir)
	}
	if err := copyTree(filepath.Join(root, "terraform", "modules"), filepath.Join(tmp, "terraform", "modules")); err != nil {
		return "", err
	}
	dst := filepath.Join(tmp, rel)
	if err := copyTree(tfDir, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// copyTree copies the regular files under src, skipping Terraform's
// working state (.terraform/, lock file, state files).
func copyTree(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		name := d.Name()
		switch {
		case d.IsDir() && name == ".terraform":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular(), name == ".terraform.lock.hcl",
			strings.HasSuffix(name, ".tfstate"), strings.HasSuffix(name, ".tfstate.backup"):
			return nil
		}
		return copyFile(p, target)
	})
	if err != nil {
		return fmt.Errorf("demo: copy %s: %w", src, err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close() // read-only
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close() // the copy error is the one to report
		return err
	}
	return out.Close()
}

// newStack prepares terraform-exec on dir with a clean environment: the
// provider must take its endpoints from the configuration only, never from
// the developer's AWS_* variables, and installs hashicorp/aws from the
// local mirror (cliConfig).
func newStack(dir, bin, cliConfig string, log io.Writer, vars []string) (*stack, error) {
	tf, err := tfexec.NewTerraform(dir, bin)
	if err != nil {
		return nil, fmt.Errorf("demo: terraform: %w", err)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env = tfexec.CleanEnv(env)
	for k := range env {
		if strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "TF_AWS_") {
			delete(env, k)
		}
	}
	env["TF_CLI_CONFIG_FILE"] = cliConfig
	env["CHECKPOINT_DISABLE"] = "1"
	// Parallel resource operations help little against one local process
	// and would compete with it for the 2 cores; the default is fine.
	delete(env, "TF_PLUGIN_CACHE_DIR")
	if err := tf.SetEnv(env); err != nil {
		return nil, fmt.Errorf("demo: terraform env: %w", err)
	}
	tf.SetStdout(io.Discard)
	tf.SetStderr(log)
	return &stack{tf: tf, dir: dir, vars: vars, log: log}, nil
}

func (s *stack) init(ctx context.Context) error {
	if err := s.logged(func() error { return s.tf.Init(ctx) }); err != nil {
		return fmt.Errorf("demo: terraform init: %w", err)
	}
	return nil
}

func (s *stack) apply(ctx context.Context) error {
	opts := make([]tfexec.ApplyOption, 0, len(s.vars))
	for _, v := range s.vars {
		opts = append(opts, tfexec.Var(v))
	}
	if err := s.logged(func() error { return s.tf.Apply(ctx, opts...) }); err != nil {
		return fmt.Errorf("demo: terraform apply: %w", err)
	}
	return nil
}

// reapply applies the stack again with extra variables (name=value), each
// replacing the variable of that name; later commands (destroy) use the
// new values too.
func (s *stack) reapply(ctx context.Context, extra []string) error {
	vars := make([]string, 0, len(s.vars)+len(extra))
	names := map[string]bool{}
	for _, v := range extra {
		n, _, _ := strings.Cut(v, "=")
		names[n] = true
	}
	for _, v := range s.vars {
		if n, _, _ := strings.Cut(v, "="); !names[n] {
			vars = append(vars, v)
		}
	}
	s.vars = append(vars, extra...)
	return s.apply(ctx)
}

func (s *stack) destroy(ctx context.Context) error {
	opts := make([]tfexec.DestroyOption, 0, len(s.vars))
	for _, v := range s.vars {
		opts = append(opts, tfexec.Var(v))
	}
	if err := s.logged(func() error { return s.tf.Destroy(ctx, opts...) }); err != nil {
		return fmt.Errorf("demo: terraform destroy: %w", err)
	}
	return nil
}

// outputs reads `terraform output -json` as raw JSON values by name.
func (s *stack) outputs(ctx context.Context) (map[string][]byte, error) {
	outs, err := s.tf.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("demo: terraform output: %w", err)
	}
	m := make(map[string][]byte, len(outs))
	for name, o := range outs {
		m[name] = o.Value
	}
	return m, nil
}

// Outputs are the example's outputs the demo uses.
type Outputs struct {
	TableName    string            `json:"table_name"`
	WorkQueueURL string            `json:"work_queue_url"`
	WorkDLQURL   string            `json:"work_dlq_url"`
	PipeName     string            `json:"pipe_name"`
	PipeDLQURL   string            `json:"pipe_dlq_url"`
	Functions    map[string]string `json:"function_names"`
	ScheduleName string            `json:"schedule_name"`
	LambdaEnv    map[string]string `json:"lambda_environment"`
	ResultBucket string            `json:"result_bucket_name"`
	ResultPrefix string            `json:"result_prefix"`
}

// parseOutputs decodes the outputs the demo needs and names any missing.
func parseOutputs(raw map[string][]byte) (Outputs, error) {
	var o Outputs
	fields := map[string]any{
		"table_name": &o.TableName, "work_queue_url": &o.WorkQueueURL, "work_dlq_url": &o.WorkDLQURL,
		"pipe_name": &o.PipeName, "pipe_dlq_url": &o.PipeDLQURL, "function_names": &o.Functions,
		"schedule_name": &o.ScheduleName, "lambda_environment": &o.LambdaEnv,
		"result_bucket_name": &o.ResultBucket, "result_prefix": &o.ResultPrefix,
	}
	var missing []string
	for name, dst := range fields {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			missing = append(missing, name)
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return o, fmt.Errorf("demo: terraform output %s: %w", name, err)
		}
	}
	for _, role := range []string{"scraper", "reconciler"} {
		if o.Functions[role] == "" {
			missing = append(missing, "function_names."+role)
		}
	}
	if len(missing) > 0 {
		return o, fmt.Errorf("demo: terraform outputs missing: %s", strings.Join(missing, ", "))
	}
	return o, nil
}

// liveShards is LIVE_SHARDS of the functions' environment (0: the store's
// default), so the demo's store reads the same live-index shards.
func (o Outputs) liveShards() (int, error) {
	v := o.LambdaEnv["LIVE_SHARDS"]
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("demo: LIVE_SHARDS %q: %w", v, err)
	}
	return n, nil
}
