package terraform_test

// A small, test-only evaluator for the Terraform configuration in this
// directory. It parses modules with hashicorp/hcl/v2 and evaluates
// expressions the way Terraform would at plan time, as far as the contract
// tests need: input variables (defaults, type conversion, nullable=false),
// locals, count/for_each, dynamic blocks and child module calls. Every value
// that only exists after apply (resource attributes, module outputs, data
// sources) is unknown, exactly as in a first plan.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// tfModule is the parsed configuration of one module directory.
type tfModule struct {
	dir       string
	files     map[string]bool
	variables []*hclsyntax.Block
	locals    map[string]*hclsyntax.Attribute
	resources []*hclsyntax.Block
	calls     []*hclsyntax.Block
	outputs   []*hclsyntax.Block
	settings  []*hclsyntax.Block // terraform {} blocks
}

// loadModule parses every *.tf file of dir.
func loadModule(dir string) (*tfModule, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load module %s: %w", dir, err)
	}
	m := &tfModule{dir: dir, files: map[string]bool{}, locals: map[string]*hclsyntax.Attribute{}}
	parser := hclparse.NewParser()
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m.files[e.Name()] = true
		if !strings.HasSuffix(e.Name(), ".tf") {
			continue
		}
		f, diags := parser.ParseHCLFile(filepath.Join(dir, e.Name()))
		if diags.HasErrors() {
			return nil, fmt.Errorf("load module %s: %w", dir, diags)
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			switch b.Type {
			case "variable":
				m.variables = append(m.variables, b)
			case "locals":
				for name, a := range b.Body.Attributes {
					m.locals[name] = a
				}
			case "resource":
				m.resources = append(m.resources, b)
			case "module":
				m.calls = append(m.calls, b)
			case "output":
				m.outputs = append(m.outputs, b)
			case "terraform":
				m.settings = append(m.settings, b)
			}
		}
	}
	return m, nil
}

// variable returns the variable block called name, or nil.
func (m *tfModule) variable(name string) *hclsyntax.Block {
	for _, b := range m.variables {
		if b.Labels[0] == name {
			return b
		}
	}
	return nil
}

// resource returns the resource block typ.name, or nil.
func (m *tfModule) resource(typ, name string) *hclsyntax.Block {
	for _, b := range m.resources {
		if b.Labels[0] == typ && b.Labels[1] == name {
			return b
		}
	}
	return nil
}

// output returns the output block called name, or nil.
func (m *tfModule) output(name string) *hclsyntax.Block {
	for _, b := range m.outputs {
		if b.Labels[0] == name {
			return b
		}
	}
	return nil
}

// functions is the subset of Terraform's function library the modules use.
var functions = sync.OnceValue(func() map[string]function.Function {
	fns := map[string]function.Function{
		"alltrue":          boolReduceFunc(true),
		"anytrue":          boolReduceFunc(false),
		"can":              tryfunc.CanFunc,
		"coalesce":         stdlib.CoalesceFunc,
		"concat":           stdlib.ConcatFunc,
		"contains":         stdlib.ContainsFunc,
		"distinct":         stdlib.DistinctFunc,
		"element":          stdlib.ElementFunc,
		"filebase64sha256": unknownStringFunc,
		"flatten":          stdlib.FlattenFunc,
		"floor":            stdlib.FloorFunc,
		"format":           stdlib.FormatFunc,
		"join":             stdlib.JoinFunc,
		"jsondecode":       stdlib.JSONDecodeFunc,
		"jsonencode":       stdlib.JSONEncodeFunc,
		"keys":             stdlib.KeysFunc,
		"length":           lengthFunc,
		"lookup":           stdlib.LookupFunc,
		"lower":            stdlib.LowerFunc,
		"max":              stdlib.MaxFunc,
		"merge":            stdlib.MergeFunc,
		"min":              stdlib.MinFunc,
		"regex":            stdlib.RegexFunc,
		"regexall":         stdlib.RegexAllFunc,
		"replace":          stdlib.ReplaceFunc,
		"setintersection":  stdlib.SetIntersectionFunc,
		"split":            stdlib.SplitFunc,
		"tolist":           stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":            stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":         stdlib.MakeToFunc(cty.Number),
		"toset":            stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":         stdlib.MakeToFunc(cty.String),
		"try":              tryfunc.TryFunc,
		"upper":            stdlib.UpperFunc,
	}
	return fns
})

// boolReduceFunc is alltrue (all=true) or anytrue (all=false).
func boolReduceFunc(all bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			l := args[0]
			if !l.IsWhollyKnown() {
				return cty.UnknownVal(cty.Bool), nil
			}
			for it := l.ElementIterator(); it.Next(); {
				_, v := it.Element()
				if v.IsNull() {
					return cty.False, nil
				}
				if v.True() != all {
					return cty.BoolVal(!all), nil
				}
			}
			return cty.BoolVal(all), nil
		},
	})
}

// lengthFunc is Terraform's length: characters of a string, elements of a
// collection (cty's stdlib splits these into two functions).
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if v.Type() == cty.String {
			return stdlib.Strlen(v)
		}
		return stdlib.Length(v)
	},
})

// unknownStringFunc stands in for functions that read the file system at
// plan time: their result is irrelevant to the contracts.
var unknownStringFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "path", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.UnknownVal(cty.String), nil
	},
})

// scope is one instance of a module with its input values: the root
// module, or one instance of a module call.
type scope struct {
	mod    *tfModule
	path   string
	vars   map[string]cty.Value
	locals map[string]cty.Value
	loader *loader
}

// loader caches parsed modules by directory.
type loader struct {
	mu      sync.Mutex
	modules map[string]*tfModule
}

func newLoader() *loader { return &loader{modules: map[string]*tfModule{}} }

func (l *loader) load(dir string) (*tfModule, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dir = filepath.Clean(dir)
	if m, ok := l.modules[dir]; ok {
		return m, nil
	}
	m, err := loadModule(dir)
	if err != nil {
		return nil, err
	}
	l.modules[dir] = m
	return m, nil
}

// variableType returns the type constraint and optional-attribute defaults
// of a variable block.
func variableType(b *hclsyntax.Block) (cty.Type, *typeexpr.Defaults, error) {
	a, ok := b.Body.Attributes["type"]
	if !ok {
		return cty.DynamicPseudoType, nil, nil
	}
	ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(a.Expr)
	if diags.HasErrors() {
		return cty.NilType, nil, fmt.Errorf("variable %q: type: %w", b.Labels[0], diags)
	}
	return ty, defaults, nil
}

// variableDefault returns the default of a variable block and whether it
// has one.
func variableDefault(b *hclsyntax.Block) (cty.Value, bool, error) {
	a, ok := b.Body.Attributes["default"]
	if !ok {
		return cty.NilVal, false, nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal, true, fmt.Errorf("variable %q: default: %w", b.Labels[0], diags)
	}
	return v, true, nil
}

// inputValue converts a raw value to what Terraform hands the module for
// variable b: optional attribute defaults applied, converted to the type,
// null replaced by the default when nullable = false.
func inputValue(b *hclsyntax.Block, raw cty.Value) (cty.Value, error) {
	ty, defaults, err := variableType(b)
	if err != nil {
		return cty.NilVal, err
	}
	if raw.IsNull() && !nullable(b) {
		def, ok, err := variableDefault(b)
		if err != nil {
			return cty.NilVal, err
		}
		if ok {
			raw = def
		}
	}
	if defaults != nil && raw.IsKnown() && !raw.IsNull() {
		raw = defaults.Apply(raw)
	}
	v, err := convert.Convert(raw, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("variable %q: %w", b.Labels[0], err)
	}
	return v, nil
}

func nullable(b *hclsyntax.Block) bool {
	a, ok := b.Body.Attributes["nullable"]
	if !ok {
		return true
	}
	v, diags := a.Expr.Value(nil)
	return diags.HasErrors() || v.IsNull() || v.True()
}

// newScope instantiates mod at path with the given inputs; variables
// without an input take their default.
func (l *loader) newScope(mod *tfModule, path string, inputs map[string]cty.Value) (*scope, error) {
	s := &scope{mod: mod, path: path, vars: map[string]cty.Value{}, locals: map[string]cty.Value{}, loader: l}
	for name := range inputs {
		if mod.variable(name) == nil {
			return nil, fmt.Errorf("%s: input %q: no such variable", s.label(), name)
		}
	}
	for _, b := range mod.variables {
		name := b.Labels[0]
		raw, ok := inputs[name]
		if !ok {
			def, has, err := variableDefault(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.label(), err)
			}
			if !has {
				return nil, fmt.Errorf("%s: required variable %q has no value", s.label(), name)
			}
			raw = def
		}
		v, err := inputValue(b, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.label(), err)
		}
		s.vars[name] = v
	}
	for name := range mod.locals {
		if err := s.evalLocal(name, map[string]bool{}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// label names the scope in messages.
func (s *scope) label() string {
	if s.path == "" {
		return filepath.Base(s.mod.dir)
	}
	return s.path
}

func (s *scope) evalLocal(name string, visiting map[string]bool) error {
	if _, done := s.locals[name]; done {
		return nil
	}
	a, ok := s.mod.locals[name]
	if !ok {
		return fmt.Errorf("%s: local.%s is not declared", s.label(), name)
	}
	if visiting[name] {
		return fmt.Errorf("%s: local.%s refers to itself", s.label(), name)
	}
	visiting[name] = true
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "local" || len(tr) < 2 {
			continue
		}
		if step, ok := tr[1].(hcl.TraverseAttr); ok {
			if err := s.evalLocal(step.Name, visiting); err != nil {
				return err
			}
		}
	}
	v, err := s.eval(a.Expr, nil)
	if err != nil {
		return fmt.Errorf("local.%s: %w", name, err)
	}
	s.locals[name] = v
	return nil
}

// ctx builds the evaluation context; extra adds count, each and dynamic
// block iterators.
func (s *scope) ctx(extra map[string]cty.Value) *hcl.EvalContext {
	vars := map[string]cty.Value{
		"var":   cty.ObjectVal(s.vars),
		"local": cty.ObjectVal(s.locals),
		"path": cty.ObjectVal(map[string]cty.Value{
			"module": cty.StringVal(s.mod.dir),
			"root":   cty.StringVal(s.mod.dir),
			"cwd":    cty.StringVal(s.mod.dir),
		}),
		"terraform": cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal("default")}),
		// Known only after apply.
		"module": cty.DynamicVal,
		"data":   cty.DynamicVal,
	}
	for _, b := range s.mod.resources {
		vars[b.Labels[0]] = cty.DynamicVal
	}
	for k, v := range extra {
		vars[k] = v
	}
	return &hcl.EvalContext{Variables: vars, Functions: functions()}
}

// eval evaluates expr in the scope.
func (s *scope) eval(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, error) {
	v, diags := expr.Value(s.ctx(extra))
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("%s: %w", s.label(), diags)
	}
	return v, nil
}

// jsonDoc evaluates an attribute that holds a JSON document, such as an
// IAM policy: for jsonencode(x) it returns x itself, so known parts stay
// inspectable next to unknown resource ARNs.
func (s *scope) jsonDoc(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, error) {
	if call, ok := expr.(*hclsyntax.FunctionCallExpr); ok && call.Name == "jsonencode" && len(call.Args) == 1 {
		return s.eval(call.Args[0], extra)
	}
	v, err := s.eval(expr, extra)
	if err != nil {
		return cty.NilVal, err
	}
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return v, nil
	}
	ty, err := ctyjson.ImpliedType([]byte(v.AsString()))
	if err != nil {
		return cty.NilVal, fmt.Errorf("%s: decode JSON document: %w", s.label(), err)
	}
	return ctyjson.Unmarshal([]byte(v.AsString()), ty)
}

// instance is one instance of a resource or module block.
type instance struct {
	block *hclsyntax.Block
	key   string // "" for a single instance, else "[0]" or "[\"k\"]"
	extra map[string]cty.Value
}

// address returns the resource address relative to the scope.
func (i instance) address() string {
	if i.block.Type == "module" {
		return "module." + i.block.Labels[0] + i.key
	}
	return i.block.Labels[0] + "." + i.block.Labels[1] + i.key
}

// instances expands count and for_each of a resource or module block.
func (s *scope) instances(b *hclsyntax.Block) ([]instance, error) {
	if a, ok := b.Body.Attributes["count"]; ok {
		v, err := s.eval(a.Expr, nil)
		if err != nil {
			return nil, err
		}
		if !v.IsKnown() || v.IsNull() {
			return nil, fmt.Errorf("%s: count of %s is not known at plan time", s.label(), strings.Join(b.Labels, "."))
		}
		n, _ := v.AsBigFloat().Int64()
		out := make([]instance, 0, n)
		for i := int64(0); i < n; i++ {
			out = append(out, instance{block: b, key: fmt.Sprintf("[%d]", i), extra: map[string]cty.Value{
				"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(i)}),
			}})
		}
		return out, nil
	}
	if a, ok := b.Body.Attributes["for_each"]; ok {
		v, err := s.eval(a.Expr, nil)
		if err != nil {
			return nil, err
		}
		if !v.CanIterateElements() || v.IsNull() {
			return nil, fmt.Errorf("%s: for_each of %s is not a known collection", s.label(), strings.Join(b.Labels, "."))
		}
		var out []instance
		for it := v.ElementIterator(); it.Next(); {
			k, val := it.Element()
			if v.Type().IsSetType() {
				k = val
			}
			out = append(out, instance{block: b, key: fmt.Sprintf("[%q]", k.AsString()), extra: map[string]cty.Value{
				"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": val}),
			}})
		}
		return out, nil
	}
	return []instance{{block: b}}, nil
}

// body is a block body with the iterator values that apply inside it.
type body struct {
	*hclsyntax.Body
	extra map[string]cty.Value
}

// instanceBody returns the body of a resource instance.
func (i instance) body() body { return body{Body: i.block.Body, extra: i.extra} }

// blocks returns the nested blocks of type typ, expanding dynamic blocks.
func (s *scope) blocks(parent body, typ string) ([]body, error) {
	var out []body
	for _, b := range parent.Blocks {
		switch {
		case b.Type == typ:
			out = append(out, body{Body: b.Body, extra: parent.extra})
		case b.Type == "dynamic" && b.Labels[0] == typ:
			a, ok := b.Body.Attributes["for_each"]
			if !ok {
				return nil, fmt.Errorf("%s: dynamic %q has no for_each", s.label(), typ)
			}
			coll, err := s.eval(a.Expr, parent.extra)
			if err != nil {
				return nil, err
			}
			if !coll.IsKnown() || coll.IsNull() {
				return nil, fmt.Errorf("%s: dynamic %q: for_each is not known", s.label(), typ)
			}
			iterator := typ
			if it, ok := b.Body.Attributes["iterator"]; ok {
				iterator = hcl.ExprAsKeyword(it.Expr)
			}
			var content *hclsyntax.Body
			for _, c := range b.Body.Blocks {
				if c.Type == "content" {
					content = c.Body
				}
			}
			if content == nil {
				return nil, fmt.Errorf("%s: dynamic %q has no content block", s.label(), typ)
			}
			for it := coll.ElementIterator(); it.Next(); {
				k, v := it.Element()
				extra := map[string]cty.Value{}
				for name, val := range parent.extra {
					extra[name] = val
				}
				extra[iterator] = cty.ObjectVal(map[string]cty.Value{"key": k, "value": v})
				out = append(out, body{Body: content, extra: extra})
			}
		}
	}
	return out, nil
}

// block returns the single nested block typ, or an error when there is not
// exactly one.
func (s *scope) block(parent body, typ string) (body, error) {
	bs, err := s.blocks(parent, typ)
	if err != nil {
		return body{}, err
	}
	if len(bs) != 1 {
		return body{}, fmt.Errorf("%s: want one %s block, found %d", s.label(), typ, len(bs))
	}
	return bs[0], nil
}

// errNoAttr means an attribute is not set.
var errNoAttr = errors.New("not set")

// attr evaluates attribute name of b.
func (s *scope) attr(b body, name string) (cty.Value, error) {
	a, ok := b.Attributes[name]
	if !ok {
		return cty.NilVal, fmt.Errorf("%s: %s: %w", s.label(), name, errNoAttr)
	}
	return s.eval(a.Expr, b.extra)
}

// child instantiates the module called by inst.
func (s *scope) child(inst instance) (*scope, error) {
	src, ok := inst.block.Body.Attributes["source"]
	if !ok {
		return nil, fmt.Errorf("%s: module %q has no source", s.label(), inst.block.Labels[0])
	}
	srcVal, diags := src.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: module %q: source: %w", s.label(), inst.block.Labels[0], diags)
	}
	mod, err := s.loader.load(filepath.Join(s.mod.dir, srcVal.AsString()))
	if err != nil {
		return nil, err
	}
	inputs := map[string]cty.Value{}
	for name, a := range inst.block.Body.Attributes {
		switch name {
		case "source", "version", "count", "for_each", "providers", "depends_on":
			continue
		}
		v, err := s.eval(a.Expr, inst.extra)
		if err != nil {
			return nil, fmt.Errorf("module %q input %s: %w", inst.block.Labels[0], name, err)
		}
		inputs[name] = v
	}
	path := inst.address()
	if s.path != "" {
		path = s.path + "." + path
	}
	return s.loader.newScope(mod, path, inputs)
}

// walk calls fn for s and every module instance below it.
func (s *scope) walk(fn func(*scope) error) error {
	if err := fn(s); err != nil {
		return err
	}
	for _, call := range s.mod.calls {
		insts, err := s.instances(call)
		if err != nil {
			return err
		}
		for _, inst := range insts {
			c, err := s.child(inst)
			if err != nil {
				return err
			}
			if err := c.walk(fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// resourceInstances returns the instances of every resource of type typ.
func (s *scope) resourceInstances(typ string) ([]instance, error) {
	var out []instance
	for _, b := range s.mod.resources {
		if b.Labels[0] != typ {
			continue
		}
		insts, err := s.instances(b)
		if err != nil {
			return nil, err
		}
		out = append(out, insts...)
	}
	return out, nil
}

// validationErrors evaluates the validation blocks of variable b against
// candidate and returns the error messages of those that reject it (an
// evaluation error rejects too, as in Terraform).
func validationErrors(b *hclsyntax.Block, candidate cty.Value) ([]string, error) {
	v, err := inputValue(b, candidate)
	if err != nil {
		return []string{"type: " + err.Error()}, nil
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{b.Labels[0]: v})},
		Functions: functions(),
	}
	var rejected []string
	for _, vb := range b.Body.Blocks {
		if vb.Type != "validation" {
			continue
		}
		cond, ok := vb.Body.Attributes["condition"]
		if !ok {
			return nil, fmt.Errorf("variable %q: validation without condition", b.Labels[0])
		}
		res, diags := cond.Expr.Value(ctx)
		if diags.HasErrors() {
			rejected = append(rejected, "error: "+diags.Error())
			continue
		}
		if !res.IsKnown() || res.IsNull() {
			return nil, fmt.Errorf("variable %q: validation result is not known", b.Labels[0])
		}
		if res.False() {
			msg := "rejected"
			if m, ok := vb.Body.Attributes["error_message"]; ok {
				if mv, diags := m.Expr.Value(nil); !diags.HasErrors() && mv.Type() == cty.String {
					msg = mv.AsString()
				}
			}
			rejected = append(rejected, msg)
		}
	}
	return rejected, nil
}

// preconditionErrors evaluates the lifecycle preconditions of every
// instance of resource typ.name in s and returns the messages of those that
// fail. Unknown results (they depend on apply-time values) are skipped.
func (s *scope) preconditionErrors(typ, name string) ([]string, error) {
	b := s.mod.resource(typ, name)
	if b == nil {
		return nil, fmt.Errorf("%s: no resource %s.%s", s.label(), typ, name)
	}
	insts, err := s.instances(b)
	if err != nil {
		return nil, err
	}
	var failed []string
	for _, inst := range insts {
		lifecycles, err := s.blocks(inst.body(), "lifecycle")
		if err != nil {
			return nil, err
		}
		for _, lc := range lifecycles {
			pres, err := s.blocks(lc, "precondition")
			if err != nil {
				return nil, err
			}
			for _, pre := range pres {
				res, err := s.attr(pre, "condition")
				if err != nil {
					return nil, err
				}
				if !res.IsKnown() {
					continue
				}
				if res.False() {
					msg, _ := s.attr(pre, "error_message")
					failed = append(failed, msg.AsString())
				}
			}
		}
	}
	return failed, nil
}

// references returns the references (e.g. "module.queue.dlq_name") in an
// expression, sorted.
func references(expr hcl.Expression) []string {
	var out []string
	for _, tr := range expr.Variables() {
		var b strings.Builder
		b.WriteString(tr.RootName())
		for _, step := range tr[1:] {
			switch st := step.(type) {
			case hcl.TraverseAttr:
				b.WriteString("." + st.Name)
			case hcl.TraverseIndex:
				if st.Key.Type() == cty.Number {
					n, _ := st.Key.AsBigFloat().Int64()
					fmt.Fprintf(&b, "[%d]", n)
				} else if st.Key.Type() == cty.String {
					fmt.Fprintf(&b, "[%q]", st.Key.AsString())
				}
			}
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}
