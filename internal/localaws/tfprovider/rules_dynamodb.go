package tfprovider

import (
	"fmt"
	"sort"
	"strings"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// aws_dynamodb_table is an SDKv2 resource. Source:
// hashicorp/terraform-provider-aws internal/service/dynamodb/table.go
// (commit f583d818dd34f1ee2cdd6664b33ef588c860412a for the parts unchanged
// since; 6.x adds key_schema and Optional+Computed hash_key):
//   - billing_mode Default PROVISIONED, enum BillingMode; ttl.enabled
//     Default false; table_class Default STANDARD (its Read records
//     STANDARD when DescribeTable has no TableClassSummary);
//   - ForceNew: name, hash_key, range_key, local_secondary_index,
//     restore_source_name, restore_to_latest_time, restore_date_time;
//   - enums: attribute.type ScalarAttributeType (S|N|B), stream_view_type
//     ("" or StreamViewType), projection_type, table_class;
//   - CustomizeDiff: validStreamSpec (stream_view_type is needed when
//     stream_enabled = true) and validateTableAttributes (every attribute
//     must be a key of the table or an index, and every key must be a
//     defined attribute).
//
// Not modelled: the provisioned-throughput checks. deletion_protection_enabled
// has no Default (Read records the API's false, which SDKv2 treats as unset).
func init() {
	resourceRules["aws_dynamodb_table"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"billing_mode":  cty.StringVal(string(ddbtypes.BillingModeProvisioned)),
			"table_class":   cty.StringVal(string(ddbtypes.TableClassStandard)),
			"ttl.*.enabled": cty.False,
		},
		ForceNew: []string{
			"name", "hash_key", "range_key", "local_secondary_index",
			"restore_source_name", "restore_to_latest_time", "restore_date_time",
		},
		Validate: []check{
			{Path: "billing_mode", Fn: enumOf(ddbtypes.BillingMode("").Values())},
			{Path: "attribute.*.type", Fn: enumOf(ddbtypes.ScalarAttributeType("").Values())},
			{Path: "stream_view_type", Fn: anyOf(stringInSlice(""), enumOf(ddbtypes.StreamViewType("").Values()))},
			{Path: "global_secondary_index.*.projection_type", Fn: enumOf(ddbtypes.ProjectionType("").Values())},
			{Path: "local_secondary_index.*.projection_type", Fn: enumOf(ddbtypes.ProjectionType("").Values())},
			{Path: "table_class", Fn: enumOf(ddbtypes.TableClass("").Values())},
			{Path: "point_in_time_recovery.*.recovery_period_in_days", Fn: intBetween(1, 35)},
		},
		Customize: customizeTable,
	}
}

func customizeTable(req *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	var diags []*tfprotov5.Diagnostic
	planned = planRecoveryPeriod(req, planned)
	// validStreamSpec: with streams on, the view type must be known and
	// non-empty. An Optional+Computed value left out is unknown on create,
	// which the SDK's GetOk reports as unset; on update it is the prior one.
	if se := planned.GetAttr("stream_enabled"); knownTrue(se) {
		switch vt := planned.GetAttr("stream_view_type"); {
		case !vt.IsKnown() && !req.Config.GetAttr("stream_view_type").IsKnown():
			// Configured from a value not known yet: judged at apply.
		case !vt.IsKnown() || vt.IsNull():
			diags = append(diags, errorDiag("stream_view_type is required when stream_enabled = true", "", cty.GetAttrPath("stream_view_type")))
		case vt.AsString() == "":
			diags = append(diags, errorDiag("stream_view_type must be non-empty when stream_enabled = true", "", cty.GetAttrPath("stream_view_type")))
		}
	}
	// validateTableAttributes.
	attrs := planned.GetAttr("attribute")
	if !attrs.IsWhollyKnown() || attrs.IsNull() {
		return planned, diags
	}
	keys, ok := tableKeys(planned)
	if !ok {
		return planned, diags
	}
	defined := map[string]bool{}
	for _, a := range attrs.AsValueSlice() {
		defined[a.GetAttr("name").AsString()] = true
	}
	var unused, unmatched []string
	for name := range defined {
		if !keys[name] {
			unused = append(unused, name)
		}
	}
	for name := range keys {
		if !defined[name] {
			unmatched = append(unmatched, name)
		}
	}
	sort.Strings(unused)
	sort.Strings(unmatched)
	if len(unused) > 0 {
		diags = append(diags, errorDiag(fmt.Sprintf("all attributes must be indexed. Unused attributes: [%s]", quoteJoin(unused)), "", cty.GetAttrPath("attribute")))
	}
	if len(unmatched) > 0 {
		diags = append(diags, errorDiag(fmt.Sprintf("all indexes must match a defined attribute. Unmatched indexes: [%s]", quoteJoin(unmatched)), "", cty.GetAttrPath("attribute")))
	}
	return planned, diags
}

// tableKeys collects the key attribute names of the table and its indexes;
// ok is false when any of them is unknown at plan time.
func tableKeys(planned cty.Value) (map[string]bool, bool) {
	keys := map[string]bool{}
	add := func(v cty.Value) bool {
		if !v.IsKnown() {
			return false
		}
		if !v.IsNull() && v.AsString() != "" {
			keys[v.AsString()] = true
		}
		return true
	}
	if !add(planned.GetAttr("hash_key")) || !add(planned.GetAttr("range_key")) {
		return nil, false
	}
	for _, blk := range []string{"global_secondary_index", "local_secondary_index"} {
		idx := planned.GetAttr(blk)
		if !idx.IsWhollyKnown() {
			return nil, false
		}
		if idx.IsNull() {
			continue
		}
		for _, i := range idx.AsValueSlice() {
			for _, k := range []string{"hash_key", "range_key"} {
				if i.Type().HasAttribute(k) && !add(i.GetAttr(k)) {
					return nil, false
				}
			}
			if i.Type().HasAttribute("key_schema") {
				if ks := i.GetAttr("key_schema"); !ks.IsNull() {
					for _, e := range ks.AsValueSlice() {
						if !add(e.GetAttr("attribute_name")) {
							return nil, false
						}
					}
				}
			}
		}
	}
	return keys, true
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " ")
}

// planRecoveryPeriod: flattenPITR records recovery_period_in_days only
// while point-in-time recovery is enabled (table.go), so turning it on or
// off changes the Optional+Computed period unless the configuration sets
// it; the plan says so instead of keeping the prior value.
func planRecoveryPeriod(req *PlanRequest, planned cty.Value) cty.Value {
	if req.Prior.IsNull() {
		return planned
	}
	pl, pr, cf := planned.GetAttr("point_in_time_recovery"), req.Prior.GetAttr("point_in_time_recovery"), req.Config.GetAttr("point_in_time_recovery")
	if !pl.IsWhollyKnown() || pl.IsNull() || pl.LengthInt() != 1 || pr.IsNull() || !pr.IsKnown() || pr.LengthInt() != 1 {
		return planned
	}
	newE, oldE := pl.Index(cty.NumberIntVal(0)), pr.Index(cty.NumberIntVal(0))
	if newE.GetAttr("enabled").RawEquals(oldE.GetAttr("enabled")) {
		return planned
	}
	if cf.IsKnown() && !cf.IsNull() && cf.LengthInt() == 1 && !cf.Index(cty.NumberIntVal(0)).GetAttr("recovery_period_in_days").IsNull() {
		return planned
	}
	attrs := newE.AsValueMap()
	attrs["recovery_period_in_days"] = cty.UnknownVal(cty.Number)
	return setAttr(planned, "point_in_time_recovery", cty.ListVal([]cty.Value{cty.ObjectVal(attrs)}))
}
