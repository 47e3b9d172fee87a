package tfprovider

import (
	"path/filepath"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func widgetSchema(t testing.TB) *tfjson.Schema {
	t.Helper()
	cat, err := LoadSchemaFile(filepath.Join("testdata", "plan_schema.json"))
	require.NoError(t, err)
	return cat.Resources["aws_widget"]
}

// widgetRules exercises every generic rule kind on the test schema.
var widgetRules = resourceRule{
	Legacy: true,
	Defaults: map[string]cty.Value{
		"opt_default":      cty.NumberIntVal(7),
		"lst.*.inner.*.xd": cty.NumberIntVal(1),
	},
	ForceNew: []string{"force", "name", "lst.*.a"},
	Recompute: []recompute{
		{Attrs: []string{"version"}, When: anyChanged("code")},
	},
}

// proposedNew is what Terraform core sends as ProposedNewState
// (plans/objchange.ProposedNew): configuration values, with computed
// attributes left null in the configuration taken from the prior object.
func proposedNew(b *tfjson.SchemaBlock, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	attrs := config.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	priorOK := !prior.IsNull() && prior.IsKnown()
	for name, a := range b.Attributes {
		if a.Computed && config.GetAttr(name).IsNull() {
			if priorOK {
				attrs[name] = prior.GetAttr(name)
			}
		}
	}
	for name, bt := range b.NestedBlocks {
		cv := config.GetAttr(name)
		pv := cty.NullVal(cv.Type())
		if priorOK {
			pv = prior.GetAttr(name)
		}
		switch bt.NestingMode {
		case tfjson.SchemaNestingModeList:
			if !cv.IsKnown() || cv.IsNull() {
				continue
			}
			var pe []cty.Value
			if !pv.IsNull() && pv.IsKnown() {
				pe = pv.AsValueSlice()
			}
			var out []cty.Value
			for i, e := range cv.AsValueSlice() {
				p := cty.NullVal(e.Type())
				if i < len(pe) {
					p = pe[i]
				}
				out = append(out, proposedNew(bt.Block, p, e))
			}
			if len(out) > 0 {
				attrs[name] = cty.ListVal(out)
			}
		case tfjson.SchemaNestingModeMap:
			if !cv.IsKnown() || cv.IsNull() {
				continue
			}
			out := map[string]cty.Value{}
			for k, e := range cv.AsValueMap() {
				p := cty.NullVal(e.Type())
				if !pv.IsNull() && pv.IsKnown() && pv.Type().IsMapType() {
					if x, ok := pv.AsValueMap()[k]; ok {
						p = x
					}
				}
				out[k] = proposedNew(bt.Block, p, e)
			}
			if len(out) > 0 {
				attrs[name] = cty.MapVal(out)
			}
		case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
			attrs[name] = proposedNew(bt.Block, pv, cv)
		}
	}
	return cty.ObjectVal(attrs)
}

// applied turns a plan into the state an apply would record: every unknown
// becomes a concrete value derived from its path.
func applied(t testing.TB, v cty.Value) cty.Value {
	t.Helper()
	out, err := cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
		if x.IsKnown() {
			return x, nil
		}
		switch ty := x.Type(); {
		case ty == cty.String:
			return cty.StringVal("applied:" + pathString(p)), nil
		case ty == cty.Number:
			return cty.NumberIntVal(42), nil
		case ty == cty.Bool:
			return cty.False, nil
		case ty.IsMapType():
			return cty.MapValEmpty(ty.ElementType()), nil
		case ty.IsListType():
			return cty.ListValEmpty(ty.ElementType()), nil
		case ty.IsSetType():
			return cty.SetValEmpty(ty.ElementType()), nil
		}
		return x, nil
	})
	require.NoError(t, err)
	return out
}

// assertPlanValid checks the rules Terraform core enforces on a plan
// (plans/objchange.AssertPlanValid): configured values are kept, and
// non-computed attributes left out stay null. Legacy (SDKv2) plans may also
// fill a default, or keep a prior zero value for a null or an empty block
// collection, which Terraform tolerates from legacy providers.
func assertPlanValid(t testing.TB, b *tfjson.SchemaBlock, rules resourceRule, path cty.Path, config, planned cty.Value) {
	t.Helper()
	if config.IsNull() || !config.IsKnown() {
		require.True(t, planned.RawEquals(config) || !config.IsKnown(), "%s: block planned %#v for config %#v", pathString(path), planned, config)
		return
	}
	for name, a := range b.Attributes {
		ap := appendPath(path, cty.GetAttrStep{Name: name})
		cv, pv := config.GetAttr(name), planned.GetAttr(name)
		switch {
		case a.WriteOnly:
			require.True(t, pv.IsNull(), "%s: write-only attribute planned non-null", pathString(ap))
		case !cv.IsNull():
			require.True(t, pv.RawEquals(cv), "%s: planned %#v, config %#v", pathString(ap), pv, cv)
		case !a.Computed:
			if rules.Legacy && pv.IsKnown() && sdkZero(pv) {
				continue
			}
			if def, ok := rules.Defaults[patternOf(ap)]; ok {
				require.True(t, pv.RawEquals(def), "%s: planned %#v, default %#v", pathString(ap), pv, def)
				continue
			}
			require.True(t, pv.IsNull(), "%s: non-computed attribute planned %#v with no config", pathString(ap), pv)
		}
	}
	for name, bt := range b.NestedBlocks {
		cv, pv := config.GetAttr(name), planned.GetAttr(name)
		bp := appendPath(path, cty.GetAttrStep{Name: name})
		if rules.Legacy && cv.IsKnown() && sdkZero(cv) && pv.IsKnown() && sdkZero(pv) {
			continue
		}
		switch bt.NestingMode {
		case tfjson.SchemaNestingModeList:
			if !cv.IsKnown() {
				continue
			}
			ce, pe := cv.AsValueSlice(), pv.AsValueSlice()
			require.Len(t, pe, len(ce), pathString(bp))
			for i := range ce {
				assertPlanValid(t, bt.Block, rules, appendPath(bp, cty.IndexStep{Key: cty.NumberIntVal(int64(i))}), ce[i], pe[i])
			}
		case tfjson.SchemaNestingModeMap:
			cm, pm := cv.AsValueMap(), pv.AsValueMap()
			require.Len(t, pm, len(cm), pathString(bp))
			for k := range cm {
				assertPlanValid(t, bt.Block, rules, appendPath(bp, cty.IndexStep{Key: cty.StringVal(k)}), cm[k], pm[k])
			}
		case tfjson.SchemaNestingModeSet:
			require.Equal(t, cv.LengthInt(), pv.LengthInt(), pathString(bp))
		default:
			assertPlanValid(t, bt.Block, rules, bp, cv, pv)
		}
	}
}

type planCase struct {
	name      string
	provider  *Config
	prior     string // JSON config of the prior object ("" = create)
	config    string
	mutate    func(t testing.TB, cfg cty.Value) cty.Value
	check     func(t *testing.T, prior, planned cty.Value, replace []cty.Path)
	wantError string
}

func runPlanCases(t *testing.T, typeName string, sch *tfjson.Schema, rules resourceRule, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pc := tc.provider
			if pc == nil {
				pc = &Config{Region: "eu-west-1", DefaultTags: map[string]string{}}
			}
			prior := cty.NullVal(ImpliedType(sch.Block))
			if tc.prior != "" {
				// The prior object is what applying the prior config
				// produced.
				pcfg := configOf(t, sch.Block, tc.prior)
				first, diags := planWith(&PlanRequest{TypeName: typeName, Schema: sch, Prior: prior, Config: pcfg,
					Proposed: proposedNew(sch.Block, prior, pcfg), Provider: pc}, rules)
				require.Empty(t, diags)
				prior = applied(t, first.Planned)
			}
			cfg := configOf(t, sch.Block, tc.config)
			if tc.mutate != nil {
				cfg = tc.mutate(t, cfg)
			}
			req := &PlanRequest{TypeName: typeName, Schema: sch, Prior: prior, Config: cfg, Proposed: proposedNew(sch.Block, prior, cfg), Provider: pc}
			plan, diags := planWith(req, rules)
			if tc.wantError != "" {
				require.Len(t, diags, 1, "diagnostics: %v", diagSummaries(diags))
				require.Contains(t, diags[0].Summary, tc.wantError)
				return
			}
			require.Empty(t, diags)
			require.Equal(t, rules.Legacy, plan.Legacy)
			assertPlanValid(t, sch.Block, rules, nil, cfg, plan.Planned)
			// Every plan must encode on the wire.
			_, err := encodeValue(plan.Planned, ImpliedType(sch.Block))
			require.NoError(t, err)
			tc.check(t, prior, plan.Planned, plan.RequiresReplace)
		})
	}
}

func attr(v cty.Value, path cty.Path) cty.Value {
	got, err := path.Apply(v)
	if err != nil {
		panic(err)
	}
	return got
}

func requireUnknown(t *testing.T, v cty.Value, paths ...cty.Path) {
	t.Helper()
	for _, p := range paths {
		require.False(t, attr(v, p).IsKnown(), "%s should be unknown, is %#v", pathString(p), attr(v, p))
	}
}

func requireVal(t *testing.T, v cty.Value, p cty.Path, want cty.Value) {
	t.Helper()
	got := attr(v, p)
	require.True(t, got.RawEquals(want), "%s: got %#v, want %#v", pathString(p), got, want)
}

func path(steps ...any) cty.Path {
	var p cty.Path
	for _, s := range steps {
		switch x := s.(type) {
		case string:
			p = p.GetAttr(x)
		case int:
			p = p.IndexInt(x)
		case cty.Value:
			p = p.Index(x)
		}
	}
	return p
}

func TestPlanGeneric(t *testing.T) {
	t.Parallel()
	sch := widgetSchema(t)
	const full = `{"name":"w","opt":"o","force":"f","code":"v1","tags":{"team":"a"},
		"lst":[{"a":"a0","inner":[{"x":"x0"}]}],
		"st":[{"k":"x"},{"k":"y"}],
		"mp":{"one":{"m":"1"}},
		"single":{"s":"s"},
		"grp":{"g":"g"}}`
	cases := []planCase{
		{
			name:   "create: computed unknown, defaults, region, nested blocks",
			config: full,
			check: func(t *testing.T, _, p cty.Value, replace []cty.Path) {
				require.Empty(t, replace)
				requireUnknown(t, p, path("id"), path("arn"), path("comp_opt"), path("version"),
					path("lst", 0, "b"), path("lst", 0, "c"), path("lst", 0, "inner", 0, "xc"),
					path("mp", cty.StringVal("one"), "mc"), path("single", "sc"), path("grp", "gc"))
				requireVal(t, p, path("opt_default"), cty.NumberIntVal(7))
				requireVal(t, p, path("lst", 0, "inner", 0, "xd"), cty.NumberIntVal(1))
				requireVal(t, p, path("region"), cty.StringVal("eu-west-1"))
				requireVal(t, p, path("tags_all"), cty.MapVal(map[string]cty.Value{"team": cty.StringVal("a")}))
				for _, e := range attr(p, path("st")).AsValueSlice() {
					require.False(t, e.GetAttr("v").IsKnown())
				}
			},
		},
		{
			name:   "update with no change plans exactly the prior state",
			prior:  full,
			config: full,
			check: func(t *testing.T, prior, p cty.Value, replace []cty.Path) {
				require.Empty(t, replace)
				require.True(t, p.RawEquals(prior), "planned %#v\nprior   %#v", p, prior)
			},
		},
		{
			name:   "update of a plain attribute keeps computed values",
			prior:  full,
			config: `{"name":"w","opt":"changed","force":"f","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, prior, p cty.Value, replace []cty.Path) {
				require.Empty(t, replace)
				requireVal(t, p, path("opt"), cty.StringVal("changed"))
				for _, k := range []cty.Path{path("id"), path("arn"), path("version"), path("lst", 0, "c"), path("single", "sc")} {
					requireVal(t, p, k, attr(prior, k))
				}
			},
		},
		{
			name:   "changing a ForceNew attribute requires replacement",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"g","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("force")}, replace)
			},
		},
		{
			name:   "removing a ForceNew attribute requires replacement",
			prior:  full,
			config: `{"name":"w","opt":"o","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("force")}, replace)
			},
		},
		{
			name:   "a ForceNew attribute inside a list block is reported with its index",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"f","code":"v1","tags":{"team":"a"},"lst":[{"a":"a1","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("lst", 0, "a")}, replace)
			},
		},
		{
			name:   "an unknown ForceNew value requires replacement",
			prior:  full,
			config: full,
			mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("force")) },
			check: func(t *testing.T, _, p cty.Value, replace []cty.Path) {
				require.Equal(t, []cty.Path{path("force")}, replace)
				requireUnknown(t, p, path("force"))
			},
		},
		{
			name:   "set elements keep the computed values of the prior element they match",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"f","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"y"},{"k":"z"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, prior, p cty.Value, _ []cty.Path) {
				var priorY cty.Value
				for _, e := range attr(prior, path("st")).AsValueSlice() {
					if e.GetAttr("k").AsString() == "y" {
						priorY = e.GetAttr("v")
					}
				}
				seen := map[string]bool{}
				for _, e := range attr(p, path("st")).AsValueSlice() {
					k := e.GetAttr("k").AsString()
					seen[k] = true
					switch k {
					case "y":
						require.True(t, e.GetAttr("v").RawEquals(priorY))
					case "z":
						require.False(t, e.GetAttr("v").IsKnown())
					}
				}
				require.Equal(t, map[string]bool{"y": true, "z": true}, seen)
			},
		},
		{
			name:   "map block elements pair by key",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"f","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"2"},"two":{"m":"3"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, prior, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("mp", cty.StringVal("one"), "mc"), attr(prior, path("mp", cty.StringVal("one"), "mc")))
				requireVal(t, p, path("mp", cty.StringVal("one"), "m"), cty.StringVal("2"))
				requireUnknown(t, p, path("mp", cty.StringVal("two"), "mc"))
			},
		},
		{
			name:   "a list element added on update is new",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"f","code":"v1","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]},{"a":"a1"}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, prior, p cty.Value, replace []cty.Path) {
				requireVal(t, p, path("lst", 0, "c"), attr(prior, path("lst", 0, "c")))
				requireUnknown(t, p, path("lst", 1, "b"), path("lst", 1, "c"))
				require.Equal(t, []cty.Path{path("lst", 1, "a")}, replace, "a new ForceNew value in a new element replaces, as in SDKv2")
			},
		},
		{
			name:   "a recomputed attribute is unknown when its input changes",
			prior:  full,
			config: `{"name":"w","opt":"o","force":"f","code":"v2","tags":{"team":"a"},"lst":[{"a":"a0","inner":[{"x":"x0"}]}],"st":[{"k":"x"},{"k":"y"}],"mp":{"one":{"m":"1"}},"single":{"s":"s"},"grp":{"g":"g"}}`,
			check: func(t *testing.T, prior, p cty.Value, _ []cty.Path) {
				requireUnknown(t, p, path("version"))
				requireVal(t, p, path("arn"), attr(prior, path("arn")))
			},
		},
		{
			name:   "unknown configured values stay unknown, write-only values are never planned",
			config: `{"name":"w","secret_wo":"hunter2","lst":[{"a":"a0"}]}`,
			mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("lst", 0, "a")) },
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireUnknown(t, p, path("lst", 0, "a"))
				requireVal(t, p, path("secret_wo"), cty.NullVal(cty.String))
			},
		},
		{
			name:   "a dynamic block with unknown for_each stays unknown",
			config: `{"name":"w","lst":[{"a":"a0"}]}`,
			mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("lst")) },
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireUnknown(t, p, path("lst"))
			},
		},
	}
	runPlanCases(t, "aws_widget", sch, widgetRules, cases)
}

func TestPlanDestroy(t *testing.T) {
	t.Parallel()
	sch := widgetSchema(t)
	ty := ImpliedType(sch.Block)
	prior := applied(t, configOf(t, sch.Block, `{"name":"w"}`))
	plan, diags := planWith(&PlanRequest{TypeName: "aws_widget", Schema: sch, Prior: prior, Config: cty.NullVal(ty), Proposed: cty.NullVal(ty), Provider: &Config{}}, widgetRules)
	require.Empty(t, diags)
	require.True(t, plan.Planned.IsNull())
	require.Empty(t, plan.RequiresReplace)
}

func TestPlanTagsAll(t *testing.T) {
	t.Parallel()
	sch := widgetSchema(t)
	tags := func(m map[string]string) cty.Value { return stringMap(m) }
	cases := []planCase{
		{
			name: "no tags and no default tags: known after apply", config: `{"name":"w"}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) { requireUnknown(t, p, path("tags_all")) },
		},
		{
			name:     "default tags only",
			provider: &Config{Region: "us-east-1", DefaultTags: map[string]string{"project": "taskpipe"}},
			config:   `{"name":"w"}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("tags_all"), tags(map[string]string{"project": "taskpipe"}))
			},
		},
		{
			name:     "resource tags win over default tags; ignore_tags drops keys",
			provider: &Config{Region: "us-east-1", DefaultTags: map[string]string{"project": "taskpipe", "env": "dev"}, IgnoreTagKeys: []string{"env"}, IgnoreTagKeyPrefixes: []string{"aws:"}},
			config:   `{"name":"w","tags":{"project":"other","aws:x":"y","team":"a"}}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("tags_all"), tags(map[string]string{"project": "other", "team": "a"}))
			},
		},
		{
			name: "an empty tag value leaves tags_all to the apply", config: `{"name":"w","tags":{"team":""}}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) { requireUnknown(t, p, path("tags_all")) },
		},
		{
			name:     "tags that are all ignored plan an empty tags_all",
			provider: &Config{Region: "us-east-1", IgnoreTagKeys: []string{"team"}},
			config:   `{"name":"w","tags":{"team":""}}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("tags_all"), cty.MapValEmpty(cty.String))
			},
		},
		{
			name:   "unknown tags make tags_all unknown",
			config: `{"name":"w","tags":{"team":"a"}}`,
			mutate: func(t testing.TB, c cty.Value) cty.Value { return withUnknown(t, c, path("tags")) },
			check:  func(t *testing.T, _, p cty.Value, _ []cty.Path) { requireUnknown(t, p, path("tags_all")) },
		},
		{
			name:   "removing every tag plans an empty tags_all",
			prior:  `{"name":"w","tags":{"team":"a"}}`,
			config: `{"name":"w"}`,
			check: func(t *testing.T, _, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("tags_all"), cty.MapValEmpty(cty.String))
			},
		},
		{
			name:   "unchanged and untagged keeps the prior tags_all",
			prior:  `{"name":"w"}`,
			config: `{"name":"w"}`,
			check: func(t *testing.T, prior, p cty.Value, _ []cty.Path) {
				requireVal(t, p, path("tags_all"), attr(prior, path("tags_all")))
			},
		},
	}
	runPlanCases(t, "aws_widget", sch, widgetRules, cases)
}

// SDKv2 state stores "" / 0 / false for unset attributes and cannot tell a
// null block list from an empty one; re-planning such state must show no
// change, or every state the real provider wrote would plan an update.
func TestPlanLegacyZeroValues(t *testing.T) {
	t.Parallel()
	sch := widgetSchema(t)
	cfg := configOf(t, sch.Block, `{"name":"w","force":"f"}`)
	first, diags := planWith(&PlanRequest{TypeName: "aws_widget", Schema: sch, Prior: cty.NullVal(ImpliedType(sch.Block)), Config: cfg,
		Proposed: proposedNew(sch.Block, cty.NullVal(ImpliedType(sch.Block)), cfg), Provider: &Config{}}, widgetRules)
	require.Empty(t, diags)
	prior := applied(t, first.Planned)
	prior = setAttr(prior, "opt", cty.StringVal(""))
	prior = setAttr(prior, "code", cty.StringVal(""))
	prior = setAttr(prior, "lst", cty.NullVal(prior.GetAttr("lst").Type()))

	for _, legacy := range []bool{true, false} {
		rules := widgetRules
		rules.Legacy = legacy
		plan, diags := planWith(&PlanRequest{TypeName: "aws_widget", Schema: sch, Prior: prior, Config: cfg, Proposed: proposedNew(sch.Block, prior, cfg), Provider: &Config{}}, rules)
		require.Empty(t, diags)
		require.Empty(t, plan.RequiresReplace)
		if legacy {
			require.True(t, plan.Planned.RawEquals(prior), "legacy: planned %#v\nprior %#v", plan.Planned, prior)
			continue
		}
		// A framework-style plan follows the configuration exactly.
		requireVal(t, plan.Planned, path("opt"), cty.NullVal(cty.String))
		requireVal(t, plan.Planned, path("lst"), cty.ListValEmpty(prior.GetAttr("lst").Type().ElementType()))
	}
}
