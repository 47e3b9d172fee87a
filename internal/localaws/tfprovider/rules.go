package tfprovider

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// resourceRule is what the real provider does for one resource type beyond
// what its JSON schema says. Paths are patterns: attribute names joined by
// dots, with "*" standing for any element of a list, set or map (block or
// attribute), e.g. "source_parameters.*.dynamodb_stream_parameters.*.batch_size".
type resourceRule struct {
	// Legacy marks resources implemented with terraform-plugin-sdk/v2: their
	// plans may set defaults on non-computed attributes, which Terraform
	// accepts only from providers that declare the legacy type system.
	Legacy bool
	// Defaults are SDKv2 schema Defaults, applied at plan time when the
	// configuration leaves the attribute out.
	Defaults map[string]cty.Value
	// ForceNew lists attributes (or blocks) whose change replaces the object.
	ForceNew []string
	// Recompute lists computed attributes that become unknown on update
	// when their inputs change.
	Recompute []recompute
	// Validate lists plan-time validators (SDKv2 ValidateFunc and friends).
	Validate []check
	// Customize is the resource's CustomizeDiff: checks that span several
	// attributes and plan adjustments beyond the generic rules. It runs
	// last and may return error diagnostics, which fail the plan.
	Customize func(req *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic)
}

// recompute marks Attrs unknown on update when When(prior, planned) holds.
type recompute struct {
	Attrs []string
	When  func(prior, planned cty.Value) bool
}

// check validates every known, non-null value at Path.
type check struct {
	Path string
	Fn   func(key string, v cty.Value) error
}

// resourceRules and dataSourceRules are filled by the rules_*.go files.
var (
	resourceRules   = map[string]resourceRule{}
	dataSourceRules = map[string][]check{}
)

func splitPattern(p string) []string { return strings.Split(p, ".") }

// patternOf turns a concrete path into its pattern (element keys → "*").
func patternOf(p cty.Path) string {
	var parts []string
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			parts = append(parts, s.Name)
		case cty.IndexStep:
			parts = append(parts, "*")
		}
	}
	return strings.Join(parts, ".")
}

// flatKey renders a path the way SDKv2 names attributes in its validation
// messages ("source_parameters.0.dynamodb_stream_parameters.0.batch_size").
func flatKey(p cty.Path) string {
	var parts []string
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			parts = append(parts, s.Name)
		case cty.IndexStep:
			switch {
			case !s.Key.IsKnown() || s.Key.IsNull():
				parts = append(parts, "?")
			case s.Key.Type() == cty.Number:
				parts = append(parts, s.Key.AsBigFloat().Text('f', -1))
			case s.Key.Type() == cty.String:
				parts = append(parts, s.Key.AsString())
			default:
				// Set elements: SDKv2 shows a hash; an opaque marker will do.
				parts = append(parts, "~")
			}
		}
	}
	return strings.Join(parts, ".")
}

// walkPattern calls fn for every value of v at the pattern segs. Unknown
// containers are not descended; null leaves are visited only if withNull.
func walkPattern(v cty.Value, segs []string, path cty.Path, withNull bool, fn func(cty.Path, cty.Value)) {
	if len(segs) == 0 {
		if v.IsNull() && !withNull {
			return
		}
		fn(path, v)
		return
	}
	if v.IsNull() || !v.IsKnown() {
		return
	}
	seg, rest := segs[0], segs[1:]
	ty := v.Type()
	if seg == "*" {
		switch {
		case ty.IsListType() || ty.IsTupleType():
			for i, e := range v.AsValueSlice() {
				walkPattern(e, rest, appendPath(path, cty.IndexStep{Key: cty.NumberIntVal(int64(i))}), withNull, fn)
			}
		case ty.IsSetType():
			for _, e := range v.AsValueSlice() {
				walkPattern(e, rest, appendPath(path, cty.IndexStep{Key: e}), withNull, fn)
			}
		case ty.IsMapType():
			for k, e := range v.AsValueMap() {
				walkPattern(e, rest, appendPath(path, cty.IndexStep{Key: cty.StringVal(k)}), withNull, fn)
			}
		}
		return
	}
	if !ty.IsObjectType() || !ty.HasAttribute(seg) {
		return
	}
	walkPattern(v.GetAttr(seg), rest, appendPath(path, cty.GetAttrStep{Name: seg}), withNull, fn)
}

// validateValue runs checks over v, skipping values unknown at plan time.
func validateValue(v cty.Value, checks []check) []*tfprotov5.Diagnostic {
	var diags []*tfprotov5.Diagnostic
	for _, c := range checks {
		walkPattern(v, splitPattern(c.Path), nil, false, func(p cty.Path, val cty.Value) {
			if !val.IsWhollyKnown() {
				return
			}
			if err := c.Fn(flatKey(p), val); err != nil {
				diags = append(diags, errorDiag(err.Error(), "", p))
			}
		})
	}
	return diags
}

// ---- value checks, with SDKv2's helper/validation messages ----

func asInt(key string, v cty.Value) (int64, error) {
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != 0 {
		return 0, fmt.Errorf("expected type of %s to be integer", key)
	}
	return i, nil
}

// intBetween is validation.IntBetween.
func intBetween(lo, hi int64) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		i, err := asInt(key, v)
		if err != nil {
			return err
		}
		if i < lo || i > hi {
			return fmt.Errorf("expected %s to be in the range (%d - %d), got %d", key, lo, hi, i)
		}
		return nil
	}
}

// intAtLeast is validation.IntAtLeast.
func intAtLeast(lo int64) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		i, err := asInt(key, v)
		if err != nil {
			return err
		}
		if i < lo {
			return fmt.Errorf("expected %s to be at least (%d), got %d", key, lo, i)
		}
		return nil
	}
}

// intInSlice is validation.IntInSlice.
func intInSlice(vals ...int64) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		i, err := asInt(key, v)
		if err != nil {
			return err
		}
		for _, x := range vals {
			if i == x {
				return nil
			}
		}
		return fmt.Errorf("expected %s to be one of %v, got %d", key, vals, i)
	}
}

// anyOf is validation.Any: the value passes if one validator accepts it.
func anyOf(fns ...func(string, cty.Value) error) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		var msgs []string
		for _, f := range fns {
			err := f(key, v)
			if err == nil {
				return nil
			}
			msgs = append(msgs, err.Error())
		}
		return fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
}

// allOf is validation.All: every validator must accept the value.
func allOf(fns ...func(string, cty.Value) error) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		for _, f := range fns {
			if err := f(key, v); err != nil {
				return err
			}
		}
		return nil
	}
}

// enumOf is enum.Validate[T]: the provider validates enums against the AWS
// SDK's Values() for the type, which is what this uses too.
func enumOf[T ~string](vals []T) func(string, cty.Value) error {
	ss := make([]string, len(vals))
	for i, v := range vals {
		ss[i] = string(v)
	}
	return stringInSlice(ss...)
}

// stringInSliceFold is validation.StringInSlice with ignoreCase = true.
func stringInSliceFold(vals ...string) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		s := v.AsString()
		for _, x := range vals {
			if strings.EqualFold(s, x) {
				return nil
			}
		}
		return fmt.Errorf("expected %s to be one of %q, got %s", key, vals, s)
	}
}

// stringMatch is validation.StringMatch.
func stringMatch(re *regexp.Regexp, msg string) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		if re.MatchString(v.AsString()) {
			return nil
		}
		if msg != "" {
			return fmt.Errorf("invalid value for %s (%s)", key, msg)
		}
		return fmt.Errorf("invalid value for %s (must match %s)", key, re)
	}
}

// stringInSlice is validation.StringInSlice (case-sensitive), which
// enum.Validate uses too.
func stringInSlice(vals ...string) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		s := v.AsString()
		for _, x := range vals {
			if s == x {
				return nil
			}
		}
		return fmt.Errorf("expected %s to be one of %q, got %s", key, vals, s)
	}
}

// stringLenBetween is validation.StringLenBetween (length in characters).
func stringLenBetween(lo, hi int) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		n := len([]rune(v.AsString()))
		if n < lo || n > hi {
			return fmt.Errorf("expected length of %s to be in the range (%d - %d), got %s", key, lo, hi, v.AsString())
		}
		return nil
	}
}

// eachElement applies fn to every known element of a list or set.
func eachElement(fn func(string, cty.Value) error) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			if e.IsNull() || !e.IsKnown() {
				continue
			}
			if err := fn(fmt.Sprintf("%s.%d", key, i), e); err != nil {
				return err
			}
		}
		return nil
	}
}

// maxElements bounds the length of a list or set.
func maxElements(n int) func(string, cty.Value) error {
	return func(key string, v cty.Value) error {
		if l := v.LengthInt(); l > n {
			return fmt.Errorf("%s: attribute supports %d item maximum, config has %d declared", key, n, l)
		}
		return nil
	}
}
