package tfprovider

import (
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// PlanChange computes the planned new state of one resource, the way the
// real provider's SDKv2 resources do:
//
//   - configured values are kept as written (unknowns stay unknown);
//   - a computed attribute left out of the configuration is unknown on a new
//     object and keeps its prior value on an existing one, unless one of its
//     inputs changed (rules Recompute, tags_all);
//   - an optional attribute left out gets the SDKv2 Default, if it has one;
//   - `region` defaults to the provider's region, as the v6 provider's
//     defaultRegion interceptor does;
//   - changes to ForceNew attributes are reported in RequiresReplace.
//
// Nested blocks of every nesting mode are planned element by element: list
// elements pair with prior elements by index, map elements by key, and set
// elements with the prior element whose non-computed attributes are equal,
// as Terraform core pairs them when it builds the proposed new state.
//
// Terraform asks again with a null prior state when the plan requires
// replacement, so a replacement plans like a create.
func PlanChange(req *PlanRequest) (*Plan, []*tfprotov5.Diagnostic) {
	return planWith(req, resourceRules[req.TypeName])
}

func planWith(req *PlanRequest, rules resourceRule) (*Plan, []*tfprotov5.Diagnostic) {
	plan := &Plan{Legacy: rules.Legacy, Planned: req.Proposed}
	if req.Proposed.IsNull() {
		// Destroy: nothing to plan.
		return plan, nil
	}
	p := &planner{defaults: rules.Defaults, legacy: rules.Legacy}
	planned := p.block(nil, req.Schema.Block, req.Prior, req.Config, req.Proposed)
	planned = planRegion(req, planned)
	planned = planTagsAll(req, planned)
	planned = planRecompute(req, rules.Recompute, planned)
	var diags []*tfprotov5.Diagnostic
	if rules.Customize != nil {
		planned, diags = rules.Customize(req, planned)
		if hasError(diags) {
			return plan, diags
		}
	}
	plan.Planned = planned
	plan.RequiresReplace = requiresReplace(req, rules.ForceNew, planned, rules.Legacy)
	return plan, diags
}

type planner struct {
	defaults map[string]cty.Value
	// legacy plans like SDKv2, whose flatmap state cannot tell a null from
	// a zero value: an attribute or block left out of the configuration
	// whose prior value is the zero value ("" / 0 / false / empty) has no
	// diff, so the prior value is kept.
	legacy bool
}

// block plans one object. prior is null when the object is new.
func (p *planner) block(path cty.Path, b *tfjson.SchemaBlock, prior, config, proposed cty.Value) cty.Value {
	if proposed.IsNull() || !proposed.IsKnown() {
		return proposed
	}
	isNew := prior.IsNull() || !prior.IsKnown()
	if config.IsNull() || !config.IsKnown() {
		config = proposed
	}
	ty := proposed.Type()
	attrs := make(map[string]cty.Value, len(ty.AttributeTypes()))
	for name, a := range b.Attributes {
		ap := appendPath(path, cty.GetAttrStep{Name: name})
		cv, pv := config.GetAttr(name), proposed.GetAttr(name)
		def, hasDefault := p.defaults[patternOf(ap)]
		switch {
		case a.WriteOnly:
			// Write-only values never reach plan or state.
			attrs[name] = cty.NullVal(pv.Type())
		case !cv.IsNull():
			attrs[name] = pv
		case a.Computed && !isNew:
			attrs[name] = prior.GetAttr(name)
		case hasDefault && p.legacy && !isNew && sdkZero(prior.GetAttr(name)) && sdkZero(def):
			// A zero default over a zero (or null) prior: SDKv2 sees no
			// diff (imported state records nulls where the SDK would
			// have written zero values).
			attrs[name] = prior.GetAttr(name)
		case hasDefault:
			attrs[name] = def
		case a.Computed:
			attrs[name] = cty.UnknownVal(pv.Type())
		case p.legacy && !isNew && sdkZero(prior.GetAttr(name)):
			attrs[name] = prior.GetAttr(name)
		default:
			attrs[name] = cty.NullVal(pv.Type())
		}
	}
	for name, bt := range b.NestedBlocks {
		bp := appendPath(path, cty.GetAttrStep{Name: name})
		cv, pv := config.GetAttr(name), proposed.GetAttr(name)
		// A new object's blocks have no prior; an empty collection (never
		// a null block, which Terraform would have to repair) stands in.
		pr := emptyBlock(bt, pv.Type())
		if !isNew {
			pr = prior.GetAttr(name)
		}
		attrs[name] = p.nested(bp, bt, pr, cv, pv)
	}
	return cty.ObjectVal(attrs)
}

func (p *planner) nested(path cty.Path, bt *tfjson.SchemaBlockType, prior, config, proposed cty.Value) cty.Value {
	if proposed.IsNull() || !proposed.IsKnown() {
		return proposed
	}
	if !config.IsKnown() || config.IsNull() {
		config = proposed
	}
	priorOK := !prior.IsNull() && prior.IsKnown()
	if p.legacy && prior.IsKnown() && sdkZero(prior) && sdkZero(proposed) {
		// No blocks before, none now: SDKv2 sees no diff between a null and
		// an empty collection.
		return prior
	}
	switch bt.NestingMode {
	case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
		return p.block(path, bt.Block, prior, config, proposed)

	case tfjson.SchemaNestingModeList:
		var priorElems []cty.Value
		if priorOK {
			priorElems = prior.AsValueSlice()
		}
		cfgElems := config.AsValueSlice()
		var out []cty.Value
		for i, pe := range proposed.AsValueSlice() {
			pr := cty.NullVal(pe.Type())
			if i < len(priorElems) {
				pr = priorElems[i]
			}
			ce := pe
			if i < len(cfgElems) {
				ce = cfgElems[i]
			}
			out = append(out, p.block(appendPath(path, cty.IndexStep{Key: cty.NumberIntVal(int64(i))}), bt.Block, pr, ce, pe))
		}
		if len(out) == 0 {
			return cty.ListValEmpty(proposed.Type().ElementType())
		}
		return cty.ListVal(out)

	case tfjson.SchemaNestingModeMap:
		var priorElems map[string]cty.Value
		if priorOK {
			priorElems = prior.AsValueMap()
		}
		cfgElems := config.AsValueMap()
		out := map[string]cty.Value{}
		for k, pe := range proposed.AsValueMap() {
			pr, ok := priorElems[k]
			if !ok {
				pr = cty.NullVal(pe.Type())
			}
			ce, ok := cfgElems[k]
			if !ok {
				ce = pe
			}
			out[k] = p.block(appendPath(path, cty.IndexStep{Key: cty.StringVal(k)}), bt.Block, pr, ce, pe)
		}
		if len(out) == 0 {
			return cty.MapValEmpty(proposed.Type().ElementType())
		}
		return cty.MapVal(out)

	case tfjson.SchemaNestingModeSet:
		var priorElems []cty.Value
		if priorOK {
			priorElems = prior.AsValueSlice()
		}
		used := make([]bool, len(priorElems))
		var out []cty.Value
		// Plan from the configuration's elements: core's proposed set may
		// already have merged prior computed values into them, which the
		// pairing below redoes with the same rule.
		for _, ce := range config.AsValueSlice() {
			pr := cty.NullVal(ce.Type())
			if ce.IsWhollyKnown() {
				key := setKey(bt.Block, ce)
				for i, pe := range priorElems {
					if !used[i] && pe.IsWhollyKnown() && setKey(bt.Block, pe).RawEquals(key) {
						pr, used[i] = pe, true
						break
					}
				}
			}
			out = append(out, p.block(appendPath(path, cty.IndexStep{Key: ce}), bt.Block, pr, ce, ce))
		}
		if len(out) == 0 {
			return cty.SetValEmpty(proposed.Type().ElementType())
		}
		return cty.SetVal(out)
	}
	return proposed
}

// setKey is the part of a set element that identifies it across plans: its
// non-computed attributes and, recursively, its nested blocks.
func setKey(b *tfjson.SchemaBlock, v cty.Value) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	attrs := map[string]cty.Value{}
	for name, a := range b.Attributes {
		if a.Computed {
			continue
		}
		attrs[name] = v.GetAttr(name)
	}
	for name, bt := range b.NestedBlocks {
		nv := v.GetAttr(name)
		if nv.IsNull() || !nv.IsKnown() {
			attrs[name] = cty.NullVal(cty.DynamicPseudoType)
			continue
		}
		switch bt.NestingMode {
		case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
			attrs[name] = setKey(bt.Block, nv)
		case tfjson.SchemaNestingModeMap:
			m := map[string]cty.Value{}
			for k, e := range nv.AsValueMap() {
				m[k] = setKey(bt.Block, e)
			}
			attrs[name] = cty.ObjectVal(m)
		default:
			var elems []cty.Value
			for _, e := range nv.AsValueSlice() {
				elems = append(elems, setKey(bt.Block, e))
			}
			if bt.NestingMode == tfjson.SchemaNestingModeSet {
				// Order-independent: compare sorted renderings.
				sort.Slice(elems, func(i, j int) bool { return elems[i].GoString() < elems[j].GoString() })
			}
			attrs[name] = cty.TupleVal(elems)
		}
	}
	return cty.ObjectVal(attrs)
}

// planRegion: the v6 provider's defaultRegion interceptor sets a resource's
// `region` to the provider region when the configuration leaves it out
// (internal/provider/sdkv2/provider.go: interceptors defaultRegion and
// forceNewIfRegionChanges; region.go).
func planRegion(req *PlanRequest, planned cty.Value) cty.Value {
	a, ok := req.Schema.Block.Attributes["region"]
	if !ok || !a.Computed || req.Provider == nil || req.Provider.Region == "" {
		return planned
	}
	if !req.Config.GetAttr("region").IsNull() {
		return planned
	}
	return setAttr(planned, "region", cty.StringVal(req.Provider.Region))
}

// planTagsAll computes tags_all = default_tags ∪ tags (tags win) minus
// ignore_tags, following the SDKv2 setTagsAll interceptor
// (internal/provider/sdkv2/intercept.go, setTagsAll):
//   - tags not wholly known → tags_all unknown;
//   - tags changed → tags_all is the merged map (unknown if a tag value is
//     empty and nothing else is set);
//   - tags unchanged → tags_all is the merged map when it is non-empty,
//     else it stays computed (unknown on create, prior on update).
func planTagsAll(req *PlanRequest, planned cty.Value) cty.Value {
	attrs := req.Schema.Block.Attributes
	if attrs["tags_all"] == nil || attrs["tags"] == nil {
		return planned
	}
	tagsAllTy := cty.Map(cty.String)
	tags := planned.GetAttr("tags")
	if !tags.IsWhollyKnown() {
		return setAttr(planned, "tags_all", cty.UnknownVal(tagsAllTy))
	}
	newTags := map[string]string{}
	if !tags.IsNull() {
		for k, v := range tags.AsValueMap() {
			if !v.IsNull() {
				newTags[k] = v.AsString()
			}
		}
	}
	all := map[string]string{}
	cfg := req.Provider
	if cfg == nil {
		cfg = &Config{}
	}
	for k, v := range cfg.DefaultTags {
		all[k] = v
	}
	for k, v := range newTags {
		all[k] = v
	}
	for k := range all {
		if cfg.ignoredTag(k) {
			delete(all, k)
		}
	}
	hasZero := func(m map[string]string) bool {
		for _, v := range m {
			if v == "" {
				return true
			}
		}
		return false
	}
	priorTags := cty.NullVal(tagsAllTy)
	if !req.Prior.IsNull() {
		priorTags = req.Prior.GetAttr("tags")
	}
	changed := !sameTags(priorTags, tags)
	switch {
	case changed && len(all) > 0 && (!hasZero(newTags) || !hasZero(all)):
		return setAttr(planned, "tags_all", stringMap(all))
	case changed && len(all) == 0:
		return setAttr(planned, "tags_all", cty.MapValEmpty(cty.String))
	case changed && hasZero(newTags):
		return setAttr(planned, "tags_all", cty.UnknownVal(tagsAllTy))
	case !changed && len(all) > 0 && !hasZero(all):
		return setAttr(planned, "tags_all", stringMap(all))
	case !changed && len(all) > 0:
		// Empty tag values: recomputed unless tags_all already matches.
		if cur := planned.GetAttr("tags_all"); cur.IsKnown() && !cur.IsNull() && cur.RawEquals(stringMap(all)) {
			return planned
		}
		return setAttr(planned, "tags_all", cty.UnknownVal(tagsAllTy))
	}
	return planned
}

// sameTags compares tag maps the way the SDK does: null and empty are equal.
func sameTags(a, b cty.Value) bool {
	empty := func(v cty.Value) bool { return v.IsNull() || (v.IsKnown() && v.LengthInt() == 0) }
	if empty(a) && empty(b) {
		return true
	}
	if a.IsNull() || b.IsNull() {
		return false
	}
	return a.RawEquals(b)
}

func stringMap(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	vals := make(map[string]cty.Value, len(m))
	for k, v := range m {
		vals[k] = cty.StringVal(v)
	}
	return cty.MapVal(vals)
}

// planRecompute marks computed attributes unknown when an input they derive
// from changes on an existing object (for example a Lambda function's
// version and last_modified when its code changes).
func planRecompute(req *PlanRequest, rules []recompute, planned cty.Value) cty.Value {
	if req.Prior.IsNull() {
		return planned
	}
	for _, r := range rules {
		if r.When(req.Prior, planned) {
			for _, attr := range r.Attrs {
				planned = setAttr(planned, attr, cty.UnknownVal(planned.GetAttr(attr).Type()))
			}
		}
	}
	return planned
}

// requiresReplace lists the ForceNew attributes whose planned value differs
// from the prior one (an unknown planned value counts as a change, as in
// SDKv2). New objects need no replacement.
func requiresReplace(req *PlanRequest, forceNew []string, planned cty.Value, legacy bool) []cty.Path {
	if req.Prior.IsNull() {
		return nil
	}
	var out []cty.Path
	for _, pat := range forceNew {
		// Visit the pattern in both values so that removing a ForceNew
		// value counts as a change too.
		seen := map[string]bool{}
		check := func(p cty.Path, _ cty.Value) {
			key := pathString(p)
			if seen[key] {
				return
			}
			seen[key] = true
			ov, nv := valueAt(req.Prior, p), valueAt(planned, p)
			if nv.IsNull() && ov.IsNull() {
				return
			}
			if legacy && nv.IsKnown() && sdkZero(nv) && sdkZero(ov) {
				// SDKv2 cannot tell null from the zero value.
				return
			}
			if !nv.IsWhollyKnown() || !ov.RawEquals(nv) {
				out = append(out, p)
			}
		}
		segs := splitPattern(pat)
		walkPattern(planned, segs, nil, true, check)
		walkPattern(req.Prior, segs, nil, true, check)
	}
	// The v6 region attribute forces replacement when it changes from a
	// recorded region (forceNewIfRegionChanges).
	if _, ok := req.Schema.Block.Attributes["region"]; ok {
		ov, nv := req.Prior.GetAttr("region"), planned.GetAttr("region")
		if !ov.IsNull() && ov.IsKnown() && ov.AsString() != "" && (!nv.IsKnown() || !ov.RawEquals(nv)) {
			out = append(out, cty.GetAttrPath("region"))
		}
	}
	return out
}

// valueAt returns the value at p, or null when p does not exist in v.
func valueAt(v cty.Value, p cty.Path) cty.Value {
	got, err := p.Apply(v)
	if err != nil {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return got
}

func setAttr(obj cty.Value, name string, v cty.Value) cty.Value {
	attrs := obj.AsValueMap()
	attrs[name] = v
	return cty.ObjectVal(attrs)
}

// appendPath copies before appending so sibling paths never share storage.
func appendPath(p cty.Path, step cty.PathStep) cty.Path {
	out := make(cty.Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, step)
}
