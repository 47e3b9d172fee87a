package terraform_test

// Contract tests: the invariants of the Terraform modules that must never
// regress (docs/design.md §3–5, docs/aws-behaviour.md). Each contract returns the violations
// it finds, so TestContracts can require none on the real tree and
// TestContractsCatchMutations can require some on a deliberately broken copy.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	version "github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
	"github.com/taskpipe/taskpipe/internal/task"
)

// checker collects the violations of one contract.
type checker struct {
	r          *repo
	schema     *tfjson.ProviderSchema
	violations []string
}

func (c *checker) errorf(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

// ok records err as a violation and reports whether there was none.
func (c *checker) ok(err error) bool {
	if err != nil {
		c.errorf("evaluate: %v", err)
		return false
	}
	return true
}

// scopes returns every module instance of every root, or records why not.
func (c *checker) scopes() []*scope {
	s, err := c.r.scopes()
	c.ok(err)
	return s
}

// scopesOf returns the instances of one module, or records why not.
func (c *checker) scopesOf(module string) []*scope {
	s, err := c.r.scopesOf(module)
	c.ok(err)
	if err == nil && len(s) == 0 {
		c.errorf("module %s is never instantiated", module)
	}
	return s
}

// module returns a module by folder name, or records that it is missing.
func (c *checker) module(name string) *tfModule {
	m, ok := c.r.modules[name]
	if !ok {
		c.errorf("module %s is missing", name)
	}
	return m
}

// contract is one invariant.
type contract struct {
	name  string
	check func(c *checker)
}

// contracts lists every invariant, alphabetically.
var contracts = []contract{
	{"DLQAlarms", checkDLQAlarms},
	{"DLQRetention", checkDLQRetention},
	{"DeadLetterQueues", checkDeadLetterQueues},
	{"DefaultsPassValidation", checkDefaultsPassValidation},
	{"EncryptionNeedsNoGrants", checkEncryptionNeedsNoGrants},
	{"FunctionLeastPrivilege", checkFunctionLeastPrivilege},
	{"LambdaEnvironment", checkLambdaEnvironment},
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

// runContract runs the named contract on a loaded tree.
func runContract(t *testing.T, r *repo, schema *tfjson.ProviderSchema, name string) []string {
	t.Helper()
	for _, ct := range contracts {
		if ct.name == name {
			c := &checker{r: r, schema: schema}
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
	r, err := loadRepo(".")
	require.NoError(t, err)
	for _, ct := range contracts {
		t.Run(ct.name, func(t *testing.T) {
			t.Parallel()
			require.Empty(t, runContract(t, r, schema, ct.name))
		})
	}
}

// --- value helpers ---------------------------------------------------------

func known(v cty.Value) bool { return v != cty.NilVal && v.IsWhollyKnown() && !v.IsNull() }

// number returns a known number value as float64.
func number(v cty.Value) (float64, bool) {
	if !known(v) || v.Type() != cty.Number {
		return 0, false
	}
	f, _ := v.AsBigFloat().Float64()
	return f, true
}

// str returns a known string value.
func str(v cty.Value) (string, bool) {
	if !known(v) || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// strings returns a known list/set/tuple of strings (or a single string).
func stringList(v cty.Value) ([]string, bool) {
	if s, ok := str(v); ok {
		return []string{s}, true
	}
	if !known(v) || !v.CanIterateElements() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		s, ok := str(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// defaultNumber returns the default of a numeric variable of m.
func defaultNumber(c *checker, m *tfModule, name string) (float64, bool) {
	b := m.variable(name)
	if b == nil {
		c.errorf("%s: variable %s is missing", m.dir, name)
		return 0, false
	}
	v, has, err := variableDefault(b)
	if !c.ok(err) {
		return 0, false
	}
	n, ok := number(v)
	if !has || !ok {
		c.errorf("%s: variable %s has no numeric default", m.dir, name)
		return 0, false
	}
	return n, true
}

// requireRejected records a violation unless variable name of m rejects
// every candidate.
func requireRejected(c *checker, m *tfModule, name string, candidates ...cty.Value) {
	b := m.variable(name)
	if b == nil {
		c.errorf("%s: variable %s is missing", m.dir, name)
		return
	}
	for _, cand := range candidates {
		errs, err := validationErrors(b, cand)
		if !c.ok(err) {
			continue
		}
		if len(errs) == 0 {
			c.errorf("%s: variable %s accepts %s", m.dir, name, cand.GoString())
		}
	}
}

// --- contracts ---------------------------------------------------------------

// checkModuleFiles: the standard module structure.
func checkModuleFiles(c *checker) {
	for _, name := range names(c.r.modules) {
		for _, f := range []string{"main.tf", "variables.tf", "outputs.tf", "versions.tf", "README.md"} {
			if !c.r.modules[name].files[f] {
				c.errorf("modules/%s: %s is missing", name, f)
			}
		}
	}
	for _, name := range names(c.r.examples) {
		for _, f := range []string{"main.tf", "variables.tf", "outputs.tf", "versions.tf", "README.md"} {
			if !c.r.examples[name].files[f] {
				c.errorf("examples/%s: %s is missing", name, f)
			}
		}
	}
	for _, want := range []string{"task-table", "work-queue", "go-lambda", "dispatch", "pipeline"} {
		c.module(want)
	}
}

// checkVariablesTypedAndDescribed: no untyped or undocumented inputs or
// outputs anywhere.
func checkVariablesTypedAndDescribed(c *checker) {
	all := map[string]*tfModule{}
	for n, m := range c.r.modules {
		all["modules/"+n] = m
	}
	for n, m := range c.r.examples {
		all["examples/"+n] = m
	}
	for _, where := range names(all) {
		m := all[where]
		for _, b := range m.variables {
			if _, ok := b.Body.Attributes["type"]; !ok {
				c.errorf("%s: variable %s has no type", where, b.Labels[0])
			}
			if !describedLiterally(b) {
				c.errorf("%s: variable %s has no description", where, b.Labels[0])
			}
		}
		for _, b := range m.outputs {
			if !describedLiterally(b) {
				c.errorf("%s: output %s has no description", where, b.Labels[0])
			}
		}
	}
}

func describedLiterally(b *hclsyntax.Block) bool {
	a, ok := b.Body.Attributes["description"]
	if !ok {
		return false
	}
	v, diags := a.Expr.Value(nil)
	s, ok := str(v)
	return !diags.HasErrors() && ok && strings.TrimSpace(s) != ""
}

// checkProviderFloor: hashicorp/aws ~> 6.47 everywhere, the release the
// modules were reviewed against and the local provider embeds (issue 12
// #12); 5.61 was the old floor (older releases drop
// the target input_template on filter edits, provider PR #38598).
func checkProviderFloor(c *checker) {
	below, floor, major := version.Must(version.NewVersion("6.46.99")), version.Must(version.NewVersion("6.47.0")), version.Must(version.NewVersion("7.0.0"))
	all := map[string]*tfModule{}
	for n, m := range c.r.modules {
		all["modules/"+n] = m
	}
	for n, m := range c.r.examples {
		all["examples/"+n] = m
	}
	for _, where := range names(all) {
		found := false
		for _, tb := range all[where].settings {
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
				v, diags := a.Expr.Value(nil)
				if diags.HasErrors() || !v.Type().IsObjectType() || !v.Type().HasAttribute("version") || !v.Type().HasAttribute("source") {
					c.errorf("%s: aws provider requirement needs source and version", where)
					continue
				}
				if src, _ := str(v.GetAttr("source")); src != "hashicorp/aws" {
					c.errorf("%s: aws provider source is %q", where, src)
				}
				raw, _ := str(v.GetAttr("version"))
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

// pipeInstances returns every aws_pipes_pipe instance with its scope.
func pipeInstances(c *checker) (out []struct {
	s    *scope
	inst instance
}) {
	for _, s := range c.scopes() {
		insts, err := s.resourceInstances("aws_pipes_pipe")
		if !c.ok(err) {
			continue
		}
		for _, inst := range insts {
			out = append(out, struct {
				s    *scope
				inst instance
			}{s, inst})
		}
	}
	if len(out) == 0 {
		c.errorf("no aws_pipes_pipe in any configuration")
	}
	return out
}

// streamParams returns the dynamodb_stream_parameters body of a pipe.
func streamParams(c *checker, s *scope, inst instance) (body, bool) {
	sp, err := s.block(inst.body(), "source_parameters")
	if !c.ok(err) {
		return body{}, false
	}
	ddb, err := s.block(sp, "dynamodb_stream_parameters")
	return ddb, c.ok(err)
}

// checkPipeBisect: a failing batch is halved until the poison record is
// alone, instead of blocking the shard.
func checkPipeBisect(c *checker) {
	for _, p := range pipeInstances(c) {
		ddb, ok := streamParams(c, p.s, p.inst)
		if !ok {
			continue
		}
		v, err := p.s.attr(ddb, "on_partial_batch_item_failure")
		if !c.ok(err) {
			continue
		}
		if s, _ := str(v); s != "AUTOMATIC_BISECT" {
			c.errorf("%s: %s: on_partial_batch_item_failure is %s, want AUTOMATIC_BISECT", p.s.label(), p.inst.address(), v.GoString())
		}
	}
}

// checkPipeStreamParametersExplicit: every dynamodb_stream_parameters
// argument of the provider schema is set (provider issue #41573), plus the
// dead_letter_config and the filter_criteria block (absent filters are
// cleared on update).
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
	for _, p := range pipeInstances(c) {
		ddb, ok := streamParams(c, p.s, p.inst)
		if !ok {
			continue
		}
		for _, name := range want {
			v, err := p.s.attr(ddb, name)
			if !c.ok(err) {
				continue
			}
			if !known(v) {
				c.errorf("%s: %s: dynamodb_stream_parameters.%s is not a known value", p.s.label(), p.inst.address(), name)
			}
		}
		for name := range ddbSchema.NestedBlocks {
			dlq, err := p.s.block(ddb, name)
			if !c.ok(err) {
				continue
			}
			if _, ok := dlq.Attributes["arn"]; !ok {
				c.errorf("%s: %s: %s.arn is not set", p.s.label(), p.inst.address(), name)
			}
		}
		sp, err := p.s.block(p.inst.body(), "source_parameters")
		if !c.ok(err) {
			continue
		}
		fc, err := p.s.block(sp, "filter_criteria")
		if !c.ok(err) {
			continue
		}
		filters, err := p.s.blocks(fc, "filter")
		if c.ok(err) && len(filters) == 0 {
			c.errorf("%s: %s: filter_criteria has no filter", p.s.label(), p.inst.address())
		}
	}
}

// checkPipeFiniteRetriesAndAge: retries and record age are finite as
// deployed, and the variables refuse -1 (forever), 0 retries (sent as the
// default -1 on create) and ages at or beyond the stream's 24 hours.
func checkPipeFiniteRetriesAndAge(c *checker) {
	for _, p := range pipeInstances(c) {
		ddb, ok := streamParams(c, p.s, p.inst)
		if !ok {
			continue
		}
		where := p.s.label() + ": " + p.inst.address()
		if v, err := p.s.attr(ddb, "maximum_retry_attempts"); c.ok(err) {
			if n, ok := number(v); !ok || n < 1 || n > 10000 {
				c.errorf("%s: maximum_retry_attempts is %s, want 1..10000", where, v.GoString())
			}
		}
		if v, err := p.s.attr(ddb, "maximum_record_age_in_seconds"); c.ok(err) {
			if n, ok := number(v); !ok || n < 60 || n >= 86400 {
				c.errorf("%s: maximum_record_age_in_seconds is %s, want 60..86399", where, v.GoString())
			}
		}
	}
	ages := []cty.Value{cty.NumberIntVal(-1), cty.NumberIntVal(0), cty.NumberIntVal(59), cty.NumberIntVal(86400), cty.NumberIntVal(604800)}
	retries := []cty.Value{cty.NumberIntVal(-1), cty.NumberIntVal(0), cty.NumberIntVal(10001)}
	if m := c.module("dispatch"); m != nil {
		requireRejected(c, m, "maximum_record_age_in_seconds", ages...)
		requireRejected(c, m, "maximum_retry_attempts", retries...)
	}
	if m := c.module("pipeline"); m != nil {
		requireRejected(c, m, "pipe_maximum_record_age_in_seconds", ages...)
		requireRejected(c, m, "pipe_maximum_retry_attempts", retries...)
	}
}

// checkDefaultsPassValidation: every default satisfies its own validations.
func checkDefaultsPassValidation(c *checker) {
	all := map[string]*tfModule{}
	for n, m := range c.r.modules {
		all["modules/"+n] = m
	}
	for n, m := range c.r.examples {
		all["examples/"+n] = m
	}
	for _, where := range names(all) {
		for _, b := range all[where].variables {
			def, has, err := variableDefault(b)
			if !c.ok(err) || !has {
				continue
			}
			errs, err := validationErrors(b, def)
			if c.ok(err) && len(errs) > 0 {
				c.errorf("%s: default of %s fails its validation: %v", where, b.Labels[0], errs)
			}
		}
	}
}

// staticStatement is an IAM statement object literal found in a module.
type staticStatement struct {
	actions   []string
	resources []string // references in the Resource expression
}

// statementLiterals finds object literals with Action and Resource keys in
// every local and resource of m.
func statementLiterals(m *tfModule) []staticStatement {
	var out []staticStatement
	visit := func(n hclsyntax.Node) hcl.Diagnostics {
		obj, ok := n.(*hclsyntax.ObjectConsExpr)
		if !ok {
			return nil
		}
		var st staticStatement
		var hasAction, hasResource bool
		for _, item := range obj.Items {
			switch objectKey(item.KeyExpr) {
			case "Action":
				hasAction = true
				v, diags := item.ValueExpr.Value(nil)
				if !diags.HasErrors() {
					st.actions, _ = stringList(v)
				}
			case "Resource":
				hasResource = true
				st.resources = references(item.ValueExpr)
			}
		}
		if hasAction && hasResource {
			out = append(out, st)
		}
		return nil
	}
	for _, name := range sortedKeys(m.locals) {
		hclsyntax.VisitAll(m.locals[name].Expr, visit)
	}
	for _, b := range m.resources {
		hclsyntax.VisitAll(b.Body, visit)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
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
	if s, ok := str(v); ok && !diags.HasErrors() {
		return s
	}
	return ""
}

// hasStatement reports whether m has an IAM statement allowing action on a
// resource expression that references ref.
func hasStatement(m *tfModule, action, ref string) bool {
	for _, st := range statementLiterals(m) {
		for _, a := range st.actions {
			if a != action {
				continue
			}
			for _, r := range st.resources {
				if r == ref {
					return true
				}
			}
		}
	}
	return false
}

// checkDeadLetterQueues: the work queue redrives to its DLQ (and allows the
// console redrive back), the pipe sends failed batches to its own DLQ, and
// the pipe role may write to it.
func checkDeadLetterQueues(c *checker) {
	if m := c.module("work-queue"); m != nil {
		if m.resource("aws_sqs_queue", "dlq") == nil {
			c.errorf("work-queue: aws_sqs_queue.dlq is missing")
		}
		if rp := m.resource("aws_sqs_queue_redrive_policy", "this"); rp == nil {
			c.errorf("work-queue: aws_sqs_queue_redrive_policy.this is missing")
		} else {
			requireRefs(c, "work-queue redrive_policy", rp.Body.Attributes["redrive_policy"], "aws_sqs_queue.dlq.arn")
			requireRefs(c, "work-queue redrive queue_url", rp.Body.Attributes["queue_url"], "aws_sqs_queue.this.id")
		}
		if ap := m.resource("aws_sqs_queue_redrive_allow_policy", "dlq"); ap == nil {
			c.errorf("work-queue: aws_sqs_queue_redrive_allow_policy.dlq is missing")
		} else {
			requireRefs(c, "work-queue redrive_allow_policy", ap.Body.Attributes["redrive_allow_policy"], "aws_sqs_queue.this.arn")
			requireRefs(c, "work-queue redrive-allow queue_url", ap.Body.Attributes["queue_url"], "aws_sqs_queue.dlq.id")
		}
		for _, s := range c.scopesOf("work-queue") {
			for _, inst := range mustInstances(c, s, "aws_sqs_queue_redrive_policy") {
				doc, err := s.jsonDoc(inst.block.Body.Attributes["redrive_policy"].Expr, inst.extra)
				if !c.ok(err) {
					continue
				}
				if n, ok := number(attrOf(doc, "maxReceiveCount")); !ok || n < 1 || n > 1000 {
					c.errorf("%s: maxReceiveCount must be a known 1..1000", s.label())
				}
			}
			for _, inst := range mustInstances(c, s, "aws_sqs_queue_redrive_allow_policy") {
				doc, err := s.jsonDoc(inst.block.Body.Attributes["redrive_allow_policy"].Expr, inst.extra)
				if !c.ok(err) {
					continue
				}
				if p, _ := str(attrOf(doc, "redrivePermission")); p != "byQueue" {
					c.errorf("%s: redrivePermission is %q, want byQueue", s.label(), p)
				}
			}
		}
	}
	if m := c.module("dispatch"); m != nil {
		if m.resource("aws_sqs_queue", "dlq") == nil {
			c.errorf("dispatch: aws_sqs_queue.dlq is missing")
		}
		if !hasStatement(m, "sqs:SendMessage", "aws_sqs_queue.dlq.arn") {
			c.errorf("dispatch: the pipe role cannot sqs:SendMessage to aws_sqs_queue.dlq")
		}
		if pipe := m.resource("aws_pipes_pipe", "this"); pipe != nil {
			found := false
			hclsyntax.VisitAll(pipe.Body, func(n hclsyntax.Node) hcl.Diagnostics {
				if b, ok := n.(*hclsyntax.Block); ok && b.Type == "dead_letter_config" {
					found = true
					requireRefs(c, "dispatch dead_letter_config.arn", b.Body.Attributes["arn"], "aws_sqs_queue.dlq.arn")
				}
				return nil
			})
			if !found {
				c.errorf("dispatch: aws_pipes_pipe.this has no dead_letter_config")
			}
		}
	}
}

// attrOf returns attribute name of an object value, or NilVal.
func attrOf(v cty.Value, name string) cty.Value {
	if !known(v) && (v == cty.NilVal || !v.IsKnown() || v.IsNull()) {
		return cty.NilVal
	}
	if !v.Type().IsObjectType() || !v.Type().HasAttribute(name) {
		return cty.NilVal
	}
	return v.GetAttr(name)
}

// mustInstances returns the instances of resource type typ in s.
func mustInstances(c *checker, s *scope, typ string) []instance {
	insts, err := s.resourceInstances(typ)
	c.ok(err)
	return insts
}

// requireRefs records a violation unless a's expression references every
// one of refs.
func requireRefs(c *checker, what string, a *hclsyntax.Attribute, refs ...string) {
	if a == nil {
		c.errorf("%s is not set", what)
		return
	}
	got := references(a.Expr)
	for _, ref := range refs {
		found := false
		for _, g := range got {
			if g == ref {
				found = true
			}
		}
		if !found {
			c.errorf("%s does not reference %s (references %v)", what, ref, got)
		}
	}
}

// alarmsWithDimension returns the pipeline's alarm blocks whose dimensions
// reference ref.
func alarmsWithDimension(m *tfModule, ref string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range m.resources {
		if b.Labels[0] != "aws_cloudwatch_metric_alarm" {
			continue
		}
		if a, ok := b.Body.Attributes["dimensions"]; ok {
			for _, r := range references(a.Expr) {
				if r == ref {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// alarmFiresAtFirst reports why an alarm would not fire on the first
// datapoint of value 1, or "".
func alarmFiresAtFirst(s *scope, inst instance) string {
	get := func(name string) cty.Value {
		v, err := s.attr(inst.body(), name)
		if err != nil {
			return cty.NilVal
		}
		return v
	}
	cmp, _ := str(get("comparison_operator"))
	threshold, okT := number(get("threshold"))
	periods, okP := number(get("evaluation_periods"))
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
	if _, set := inst.block.Body.Attributes["datapoints_to_alarm"]; set {
		if n, ok := number(get("datapoints_to_alarm")); !ok || n != 1 {
			return "datapoints_to_alarm must be 1"
		}
	}
	return ""
}

// checkDLQAlarms: both DLQs alarm at their first message; the pipe's
// failures and every function's errors and throttles alarm too.
func checkDLQAlarms(c *checker) {
	m := c.module("pipeline")
	if m == nil {
		return
	}
	for _, q := range []struct{ module, source string }{{"queue", "../work-queue"}, {"dispatch", "../dispatch"}} {
		blocks := alarmsWithDimension(m, "module."+q.module+".dlq_name")
		if len(blocks) == 0 {
			c.errorf("pipeline: no alarm watches module.%s.dlq_name", q.module)
		}
		for _, s := range c.scopesOf("pipeline") {
			for _, b := range blocks {
				insts, err := s.instances(b)
				if !c.ok(err) {
					continue
				}
				for _, inst := range insts {
					ns, _ := s.attr(inst.body(), "namespace")
					metric, _ := s.attr(inst.body(), "metric_name")
					if n, _ := str(ns); n != "AWS/SQS" {
						c.errorf("%s: %s: namespace %s, want AWS/SQS", s.label(), inst.address(), ns.GoString())
					}
					if n, _ := str(metric); n != "ApproximateNumberOfMessagesVisible" {
						c.errorf("%s: %s: metric %s, want ApproximateNumberOfMessagesVisible (redriven messages are not counted as sent)", s.label(), inst.address(), metric.GoString())
					}
					if why := alarmFiresAtFirst(s, inst); why != "" {
						c.errorf("%s: %s: %s", s.label(), inst.address(), why)
					}
				}
			}
		}
		for _, call := range m.calls {
			if call.Labels[0] == q.module {
				v, _ := call.Body.Attributes["source"].Expr.Value(nil)
				if src, _ := str(v); src != q.source {
					c.errorf("pipeline: module %s comes from %s, want %s", q.module, src, q.source)
				}
			}
		}
	}
	for _, mod := range []string{"work-queue", "dispatch"} {
		if child := c.module(mod); child != nil {
			if out := child.output("dlq_name"); out == nil {
				c.errorf("%s: output dlq_name is missing", mod)
			} else {
				requireRefs(c, mod+" output dlq_name", out.Body.Attributes["value"], "aws_sqs_queue.dlq.name")
			}
		}
	}
	if len(alarmsWithDimension(m, "module.dispatch.pipe_name")) == 0 {
		c.errorf("pipeline: no alarm watches the pipe (PipeName = module.dispatch.pipe_name)")
	}

	// Per-function alarms: with enrichment on, every function has an Errors
	// and a Throttles alarm.
	for _, s := range c.scopesOf("pipeline") {
		want := []string{"reconciler", "scraper"}
		if s.vars["enable_enrichment"].True() {
			want = []string{"enrich", "reconciler", "scraper"}
		}
		covered := map[string]map[string]bool{"Errors": {}, "Throttles": {}, "ExecutionFailed": {}, "OldestLiveTaskAge": {}}
		for _, inst := range mustInstances(c, s, "aws_cloudwatch_metric_alarm") {
			metric, _ := s.attr(inst.body(), "metric_name")
			name, _ := str(metric)
			if _, ok := covered[name]; !ok {
				continue
			}
			key := "-"
			if each, ok := inst.extra["each"]; ok {
				key = each.GetAttr("key").AsString()
			}
			covered[name][key] = true
			if name == emf.OldestLiveTaskAge {
				// The reconciler's EMF line carries the metric with the State
				// dimension and without; both carry the deployment's
				// Deployment dimension (DEPLOYMENT_NAME), and the alarm
				// watches this deployment's total (issue 12 #6).
				ns, _ := s.attr(inst.body(), "namespace")
				if got, _ := str(ns); got != emf.Namespace {
					c.errorf("%s: %s: namespace %q, want %q (internal/emf)", s.label(), inst.address(), got, emf.Namespace)
				}
				checkDeploymentDimension(c, s, inst)
			}
		}
		for _, metric := range []string{"Errors", "Throttles"} {
			if got := sortedKeys(covered[metric]); !reflect.DeepEqual(got, want) {
				c.errorf("%s: %s alarms cover %v, want %v", s.label(), metric, got, want)
			}
		}
		for _, metric := range []string{"ExecutionFailed", "OldestLiveTaskAge"} {
			if len(covered[metric]) == 0 {
				c.errorf("%s: no %s alarm", s.label(), metric)
			}
		}
	}
}

// checkDLQRetention: a DLQ keeps messages longer than its source queue,
// because expiry counts from the original enqueue time.
func checkDLQRetention(c *checker) {
	for _, s := range c.scopesOf("work-queue") {
		q, okQ := number(s.vars["message_retention_seconds"])
		d, okD := number(s.vars["dlq_message_retention_seconds"])
		if okQ && okD && d <= q {
			c.errorf("%s: DLQ retention %v is not greater than queue retention %v", s.label(), d, q)
		}
	}
	if m := c.module("pipeline"); m != nil {
		q, ok1 := defaultNumber(c, m, "message_retention_seconds")
		d, ok2 := defaultNumber(c, m, "work_dlq_message_retention_seconds")
		if ok1 && ok2 && d <= q {
			c.errorf("pipeline: default work DLQ retention %v is not greater than queue retention %v", d, q)
		}
	}
	if m := c.module("work-queue"); m != nil {
		s, err := c.r.loader.newScope(m, "work-queue(equal retention)", map[string]cty.Value{
			"name":                          cty.StringVal("contract"),
			"consumer_timeout_seconds":      cty.NumberIntVal(30),
			"message_retention_seconds":     cty.NumberIntVal(345600),
			"dlq_message_retention_seconds": cty.NumberIntVal(345600),
		})
		if !c.ok(err) {
			return
		}
		failed, err := s.preconditionErrors("aws_sqs_queue", "dlq")
		if c.ok(err) && len(failed) == 0 {
			c.errorf("work-queue: equal queue and DLQ retention passes the preconditions")
		}
	}
}

// checkVisibilityTimeout: the work queue's visibility timeout is at least
// six times the scraper's timeout (+ batching window), as deployed, in the
// defaults, and enforced at plan time.
func checkVisibilityTimeout(c *checker) {
	for _, s := range c.scopesOf("work-queue") {
		vis, ok1 := number(s.vars["visibility_timeout_seconds"])
		timeout, ok2 := number(s.vars["consumer_timeout_seconds"])
		window, ok3 := number(s.vars["consumer_batching_window_seconds"])
		if ok1 && ok2 && ok3 && vis < 6*timeout+window {
			c.errorf("%s: visibility timeout %v < 6 x %v + %v", s.label(), vis, timeout, window)
		}
	}
	if m := c.module("pipeline"); m != nil {
		vis, ok1 := defaultNumber(c, m, "visibility_timeout_seconds")
		timeout, ok2 := defaultNumber(c, m, "scraper_timeout")
		if ok1 && ok2 && vis < 6*timeout {
			c.errorf("pipeline: default visibility timeout %v < 6 x default scraper timeout %v", vis, timeout)
		}
		// The pipeline must hand the scraper's timeout to the queue's check.
		for _, tc := range []struct {
			vis      int64
			wantFail bool
		}{{6*420 - 1, true}, {6 * 420, false}} {
			s, err := c.r.loader.newScope(m, "pipeline(visibility)", map[string]cty.Value{
				"name":                       cty.StringVal("contract"),
				"dist_dir":                   cty.StringVal("/dist"),
				"scraper_timeout":            cty.NumberIntVal(420),
				"visibility_timeout_seconds": cty.NumberIntVal(tc.vis),
				"running_grace_seconds":      cty.NumberIntVal(tc.vis + 60),
			})
			if !c.ok(err) {
				continue
			}
			var failed []string
			c.ok(s.walk(func(child *scope) error {
				if child.mod != c.r.modules["work-queue"] {
					return nil
				}
				f, err := child.preconditionErrors("aws_sqs_queue", "this")
				failed = append(failed, f...)
				return err
			}))
			if tc.wantFail && len(failed) == 0 {
				c.errorf("pipeline: visibility %d with scraper timeout 420 passes the work queue's preconditions", tc.vis)
			}
			if !tc.wantFail && len(failed) > 0 {
				c.errorf("pipeline: visibility %d with scraper timeout 420 fails: %v", tc.vis, failed)
			}
		}
	}
}

// checkReportBatchItemFailures: every SQS event source mapping reports
// partial batch failures, and the scraper's mapping takes one message at a
// time with a concurrency cap within its reserved concurrency.
func checkReportBatchItemFailures(c *checker) {
	esms := 0
	for _, s := range c.scopes() {
		for _, inst := range mustInstances(c, s, "aws_lambda_event_source_mapping") {
			esms++
			v, err := s.attr(inst.body(), "function_response_types")
			if !c.ok(err) {
				continue
			}
			types, _ := stringList(v)
			if !containsString(types, "ReportBatchItemFailures") {
				c.errorf("%s: %s: function_response_types %v lacks ReportBatchItemFailures", s.label(), inst.address(), types)
			}
		}
	}
	if esms == 0 {
		c.errorf("no aws_lambda_event_source_mapping in any configuration")
	}
	for _, s := range c.scopes() {
		if !strings.HasSuffix(s.path, "module.scraper") {
			continue
		}
		esm := mustInstances(c, s, "aws_lambda_event_source_mapping")
		if len(esm) != 1 {
			c.errorf("%s: scraper has %d event source mappings, want 1", s.label(), len(esm))
			continue
		}
		get := func(b body, name string) float64 {
			v, err := s.attr(b, name)
			n, ok := number(v)
			if err != nil || !ok {
				c.errorf("%s: %s is not a known number", s.label(), name)
			}
			return n
		}
		if n := get(esm[0].body(), "batch_size"); n != 1 {
			c.errorf("%s: scraper batch_size %v, want 1", s.label(), n)
		}
		if n := get(esm[0].body(), "maximum_batching_window_in_seconds"); n != 0 {
			c.errorf("%s: scraper batching window %v, want 0", s.label(), n)
		}
		sc, err := s.block(esm[0].body(), "scaling_config")
		if !c.ok(err) {
			continue
		}
		maxConc := get(sc, "maximum_concurrency")
		fn := mustInstances(c, s, "aws_lambda_function")
		if len(fn) != 1 {
			continue
		}
		if reserved := get(fn[0].body(), "reserved_concurrent_executions"); reserved < maxConc {
			c.errorf("%s: maximum_concurrency %v exceeds reserved concurrency %v", s.label(), maxConc, reserved)
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

// iamActions returns the actions of every statement in a policy document
// value, and whether they are all known.
func iamActions(doc cty.Value) ([]string, bool) {
	stmts := attrOf(doc, "Statement")
	if stmts == cty.NilVal || !stmts.IsKnown() || stmts.IsNull() {
		return nil, false
	}
	if stmts.Type().IsObjectType() {
		stmts = cty.TupleVal([]cty.Value{stmts})
	}
	var out []string
	for it := stmts.ElementIterator(); it.Next(); {
		_, st := it.Element()
		for _, key := range []string{"Action", "NotAction"} {
			v := attrOf(st, key)
			if v == cty.NilVal {
				continue
			}
			actions, ok := stringList(v)
			if !ok {
				return nil, false
			}
			out = append(out, actions...)
		}
	}
	return out, true
}

// checkNoWildcardActions: every IAM policy the modules create lists exact
// actions, in every configuration; go-lambda refuses wildcard actions from
// callers.
func checkNoWildcardActions(c *checker) {
	policies := 0
	for _, s := range c.scopes() {
		for typ, attr := range map[string]string{"aws_iam_role_policy": "policy", "aws_iam_role": "assume_role_policy"} {
			for _, inst := range mustInstances(c, s, typ) {
				a, ok := inst.block.Body.Attributes[attr]
				if !ok {
					c.errorf("%s: %s has no %s", s.label(), inst.address(), attr)
					continue
				}
				doc, err := s.jsonDoc(a.Expr, inst.extra)
				if !c.ok(err) {
					continue
				}
				policies++
				actions, ok := iamActions(doc)
				if !ok {
					c.errorf("%s: %s: actions are not known at plan time", s.label(), inst.address())
					continue
				}
				if len(actions) == 0 {
					c.errorf("%s: %s: no actions", s.label(), inst.address())
				}
				for _, act := range actions {
					if strings.Contains(act, "*") {
						c.errorf("%s: %s: wildcard action %q", s.label(), inst.address(), act)
					}
				}
				if starWithResourceScopedAction(doc) {
					c.errorf("%s: %s: a statement grants Resource \"*\"", s.label(), inst.address())
				}
			}
		}
	}
	if policies == 0 {
		c.errorf("no IAM policies in any configuration")
	}
	if m := c.module("go-lambda"); m != nil {
		stmt := func(action string) cty.Value {
			return cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
				"sid":       cty.StringVal("Test"),
				"actions":   cty.ListVal([]cty.Value{cty.StringVal(action)}),
				"resources": cty.ListVal([]cty.Value{cty.StringVal("arn:aws:sqs:eu-west-1:123456789012:q")}),
			})})
		}
		requireRejected(c, m, "policy_statements", stmt("sqs:*"), stmt("*"), stmt("dynamodb:Get*"))
	}
}

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
// contract.
func checkPipeFilterDefault(c *checker) {
	want := canonicalSet(c, pendingPatterns)
	for _, p := range want {
		if !strings.Contains(p, `"`+task.AttrStatus+`"`) || !strings.Contains(p, `"`+string(task.StatePending)+`"`) {
			c.errorf("expected pattern %s does not use the task contract's names", p)
		}
	}
	m := c.module("dispatch")
	if m == nil {
		return
	}
	b := m.variable("filter_patterns")
	if b == nil {
		c.errorf("dispatch: variable filter_patterns is missing")
		return
	}
	def, _, err := variableDefault(b)
	if !c.ok(err) {
		return
	}
	patterns, ok := stringList(def)
	if !ok {
		c.errorf("dispatch: filter_patterns default is not a list of strings")
		return
	}
	got := canonicalSet(c, patterns)
	if !reflect.DeepEqual(got, want) {
		c.errorf("dispatch: filter_patterns default is %v, want %v", got, want)
	}
	for _, p := range patterns {
		if strings.Contains(p, "eventName") {
			c.errorf("dispatch: default filter %s relies on eventName", p)
		}
	}
	// As deployed (examples keep the default): the pipe's filters are the
	// default patterns.
	for _, pi := range pipeInstances(c) {
		if !strings.HasPrefix(pi.s.label(), "examples/") {
			continue
		}
		sp, err := pi.s.block(pi.inst.body(), "source_parameters")
		if !c.ok(err) {
			continue
		}
		fc, err := pi.s.block(sp, "filter_criteria")
		if !c.ok(err) {
			continue
		}
		filters, err := pi.s.blocks(fc, "filter")
		if !c.ok(err) {
			continue
		}
		var deployed []string
		for _, f := range filters {
			v, err := pi.s.attr(f, "pattern")
			if s, ok := str(v); c.ok(err) && ok {
				deployed = append(deployed, s)
			}
		}
		if got := canonicalSet(c, deployed); !reflect.DeepEqual(got, want) {
			c.errorf("%s: deployed filters %v, want the default %v", pi.s.label(), got, want)
		}
	}
}

// checkTableMatchesStore: the task-table module declares exactly the key
// schema and indexes internal/dynamostore uses.
func checkTableMatchesStore(c *checker) {
	in := dynamostore.TableInput("contract")
	wantAttrs := map[string]string{}
	for _, a := range in.AttributeDefinitions {
		wantAttrs[*a.AttributeName] = string(a.AttributeType)
	}
	type gsi struct{ hash, rng, projection string }
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
		wantGSI[*g.IndexName] = x
	}
	wantHash := *in.KeySchema[0].AttributeName

	for _, s := range c.scopesOf("task-table") {
		insts := mustInstances(c, s, "aws_dynamodb_table")
		if len(insts) != 1 {
			c.errorf("%s: want one aws_dynamodb_table, found %d", s.label(), len(insts))
			continue
		}
		t := insts[0].body()
		expect := func(name, want string) {
			v, err := s.attr(t, name)
			if got, _ := str(v); err != nil || got != want {
				c.errorf("%s: %s is %s, want %q", s.label(), name, v.GoString(), want)
			}
		}
		expect("hash_key", wantHash)
		expect("billing_mode", string(in.BillingMode))
		expect("stream_view_type", string(in.StreamSpecification.StreamViewType))
		if v, err := s.attr(t, "stream_enabled"); err != nil || !known(v) || !v.True() {
			c.errorf("%s: stream_enabled must be true", s.label())
		}
		if _, ok := t.Attributes["range_key"]; ok {
			c.errorf("%s: the store's table has no range key", s.label())
		}

		gotAttrs := map[string]string{}
		attrs, err := s.blocks(t, "attribute")
		if !c.ok(err) {
			continue
		}
		for _, a := range attrs {
			n, _ := s.attr(a, "name")
			ty, _ := s.attr(a, "type")
			ns, _ := str(n)
			ts, _ := str(ty)
			gotAttrs[ns] = ts
		}
		if !reflect.DeepEqual(gotAttrs, wantAttrs) {
			c.errorf("%s: attributes %v, want %v", s.label(), gotAttrs, wantAttrs)
		}

		gotGSI := map[string]gsi{}
		gsis, err := s.blocks(t, "global_secondary_index")
		if !c.ok(err) {
			continue
		}
		for _, g := range gsis {
			get := func(name string) string {
				v, _ := s.attr(g, name)
				out, _ := str(v)
				return out
			}
			got := gsi{projection: get("projection_type")}
			// 6.x: key_schema blocks; hash_key and range_key are
			// deprecated and must not be used (issue 12 #12).
			if get("hash_key") != "" || get("range_key") != "" {
				c.errorf("%s: index %s uses the deprecated hash_key/range_key", s.label(), get("name"))
			}
			keys, err := s.blocks(g, "key_schema")
			if !c.ok(err) {
				continue
			}
			for _, k := range keys {
				n, _ := s.attr(k, "attribute_name")
				ty, _ := s.attr(k, "key_type")
				ns, _ := str(n)
				switch ts, _ := str(ty); ts {
				case "HASH":
					got.hash = ns
				case "RANGE":
					got.rng = ns
				default:
					c.errorf("%s: index %s: key_type %q", s.label(), get("name"), ts)
				}
			}
			gotGSI[get("name")] = got
		}
		if !reflect.DeepEqual(gotGSI, wantGSI) {
			c.errorf("%s: global secondary indexes %v, want %v", s.label(), gotGSI, wantGSI)
		}
	}
	if m := c.module("task-table"); m != nil {
		if b := m.variable("ttl_attribute_name"); b != nil {
			def, _, err := variableDefault(b)
			if got, _ := str(def); !c.ok(err) || got != dynamostore.AttrExpiresAt {
				c.errorf("task-table: ttl_attribute_name defaults to %q, want %q", got, dynamostore.AttrExpiresAt)
			}
		} else {
			c.errorf("task-table: variable ttl_attribute_name is missing")
		}
		for _, out := range []struct{ output, want string }{{"live_index_name", dynamostore.IndexLive}, {"by_run_index_name", dynamostore.IndexByRun}} {
			for _, s := range c.scopesOf("task-table") {
				o := m.output(out.output)
				if o == nil {
					c.errorf("task-table: output %s is missing", out.output)
					break
				}
				v, err := s.eval(o.Body.Attributes["value"].Expr, nil)
				if got, _ := str(v); !c.ok(err) || got != out.want {
					c.errorf("%s: output %s is %q, want %q", s.label(), out.output, got, out.want)
				}
			}
		}
	}
}

// lambdaEnvKeys are the variables every function receives, named by the
// Go code that reads them.
var lambdaEnvKeys = []string{
	handler.EnvAllowPrivateNetworks, handler.EnvLeaseSeconds, handler.EnvLiveShards,
	handler.EnvLogLevel, handler.EnvPendingGraceSeconds, handler.EnvRunningGraceSeconds,
	handler.EnvTableName, handler.EnvVisibilityTimeoutSecs, handler.EnvWorkDLQURL, handler.EnvWorkQueueURL,
}

// envNumber reads a numeric environment value.
func envNumber(env cty.Value, key string) (float64, bool) {
	s, ok := str(attrOf(env, key))
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// getenv turns a planned environment into an os.Getenv stand-in. Values
// known only after apply (queue URLs) read as a well-formed placeholder.
func getenv(env cty.Value) func(string) string {
	return func(key string) string {
		if env == cty.NilVal || !env.IsKnown() || env.IsNull() || !env.Type().IsMapType() && !env.Type().IsObjectType() {
			return ""
		}
		var v cty.Value
		if env.Type().IsMapType() {
			if !env.HasIndex(cty.StringVal(key)).True() {
				return ""
			}
			v = env.Index(cty.StringVal(key))
		} else {
			v = attrOf(env, key)
		}
		if v == cty.NilVal || v.IsNull() {
			return ""
		}
		if !v.IsKnown() {
			return "https://sqs.eu-west-1.amazonaws.com/123456789012/known-after-apply"
		}
		return v.AsString()
	}
}

// checkLambdaEnvironment: every function gets the runtime settings, the
// Go code that reads them accepts what Terraform plans, and the grace
// periods respect the queue: the Running grace exceeds the visibility
// timeout (no race with SQS redelivery) and the lease outlives an
// invocation. Production never allows private networks by default.
func checkLambdaEnvironment(c *checker) {
	for _, s := range c.scopesOf("pipeline") {
		env := s.locals["environment"]
		for _, k := range lambdaEnvKeys {
			if attrOf(env, k) == cty.NilVal {
				c.errorf("%s: environment lacks %s", s.label(), k)
			}
		}
		vis, _ := number(s.vars["visibility_timeout_seconds"])
		timeout, _ := number(s.vars["scraper_timeout"])
		if g, ok := envNumber(env, handler.EnvRunningGraceSeconds); !ok || g <= vis {
			c.errorf("%s: RUNNING_GRACE_SECONDS %v must exceed the visibility timeout %v", s.label(), g, vis)
		}
		if l, ok := envNumber(env, handler.EnvLeaseSeconds); !ok || l <= timeout {
			c.errorf("%s: LEASE_SECONDS %v must exceed the scraper timeout %v", s.label(), l, timeout)
		}
		failed, err := s.preconditionErrors("aws_scheduler_schedule", "reconciler")
		if c.ok(err) && len(failed) > 0 {
			c.errorf("%s: schedule preconditions fail: %v", s.label(), failed)
		}
	}

	// The functions' start-up configuration parsers accept the planned
	// environment of every deployed function.
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
	for _, s := range c.scopesOf("go-lambda") {
		idx := strings.LastIndex(s.path, "module.")
		if idx < 0 || !strings.Contains(s.path, "pipeline") {
			continue // the module on its own has no pipeline environment
		}
		parse, ok := parsers[s.path[idx:]]
		if !ok {
			c.errorf("%s: unexpected function module", s.label())
			continue
		}
		for _, inst := range mustInstances(c, s, "aws_lambda_function") {
			envBlock, err := s.block(inst.body(), "environment")
			if !c.ok(err) {
				continue
			}
			vars, err := s.attr(envBlock, "variables")
			if !c.ok(err) {
				continue
			}
			parsed++
			for _, k := range lambdaEnvKeys {
				if getenv(vars)(k) == "" {
					c.errorf("%s: function environment lacks %s", s.label(), k)
				}
			}
			if err := parse(getenv(vars)); err != nil {
				c.errorf("%s: the function rejects its planned environment: %v", s.label(), err)
			}
			// The Go runtime's soft limit follows the memory size (issue 15
			// item 1), below it.
			mem, err := s.attr(inst.body(), "memory_size")
			if mb, ok := number(mem); c.ok(err) && ok {
				if got, want := getenv(vars)("GOMEMLIMIT"), fmt.Sprintf("%dMiB", int(mb*0.8)); got != want {
					c.errorf("%s: GOMEMLIMIT %q, want %q for %v MB", s.label(), got, want, mb)
				}
			}
		}
	}
	if parsed == 0 {
		c.errorf("no function environment checked")
	}

	if m := c.module("pipeline"); m != nil {
		b := m.variable("allow_private_networks")
		if b == nil {
			c.errorf("pipeline: variable allow_private_networks is missing")
		} else if def, _, err := variableDefault(b); !c.ok(err) || !known(def) || def.True() {
			c.errorf("pipeline: allow_private_networks must default to false")
		}
		// Setting a Running grace at or below the visibility timeout fails the plan.
		s, err := c.r.loader.newScope(m, "pipeline(grace)", map[string]cty.Value{
			"name":                  cty.StringVal("contract"),
			"dist_dir":              cty.StringVal("/dist"),
			"running_grace_seconds": cty.NumberIntVal(5400),
		})
		if c.ok(err) {
			failed, err := s.preconditionErrors("aws_scheduler_schedule", "reconciler")
			if c.ok(err) && len(failed) == 0 {
				c.errorf("pipeline: a Running grace equal to the visibility timeout passes the preconditions")
			}
		}
	}
}

// checkProductionDefaults: the pipeline's defaults are the production
// numbers of seed 001 (docs/design.md §1).
func checkProductionDefaults(c *checker) {
	m := c.module("pipeline")
	if m == nil {
		return
	}
	for name, want := range map[string]float64{
		"scraper_timeout":                    420,
		"visibility_timeout_seconds":         90 * 60,
		"message_retention_seconds":          4 * 86400,
		"work_dlq_message_retention_seconds": 14 * 86400,
		"max_receive_count":                  3,
		"scraper_maximum_concurrency":        140,
		"scraper_reserved_concurrency":       140,
	} {
		if got, ok := defaultNumber(c, m, name); ok && got != want {
			c.errorf("pipeline: %s defaults to %v, want %v", name, got, want)
		}
	}
	if b := m.variable("reconciler_schedule_expression"); b != nil {
		def, _, err := variableDefault(b)
		if got, _ := str(def); !c.ok(err) || got != "rate(5 minutes)" {
			c.errorf("pipeline: reconciler_schedule_expression defaults to %q, want rate(5 minutes)", got)
		}
	} else {
		c.errorf("pipeline: variable reconciler_schedule_expression is missing")
	}
}
