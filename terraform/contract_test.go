package terraform_test

// Contract tests: the invariants of the Terraform modules that must never
// regress (docs/design.md §3–5, docs/aws-behaviour.md), checked on what
// Terraform plans for each example (plan_test.go). Contracts about the
// configuration itself (file layout, typed and described variables, the
// provider floor, IAM statement literals) read the files with an HCL
// parser. Each contract returns the violations it finds, so TestContracts
// can require none on the real tree and TestContractsCatchMutations can
// require some on a deliberately broken copy.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/task"
)

// checker collects the violations of one contract on one subject.
type checker struct {
	s          *subject
	schema     *tfjson.ProviderSchema
	violations []string
}

func (c *checker) errorf(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// plans returns the subject's example plans; a plan Terraform refuses is a
// violation.
func (c *checker) plans() []*examplePlan {
	plans, errs := c.s.examplePlans()
	c.violations = append(c.violations, errs...)
	if len(plans) == 0 && len(errs) == 0 {
		c.errorf("no example planned")
	}
	return plans
}

// rejected records a violation for every registered value of the
// contract's rejections that terraform validate accepts.
func (c *checker) rejected(contract string) {
	diags, err := c.s.validate()
	if err != nil {
		c.errorf("%v", err)
		return
	}
	n := 0
	for _, vc := range validateCases() {
		if vc.contract != contract {
			continue
		}
		n++
		if len(rejectionsOf(diags, vc.call)) == 0 {
			c.errorf("%s: variable %s accepts %s", vc.module, vc.input, vc.value)
		}
	}
	if n == 0 {
		c.errorf("contract %s has no rejection cases", contract)
	}
}

// planFails records a violation unless the plan probe's case fails with
// want in Terraform's message (wantFail) or passes (!wantFail).
func (c *checker) planFails(name, want string, wantFail bool, what string) {
	planErr, err := c.s.probePlan(name)
	switch {
	case err != nil:
		c.errorf("probe %s: %v", name, err)
	case wantFail && planErr == nil:
		c.errorf("%s passes the plan", what)
	case wantFail && !strings.Contains(planErr.Error(), want):
		c.errorf("%s fails for another reason: %v", what, planErr)
	case !wantFail && planErr != nil:
		c.errorf("%s fails: %v", what, planErr)
	}
}

// contract is one invariant.
type contract struct {
	name  string
	check func(c *checker)
}

// contracts lists every invariant, alphabetically.
var contracts = []contract{
	{"ConventionalNames", checkConventionalNames},
	{"DLQAlarms", checkDLQAlarms},
	{"DLQRetention", checkDLQRetention},
	{"DeadLetterQueues", checkDeadLetterQueues},
	{"DefaultsPassValidation", checkDefaultsPassValidation},
	{"EncryptionNeedsNoGrants", checkEncryptionNeedsNoGrants},
	{"FunctionLeastPrivilege", checkFunctionLeastPrivilege},
	{"LambdaEnvironment", checkLambdaEnvironment},
	{"LeafModulesOwnDefaults", checkLeafModulesOwnDefaults},
	{"ListStreamsOnAnyResource", checkListStreamsOnAnyResource},
	{"ModuleFiles", checkModuleFiles},
	{"NoWildcardActions", checkNoWildcardActions},
	{"PipeBisect", checkPipeBisect},
	{"PipeFilterDefault", checkPipeFilterDefault},
	{"PipeFiniteRetriesAndAge", checkPipeFiniteRetriesAndAge},
	{"PipeStreamParametersExplicit", checkPipeStreamParametersExplicit},
	{"ProductionDefaults", checkProductionDefaults},
	{"ProviderFloor", checkProviderFloor},
	{"ReportBatchItemFailures", checkReportBatchItemFailures},
	{"TableMatchesStore", checkTableMatchesStore},
	{"VariablesTypedAndDescribed", checkVariablesTypedAndDescribed},
	{"VisibilityTimeout", checkVisibilityTimeout},
}

// runContract runs the named contract on a subject.
func runContract(t *testing.T, s *subject, schema *tfjson.ProviderSchema, name string) []string {
	t.Helper()
	for _, ct := range contracts {
		if ct.name == name {
			c := &checker{s: s, schema: schema}
			ct.check(c)
			return c.violations
		}
	}
	t.Fatalf("no contract %q", name)
	return nil
}

func TestContracts(t *testing.T) {
	t.Parallel()
	schema := awsSchema(t)
	s := theRepo(t)
	for _, ct := range contracts {
		t.Run(ct.name, func(t *testing.T) {
			t.Parallel()
			require.Empty(t, runContract(t, s, schema, ct.name))
		})
	}
}

// --- configuration files ---------------------------------------------------------

// moduleFiles is one module or example directory parsed with HCL: its
// file names and top-level blocks (no expression is evaluated but
// literals).
type moduleFiles struct {
	where  string // "modules/x" or "examples/x"
	files  map[string]bool
	blocks []*hclsyntax.Block
}

// parseTree parses every module and example of tree.
func (c *checker) parseTree() []*moduleFiles {
	var out []*moduleFiles
	for _, kind := range []string{"modules", "examples"} {
		entries, err := os.ReadDir(filepath.Join(c.s.tree, kind))
		if err != nil {
			c.errorf("read %s: %v", kind, err)
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			m := &moduleFiles{where: kind + "/" + e.Name(), files: map[string]bool{}}
			dir := filepath.Join(c.s.tree, kind, e.Name())
			files, err := os.ReadDir(dir)
			if err != nil {
				c.errorf("read %s: %v", m.where, err)
				continue
			}
			parser := hclparse.NewParser()
			for _, f := range files {
				m.files[f.Name()] = true
				if !strings.HasSuffix(f.Name(), ".tf") {
					continue
				}
				hf, diags := parser.ParseHCLFile(filepath.Join(dir, f.Name()))
				if diags.HasErrors() {
					c.errorf("%s: %v", m.where, diags)
					continue
				}
				m.blocks = append(m.blocks, hf.Body.(*hclsyntax.Body).Blocks...)
			}
			out = append(out, m)
		}
	}
	return out
}

func (m *moduleFiles) ofType(typ string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range m.blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// literal returns the value of an attribute that is a literal, or NilVal.
func literal(a *hclsyntax.Attribute) cty.Value {
	if a == nil {
		return cty.NilVal
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal
	}
	return v
}

func literalString(a *hclsyntax.Attribute) string {
	v := literal(a)
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

// checkModuleFiles: the standard module structure.
func checkModuleFiles(c *checker) {
	found := map[string]bool{}
	for _, m := range c.parseTree() {
		found[m.where] = true
		for _, f := range []string{"main.tf", "variables.tf", "outputs.tf", "versions.tf", "README.md"} {
			if !m.files[f] {
				c.errorf("%s: %s is missing", m.where, f)
			}
		}
	}
	for _, want := range []string{"task-table", "work-queue", "go-lambda", "dispatch", "pipeline"} {
		if !found["modules/"+want] {
			c.errorf("module %s is missing", want)
		}
	}
	for _, want := range examples {
		if !found["examples/"+want] {
			c.errorf("example %s is missing", want)
		}
	}
}

// checkVariablesTypedAndDescribed: no untyped or undocumented inputs or
// outputs anywhere.
func checkVariablesTypedAndDescribed(c *checker) {
	for _, m := range c.parseTree() {
		for _, b := range m.ofType("variable") {
			if _, ok := b.Body.Attributes["type"]; !ok {
				c.errorf("%s: variable %s has no type", m.where, b.Labels[0])
			}
			if strings.TrimSpace(literalString(b.Body.Attributes["description"])) == "" {
				c.errorf("%s: variable %s has no description", m.where, b.Labels[0])
			}
		}
		for _, b := range m.ofType("output") {
			if strings.TrimSpace(literalString(b.Body.Attributes["description"])) == "" {
				c.errorf("%s: output %s has no description", m.where, b.Labels[0])
			}
		}
	}
}

// checkConventionalNames: the terraform-aws-modules naming conventions
// (issue 11 #6) on every module and example input: a boolean switch is
// enable_*, and a timeout is a number of seconds named *_seconds.
func checkConventionalNames(c *checker) {
	for _, m := range c.parseTree() {
		for _, b := range m.ofType("variable") {
			name, typ := b.Labels[0], ""
			if a, ok := b.Body.Attributes["type"]; ok {
				if tr, ok := a.Expr.(*hclsyntax.ScopeTraversalExpr); ok {
					typ = tr.Traversal.RootName()
				}
			}
			switch {
			case typ == "bool" && !strings.HasPrefix(name, "enable_"):
				c.errorf("%s: variable %s is a switch; name it enable_*", m.where, name)
			case typ == "number" && strings.Contains(name, "timeout") && !strings.HasSuffix(name, "_seconds"):
				c.errorf("%s: variable %s is a duration; name it *_seconds", m.where, name)
			}
		}
	}
}

// checkProviderFloor: hashicorp/aws ~> 6.47 everywhere, the release the
// modules were reviewed against and the local provider embeds (issue 12
// #12); 5.61 was the old floor (older releases drop the target
// input_template on filter edits, provider PR #38598).
func checkProviderFloor(c *checker) {
	below, floor, major := version.Must(version.NewVersion("6.46.99")), version.Must(version.NewVersion("6.47.0")), version.Must(version.NewVersion("7.0.0"))
	for _, m := range c.parseTree() {
		where, found := m.where, false
		for _, tb := range m.ofType("terraform") {
			if _, ok := tb.Body.Attributes["required_version"]; !ok {
				c.errorf("%s: terraform block has no required_version", where)
			}
			for _, rp := range tb.Body.Blocks {
				if rp.Type != "required_providers" {
					continue
				}
				a, ok := rp.Body.Attributes["aws"]
				if !ok {
					continue
				}
				found = true
				v := literal(a)
				if v == cty.NilVal || !v.Type().IsObjectType() || !v.Type().HasAttribute("version") || !v.Type().HasAttribute("source") {
					c.errorf("%s: aws provider requirement needs source and version", where)
					continue
				}
				if src := v.GetAttr("source"); src.Type() != cty.String || src.AsString() != "hashicorp/aws" {
					c.errorf("%s: aws provider source is %s", where, src.GoString())
				}
				raw := v.GetAttr("version").AsString()
				cons, err := version.NewConstraint(raw)
				if err != nil {
					c.errorf("%s: aws provider version %q: %v", where, raw, err)
					continue
				}
				if cons.Check(below) || !cons.Check(floor) || cons.Check(major) {
					c.errorf("%s: aws provider version %q must be ~> 6.47", where, raw)
				}
			}
		}
		if !found {
			c.errorf("%s: no required_providers entry for aws", where)
		}
	}
}

// checkLeafModulesOwnDefaults: the leaf modules own their defaults and
// validations (issue 11 #6). A pipeline input that is only handed to leaf
// module inputs (var.x as the whole argument, and referenced nowhere else)
// carries no validation, and its default is null or a setting of its own
// (differing from the leaf's: a copy of the leaf's default would drift);
// a leaf input that may receive null from it and has a default is
// nullable = false, so null takes that default.
func checkLeafModulesOwnDefaults(c *checker) {
	mods := map[string]*moduleFiles{}
	for _, m := range c.parseTree() {
		mods[m.where] = m
	}
	pl := mods["modules/pipeline"]
	if pl == nil {
		c.errorf("modules/pipeline is missing")
		return
	}
	variables := func(m *moduleFiles) map[string]*hclsyntax.Block {
		out := map[string]*hclsyntax.Block{}
		for _, b := range m.ofType("variable") {
			out[b.Labels[0]] = b
		}
		return out
	}
	type target struct{ leaf, input string }
	forwards := map[string][]target{} // pipeline variable -> leaf inputs
	uses := map[string]int{}          // pipeline variable -> references outside variable blocks
	for _, b := range pl.blocks {
		if b.Type == "variable" {
			continue
		}
		hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
			if tr, ok := n.(*hclsyntax.ScopeTraversalExpr); ok && tr.Traversal.RootName() == "var" && len(tr.Traversal) > 1 {
				if a, ok := tr.Traversal[1].(hcl.TraverseAttr); ok {
					uses[a.Name]++
				}
			}
			return nil
		})
		if b.Type != "module" {
			continue
		}
		leaf := strings.TrimPrefix(literalString(b.Body.Attributes["source"]), "../")
		for name, a := range b.Body.Attributes {
			tr, ok := a.Expr.(*hclsyntax.ScopeTraversalExpr)
			if !ok || tr.Traversal.RootName() != "var" || len(tr.Traversal) != 2 {
				continue
			}
			if v, ok := tr.Traversal[1].(hcl.TraverseAttr); ok {
				forwards[v.Name] = append(forwards[v.Name], target{leaf, name})
			}
		}
	}
	checked := 0
	for name, b := range variables(pl) {
		ts := forwards[name]
		if len(ts) == 0 || uses[name] != len(ts) {
			continue // the pipeline's own input, or one it also reads
		}
		checked++
		for _, vb := range b.Body.Blocks {
			if vb.Type == "validation" {
				c.errorf("pipeline: variable %s repeats a validation of %s.%s; the leaf module validates it", name, ts[0].leaf, ts[0].input)
				break
			}
		}
		def := literal(b.Body.Attributes["default"])
		for _, t := range ts {
			leaf := mods["modules/"+t.leaf]
			if leaf == nil {
				c.errorf("pipeline: module source %q is not a leaf module", t.leaf)
				continue
			}
			lv := variables(leaf)[t.input]
			if lv == nil {
				c.errorf("pipeline: %s has no input %s", t.leaf, t.input)
				continue
			}
			leafDef := literal(lv.Body.Attributes["default"])
			if leafDef == cty.NilVal || leafDef.IsNull() {
				continue // required, or null by default: null means the same
			}
			if def != cty.NilVal && !def.IsNull() && def.Equals(leafDef).True() {
				c.errorf("pipeline: variable %s repeats the default of %s.%s (%s); default it to null", name, t.leaf, t.input, leafDef.GoString())
			}
			if n := literal(lv.Body.Attributes["nullable"]); (def == cty.NilVal || def.IsNull()) && (n == cty.NilVal || n.Type() != cty.Bool || n.True()) {
				c.errorf("%s: variable %s is not nullable = false, so the pipeline's null for %s would not take its default", t.leaf, t.input, name)
			}
		}
	}
	if checked < 10 {
		c.errorf("pipeline: only %d inputs are handed to leaf modules unchanged", checked)
	}
}

// --- the pipe ------------------------------------------------------------------

// pipes returns every planned aws_pipes_pipe with its plan.
func pipes(c *checker) (out []struct {
	p *examplePlan
	r resource
}) {
	for _, p := range c.plans() {
		for _, r := range p.of("*", "aws_pipes_pipe") {
			out = append(out, struct {
				p *examplePlan
				r resource
			}{p, r})
		}
	}
	if len(out) == 0 {
		c.errorf("no aws_pipes_pipe in any plan")
	}
	return out
}

var ddbParams = []any{"source_parameters", 0, "dynamodb_stream_parameters", 0}

func at(prefix []any, steps ...any) []any {
	return append(append([]any{}, prefix...), steps...)
}

// checkPipeBisect: a failing batch is halved until the poison record is
// alone, instead of blocking the shard.
func checkPipeBisect(c *checker) {
	for _, p := range pipes(c) {
		if got := p.r.str(at(ddbParams, "on_partial_batch_item_failure")...); got != "AUTOMATIC_BISECT" {
			c.errorf("%s: %s: on_partial_batch_item_failure is %q, want AUTOMATIC_BISECT", p.p.name, p.r.addr, got)
		}
	}
}

// checkPipeStreamParametersExplicit: every dynamodb_stream_parameters
// argument of the provider schema is planned with a known value (provider
// issue #41573), plus the dead_letter_config and the filter_criteria block
// (absent filters are cleared on update).
func checkPipeStreamParametersExplicit(c *checker) {
	pipe, ok := c.schema.ResourceSchemas["aws_pipes_pipe"]
	if !ok {
		c.errorf("schema has no aws_pipes_pipe")
		return
	}
	ddbSchema := pipe.Block.NestedBlocks["source_parameters"].Block.NestedBlocks["dynamodb_stream_parameters"].Block
	var want []string
	for name, a := range ddbSchema.Attributes {
		if a.Optional || a.Required {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if len(want) < 7 {
		c.errorf("schema lists only %v for dynamodb_stream_parameters", want)
	}
	for _, p := range pipes(c) {
		where := p.p.name + ": " + p.r.addr
		for _, name := range want {
			if p.r.get(at(ddbParams, name)...) == nil {
				c.errorf("%s: dynamodb_stream_parameters.%s is not a known value", where, name)
			}
		}
		for name := range ddbSchema.NestedBlocks {
			if !p.r.set(at(ddbParams, name, 0, "arn")...) {
				c.errorf("%s: %s.arn is not set", where, name)
			}
		}
		if len(filters(p.r)) == 0 {
			c.errorf("%s: filter_criteria has no filter", where)
		}
	}
}

// filters returns the planned filter patterns of a pipe.
func filters(pipe resource) []string {
	var out []string
	fs, _ := pipe.get("source_parameters", 0, "filter_criteria", 0, "filter").([]any)
	for i := range fs {
		out = append(out, pipe.str("source_parameters", 0, "filter_criteria", 0, "filter", i, "pattern"))
	}
	return out
}

// checkPipeFiniteRetriesAndAge: retries and record age are finite as
// planned, and the variables refuse -1 (forever), 0 retries (sent as the
// default -1 on create) and ages at or beyond the stream's 24 hours.
func checkPipeFiniteRetriesAndAge(c *checker) {
	for _, p := range pipes(c) {
		where := p.p.name + ": " + p.r.addr
		if n, ok := p.r.num(at(ddbParams, "maximum_retry_attempts")...); !ok || n < 1 || n > 10000 {
			c.errorf("%s: maximum_retry_attempts is %v, want 1..10000", where, p.r.get(at(ddbParams, "maximum_retry_attempts")...))
		}
		if n, ok := p.r.num(at(ddbParams, "maximum_record_age_in_seconds")...); !ok || n < 60 || n >= 86400 {
			c.errorf("%s: maximum_record_age_in_seconds is %v, want 60..86399", where, p.r.get(at(ddbParams, "maximum_record_age_in_seconds")...))
		}
	}
	c.rejected("PipeFiniteRetriesAndAge")
	c.planFails("pipeline_record_age_forever", "maximum_record_age_in_seconds must be at least 60", true, "pipeline: a record age of -1 (forever)")
	c.planFails("pipeline_retries_forever", "maximum_retry_attempts must be a whole number between 1 and 10000", true, "pipeline: -1 retries (forever)")
}

// checkDefaultsPassValidation: every default satisfies its own validations:
// terraform validate of each module called with only its required inputs
// reports nothing, and the examples plan with theirs.
func checkDefaultsPassValidation(c *checker) {
	diags, err := c.s.validate()
	if err != nil {
		c.errorf("%v", err)
		return
	}
	rejects := map[string]bool{}
	for _, vc := range validateCases() {
		if vc.input != "" {
			rejects[fmt.Sprintf("module %q", vc.call)] = true
		}
	}
	// A default that fails is reported at the variable, not at the call.
	for _, d := range diags {
		if d.Severity != tfjson.DiagnosticSeverityError {
			continue
		}
		if d.Summary == "Invalid value for variable" && d.Snippet != nil && d.Snippet.Context != nil && rejects[*d.Snippet.Context] {
			continue
		}
		where := ""
		if d.Range != nil {
			where = d.Range.Filename + ": "
		}
		c.errorf("%s%s: %s", where, d.Summary, d.Detail)
	}
	c.plans()
}

// --- IAM -------------------------------------------------------------------------

// statement is an IAM statement object literal found in a module: an
// object with Action (policy documents) or actions (go-lambda's
// policy_statements) and a resource key.
type statement struct {
	where            string   // module folder
	block            string   // the top-level block it is in: "module.scraper", "locals", "aws_iam_role.this"
	sid              string   // literal Sid, or ""
	actions          []string // literal actions
	resources        []string // references in the resource expression
	resourceLiterals []string // literal resources
	literalResources bool     // the resource expression is a literal
	star             bool     // a literal resource "*"
	deny             bool     // Effect = "Deny": a wildcard there only narrows
}

// statementLiterals finds the statement literals of every module.
func (c *checker) statementLiterals() []statement {
	var out []statement
	for _, m := range c.parseTree() {
		for _, b := range m.blocks {
			block := strings.Join(append([]string{b.Type}, b.Labels...), ".")
			if b.Type == "resource" {
				block = strings.Join(b.Labels, ".")
			}
			hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
				obj, ok := n.(*hclsyntax.ObjectConsExpr)
				if !ok {
					return nil
				}
				st := statement{where: m.where, block: block}
				var hasAction, hasResource bool
				for _, item := range obj.Items {
					switch objectKey(item.KeyExpr) {
					case "Sid", "sid":
						if v, diags := item.ValueExpr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
							st.sid = v.AsString()
						}
					case "Effect", "effect":
						if v, diags := item.ValueExpr.Value(nil); !diags.HasErrors() && v.Type() == cty.String && !v.IsNull() {
							st.deny = strings.EqualFold(v.AsString(), "Deny")
						}
					case "Action", "NotAction", "actions":
						hasAction = true
						if v, diags := item.ValueExpr.Value(nil); !diags.HasErrors() {
							st.actions = append(st.actions, ctyStrings(v)...)
						}
					case "Resource", "resources":
						hasResource = true
						st.resources = references(item.ValueExpr)
						if v, diags := item.ValueExpr.Value(nil); !diags.HasErrors() {
							st.literalResources = true
							st.resourceLiterals = ctyStrings(v)
							for _, r := range st.resourceLiterals {
								st.star = st.star || r == "*"
							}
						}
						// A template such as ["${x}/stream/*"] is not a literal
						// but ends in a literal part.
						hclsyntax.VisitAll(item.ValueExpr, func(n hclsyntax.Node) hcl.Diagnostics {
							if tmpl, ok := n.(*hclsyntax.TemplateExpr); ok && len(tmpl.Parts) == 1 {
								if v, diags := tmpl.Value(nil); !diags.HasErrors() && v.Type() == cty.String && v.AsString() == "*" {
									st.star = true
								}
							}
							return nil
						})
					}
				}
				if hasAction && hasResource {
					out = append(out, st)
				}
				return nil
			})
		}
	}
	return out
}

func ctyStrings(v cty.Value) []string {
	if !v.IsWhollyKnown() || v.IsNull() {
		return nil
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}
	}
	if !v.CanIterateElements() {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.Type() == cty.String && !e.IsNull() {
			out = append(out, e.AsString())
		}
	}
	return out
}

// objectKey returns the literal key of an object constructor item.
func objectKey(expr hcl.Expression) string {
	if k, ok := expr.(*hclsyntax.ObjectConsKeyExpr); ok {
		if kw := hcl.ExprAsKeyword(k.Wrapped); kw != "" {
			return kw
		}
		expr = k.Wrapped
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return ""
	}
	return v.AsString()
}

// references returns the references (e.g. "aws_sqs_queue.dlq.arn") in an
// expression.
func references(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		var b strings.Builder
		b.WriteString(tr.RootName())
		for _, step := range tr[1:] {
			if st, ok := step.(hcl.TraverseAttr); ok {
				b.WriteString("." + st.Name)
			}
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}

// policyDocument decodes a planned IAM policy; ok is false while it is
// known only after apply (it names ARNs created by the same apply).
func policyDocument(r resource, attr string) (doc map[string]any, ok bool, err error) {
	s := r.str(attr)
	if s == "" {
		return nil, false, nil
	}
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return nil, false, fmt.Errorf("%s: %s is not JSON: %w", r.addr, attr, err)
	}
	return doc, true, nil
}

// checkNoWildcardActions: every IAM policy the modules create lists exact
// actions and never grants Resource "*": in the policies known at plan
// time, in every statement literal of the modules (the policies that name
// ARNs of the same apply are known only after it), and go-lambda refuses
// wildcard actions from callers.
func checkNoWildcardActions(c *checker) {
	policies := 0
	for _, p := range c.plans() {
		for typ, attr := range map[string]string{"aws_iam_role_policy": "policy", "aws_iam_role": "assume_role_policy"} {
			for _, r := range p.of("*", typ) {
				if !r.set(attr) {
					c.errorf("%s: %s has no %s", p.name, r.addr, attr)
					continue
				}
				policies++
				doc, ok, err := policyDocument(r, attr)
				if err != nil {
					c.errorf("%s: %v", p.name, err)
				}
				if !ok {
					continue
				}
				stmts, _ := doc["Statement"].([]any)
				if len(stmts) == 0 {
					c.errorf("%s: %s: no statements", p.name, r.addr)
				}
				for _, st := range stmts {
					for _, act := range append(strs(path(st, "Action")), strs(path(st, "NotAction"))...) {
						if strings.Contains(act, "*") {
							c.errorf("%s: %s: wildcard action %q", p.name, r.addr, act)
						}
					}
					star := false
					for _, res := range strs(path(st, "Resource")) {
						star = star || res == "*"
					}
					if starWithResourceScopedAction(strs(path(st, "Action")), star) {
						c.errorf("%s: %s: a statement grants Resource \"*\"", p.name, r.addr)
					}
				}
			}
		}
	}
	if policies == 0 {
		c.errorf("no IAM policies in any plan")
	}
	stmts := c.statementLiterals()
	if len(stmts) < 5 {
		c.errorf("found only %d IAM statement literals", len(stmts))
	}
	for _, st := range stmts {
		for _, act := range st.actions {
			if strings.Contains(act, "*") && !st.deny {
				c.errorf("%s: wildcard action %q", st.where, act)
			}
		}
		if starWithResourceScopedAction(st.actions, st.star) {
			c.errorf("%s: a statement grants Resource \"*\" with %v", st.where, st.actions)
		}
	}
	c.rejected("NoWildcardActions")
}

// --- queues ------------------------------------------------------------------------

// checkDeadLetterQueues: the work queue redrives to its DLQ (and allows the
// console redrive back), the pipe sends failed batches to its own DLQ, and
// the pipe role may write to it.
func checkDeadLetterQueues(c *checker) {
	for _, p := range c.plans() {
		for _, kind := range []string{"work-queue", "dispatch"} {
			if len(p.of(kind, "aws_sqs_queue")) == 0 {
				c.errorf("%s: no queue of %s planned", p.name, kind)
			}
		}
		if n := len(p.of("work-queue", "aws_sqs_queue_redrive_policy")); n != 1 {
			c.errorf("%s: %d work-queue redrive policies, want 1", p.name, n)
		}
		if n := len(p.of("work-queue", "aws_sqs_queue_redrive_allow_policy")); n != 1 {
			c.errorf("%s: %d work-queue redrive-allow policies, want 1", p.name, n)
		}
		wq := p.moduleConfig("work-queue")
		if rp := configResource(wq, "aws_sqs_queue_redrive_policy", "this"); rp == nil {
			c.errorf("work-queue: aws_sqs_queue_redrive_policy.this is missing")
		} else {
			requireRefs(c, "work-queue redrive_policy", rp.Expressions["redrive_policy"], "aws_sqs_queue.dlq.arn", "var.max_receive_count")
			requireRefs(c, "work-queue redrive queue_url", rp.Expressions["queue_url"], "aws_sqs_queue.this.id")
		}
		if ap := configResource(wq, "aws_sqs_queue_redrive_allow_policy", "dlq"); ap == nil {
			c.errorf("work-queue: aws_sqs_queue_redrive_allow_policy.dlq is missing")
		} else {
			requireRefs(c, "work-queue redrive_allow_policy", ap.Expressions["redrive_allow_policy"], "aws_sqs_queue.this.arn")
			requireRefs(c, "work-queue redrive-allow queue_url", ap.Expressions["queue_url"], "aws_sqs_queue.dlq.id")
		}
		if pipe := configResource(p.moduleConfig("dispatch"), "aws_pipes_pipe", "this"); pipe == nil {
			c.errorf("dispatch: aws_pipes_pipe.this is missing")
		} else {
			dlc := nestedExpr(pipe.Expressions, "source_parameters", "dynamodb_stream_parameters", "dead_letter_config", "arn")
			if dlc == nil {
				c.errorf("dispatch: aws_pipes_pipe.this has no dead_letter_config")
			}
			requireRefs(c, "dispatch dead_letter_config.arn", dlc, "aws_sqs_queue.dlq.arn")
		}
		break // the configuration is the same in every plan
	}
	// The policy documents name ARNs known only after apply: their literals.
	byQueue := false
	for _, m := range c.parseTree() {
		if m.where != "modules/work-queue" {
			continue
		}
		for _, b := range m.blocks {
			hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
				if obj, ok := n.(*hclsyntax.ObjectConsExpr); ok {
					for _, item := range obj.Items {
						if objectKey(item.KeyExpr) == "redrivePermission" {
							v, diags := item.ValueExpr.Value(nil)
							byQueue = !diags.HasErrors() && v.Type() == cty.String && v.AsString() == "byQueue"
						}
					}
				}
				return nil
			})
		}
	}
	if !byQueue {
		c.errorf("work-queue: redrivePermission is not byQueue")
	}
	if !hasStatement(c, "modules/dispatch", "sqs:SendMessage", "aws_sqs_queue.dlq.arn") {
		c.errorf("dispatch: the pipe role cannot sqs:SendMessage to aws_sqs_queue.dlq")
	}
	c.rejected("DeadLetterQueues")
}

// hasStatement reports whether the module has an IAM statement allowing
// action on a resource expression that references ref.
func hasStatement(c *checker, where, action, ref string) bool {
	for _, st := range c.statementLiterals() {
		if st.where == where && containsString(st.actions, action) && containsString(st.resources, ref) {
			return true
		}
	}
	return false
}

// nestedExpr follows nested blocks (first instance of each) of a
// configuration's expressions to an attribute.
func nestedExpr(exprs map[string]*tfjson.Expression, steps ...string) *tfjson.Expression {
	e := exprs[steps[0]]
	for _, st := range steps[1:] {
		if e == nil || len(e.NestedBlocks) == 0 {
			return nil
		}
		e = e.NestedBlocks[0][st]
	}
	return e
}

// requireRefs records a violation unless the expression references every
// one of want.
func requireRefs(c *checker, what string, e *tfjson.Expression, want ...string) {
	if e == nil {
		c.errorf("%s is not set", what)
		return
	}
	got := refs(e)
	for _, ref := range want {
		if !containsString(got, ref) {
			c.errorf("%s does not reference %s (references %v)", what, ref, got)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// alarmFiresAtFirst reports why an alarm would not fire on the first
// datapoint of value 1, or "".
func alarmFiresAtFirst(a resource) string {
	cmp := a.str("comparison_operator")
	threshold, okT := a.num("threshold")
	periods, okP := a.num("evaluation_periods")
	switch {
	case !okT || !okP:
		return "threshold and evaluation_periods must be known"
	case periods != 1:
		return fmt.Sprintf("evaluation_periods is %v, want 1", periods)
	case cmp == "GreaterThanOrEqualToThreshold" && threshold > 1,
		cmp == "GreaterThanThreshold" && threshold >= 1,
		cmp != "GreaterThanOrEqualToThreshold" && cmp != "GreaterThanThreshold":
		return fmt.Sprintf("%s %v does not fire at 1 message", cmp, threshold)
	}
	if a.set("datapoints_to_alarm") {
		if n, ok := a.num("datapoints_to_alarm"); !ok || n != 1 {
			return "datapoints_to_alarm must be 1"
		}
	}
	return ""
}

// checkDLQAlarms: both DLQs alarm at their first message; the pipe's
// failures and every function's errors and throttles alarm too.
func checkDLQAlarms(c *checker) {
	for _, p := range c.plans() {
		alarms := p.of("*", "aws_cloudwatch_metric_alarm")
		watching := func(dim, value string) []resource {
			var out []resource
			for _, a := range alarms {
				if value != "" && a.str("dimensions", dim) == value {
					out = append(out, a)
				}
			}
			return out
		}
		for _, kind := range []string{"work-queue", "dispatch"} {
			var dlq string
			for _, q := range p.of(kind, "aws_sqs_queue") {
				if strings.HasSuffix(q.addr, ".dlq") {
					dlq = q.str("name")
				}
			}
			if dlq == "" {
				c.errorf("%s: the %s DLQ has no known name", p.name, kind)
				continue
			}
			as := watching("QueueName", dlq)
			if len(as) == 0 {
				c.errorf("%s: no alarm watches the %s DLQ %s", p.name, kind, dlq)
			}
			for _, a := range as {
				if n := a.str("namespace"); n != "AWS/SQS" {
					c.errorf("%s: %s: namespace %q, want AWS/SQS", p.name, a.addr, n)
				}
				if m := a.str("metric_name"); m != "ApproximateNumberOfMessagesVisible" {
					c.errorf("%s: %s: metric %q, want ApproximateNumberOfMessagesVisible (redriven messages are not counted as sent)", p.name, a.addr, m)
				}
				if why := alarmFiresAtFirst(a); why != "" {
					c.errorf("%s: %s: %s", p.name, a.addr, why)
				}
			}
		}
		for _, pipe := range p.of("dispatch", "aws_pipes_pipe") {
			if len(watching("PipeName", pipe.str("name"))) == 0 {
				c.errorf("%s: no alarm watches the pipe %s", p.name, pipe.str("name"))
			}
		}

		// Per-function alarms: every planned function has an Errors and a
		// Throttles alarm.
		var functions []string
		for _, fn := range p.of("go-lambda", "aws_lambda_function") {
			functions = append(functions, fn.str("function_name"))
		}
		sort.Strings(functions)
		if len(functions) < 2 {
			c.errorf("%s: functions %v", p.name, functions)
		}
		covered := map[string][]string{}
		for _, a := range alarms {
			m := a.str("metric_name")
			covered[m] = append(covered[m], a.str("dimensions", "FunctionName"))
			if m == emf.OldestLiveTaskAge {
				if got := a.str("namespace"); got != emf.Namespace {
					c.errorf("%s: %s: namespace %q, want %q (internal/emf)", p.name, a.addr, got, emf.Namespace)
				}
				// The reconciler's EMF line carries the metric with the State
				// dimension and without; both carry the deployment's
				// Deployment dimension (DEPLOYMENT_NAME), and the alarm
				// watches this deployment's total (issue 12 #6).
				checkDeploymentDimension(c, p, a)
			}
		}
		for _, metric := range []string{"Errors", "Throttles"} {
			got := covered[metric]
			sort.Strings(got)
			if !reflect.DeepEqual(got, functions) {
				c.errorf("%s: %s alarms cover %v, want %v", p.name, metric, got, functions)
			}
		}
		for _, metric := range []string{"ExecutionFailed", emf.OldestLiveTaskAge} {
			if len(covered[metric]) == 0 {
				c.errorf("%s: no %s alarm", p.name, metric)
			}
		}
	}
}

// workQueue returns the planned work queue and its DLQ.
func workQueue(c *checker, p *examplePlan) (queue, dlq resource, ok bool) {
	for _, q := range p.of("work-queue", "aws_sqs_queue") {
		switch {
		case strings.HasSuffix(q.addr, ".this"):
			queue = q
		case strings.HasSuffix(q.addr, ".dlq"):
			dlq = q
		}
	}
	if queue.addr == "" || dlq.addr == "" {
		c.errorf("%s: the work queue and its DLQ are not planned", p.name)
		return queue, dlq, false
	}
	return queue, dlq, true
}

// checkDLQRetention: a DLQ keeps messages longer than its source queue,
// because expiry counts from the original enqueue time; equal retention
// fails the plan.
func checkDLQRetention(c *checker) {
	for _, p := range c.plans() {
		q, d, ok := workQueue(c, p)
		if !ok {
			continue
		}
		qr, ok1 := q.num("message_retention_seconds")
		dr, ok2 := d.num("message_retention_seconds")
		if !ok1 || !ok2 || dr <= qr {
			c.errorf("%s: DLQ retention %v is not greater than queue retention %v", p.name, d.get("message_retention_seconds"), q.get("message_retention_seconds"))
		}
	}
	c.planFails("equal_retention", "Resource precondition failed", true, "work-queue: equal queue and DLQ retention")
}

// scraper returns the planned scraper function and its event source
// mapping.
func scraper(c *checker, p *examplePlan) (fn, esm resource, ok bool) {
	for _, r := range p.resources {
		if !strings.HasSuffix(r.module, "module.scraper") {
			continue
		}
		switch r.typ {
		case "aws_lambda_function":
			fn = r
		case "aws_lambda_event_source_mapping":
			if esm.addr != "" {
				c.errorf("%s: the scraper has more than one event source mapping", p.name)
			}
			esm = r
		}
	}
	if fn.addr == "" || esm.addr == "" {
		c.errorf("%s: the scraper and its event source mapping are not planned", p.name)
		return fn, esm, false
	}
	return fn, esm, true
}

// checkVisibilityTimeout: the work queue's visibility timeout is at least
// six times the scraper's timeout (+ batching window), as planned, and
// enforced at plan time.
func checkVisibilityTimeout(c *checker) {
	for _, p := range c.plans() {
		q, _, ok1 := workQueue(c, p)
		fn, esm, ok2 := scraper(c, p)
		if !ok1 || !ok2 {
			continue
		}
		vis, _ := q.num("visibility_timeout_seconds")
		timeout, _ := fn.num("timeout")
		window, _ := esm.num("maximum_batching_window_in_seconds")
		if vis < 6*timeout+window || timeout == 0 {
			c.errorf("%s: visibility timeout %v < 6 x %v + %v", p.name, vis, timeout, window)
		}
	}
	// The pipeline hands the scraper's timeout to the queue's check.
	c.planFails("visibility_below_six_timeouts", "Resource precondition failed", true, "pipeline: visibility 2519 with scraper timeout 420")
	c.planFails("visibility_six_timeouts", "", false, "pipeline: visibility 2520 with scraper timeout 420")
}

// checkReportBatchItemFailures: every SQS event source mapping reports
// partial batch failures, and the scraper's mapping takes one message at a
// time with a concurrency cap within its reserved concurrency.
func checkReportBatchItemFailures(c *checker) {
	for _, p := range c.plans() {
		esms := p.of("*", "aws_lambda_event_source_mapping")
		if len(esms) == 0 {
			c.errorf("%s: no aws_lambda_event_source_mapping", p.name)
		}
		for _, e := range esms {
			if types := strs(e.get("function_response_types")); !containsString(types, "ReportBatchItemFailures") {
				c.errorf("%s: %s: function_response_types %v lacks ReportBatchItemFailures", p.name, e.addr, types)
			}
		}
		fn, esm, ok := scraper(c, p)
		if !ok {
			continue
		}
		if n, ok := esm.num("batch_size"); !ok || n != 1 {
			c.errorf("%s: scraper batch_size %v, want 1", p.name, esm.get("batch_size"))
		}
		if n, ok := esm.num("maximum_batching_window_in_seconds"); !ok || n != 0 {
			c.errorf("%s: scraper batching window %v, want 0", p.name, esm.get("maximum_batching_window_in_seconds"))
		}
		maxConc, ok1 := esm.num("scaling_config", 0, "maximum_concurrency")
		reserved, ok2 := fn.num("reserved_concurrent_executions")
		if !ok1 || !ok2 || reserved < maxConc {
			c.errorf("%s: maximum_concurrency %v exceeds reserved concurrency %v", p.name, esm.get("scaling_config", 0, "maximum_concurrency"), fn.get("reserved_concurrent_executions"))
		}
	}
}

// --- the pipe's filter ------------------------------------------------------------

// pendingPatterns is the default pipe filter (docs/aws-behaviour.md §1.3): new image
// Pending, and an old image without status (INSERT) or with another status.
var pendingPatterns = []string{
	`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`,
	`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"anything-but":["Pending"]}]}}}}`,
}

// canonicalJSON re-encodes a JSON document with sorted keys.
func canonicalJSON(s string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func canonicalSet(c *checker, patterns []string) []string {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		cj, err := canonicalJSON(p)
		if err != nil {
			c.errorf("filter pattern %q is not JSON: %v", p, err)
			continue
		}
		out = append(out, cj)
	}
	sort.Strings(out)
	return out
}

// checkPipeFilterDefault: by default the pipe dispatches exactly the
// records whose task becomes Pending, without relying on eventName (whose
// support in Pipes is unconfirmed), with the status attribute of the task
// contract: the dispatch module's default, and the filters every example
// (they keep the default) plans.
func checkPipeFilterDefault(c *checker) {
	want := canonicalSet(c, pendingPatterns)
	for _, p := range want {
		if !strings.Contains(p, `"`+task.AttrStatus+`"`) || !strings.Contains(p, `"`+string(task.StatePending)+`"`) {
			c.errorf("expected pattern %s does not use the task contract's names", p)
		}
	}
	checked := false
	for _, p := range c.plans() {
		if !checked {
			checked = true
			v := p.moduleConfig("dispatch")
			if v == nil || v.Variables["filter_patterns"] == nil {
				c.errorf("dispatch: variable filter_patterns is missing")
			} else {
				def := strs(v.Variables["filter_patterns"].Default)
				if got := canonicalSet(c, def); !reflect.DeepEqual(got, want) {
					c.errorf("dispatch: filter_patterns default is %v, want %v", got, want)
				}
				for _, f := range def {
					if strings.Contains(f, "eventName") {
						c.errorf("dispatch: default filter %s relies on eventName", f)
					}
				}
			}
		}
		for _, pipe := range p.of("dispatch", "aws_pipes_pipe") {
			if got := canonicalSet(c, filters(pipe)); !reflect.DeepEqual(got, want) {
				c.errorf("%s: planned filters %v, want the default %v", p.name, got, want)
			}
		}
	}
}

// --- the table -----------------------------------------------------------------------

// checkTableMatchesStore: the planned table has exactly the key schema,
// indexes and TTL attribute internal/dynamostore uses, and the functions
// are told the index names it uses.
func checkTableMatchesStore(c *checker) {
	in := dynamostore.TableInput("contract")
	wantAttrs := map[string]string{}
	for _, a := range in.AttributeDefinitions {
		wantAttrs[*a.AttributeName] = string(a.AttributeType)
	}
	type gsi struct{ hash, rng, projection, nonKey string }
	wantGSI := map[string]gsi{}
	for _, g := range in.GlobalSecondaryIndexes {
		var x gsi
		for _, k := range g.KeySchema {
			if k.KeyType == "HASH" {
				x.hash = *k.AttributeName
			} else {
				x.rng = *k.AttributeName
			}
		}
		x.projection = string(g.Projection.ProjectionType)
		x.nonKey = strings.Join(g.Projection.NonKeyAttributes, ",")
		wantGSI[*g.IndexName] = x
	}
	wantHash := *in.KeySchema[0].AttributeName

	for _, p := range c.plans() {
		tables := p.of("task-table", "aws_dynamodb_table")
		if len(tables) != 1 {
			c.errorf("%s: want one aws_dynamodb_table, found %d", p.name, len(tables))
			continue
		}
		t := tables[0]
		for name, want := range map[string]string{
			"hash_key":         wantHash,
			"billing_mode":     string(in.BillingMode),
			"stream_view_type": string(in.StreamSpecification.StreamViewType),
		} {
			if got := t.str(name); got != want {
				c.errorf("%s: %s is %q, want %q", p.name, name, got, want)
			}
		}
		if t.get("stream_enabled") != true {
			c.errorf("%s: stream_enabled must be true", p.name)
		}
		if t.set("range_key") {
			c.errorf("%s: the store's table has no range key", p.name)
		}
		if got := t.str("ttl", 0, "attribute_name"); t.get("ttl", 0, "enabled") == true && got != dynamostore.AttrExpiresAt {
			c.errorf("%s: TTL on %q, want %q", p.name, got, dynamostore.AttrExpiresAt)
		}
		if tt := p.moduleConfig("task-table"); tt == nil || tt.Variables["ttl_attribute_name"] == nil || tt.Variables["ttl_attribute_name"].Default != dynamostore.AttrExpiresAt {
			c.errorf("task-table: ttl_attribute_name does not default to %q", dynamostore.AttrExpiresAt)
		}
		gotAttrs := map[string]string{}
		attrs, _ := t.get("attribute").([]any)
		for i := range attrs {
			gotAttrs[t.str("attribute", i, "name")] = t.str("attribute", i, "type")
		}
		if !reflect.DeepEqual(gotAttrs, wantAttrs) {
			c.errorf("%s: attributes %v, want %v", p.name, gotAttrs, wantAttrs)
		}
		gotGSI := map[string]gsi{}
		gsis, _ := t.get("global_secondary_index").([]any)
		for i := range gsis {
			get := func(name string) string { return t.str("global_secondary_index", i, name) }
			got := gsi{projection: get("projection_type")}
			if nk, ok := t.get("global_secondary_index", i, "non_key_attributes").([]any); ok {
				names := make([]string, 0, len(nk))
				for _, n := range nk {
					names = append(names, fmt.Sprint(n))
				}
				sort.Strings(names)
				got.nonKey = strings.Join(names, ",")
			}
			// 6.x: key_schema blocks; hash_key and range_key are
			// deprecated and must not be used (issue 12 #12).
			if get("hash_key") != "" || get("range_key") != "" {
				c.errorf("%s: index %s uses the deprecated hash_key/range_key", p.name, get("name"))
			}
			keys, _ := t.get("global_secondary_index", i, "key_schema").([]any)
			for k := range keys {
				name := t.str("global_secondary_index", i, "key_schema", k, "attribute_name")
				switch typ := t.str("global_secondary_index", i, "key_schema", k, "key_type"); typ {
				case "HASH":
					got.hash = name
				case "RANGE":
					got.rng = name
				default:
					c.errorf("%s: index %s: key_type %q", p.name, get("name"), typ)
				}
			}
			gotGSI[get("name")] = got
		}
		if !reflect.DeepEqual(gotGSI, wantGSI) {
			c.errorf("%s: global secondary indexes %v, want %v", p.name, gotGSI, wantGSI)
		}
		// The index names reach the functions through the module's outputs.
		tt := p.moduleConfig("task-table")
		for _, out := range []struct{ output, local, want string }{
			{"live_index_name", "live_index_name", dynamostore.IndexLive},
			{"done_index_name", "done_index_name", dynamostore.IndexDone},
		} {
			if tt == nil || tt.Outputs[out.output] == nil {
				c.errorf("task-table: output %s is missing", out.output)
				continue
			}
			if _, ok := gotGSI[out.want]; !ok {
				c.errorf("%s: output %s: no index %q planned", p.name, out.output, out.want)
			}
		}
	}
}

// --- the functions -------------------------------------------------------------------

// lambdaEnvKeys are the variables every function receives, named by the
// Go code that reads them.
var lambdaEnvKeys = []string{
	handler.EnvAllowPrivateNetworks, handler.EnvLeaseSeconds, handler.EnvLiveShards,
	handler.EnvLogLevel, handler.EnvPendingGraceSeconds, handler.EnvRunningGraceSeconds,
	handler.EnvTableName, handler.EnvVisibilityTimeoutSecs, handler.EnvWorkDLQURL, handler.EnvWorkQueueURL,
}

// getenv turns a planned environment into an os.Getenv stand-in. Values
// known only after apply (queue URLs) read as a well-formed placeholder.
func getenv(fn resource) func(string) string {
	vars := []any{"environment", 0, "variables"}
	return func(key string) string {
		if s, ok := fn.get(at(vars, key)...).(string); ok {
			return s
		}
		if fn.isUnknown(at(vars, key)...) {
			return "https://sqs.eu-west-1.amazonaws.com/123456789012/known-after-apply"
		}
		return ""
	}
}

// checkLambdaEnvironment: every function gets the runtime settings, the
// Go code that reads them accepts what Terraform plans, and the grace
// periods respect the queue: the Running grace exceeds the visibility
// timeout (no race with SQS redelivery; a plan that breaks it fails) and
// the lease outlives an invocation. Production never allows private
// networks by default.
func checkLambdaEnvironment(c *checker) {
	parsers := map[string]func(func(string) string) error{
		"module.scraper": func(g func(string) string) error {
			_, err := handler.ScraperConfigFromEnv(g)
			return err
		},
		"module.reconciler": func(g func(string) string) error {
			_, err := handler.ReconcilerConfigFromEnv(g)
			return err
		},
		"module.enrich[0]": func(g func(string) string) error {
			_, err := handler.EnrichConfigFromEnv(g)
			return err
		},
	}
	parsed := 0
	for _, p := range c.plans() {
		q, _, ok := workQueue(c, p)
		if !ok {
			continue
		}
		vis, _ := q.num("visibility_timeout_seconds")
		for _, fn := range p.of("go-lambda", "aws_lambda_function") {
			where := p.name + ": " + fn.addr
			parse, ok := parsers[fn.module[strings.LastIndex(fn.module, "module."):]]
			if !ok {
				c.errorf("%s: unexpected function module", where)
				continue
			}
			parsed++
			env := getenv(fn)
			for _, k := range lambdaEnvKeys {
				if env(k) == "" {
					c.errorf("%s: environment lacks %s", where, k)
				}
			}
			if err := parse(env); err != nil {
				c.errorf("%s: the function rejects its planned environment: %v", where, err)
			}
			if g, err := strconv.ParseFloat(env(handler.EnvRunningGraceSeconds), 64); err != nil || g <= vis {
				c.errorf("%s: RUNNING_GRACE_SECONDS %s must exceed the visibility timeout %v", where, env(handler.EnvRunningGraceSeconds), vis)
			}
			if strings.HasSuffix(fn.module, "module.scraper") {
				timeout, _ := fn.num("timeout")
				if l, err := strconv.ParseFloat(env(handler.EnvLeaseSeconds), 64); err != nil || l <= timeout {
					c.errorf("%s: LEASE_SECONDS %s must exceed the scraper timeout %v", where, env(handler.EnvLeaseSeconds), timeout)
				}
			}
			// The Go runtime's soft limit follows the memory size (issue 15
			// item 1), below it.
			if mb, ok := fn.num("memory_size"); ok {
				if got, want := env("GOMEMLIMIT"), fmt.Sprintf("%dMiB", int(mb*0.8)); got != want {
					c.errorf("%s: GOMEMLIMIT %q, want %q for %v MB", where, got, want, mb)
				}
			}
			if p.name != "examples/local" && env(handler.EnvAllowPrivateNetworks) != "false" {
				c.errorf("%s: %s is %q, want false outside the local cloud", where, handler.EnvAllowPrivateNetworks, env(handler.EnvAllowPrivateNetworks))
			}
		}
		if pl := p.moduleConfig("pipeline"); pl == nil || pl.Variables["enable_private_network_fetches"] == nil || pl.Variables["enable_private_network_fetches"].Default != false {
			c.errorf("pipeline: enable_private_network_fetches must default to false")
		}
	}
	if parsed == 0 {
		c.errorf("no function environment checked")
	}
	c.planFails("grace_equals_visibility", "Resource precondition failed", true, "pipeline: a Running grace equal to the visibility timeout")
}

// checkProductionDefaults: the complete example, which keeps the module
// defaults, plans the production numbers of seed 001 (docs/design.md §1).
func checkProductionDefaults(c *checker) {
	for _, p := range c.plans() {
		if p.name != "examples/complete" {
			continue
		}
		q, d, ok1 := workQueue(c, p)
		fn, esm, ok2 := scraper(c, p)
		if !ok1 || !ok2 {
			return
		}
		for _, v := range []struct {
			what string
			r    resource
			path []any
			want float64
		}{
			{"scraper timeout", fn, []any{"timeout"}, 420},
			{"scraper reserved concurrency", fn, []any{"reserved_concurrent_executions"}, 140},
			{"scraper maximum concurrency", esm, []any{"scaling_config", 0, "maximum_concurrency"}, 140},
			{"visibility timeout", q, []any{"visibility_timeout_seconds"}, 90 * 60},
			{"work queue retention", q, []any{"message_retention_seconds"}, 4 * 86400},
			{"work DLQ retention", d, []any{"message_retention_seconds"}, 14 * 86400},
		} {
			if got, ok := v.r.num(v.path...); !ok || got != v.want {
				c.errorf("%s: %s is %v, want %v", p.name, v.what, v.r.get(v.path...), v.want)
			}
		}
		// The redrive policy names the DLQ's ARN, so it is known only after
		// apply: the default that reaches it.
		var mrc any
		for _, kind := range []string{"pipeline", "work-queue"} {
			if m := p.moduleConfig(kind); mrc == nil && m != nil && m.Variables["max_receive_count"] != nil {
				mrc = m.Variables["max_receive_count"].Default
			}
		}
		if mrc != 3.0 {
			c.errorf("max_receive_count defaults to %v, want 3", mrc)
		}
		schedules := p.of("*", "aws_scheduler_schedule")
		if len(schedules) != 1 || schedules[0].str("schedule_expression") != "rate(5 minutes)" {
			c.errorf("%s: reconciler schedule %v, want rate(5 minutes)", p.name, schedules)
		}
		return
	}
	c.errorf("examples/complete was not planned")
}
