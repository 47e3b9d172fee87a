package tfprovider

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func TestSettle(t *testing.T) {
	t.Parallel()
	sch := realCatalog(t).Resources["aws_dynamodb_table"]
	b := sch.Block
	ref := objectOf(b, map[string]cty.Value{
		"name": sv("t"), "table_class": sv("STANDARD"), "range_key": cty.NullVal(cty.String),
		"attribute": blockOf(nestedType(b, "attribute"), map[string]cty.Value{"name": sv("pk"), "type": sv("S")}),
		"ttl":       blockOf(nestedType(b, "ttl"), map[string]cty.Value{"enabled": cty.False, "attribute_name": cty.NullVal(cty.String)}),
		"timeouts":  cty.ObjectVal(map[string]cty.Value{"create": sv("1m"), "delete": cty.NullVal(cty.String), "update": cty.NullVal(cty.String)}),
	})
	got := objectOf(b, map[string]cty.Value{
		"name":        sv("t"),
		"table_class": sv("STANDARD"),
		"range_key":   sv(""),                     // SDKv2 zero where the plan had null
		"arn":         cty.UnknownVal(cty.String), // left unknown by the read
		"hash_key":    sv("pk"),                   // a real value
		"attribute":   blockOf(nestedType(b, "attribute"), map[string]cty.Value{"name": sv("pk"), "type": sv("S")}),
		"ttl":         blockOf(nestedType(b, "ttl"), map[string]cty.Value{"enabled": cty.False, "attribute_name": sv("")}),
		"replica":     cty.NullVal(ImpliedType(b).AttributeType("replica")), // a null block
	})
	out := settle(b, got, ref)
	require.True(t, out.GetAttr("range_key").IsNull(), "zero where the reference is null stays null")
	require.True(t, out.GetAttr("arn").IsNull(), "unknowns left over become null")
	require.Equal(t, "pk", out.GetAttr("hash_key").AsString())
	require.True(t, out.GetAttr("ttl").Index(cty.NumberIntVal(0)).GetAttr("attribute_name").IsNull())
	require.True(t, out.GetAttr("replica").IsKnown() && !out.GetAttr("replica").IsNull() && out.GetAttr("replica").LengthInt() == 0,
		"blocks are never null")
	require.True(t, out.GetAttr("timeouts").RawEquals(ref.GetAttr("timeouts")), "timeouts are the reference's")

	// A real change survives: the reference's zero does not mask it.
	changedVal := settle(b, with(got, map[string]cty.Value{"table_class": sv("STANDARD_INFREQUENT_ACCESS")}), ref)
	require.Equal(t, "STANDARD_INFREQUENT_ACCESS", changedVal.GetAttr("table_class").AsString())
}

func TestNames(t *testing.T) {
	t.Parallel()
	id := uniqueID("work-")
	require.Len(t, id, len("work-")+uniqueIDSuffixLength)
	require.NotEqual(t, id, uniqueID("work-"), "the counter makes ids unique")
	tests := []struct {
		name, prefix, suffix string
		wantPrefix           cty.Value
	}{
		{name: generatedName("", "work-", ""), wantPrefix: sv("work-")},
		{name: generatedName("", "work-", ".fifo"), suffix: ".fifo", wantPrefix: sv("work-")},
		{name: generatedName("given", "ignored-", ""), wantPrefix: cty.NullVal(cty.String)},
		{name: "terraform-queue", wantPrefix: cty.NullVal(cty.String)},
		{name: generatedName("", "", ""), wantPrefix: sv("terraform-")},
	}
	for _, tc := range tests {
		got := namePrefixFromName(tc.name, tc.suffix)
		require.True(t, got.RawEquals(tc.wantPrefix), "%s: got %#v", tc.name, got)
	}
	require.Equal(t, "given", generatedName("given", "ignored-", ".fifo"))
}

func TestJSONState(t *testing.T) {
	t.Parallel()
	ref := sv(`{"b": 2, "a": [1, "x"]}`)
	require.True(t, jsonState(`{"a":[1,"x"],"b":2}`, ref).RawEquals(ref), "the same document keeps the configuration's text")
	require.Equal(t, `{"a":[1,"x"],"b":3}`, jsonState(`{"b":3,"a":[1,"x"]}`, ref).AsString(), "a different one is normalised")
	require.Equal(t, "", jsonState("", cty.UnknownVal(cty.String)).AsString())
	require.Equal(t, "not json", jsonState("not json", cty.NullVal(cty.String)).AsString())
}

func TestTags(t *testing.T) {
	t.Parallel()
	pc := &Config{DefaultTags: map[string]string{"env": "local", "team": "x"}, IgnoreTagKeys: []string{"ignored"}}
	tags, all := tagsOut(pc, map[string]string{"env": "local", "team": "y", "own": "1", "ignored": "z", "aws:cloudformation:stack": "s"})
	require.True(t, all.RawEquals(stringMap(map[string]string{"env": "local", "team": "y", "own": "1"})), "%#v", all)
	require.True(t, tags.RawEquals(stringMap(map[string]string{"team": "y", "own": "1"})), "a default tag with another value is the resource's own: %#v", tags)

	planned := cty.ObjectVal(map[string]cty.Value{"tags": stringMap(map[string]string{"a": "1"}), "tags_all": cty.UnknownVal(cty.Map(cty.String))})
	require.Equal(t, map[string]string{"a": "1", "env": "local", "team": "x"}, tagsIn(planned, pc), "unknown tags_all is merged here")

	set, remove := tagDiff(map[string]string{"a": "1", "b": "2", "c": "3"}, map[string]string{"a": "1", "b": "20", "d": "4"})
	require.Equal(t, map[string]string{"b": "20", "d": "4"}, set)
	require.Equal(t, []string{"c"}, remove)
}

func TestResourceIDs(t *testing.T) {
	t.Parallel()
	role, pol, err := rolePolicyID("fn-lambda:fn-policy")
	require.NoError(t, err)
	require.Equal(t, []string{"fn-lambda", "fn-policy"}, []string{role, pol})
	for _, bad := range []string{"", "role", ":p", "r:"} {
		_, _, err := rolePolicyID(bad)
		require.Error(t, err, bad)
	}
	group, name, err := scheduleID("default/reconciler")
	require.NoError(t, err)
	require.Equal(t, []string{"default", "reconciler"}, []string{group, name})
	_, _, err = scheduleID("reconciler")
	require.ErrorContains(t, err, "expected group-name/schedule-name")

	for id, want := range map[string][2]string{
		"fn":      {"fn", ""},
		"fn:live": {"fn", "live"},
		"arn:aws:lambda:us-east-1:000000000000:function:fn":      {"arn:aws:lambda:us-east-1:000000000000:function:fn", ""},
		"arn:aws:lambda:us-east-1:000000000000:function:fn:live": {"arn:aws:lambda:us-east-1:000000000000:function:fn", "live"},
	} {
		f, q := parseInvokeConfigID(id)
		require.Equal(t, want, [2]string{f, q}, id)
		require.Equal(t, id, invokeConfigID(f, q))
	}

	n, err := queueNameFromURL("http://127.0.0.1:4566/000000000000/work")
	require.NoError(t, err)
	require.Equal(t, "work", n)
	_, err = queueNameFromURL("http://127.0.0.1:4566/work")
	require.ErrorContains(t, err, "incorrect format")

	fnARN := "arn:aws:lambda:us-east-1:000000000000:function:scraper"
	for ref, want := range map[string]bool{"scraper": true, fnARN: true, "000000000000:function:scraper": true, "other": false} {
		require.Equal(t, want, sameFunction(ref, fnARN), ref)
	}
	require.Equal(t, "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/"+fnARN+"/invocations", invokeARN(fnARN, "2015-03-31", "invocations"))
}

func TestUnsupportedSet(t *testing.T) {
	t.Parallel()
	sch := realCatalog(t).Resources["aws_lambda_function"]
	cfg := configOf(t, sch.Block, `{"function_name":"f","role":"r","vpc_config":[{"subnet_ids":["s"],"security_group_ids":["g"]}]}`)
	err := unsupportedSet("aws_lambda_function", cfg, functionUnsupported, sortedKeys(functionUnsupported)...)
	require.EqualError(t, err, "aws_lambda_function: vpc_config is not supported by the taskpipe local provider (the local cloud has no VPCs)")
	plain := configOf(t, sch.Block, `{"function_name":"f","role":"r","layers":[],"kms_key_arn":""}`)
	require.NoError(t, unsupportedSet("aws_lambda_function", plain, functionUnsupported, sortedKeys(functionUnsupported)...),
		"empty and zero values are not uses")
	require.ErrorContains(t, (&functionHandler{}).check(configOf(t, sch.Block, `{"function_name":"f","role":"r","package_type":"Image"}`)),
		"package_type = Image is not supported")
}

func TestHandledTypesHaveSchemas(t *testing.T) {
	t.Parallel()
	cat := realCatalog(t)
	for _, name := range HandledResourceTypes() {
		_, ok := cat.Resources[name]
		require.True(t, ok, name)
		_, ok = resourceRules[name]
		require.True(t, ok, "%s has plan rules", name)
	}
	_, err := NewServer(cat, WithAWSHandlers())
	require.NoError(t, err)
}

// FuzzResourceIDs feeds import IDs (user input) to the ID parsers: they
// never panic, and what they accept joins back to the same ID.
func FuzzResourceIDs(f *testing.F) {
	for _, s := range []string{"role:policy", "default/reconciler", "fn:live", "arn:aws:lambda:us-east-1:000000000000:function:fn:1",
		"http://127.0.0.1:4566/000000000000/work", "", ":", "/", "a:b:c", "arn:aws:lambda"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if r, p, err := rolePolicyID(id); err == nil && r+":"+p != id {
			t.Fatalf("rolePolicyID(%q) = %q, %q", id, r, p)
		}
		if g, n, err := scheduleID(id); err == nil && g+"/"+n != id {
			t.Fatalf("scheduleID(%q) = %q, %q", id, g, n)
		}
		if fn, q := parseInvokeConfigID(id); invokeConfigID(fn, q) != id && !strings.HasSuffix(id, ":") {
			t.Fatalf("parseInvokeConfigID(%q) = %q, %q", id, fn, q)
		}
		_, _ = queueNameFromURL(id)
		_ = namePrefixFromName(id, ".fifo")
	})
}

func TestCreatedKeepsTheObject(t *testing.T) {
	t.Parallel()
	sch := realCatalog(t).Resources["aws_sqs_queue"]
	planned := with(objectOf(sch.Block, map[string]cty.Value{"name": sv("q")}), map[string]cty.Value{"arn": cty.UnknownVal(cty.String)})
	req := &ApplyRequest{Schema: sch, Prior: cty.NullVal(planned.Type()), Planned: planned}
	v, err := created(req, "http://q", errors.New("wait failed"))
	require.EqualError(t, err, "wait failed")
	require.Equal(t, "http://q", v.GetAttr("id").AsString(), "a failed create still records the object, for Terraform to taint")
	require.True(t, v.GetAttr("arn").IsNull())
	req.Prior = with(planned, map[string]cty.Value{"id": sv("http://q"), "arn": sv("arn")})
	v, _ = created(req, "http://q", errors.New("update failed"))
	require.True(t, v.RawEquals(req.Prior), "a failed update keeps the prior state")
}

// planFor plans config against prior with the type's real rules.
func planFor(t *testing.T, typeName string, prior cty.Value, config string) *Plan {
	t.Helper()
	sch := realCatalog(t).Resources[typeName]
	cfg := configOf(t, sch.Block, config)
	plan, diags := PlanChange(&PlanRequest{TypeName: typeName, Schema: sch, Prior: prior, Config: cfg,
		Proposed: proposedNew(sch.Block, prior, cfg), Provider: &Config{Region: "us-east-1", DefaultTags: map[string]string{}}})
	require.Empty(t, diags)
	return plan
}

// The planner fixes that apply needs: imported state (nulls where SDKv2
// writes zero values) plans no replacement; new objects plan empty blocks,
// never null ones; updates plan the attributes AWS moves as unknown.
func TestPlanFixesForApply(t *testing.T) {
	t.Parallel()
	sch := realCatalog(t).Resources["aws_sqs_queue"]
	imported := with(objectOf(sch.Block, map[string]cty.Value{
		"id": sv("http://q"), "name": sv("q"), "url": sv("http://q"), "arn": sv("arn:q"), "region": sv("us-east-1"),
		"visibility_timeout_seconds": iv(30), "message_retention_seconds": iv(345600), "max_message_size": iv(262144),
	}), nil)
	p := planFor(t, "aws_sqs_queue", imported, `{"name":"q"}`)
	require.Empty(t, p.RequiresReplace, "fifo_queue null (imported) and false (default) are the same to SDKv2")
	require.True(t, p.Planned.GetAttr("fifo_queue").IsNull())
	require.True(t, p.Planned.GetAttr("delay_seconds").IsNull())

	created := planFor(t, "aws_iam_role", cty.NullVal(ImpliedType(realCatalog(t).Resources["aws_iam_role"].Block)),
		`{"name":"r","assume_role_policy":"{}"}`)
	ip := created.Planned.GetAttr("inline_policy")
	require.True(t, ip.IsKnown() && !ip.IsNull() && ip.LengthInt() == 0, "a new object's absent blocks are empty, not null")

	esm := realCatalog(t).Resources["aws_lambda_event_source_mapping"]
	prior := objectOf(esm.Block, map[string]cty.Value{
		"id": sv("u"), "function_name": sv("f"), "event_source_arn": sv("arn:aws:sqs:us-east-1:000000000000:q"),
		"batch_size": iv(1), "enabled": cty.True, "last_modified": sv("2026-01-01T00:00:00Z"), "state": sv("Enabled"),
		"region": sv("us-east-1"),
	})
	p = planFor(t, "aws_lambda_event_source_mapping", prior, `{"function_name":"f","event_source_arn":"arn:aws:sqs:us-east-1:000000000000:q","batch_size":5}`)
	require.False(t, p.Planned.GetAttr("last_modified").IsKnown(), "UpdateEventSourceMapping moves LastModified")
	require.False(t, p.Planned.GetAttr("state").IsKnown())
}
