// Package tfdoc generates the requirement, provider, module, resource,
// input and output tables of a Terraform module's README from its .tf
// files (the sections terraform-docs writes), and keeps them between the
// <!-- BEGIN_TF_DOCS --> and <!-- END_TF_DOCS --> markers (the markers
// terraform-docs uses, so either tool can maintain a README).
//
// It reads the configuration with hashicorp/hcl/v2 and needs no terraform
// binary: variables keep their declaration order (required inputs first, by
// the modules' convention), types are printed in Terraform's type syntax and
// defaults as JSON.
package tfdoc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// The markers that delimit the generated section of a document.
const (
	BeginMarker = "<!-- BEGIN_TF_DOCS -->"
	EndMarker   = "<!-- END_TF_DOCS -->"
)

// ErrNoMarkers means a document lacks the BEGIN/END markers, so there is no
// place to put the tables.
var ErrNoMarkers = errors.New("no " + BeginMarker + " ... " + EndMarker + " section")

// Variable is one input variable of a module.
type Variable struct {
	Name        string
	Description string
	// Type is the type constraint in Terraform syntax; "any" when absent.
	Type string
	// Default is the default value as JSON; empty when Required.
	Default  string
	Required bool
}

// Output is one output value of a module.
type Output struct {
	Name        string
	Description string
}

// Provider is one entry of required_providers.
type Provider struct {
	Name    string
	Source  string
	Version string
}

// Resource is one resource or data block of a module.
type Resource struct {
	// Mode is "resource" or "data".
	Mode string
	Type string
	Name string
}

// Call is one module block of a module.
type Call struct {
	Name   string
	Source string
}

// Module is the documented interface of one module directory.
type Module struct {
	RequiredVersion string
	Providers       []Provider
	Calls           []Call
	Resources       []Resource
	Variables       []Variable
	Outputs         []Output
}

// Load reads every *.tf file of dir (not its subdirectories).
func Load(dir string) (*Module, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return nil, fmt.Errorf("tfdoc: list %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("tfdoc: load %s: no .tf files", dir)
	}
	sort.Strings(paths)

	parser := hclparse.NewParser()
	m := &Module{}
	for _, p := range paths {
		f, diags := parser.ParseHCLFile(p)
		if diags.HasErrors() {
			return nil, fmt.Errorf("tfdoc: parse %s: %w", p, diags)
		}
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			return nil, fmt.Errorf("tfdoc: parse %s: not native HCL syntax", p)
		}
		for _, b := range body.Blocks {
			if err := m.addBlock(b); err != nil {
				return nil, fmt.Errorf("tfdoc: %s: %w", p, err)
			}
		}
	}
	return m, nil
}

func (m *Module) addBlock(b *hclsyntax.Block) error {
	switch b.Type {
	case "variable":
		v, err := variable(b)
		if err != nil {
			return err
		}
		m.Variables = append(m.Variables, v)
	case "output":
		desc, err := stringAttr(b.Body, "description")
		if err != nil {
			return fmt.Errorf("output %q: %w", b.Labels[0], err)
		}
		m.Outputs = append(m.Outputs, Output{Name: b.Labels[0], Description: desc})
	case "terraform":
		return m.addTerraform(b)
	case "resource", "data":
		if len(b.Labels) == 2 {
			m.Resources = append(m.Resources, Resource{Mode: b.Type, Type: b.Labels[0], Name: b.Labels[1]})
		}
	case "module":
		src, err := stringAttr(b.Body, "source")
		if err != nil {
			return fmt.Errorf("module %q: %w", b.Labels[0], err)
		}
		m.Calls = append(m.Calls, Call{Name: b.Labels[0], Source: src})
	}
	return nil
}

// usedProviders are the local names of the providers the module's own
// resources belong to (a type's prefix up to its first "_"), sorted.
func (m *Module) usedProviders() []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range m.Resources {
		name, _, _ := strings.Cut(r.Type, "_")
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// registryURL is the Terraform Registry page of a resource or data
// source, the link terraform-docs prints; "" for providers outside the
// hashicorp namespace the modules use.
func (m *Module) registryURL(r Resource) string {
	name, _, _ := strings.Cut(r.Type, "_")
	source := "hashicorp/" + name
	for _, p := range m.Providers {
		if p.Name == name && p.Source != "" {
			source = p.Source
		}
	}
	kind := "resources"
	if r.Mode == "data" {
		kind = "data-sources"
	}
	_, short, _ := strings.Cut(r.Type, "_")
	return "https://registry.terraform.io/providers/" + source + "/latest/docs/" + kind + "/" + short
}

func variable(b *hclsyntax.Block) (Variable, error) {
	v := Variable{Name: b.Labels[0], Type: "any", Required: true}
	desc, err := stringAttr(b.Body, "description")
	if err != nil {
		return v, fmt.Errorf("variable %q: %w", v.Name, err)
	}
	v.Description = desc
	if a, ok := b.Body.Attributes["type"]; ok {
		ty, _, diags := typeexpr.TypeConstraintWithDefaults(a.Expr)
		if diags.HasErrors() {
			return v, fmt.Errorf("variable %q: type: %w", v.Name, diags)
		}
		v.Type = typeString(ty)
	}
	if a, ok := b.Body.Attributes["default"]; ok {
		val, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			return v, fmt.Errorf("variable %q: default: %w", v.Name, diags)
		}
		js, err := ctyjson.Marshal(val, val.Type())
		if err != nil {
			return v, fmt.Errorf("variable %q: default: %w", v.Name, err)
		}
		v.Default = string(js)
		v.Required = false
	}
	return v, nil
}

func (m *Module) addTerraform(b *hclsyntax.Block) error {
	rv, err := stringAttr(b.Body, "required_version")
	if err != nil {
		return fmt.Errorf("terraform: %w", err)
	}
	if rv != "" {
		m.RequiredVersion = rv
	}
	for _, rp := range b.Body.Blocks {
		if rp.Type != "required_providers" {
			continue
		}
		names := make([]string, 0, len(rp.Body.Attributes))
		for name := range rp.Body.Attributes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			val, diags := rp.Body.Attributes[name].Expr.Value(nil)
			if diags.HasErrors() {
				return fmt.Errorf("required_providers %s: %w", name, diags)
			}
			p := Provider{Name: name}
			if val.Type().IsObjectType() {
				if val.Type().HasAttribute("source") {
					p.Source = val.GetAttr("source").AsString()
				}
				if val.Type().HasAttribute("version") {
					p.Version = val.GetAttr("version").AsString()
				}
			} else if val.Type() == cty.String {
				p.Version = val.AsString()
			}
			m.Providers = append(m.Providers, p)
		}
	}
	return nil
}

// typeString prints ty in Terraform's type syntax. Unlike
// typeexpr.TypeString it keeps optional() object attributes, which callers
// need to know they may omit.
func typeString(ty cty.Type) string {
	switch {
	case ty.IsListType():
		return "list(" + typeString(ty.ElementType()) + ")"
	case ty.IsSetType():
		return "set(" + typeString(ty.ElementType()) + ")"
	case ty.IsMapType():
		return "map(" + typeString(ty.ElementType()) + ")"
	case ty.IsTupleType():
		elems := make([]string, 0, len(ty.TupleElementTypes()))
		for _, et := range ty.TupleElementTypes() {
			elems = append(elems, typeString(et))
		}
		return "tuple([" + strings.Join(elems, ",") + "])"
	case ty.IsObjectType():
		names := make([]string, 0, len(ty.AttributeTypes()))
		for name := range ty.AttributeTypes() {
			names = append(names, name)
		}
		sort.Strings(names)
		attrs := make([]string, 0, len(names))
		for _, name := range names {
			at := typeString(ty.AttributeType(name))
			if ty.AttributeOptional(name) {
				at = "optional(" + at + ")"
			}
			attrs = append(attrs, name+"="+at)
		}
		return "object({" + strings.Join(attrs, ",") + "})"
	}
	return typeexpr.TypeString(ty)
}

// stringAttr returns a literal string attribute, "" when absent.
func stringAttr(body *hclsyntax.Body, name string) (string, error) {
	a, ok := body.Attributes[name]
	if !ok {
		return "", nil
	}
	val, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return "", fmt.Errorf("%s: %w", name, diags)
	}
	if val.IsNull() || val.Type() != cty.String {
		return "", fmt.Errorf("%s: want a literal string", name)
	}
	return val.AsString(), nil
}

// Markdown renders the requirements, inputs and outputs tables.
func (m *Module) Markdown() string {
	var b strings.Builder
	b.WriteString("## Requirements\n\n")
	b.WriteString("| Name | Version |\n|------|---------|\n")
	if m.RequiredVersion != "" {
		fmt.Fprintf(&b, "| terraform | `%s` |\n", cell(m.RequiredVersion))
	}
	for _, p := range m.Providers {
		name := p.Name
		if p.Source != "" {
			name = p.Source
		}
		fmt.Fprintf(&b, "| %s | `%s` |\n", cell(name), cell(p.Version))
	}

	b.WriteString("\n## Providers\n\n")
	if used := m.usedProviders(); len(used) == 0 {
		b.WriteString("No providers.\n")
	} else {
		b.WriteString("| Name | Version |\n|------|---------|\n")
		for _, name := range used {
			version := ""
			for _, p := range m.Providers {
				if p.Name == name {
					version = p.Version
				}
			}
			fmt.Fprintf(&b, "| %s | `%s` |\n", cell(name), cell(version))
		}
	}

	b.WriteString("\n## Modules\n\n")
	if len(m.Calls) == 0 {
		b.WriteString("No modules.\n")
	} else {
		b.WriteString("| Name | Source |\n|------|--------|\n")
		for _, c := range m.Calls {
			fmt.Fprintf(&b, "| `%s` | `%s` |\n", c.Name, cell(c.Source))
		}
	}

	b.WriteString("\n## Resources\n\n")
	if len(m.Resources) == 0 {
		b.WriteString("No resources.\n")
	} else {
		b.WriteString("| Name | Type |\n|------|------|\n")
		rs := append([]Resource(nil), m.Resources...)
		sort.SliceStable(rs, func(i, j int) bool { // as terraform-docs: by type, then name
			if rs[i].Type != rs[j].Type {
				return rs[i].Type < rs[j].Type
			}
			return rs[i].Name < rs[j].Name
		})
		for _, r := range rs {
			addr := r.Type + "." + r.Name
			if r.Mode == "data" {
				addr = "data." + addr
			}
			fmt.Fprintf(&b, "| [%s](%s) | %s |\n", addr, m.registryURL(r), r.Mode)
		}
	}

	b.WriteString("\n## Inputs\n\n")
	if len(m.Variables) == 0 {
		b.WriteString("No inputs.\n")
	} else {
		b.WriteString("| Name | Description | Type | Default | Required |\n")
		b.WriteString("|------|-------------|------|---------|:--------:|\n")
		for _, v := range m.Variables {
			def, req := "n/a", "yes"
			if !v.Required {
				def, req = "`"+cell(v.Default)+"`", "no"
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", v.Name, text(v.Description), cell(v.Type), def, req)
		}
	}

	b.WriteString("\n## Outputs\n\n")
	if len(m.Outputs) == 0 {
		b.WriteString("No outputs.\n")
	} else {
		b.WriteString("| Name | Description |\n|------|-------------|\n")
		for _, o := range m.Outputs {
			fmt.Fprintf(&b, "| `%s` | %s |\n", o.Name, text(o.Description))
		}
	}
	return b.String()
}

// cell makes s safe inside a markdown table cell (and inside a code span
// there: GitHub splits cells at "|" even in code).
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// text makes prose safe in a table cell: "<name>" would otherwise be read
// as an HTML tag and vanish.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func text(s string) string { return cell(htmlEscaper.Replace(s)) }

// Inject replaces what lies between the markers of doc with tables. It
// returns ErrNoMarkers when doc has no (well-ordered) marker pair.
func Inject(doc, tables string) (string, error) {
	begin := strings.Index(doc, BeginMarker)
	end := strings.Index(doc, EndMarker)
	if begin < 0 || end < begin {
		return "", ErrNoMarkers
	}
	return doc[:begin+len(BeginMarker)] + "\n" + nest(tables, headingLevel(doc[:begin])+1) + doc[end:], nil
}

// headingLevel is the level of the last Markdown heading in doc (0 when
// there is none), ignoring fenced code blocks.
func headingLevel(doc string) int {
	level, fenced := 0, false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, "#"))
		if n > 0 && n <= 6 && strings.HasPrefix(line[n:], " ") {
			level = n
		}
	}
	return level
}

// nest moves the tables' "## " headings to level (at least 2), so that
// they sit under the heading that introduces the marker section.
func nest(tables string, level int) string {
	if level <= 2 {
		return tables
	}
	prefix := strings.Repeat("#", level) + " "
	lines := strings.Split(tables, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "## "); ok {
			lines[i] = prefix + rest
		}
	}
	return strings.Join(lines, "\n")
}

// UpdateFile renders the module in moduleDir into the marker section of
// docPath. With write false it only reports whether the file is stale.
func UpdateFile(docPath, moduleDir string, write bool) (stale bool, err error) {
	m, err := Load(moduleDir)
	if err != nil {
		return false, err
	}
	old, err := os.ReadFile(docPath)
	if err != nil {
		return false, fmt.Errorf("tfdoc: read %s: %w", docPath, err)
	}
	updated, err := Inject(string(old), m.Markdown())
	if err != nil {
		return false, fmt.Errorf("tfdoc: %s: %w", docPath, err)
	}
	if updated == string(old) {
		return false, nil
	}
	if !write {
		return true, nil
	}
	if err := os.WriteFile(docPath, []byte(updated), 0o644); err != nil {
		return true, fmt.Errorf("tfdoc: write %s: %w", docPath, err)
	}
	return true, nil
}
