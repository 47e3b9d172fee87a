package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
)

// Environment variables that name the resources (flags win over them, and
// they win over Terraform outputs).
const (
	EnvTable           = "TASKPIPE_TABLE"
	EnvWorkQueueURL    = "TASKPIPE_WORK_QUEUE_URL"
	EnvWorkDLQURL      = "TASKPIPE_WORK_DLQ_URL"
	EnvPipeDLQURL      = "TASKPIPE_PIPE_DLQ_URL"
	EnvScraperFunction = "TASKPIPE_SCRAPER_FUNCTION"
	EnvResultBucket    = "TASKPIPE_RESULT_BUCKET"
	EnvLiveShards      = "TASKPIPE_LIVE_SHARDS"
	EnvTFDir           = "TASKPIPE_TF_DIR"
	// EnvTerraform names the terraform binary (the Makefile exports it).
	EnvTerraform = "TERRAFORM"
)

// Terraform output names (terraform/examples/*/outputs.tf). LIVE_SHARDS is
// read from the lambda_environment map, which every function receives.
const (
	OutputTable        = "table_name"
	OutputWorkQueueURL = "work_queue_url"
	OutputWorkDLQURL   = "work_dlq_url"
	OutputPipeDLQURL   = "pipe_dlq_url"
	OutputLambdaEnv    = "lambda_environment"
	// OutputScraperFunction names the scraper function (optout).
	OutputScraperFunction = "scraper_function_name"
	// OutputResultBucket names the bucket of the site documents (results).
	OutputResultBucket = "result_bucket_name"
	lambdaEnvShards    = "LIVE_SHARDS"
)

// setting is one resource name and where it may come from.
type setting struct {
	what   string // "the table name"
	flag   string
	env    string
	output string
	value  *string // the flag's value
}

// resources holds the resource flags of a command and resolves them
// lazily: Terraform runs only when something is neither flagged nor in the
// environment.
type resources struct {
	env      *Env
	tfDir    *string
	table    setting
	workQ    setting
	workDLQ  setting
	pipeDLQ  setting
	scraper  setting
	bucket   setting
	shards   *int
	outputs  map[string][]byte
	resolved map[string]string
}

// addResources registers --tf-dir, --live-shards and the resource flags
// that a command uses (by output name).
func (e *Env) addResources(fs *flag.FlagSet, use ...string) *resources {
	r := &resources{env: e, resolved: map[string]string{}}
	r.tfDir = fs.String("tf-dir", "", "read resource names from the terraform output -json of `DIR` (or "+EnvTFDir+")")
	all := map[string]*setting{
		OutputTable:           {what: "the table name", flag: "table", env: EnvTable, output: OutputTable},
		OutputWorkQueueURL:    {what: "the work queue URL", flag: "work-queue-url", env: EnvWorkQueueURL, output: OutputWorkQueueURL},
		OutputWorkDLQURL:      {what: "the work DLQ URL", flag: "work-dlq-url", env: EnvWorkDLQURL, output: OutputWorkDLQURL},
		OutputPipeDLQURL:      {what: "the pipe DLQ URL", flag: "pipe-dlq-url", env: EnvPipeDLQURL, output: OutputPipeDLQURL},
		OutputScraperFunction: {what: "the scraper function name", flag: "function", env: EnvScraperFunction, output: OutputScraperFunction},
		OutputResultBucket:    {what: "the result bucket", flag: "bucket", env: EnvResultBucket, output: OutputResultBucket},
	}
	for _, name := range use {
		s := all[name]
		s.value = fs.String(s.flag, "", fmt.Sprintf("%s (or %s, or Terraform output %s)", s.what, s.env, s.output))
	}
	r.table, r.workQ, r.workDLQ, r.pipeDLQ = *all[OutputTable], *all[OutputWorkQueueURL], *all[OutputWorkDLQURL], *all[OutputPipeDLQURL]
	r.scraper, r.bucket = *all[OutputScraperFunction], *all[OutputResultBucket]
	if contains(use, OutputTable) {
		r.shards = fs.Int("live-shards", 0, fmt.Sprintf("live-index shards per state (or %s, or LIVE_SHARDS in Terraform output %s; default %d)",
			EnvLiveShards, OutputLambdaEnv, dynamostore.DefaultLiveShards))
	}
	return r
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// get resolves one setting: flag, environment, Terraform output.
func (r *resources) get(ctx context.Context, s setting) (string, error) {
	if s.value == nil {
		return "", fmt.Errorf("config: %s is not a setting of this command", s.what)
	}
	if *s.value != "" {
		return *s.value, nil
	}
	if v := strings.TrimSpace(r.env.getenv(s.env)); v != "" {
		return v, nil
	}
	dir := r.dir()
	if dir == "" {
		return "", usagef("missing %s: set --%s or %s, or point --tf-dir (or %s) at the Terraform root that outputs %s",
			s.what, s.flag, s.env, EnvTFDir, s.output)
	}
	outs, err := r.load(ctx, dir)
	if err != nil {
		return "", err
	}
	raw, ok := outs[s.output]
	if !ok {
		return "", fmt.Errorf("config: missing %s: terraform output in %s has no %q (applied yet?; or set --%s or %s)", s.what, dir, s.output, s.flag, s.env)
	}
	var v *string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("config: terraform output %s in %s is not a string: %w", s.output, dir, err)
	}
	if v == nil || *v == "" {
		return "", fmt.Errorf("config: missing %s: terraform output %s in %s is empty (set --%s or %s)", s.what, s.output, dir, s.flag, s.env)
	}
	return *v, nil
}

func (r *resources) dir() string {
	if *r.tfDir != "" {
		return *r.tfDir
	}
	return strings.TrimSpace(r.env.getenv(EnvTFDir))
}

func (r *resources) load(ctx context.Context, dir string) (map[string][]byte, error) {
	if r.outputs != nil {
		return r.outputs, nil
	}
	read := r.env.TerraformOutputs
	if read == nil {
		read = func(ctx context.Context, dir string) (map[string][]byte, error) {
			bin, err := FindTerraform(r.env.getenv, dir)
			if err != nil {
				return nil, err
			}
			return ReadTerraformOutputs(ctx, dir, bin)
		}
	}
	outs, err := read(ctx, dir)
	if err != nil {
		return nil, err
	}
	r.outputs = outs
	return outs, nil
}

// liveShards resolves the live-index shard count: flag, environment,
// lambda_environment.LIVE_SHARDS from Terraform (only when --tf-dir is
// set), default.
func (r *resources) liveShards(ctx context.Context) (int, error) {
	if r.shards != nil && *r.shards != 0 {
		return checkShards(*r.shards, "--live-shards")
	}
	if v := strings.TrimSpace(r.env.getenv(EnvLiveShards)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, usagef("%s=%q is not a number", EnvLiveShards, v)
		}
		return checkShards(n, EnvLiveShards)
	}
	if dir := r.dir(); dir != "" {
		outs, err := r.load(ctx, dir)
		if err != nil {
			return 0, err
		}
		if raw, ok := outs[OutputLambdaEnv]; ok {
			var m map[string]string
			if err := json.Unmarshal(raw, &m); err != nil {
				return 0, fmt.Errorf("config: terraform output %s in %s is not a map of strings: %w", OutputLambdaEnv, dir, err)
			}
			if v := m[lambdaEnvShards]; v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return 0, fmt.Errorf("config: terraform output %s.%s = %q is not a number", OutputLambdaEnv, lambdaEnvShards, v)
				}
				return checkShards(n, "terraform output "+OutputLambdaEnv+"."+lambdaEnvShards)
			}
		}
	}
	return dynamostore.DefaultLiveShards, nil
}

func checkShards(n int, where string) (int, error) {
	if n < 1 || n > dynamostore.MaxLiveShards {
		return 0, usagef("%s: live shards %d out of range 1..%d", where, n, dynamostore.MaxLiveShards)
	}
	return n, nil
}

// FindTerraform returns the terraform binary to run: $TERRAFORM, else
// "terraform" on PATH, else bin/terraform in the nearest ancestor of dir
// (then of the working directory) that has one (the repository's own
// build, `make tools`).
func FindTerraform(getenv func(string) string, dir string) (string, error) {
	if v := getenv(EnvTerraform); v != "" {
		return v, nil
	}
	if p, err := exec.LookPath("terraform"); err == nil {
		return p, nil
	}
	starts := []string{dir}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		abs, err := filepath.Abs(start)
		if err != nil {
			continue
		}
		for d := abs; ; d = filepath.Dir(d) {
			p := filepath.Join(d, "bin", "terraform")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("config: no terraform binary: set " + EnvTerraform + ", put terraform on PATH, or run `make tools` (bin/terraform)")
}

// ReadTerraformOutputs runs `terraform output -json` in dir with the binary
// at bin and returns each output's JSON value by name.
func ReadTerraformOutputs(ctx context.Context, dir, bin string) (map[string][]byte, error) {
	tf, err := tfexec.NewTerraform(dir, bin)
	if err != nil {
		return nil, fmt.Errorf("config: terraform in %s: %w", dir, err)
	}
	outs, err := tf.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("config: terraform output in %s: %w", dir, err)
	}
	m := make(map[string][]byte, len(outs))
	for name, o := range outs {
		m[name] = o.Value
	}
	return m, nil
}
