package terraform_test

// The contracts (contract_test.go) read what Terraform itself plans: each
// example is planned once per test process with the local provider
// (terraform plan -out, terraform show -json) and decoded with
// terraform-json. What a plan of the examples cannot show — that a
// variable rejects a value, that a precondition stops a plan — is asked of
// Terraform too, with probe configurations written next to the examples:
// terraform validate evaluates every validation of a known module input,
// and terraform plan every precondition.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

// examples are the configurations every contract is checked against.
var examples = []string{"complete", "local", "minimal"}

// subject is one terraform/ tree under test: the repository's own (shared
// by every contract, planned once) or a mutated copy.
type subject struct {
	tree     string   // copy of terraform/ with the probe roots written in
	examples []string // the examples to plan
	bin, rc  string   // terraform binary and CLI configuration
	dist     string   // fake Lambda zips
	base     *subject // initialised roots to copy .terraform from, or nil

	mu   sync.Mutex
	init map[string]*onceTF // initialised roots by path relative to tree

	plansOnce sync.Once
	plans     []*examplePlan
	plansErr  []string // a failed plan, as the contract's violation

	validateOnce  sync.Once
	validateDiags []tfjson.Diagnostic
	validateErr   error

	probeMu sync.Mutex
	probes  map[string]*onceErr // probe-plan results by case
}

type onceTF struct {
	once sync.Once
	tf   *tfexec.Terraform
	err  error
}

type onceErr struct {
	once sync.Once
	err  error
}

var (
	repoOnce    sync.Once
	repoSubject *subject
	repoErr     error
	scratchRoot string // temporary trees of subjects shared beyond one test
)

// theRepo returns the subject of this checkout, planned at most once per
// test process.
func theRepo(t *testing.T) *subject {
	t.Helper()
	bin, rc := tfprovidertest.Terraform(t), tfprovidertest.CLIConfig(t)
	repoOnce.Do(func() {
		scratchRoot, repoErr = os.MkdirTemp("", "taskpipe-contracts-")
		if repoErr == nil {
			repoSubject, repoErr = newSubject(scratchRoot, ".", examples, bin, rc, nil)
		}
	})
	require.NoError(t, repoErr)
	return repoSubject
}

// mutant returns a subject for a copy of the tree that prepare edits; it
// plans only the given examples and reuses the repository's initialised
// roots (same modules, same provider).
func mutant(t *testing.T, prepare func(tree string), examples ...string) *subject {
	t.Helper()
	base := theRepo(t)
	s, err := newSubject(t.TempDir(), ".", examples, base.bin, base.rc, base)
	require.NoError(t, err)
	prepare(s.tree)
	return s
}

func newSubject(dir, src string, examples []string, bin, rc string, base *subject) (*subject, error) {
	s := &subject{
		tree: filepath.Join(dir, "tree"), examples: examples, bin: bin, rc: rc, base: base,
		init: map[string]*onceTF{}, probes: map[string]*onceErr{},
	}
	if err := copyTreeTo(src, s.tree); err != nil {
		return nil, err
	}
	if err := writeProbes(s.tree); err != nil {
		return nil, err
	}
	if base != nil {
		s.dist = base.dist
		return s, nil
	}
	s.dist = filepath.Join(dir, "dist")
	return s, writeFakeDist(s.dist)
}

// tfIn returns terraform for the root rel (relative to the tree), running
// terraform init once, or copying the base subject's initialisation.
func (s *subject) tfIn(rel string) (*tfexec.Terraform, error) {
	s.mu.Lock()
	o, ok := s.init[rel]
	if !ok {
		o = &onceTF{}
		s.init[rel] = o
	}
	s.mu.Unlock()
	o.once.Do(func() { o.tf, o.err = s.initRoot(rel) })
	return o.tf, o.err
}

func (s *subject) initRoot(rel string) (*tfexec.Terraform, error) {
	dir := filepath.Join(s.tree, rel)
	tf, err := tfexec.NewTerraform(dir, s.bin)
	if err != nil {
		return nil, fmt.Errorf("terraform in %s: %w", rel, err)
	}
	if err := tf.SetEnv(map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               dir,
		"TMPDIR":             os.TempDir(),
		"TF_CLI_CONFIG_FILE": s.rc,
		"CHECKPOINT_DISABLE": "1",
		// Dummy credentials: plans make no AWS calls, and real credentials
		// in the environment must not be picked up.
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION":            "eu-west-1",
	}); err != nil {
		return nil, fmt.Errorf("terraform env: %w", err)
	}
	if s.base != nil {
		// Local module sources and the provider mirror resolve the same in
		// a copy: its .terraform is the base's (provider links included).
		from, err := s.base.tfIn(rel)
		if err != nil {
			return nil, err
		}
		if err := copyInit(from.WorkingDir(), dir); err != nil {
			return nil, fmt.Errorf("reuse init of %s: %w", rel, err)
		}
		return tf, nil
	}
	if err := tf.Init(context.Background(), tfexec.Upgrade(false)); err != nil {
		return nil, fmt.Errorf("terraform init %s (offline, local provider): %w", rel, err)
	}
	return tf, nil
}

// examplePlans plans every example of the subject once.
func (s *subject) examplePlans() ([]*examplePlan, []string) {
	s.plansOnce.Do(func() {
		var wg sync.WaitGroup
		plans := make([]*examplePlan, len(s.examples))
		errs := make([]error, len(s.examples))
		for i, ex := range s.examples {
			wg.Add(1)
			go func() {
				defer wg.Done()
				plans[i], errs[i] = s.planExample(ex)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				s.plansErr = append(s.plansErr, fmt.Sprintf("terraform plan examples/%s: %v", s.examples[i], err))
				continue
			}
			s.plans = append(s.plans, plans[i])
		}
	})
	return s.plans, s.plansErr
}

func (s *subject) planExample(example string) (*examplePlan, error) {
	tf, err := s.tfIn(filepath.Join("examples", example))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	planFile := filepath.Join(tf.WorkingDir(), "contract.tfplan")
	_, err = tf.Plan(ctx, tfexec.Var("name=contract"), tfexec.Var("dist_dir="+s.dist),
		tfexec.Out(planFile), tfexec.Lock(false), tfexec.Refresh(false))
	if err != nil {
		return nil, err
	}
	plan, err := tf.ShowPlanFile(ctx, planFile)
	if err != nil {
		return nil, fmt.Errorf("terraform show: %w", err)
	}
	return decodePlan("examples/"+example, plan)
}

// validate runs terraform validate once on the validation probe.
func (s *subject) validate() ([]tfjson.Diagnostic, error) {
	s.validateOnce.Do(func() {
		tf, err := s.tfIn(probeValidateDir)
		if err != nil {
			s.validateErr = err
			return
		}
		out, err := tf.Validate(context.Background())
		if err != nil {
			s.validateErr = fmt.Errorf("terraform validate: %w", err)
			return
		}
		s.validateDiags = out.Diagnostics
	})
	return s.validateDiags, s.validateErr
}

// probePlan plans one case of the plan probe; the error is Terraform's
// (its message carries the diagnostics), or a setup failure.
func (s *subject) probePlan(name string) (planErr error, setupErr error) {
	s.probeMu.Lock()
	o, ok := s.probes[name]
	if !ok {
		o = &onceErr{}
		s.probes[name] = o
	}
	s.probeMu.Unlock()
	var setup error
	o.once.Do(func() {
		tf, err := s.tfIn(probePlanDir)
		if err != nil {
			setup = err
			o.err = err
			return
		}
		_, o.err = tf.Plan(context.Background(), tfexec.Var("probe="+name), tfexec.Var("dist_dir="+s.dist),
			tfexec.Lock(false), tfexec.Refresh(false))
	})
	if setup != nil {
		return nil, setup
	}
	return o.err, nil
}

// --- decoded plans -----------------------------------------------------------

// examplePlan is the decoded plan of one example.
type examplePlan struct {
	name      string
	plan      *tfjson.Plan
	resources []resource
	kinds     map[string]string // module path (no instance keys) -> module folder
}

// resource is one planned resource instance.
type resource struct {
	addr    string
	module  string // module instance address, "" for the root
	kind    string // the module folder it comes from, "" for the root
	typ     string
	key     any // count index or for_each key, nil for none
	after   any // planned values (unknown ones absent)
	unknown any // after_unknown: true where a value is known after apply
}

var instanceKey = regexp.MustCompile(`\[[^\]]*\]`)

func decodePlan(name string, plan *tfjson.Plan) (*examplePlan, error) {
	p := &examplePlan{name: name, plan: plan, kinds: map[string]string{}}
	if plan.Config == nil || plan.Config.RootModule == nil {
		return nil, fmt.Errorf("%s: plan has no configuration", name)
	}
	var walk func(prefix string, m *tfjson.ConfigModule)
	walk = func(prefix string, m *tfjson.ConfigModule) {
		for callName, call := range m.ModuleCalls {
			path := strings.TrimPrefix(prefix+".module."+callName, ".")
			p.kinds[path] = filepath.Base(call.Source)
			if call.Module != nil {
				walk(path, call.Module)
			}
		}
	}
	walk("", plan.Config.RootModule)
	for _, rc := range plan.ResourceChanges {
		if rc.Mode != tfjson.ManagedResourceMode || rc.Change == nil {
			continue
		}
		p.resources = append(p.resources, resource{
			addr: rc.Address, module: rc.ModuleAddress, kind: p.kinds[instanceKey.ReplaceAllString(rc.ModuleAddress, "")],
			typ: rc.Type, key: rc.Index, after: rc.Change.After, unknown: rc.Change.AfterUnknown,
		})
	}
	if len(p.resources) == 0 {
		return nil, fmt.Errorf("%s: plan has no resources", name)
	}
	return p, nil
}

// of returns the planned instances of type typ, in module folder kind ("*"
// for any).
func (p *examplePlan) of(kind, typ string) []resource {
	var out []resource
	for _, r := range p.resources {
		if r.typ == typ && (kind == "*" || r.kind == kind) {
			out = append(out, r)
		}
	}
	return out
}

// moduleConfig returns the configuration of the first module call from
// folder kind.
func (p *examplePlan) moduleConfig(kind string) *tfjson.ConfigModule {
	var find func(m *tfjson.ConfigModule) *tfjson.ConfigModule
	find = func(m *tfjson.ConfigModule) *tfjson.ConfigModule {
		for _, name := range sortedKeys(m.ModuleCalls) {
			call := m.ModuleCalls[name]
			if filepath.Base(call.Source) == kind && call.Module != nil {
				return call.Module
			}
			if call.Module != nil {
				if f := find(call.Module); f != nil {
					return f
				}
			}
		}
		return nil
	}
	return find(p.plan.Config.RootModule)
}

// path steps into decoded JSON: string keys for objects, ints for lists
// (nested blocks are lists).
func path(v any, steps ...any) any {
	for _, st := range steps {
		switch k := st.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// get returns a planned value, nil when absent, null or unknown.
func (r resource) get(steps ...any) any { return path(r.after, steps...) }

// isUnknown reports whether a value is known only after apply.
func (r resource) isUnknown(steps ...any) bool { return path(r.unknown, steps...) == true }

// set reports whether a value is planned: known and not null, or unknown.
func (r resource) set(steps ...any) bool { return r.get(steps...) != nil || r.isUnknown(steps...) }

func (r resource) num(steps ...any) (float64, bool) {
	f, ok := r.get(steps...).(float64)
	return f, ok
}

func (r resource) str(steps ...any) string {
	s, _ := r.get(steps...).(string)
	return s
}

// strs returns a list of strings (or one string) of decoded JSON.
func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// refs returns the references of a configuration expression.
func refs(e *tfjson.Expression) []string {
	if e == nil || e.ExpressionData == nil {
		return nil
	}
	return e.References
}

// configResource returns the resource typ.name of a module's configuration.
func configResource(m *tfjson.ConfigModule, typ, name string) *tfjson.ConfigResource {
	if m == nil {
		return nil
	}
	for _, r := range m.Resources {
		if r.Type == typ && r.Name == name {
			return r
		}
	}
	return nil
}

// --- probes ------------------------------------------------------------------

const (
	probeValidateDir = "probes/validate"
	probePlanDir     = "probes/plan"
)

// validateCase is a module input that the module's validations must
// reject (reject) or, with no input, a module whose defaults must pass.
type validateCase struct {
	contract string // the contract that registered the rejection, "" for defaults
	call     string // module call name in the probe
	module   string // module folder
	input    string // variable name, "" for defaults only
	value    string // HCL literal
}

// requiredInputs are the inputs without default of each module, as
// literals of plausible values.
var requiredInputs = map[string]string{
	"dispatch": `name = "probe"` + "\n" + `target_queue_arn = "arn:aws:sqs:eu-west-1:123456789012:probe"` + "\n" +
		`source_stream_arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/probe/stream/2026-01-01T00:00:00.000"`,
	"go-lambda":  `name = "probe"` + "\n" + `zip_path = "${path.module}/probe.zip"`,
	"pipeline":   `name = "probe"` + "\n" + `dist_dir = var.dist_dir`,
	"task-table": `name = "probe"`,
	"work-queue": `name = "probe"` + "\n" + `consumer_timeout_seconds = 30`,
}

// validateCases lists the probe's module calls; rejections are registered
// by the contracts that own them.
func validateCases() []validateCase {
	var out []validateCase
	for _, m := range sortedKeys(requiredInputs) {
		out = append(out, validateCase{call: "defaults_" + strings.ReplaceAll(m, "-", "_"), module: m})
	}
	for j, r := range rejections {
		for i, v := range r.values {
			out = append(out, validateCase{
				contract: r.contract, call: fmt.Sprintf("reject%d_%s_%s_%d", j, strings.ReplaceAll(r.module, "-", "_"), r.input, i),
				module: r.module, input: r.input, value: v,
			})
		}
	}
	return out
}

// rejection: variable input of module must refuse every value.
type rejection struct {
	contract string
	module   string
	input    string
	values   []string
}

var recordAges = []string{"-1", "0", "59", "86400", "604800"}
var retries = []string{"-1", "0", "10001"}

func wildcardStatement(action string) string {
	return fmt.Sprintf(`[{ sid = "Probe", actions = [%q], resources = ["arn:aws:sqs:eu-west-1:123456789012:q"] }]`, action)
}

func sidStatements(sids ...string) string {
	var parts []string
	for _, sid := range sids {
		parts = append(parts, fmt.Sprintf(`{ sid = %q, actions = ["sqs:SendMessage"], resources = ["arn:aws:sqs:eu-west-1:123456789012:q"] }`, sid))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var rejections = []rejection{
	{"PipeFiniteRetriesAndAge", "dispatch", "maximum_record_age_in_seconds", recordAges},
	{"PipeFiniteRetriesAndAge", "dispatch", "maximum_retry_attempts", retries},
	{"NoWildcardActions", "go-lambda", "policy_statements", []string{wildcardStatement("sqs:*"), wildcardStatement("*"), wildcardStatement("dynamodb:Get*")}},
	{"DeadLetterQueues", "work-queue", "max_receive_count", []string{"0", "1001"}},
	{"FunctionLeastPrivilege", "go-lambda", "policy_statements", []string{sidStatements("Same", "Same"), sidStatements("WriteLogs"), sidStatements("ConsumeQueue")}},
}

// planCase is one case of the plan probe: module called with inputs, and
// whether its plan must fail.
type planCase struct {
	name   string
	module string
	inputs map[string]string
}

var planCases = []planCase{
	{"grace_equals_visibility", "pipeline", map[string]string{"running_grace_seconds": "5400"}},
	{"equal_retention", "work-queue", map[string]string{"message_retention_seconds": "345600", "dlq_message_retention_seconds": "345600"}},
	{"visibility_below_six_timeouts", "pipeline", map[string]string{"scraper_timeout_seconds": "420", "visibility_timeout_seconds": "2519", "running_grace_seconds": "2579"}},
	{"visibility_six_timeouts", "pipeline", map[string]string{"scraper_timeout_seconds": "420", "visibility_timeout_seconds": "2520", "running_grace_seconds": "2580"}},
	// The pipeline passes these to the dispatch module, whose validations
	// refuse them at plan time (terraform validate sees the pipeline's own
	// inputs only as unknown values).
	{"pipeline_record_age_forever", "pipeline", map[string]string{"pipe_maximum_record_age_in_seconds": "-1"}},
	{"pipeline_retries_forever", "pipeline", map[string]string{"pipe_maximum_retry_attempts": "-1"}},
}

// writeProbes writes the probe roots into tree.
func writeProbes(tree string) error {
	const versions = `terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 6.47" }
  }
}

variable "dist_dir" {
  type    = string
  default = null
}
`
	var v strings.Builder
	v.WriteString(versions)
	for _, c := range validateCases() {
		fmt.Fprintf(&v, "\nmodule %q {\n  source = \"../../modules/%s\"\n%s\n", c.call, c.module, requiredInputs[c.module])
		if c.input != "" {
			fmt.Fprintf(&v, "%s = %s\n", c.input, c.value)
		}
		v.WriteString("}\n")
	}
	var p strings.Builder
	p.WriteString(versions)
	p.WriteString("\nvariable \"probe\" {\n  type = string\n}\n\nprovider \"aws\" {\n  region = \"eu-west-1\"\n}\n")
	for _, c := range planCases {
		fmt.Fprintf(&p, "\nmodule %q {\n  source = \"../../modules/%s\"\n  count = var.probe == %q ? 1 : 0\n%s\n", c.name, c.module, c.name, requiredInputs[c.module])
		for _, k := range sortedKeys(c.inputs) {
			fmt.Fprintf(&p, "%s = %s\n", k, c.inputs[k])
		}
		p.WriteString("}\n")
	}
	// go-lambda hashes its zip as soon as the path is known.
	if err := os.MkdirAll(filepath.Join(tree, probeValidateDir), 0o755); err != nil {
		return fmt.Errorf("write probe: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tree, probeValidateDir, "probe.zip"), nil, 0o644); err != nil {
		return fmt.Errorf("write probe: %w", err)
	}
	for dir, text := range map[string]string{probeValidateDir: v.String(), probePlanDir: p.String()} {
		if err := os.MkdirAll(filepath.Join(tree, dir), 0o755); err != nil {
			return fmt.Errorf("write probe: %w", err)
		}
		if err := os.WriteFile(filepath.Join(tree, dir, "main.tf"), []byte(text), 0o644); err != nil {
			return fmt.Errorf("write probe: %w", err)
		}
	}
	return nil
}

// rejectionsOf returns the variable validation errors of the probe's
// module call.
func rejectionsOf(diags []tfjson.Diagnostic, call string) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfjson.DiagnosticSeverityError && d.Summary == "Invalid value for variable" &&
			d.Snippet != nil && d.Snippet.Context != nil &&
			*d.Snippet.Context == fmt.Sprintf("module %q", call) {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return out
}

// --- files ---------------------------------------------------------------------

// copyTreeTo copies the .tf and README.md files of the modules and examples
// under src into dst.
func copyTreeTo(src, dst string) error {
	for _, top := range []string{"modules", "examples"} {
		err := filepath.WalkDir(filepath.Join(src, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			if d.IsDir() {
				if strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir // .terraform of a local run
				}
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if !strings.HasSuffix(p, ".tf") && d.Name() != "README.md" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		})
		if err != nil {
			return fmt.Errorf("copy tree: %w", err)
		}
	}
	return nil
}

// copyTree copies the tree under src into a new temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, copyTreeTo(src, dst))
	return dst
}

// copyInit copies .terraform (keeping symbolic links) and the lock file of
// an initialised root.
func copyInit(from, to string) error {
	lock, err := os.ReadFile(filepath.Join(from, ".terraform.lock.hcl"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(to, ".terraform.lock.hcl"), lock, 0o644); err != nil {
		return err
	}
	root := filepath.Join(from, ".terraform")
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, info.Mode().Perm())
		}
	})
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// awsSchema returns the hashicorp/aws 6.47.0 schema the local provider
// embeds (internal/localaws/tfprovider/schema).
func awsSchema(t *testing.T) *tfjson.ProviderSchema {
	t.Helper()
	var schemas tfjson.ProviderSchemas
	require.NoError(t, json.Unmarshal(tfprovider.EmbeddedSchema(), &schemas))
	s, ok := schemas.Schemas[tfprovider.Address]
	require.True(t, ok, "the embedded schema has no %s schema", tfprovider.Address)
	return s
}
