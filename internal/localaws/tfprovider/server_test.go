package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func configure(t testing.TB, srv *Server, providerJSON string) []*tfprotov5.Diagnostic {
	t.Helper()
	b := srv.cat.Provider.Block
	dv, err := encodeValue(configOf(t, b, providerJSON), ImpliedType(b))
	require.NoError(t, err)
	resp, err := srv.ConfigureProvider(context.Background(), &tfprotov5.ConfigureProviderRequest{Config: dv})
	require.NoError(t, err)
	return resp.Diagnostics
}

func dyn(t testing.TB, v cty.Value) *tfprotov5.DynamicValue {
	t.Helper()
	dv, err := encodeValue(v, v.Type())
	require.NoError(t, err)
	return dv
}

func TestServerSchemaAndMetadata(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	ctx := context.Background()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov5.GetProviderSchemaRequest{})
	require.NoError(t, err)
	require.Empty(t, sch.Diagnostics)
	require.Len(t, sch.ResourceSchemas, 113)
	require.Len(t, sch.DataSourceSchemas, 14)
	require.NotNil(t, sch.Provider)
	meta, err := srv.GetMetadata(ctx, &tfprotov5.GetMetadataRequest{})
	require.NoError(t, err)
	require.Len(t, meta.Resources, 113)
	require.Len(t, meta.DataSources, 14)

	bad := Unavailable(errors.New("schema: /x.json does not exist"))
	sch, err = bad.GetProviderSchema(ctx, &tfprotov5.GetProviderSchemaRequest{})
	require.NoError(t, err)
	require.Len(t, sch.Diagnostics, 1)
	require.Contains(t, sch.Diagnostics[0].Detail, "/x.json does not exist")
}

func TestServerConfigureRegion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cfg string
		env       map[string]string
		wantErr   string
		want      string
	}{
		{"block", `{"region":"eu-west-1"}`, nil, "", "eu-west-1"},
		{"AWS_REGION", `{}`, map[string]string{"AWS_REGION": "ap-south-1"}, "", "ap-south-1"},
		{"AWS_DEFAULT_REGION", `{}`, map[string]string{"AWS_DEFAULT_REGION": "us-west-2"}, "", "us-west-2"},
		{"missing", `{}`, nil, "Missing region value", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, tc.env)
			diags := configure(t, srv, tc.cfg)
			if tc.wantErr != "" {
				require.Len(t, diags, 1)
				require.Equal(t, tc.wantErr, diags[0].Summary)
				return
			}
			require.Empty(t, diags)
			require.Equal(t, tc.want, srv.config().Region)
		})
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	b := providerSchema().Block
	v := configOf(t, b, `{"region":"us-east-1","access_key":"AK","secret_key":"SK","skip_metadata_api_check":"true",
		"default_tags":[{"tags":{"project":"taskpipe","env":"test"}}],
		"ignore_tags":[{"keys":["ignored"],"key_prefixes":["kubernetes.io/"]}],
		"endpoints":[{"sqs":"http://127.0.0.1:1","cloudwatchlogs":"http://127.0.0.1:2","eventbridge":"http://127.0.0.1:3"}]}`)
	env := map[string]string{"AWS_ENDPOINT_URL": "http://global", "AWS_ENDPOINT_URL_LAMBDA": "http://lambda"}
	cfg, err := parseConfig(v, func(k string) string { return env[k] }, []string{"TF_AWS_DEFAULT_TAGS_env=fromenv", "TF_AWS_DEFAULT_TAGS_owner=ops"})
	require.NoError(t, err)
	require.Equal(t, "AK", cfg.AccessKey)
	require.True(t, cfg.SkipMetadataAPICheck)
	// The block wins over the environment; environment tags the block lacks stay.
	require.Equal(t, map[string]string{"project": "taskpipe", "env": "test", "owner": "ops"}, cfg.DefaultTags)
	require.True(t, cfg.ignoredTag("ignored"))
	require.True(t, cfg.ignoredTag("kubernetes.io/name"))
	require.False(t, cfg.ignoredTag("project"))
	// Aliases resolve to their service package.
	require.Equal(t, "http://127.0.0.1:1", cfg.Endpoint("sqs", func(k string) string { return env[k] }))
	require.Equal(t, "http://127.0.0.1:2", cfg.Endpoint("logs", func(k string) string { return env[k] }))
	require.Equal(t, "http://127.0.0.1:3", cfg.Endpoint("events", func(k string) string { return env[k] }))
	require.Equal(t, "http://lambda", cfg.Endpoint("lambda", func(k string) string { return env[k] }))
	require.Equal(t, "http://global", cfg.Endpoint("dynamodb", func(k string) string { return env[k] }))

	_, err = parseConfig(configOf(t, b, `{"skip_metadata_api_check":"maybe"}`), func(string) string { return "" }, nil)
	require.ErrorContains(t, err, "skip_metadata_api_check")
}

func TestServerPlanOverProtocol(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	require.Empty(t, configure(t, srv, `{"region":"us-east-1","default_tags":[{"tags":{"project":"taskpipe"}}]}`))
	sch := srv.cat.Resources["aws_pipes_pipe"]
	ty := ImpliedType(sch.Block)
	const cfgJSON = `{"name":"p","role_arn":"r","source":"s","target":"q","source_parameters":[{"dynamodb_stream_parameters":[{"starting_position":"%s"}]}]}`
	ctx := context.Background()

	cfg := configOf(t, sch.Block, fmt.Sprintf(cfgJSON, "LATEST"))
	resp, err := srv.PlanResourceChange(ctx, &tfprotov5.PlanResourceChangeRequest{
		TypeName: "aws_pipes_pipe", PriorState: dyn(t, cty.NullVal(ty)),
		ProposedNewState: dyn(t, proposedNew(sch.Block, cty.NullVal(ty), cfg)), Config: dyn(t, cfg),
		PriorPrivate: []byte("private"),
	})
	require.NoError(t, err)
	require.Empty(t, resp.Diagnostics)
	require.True(t, resp.UnsafeToUseLegacyTypeSystem, "SDKv2 resources declare the legacy type system")
	require.Equal(t, []byte("private"), resp.PlannedPrivate)
	planned, err := decodeValue(resp.PlannedState, ty)
	require.NoError(t, err)
	requireVal(t, planned, path("tags_all"), cty.MapVal(map[string]cty.Value{"project": cty.StringVal("taskpipe")}))

	prior := applied(t, planned)
	cfg2 := configOf(t, sch.Block, fmt.Sprintf(cfgJSON, "TRIM_HORIZON"))
	resp, err = srv.PlanResourceChange(ctx, &tfprotov5.PlanResourceChangeRequest{
		TypeName: "aws_pipes_pipe", PriorState: dyn(t, prior),
		ProposedNewState: dyn(t, proposedNew(sch.Block, prior, cfg2)), Config: dyn(t, cfg2),
	})
	require.NoError(t, err)
	require.Empty(t, resp.Diagnostics)
	want := tftypes.NewAttributePath().WithAttributeName("source_parameters").WithElementKeyInt(0).
		WithAttributeName("dynamodb_stream_parameters").WithElementKeyInt(0).WithAttributeName("starting_position")
	require.Len(t, resp.RequiresReplace, 1)
	require.True(t, resp.RequiresReplace[0].Equal(want), "got %s", resp.RequiresReplace[0])

	resp, err = srv.PlanResourceChange(ctx, &tfprotov5.PlanResourceChangeRequest{TypeName: "aws_nope"})
	require.NoError(t, err)
	require.Equal(t, "Unknown resource type", resp.Diagnostics[0].Summary)
}

func TestServerApplyWithoutHandler(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	ty := ImpliedType(srv.cat.Resources["aws_sqs_queue"].Block)
	planned := applied(t, configOf(t, srv.cat.Resources["aws_sqs_queue"].Block, `{"name":"q"}`))
	resp, err := srv.ApplyResourceChange(context.Background(), &tfprotov5.ApplyResourceChangeRequest{
		TypeName: "aws_sqs_queue", PriorState: dyn(t, cty.NullVal(ty)), PlannedState: dyn(t, planned), Config: dyn(t, planned),
	})
	require.NoError(t, err)
	require.Len(t, resp.Diagnostics, 1)
	require.Contains(t, resp.Diagnostics[0].Detail, "the taskpipe local provider cannot apply yet")
	got, err := decodeValue(resp.NewState, ty)
	require.NoError(t, err)
	require.True(t, got.IsNull(), "a failed create leaves no object behind")

	// Read returns the prior state unchanged; import is refused.
	state := dyn(t, planned)
	read, err := srv.ReadResource(context.Background(), &tfprotov5.ReadResourceRequest{TypeName: "aws_sqs_queue", CurrentState: state, Private: []byte("p")})
	require.NoError(t, err)
	require.Empty(t, read.Diagnostics)
	require.Equal(t, state, read.NewState)
	require.Equal(t, []byte("p"), read.Private)
	imp, err := srv.ImportResourceState(context.Background(), &tfprotov5.ImportResourceStateRequest{TypeName: "aws_sqs_queue", ID: "x"})
	require.NoError(t, err)
	require.Contains(t, imp.Diagnostics[0].Detail, "cannot import aws_sqs_queue")
}

// recorder is a ResourceHandler that remembers its calls.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) note(s string) { r.mu.Lock(); r.calls = append(r.calls, s); r.mu.Unlock() }

func (r *recorder) Create(_ context.Context, req *ApplyRequest) (cty.Value, error) {
	r.note("create " + req.Provider.Region)
	return setAttr(req.Planned, "arn", cty.StringVal("arn:created")), nil
}

func (r *recorder) Read(_ context.Context, req *ReadRequest) (cty.Value, error) {
	r.note("read")
	return cty.NullVal(req.Current.Type()), nil
}

func (r *recorder) Update(_ context.Context, req *ApplyRequest) (cty.Value, error) {
	r.note("update")
	return req.Planned, nil
}

func (r *recorder) Delete(context.Context, *ApplyRequest) error {
	r.note("delete")
	return errors.New("delete refused")
}

func TestServerHandlers(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := newTestServer(t, nil, WithHandler("aws_sqs_queue", rec))
	require.Empty(t, configure(t, srv, `{"region":"eu-central-1"}`))
	ty := ImpliedType(srv.cat.Resources["aws_sqs_queue"].Block)
	obj := applied(t, configOf(t, srv.cat.Resources["aws_sqs_queue"].Block, `{"name":"q"}`))
	ctx := context.Background()

	resp, err := srv.ApplyResourceChange(ctx, &tfprotov5.ApplyResourceChangeRequest{TypeName: "aws_sqs_queue", PriorState: dyn(t, cty.NullVal(ty)), PlannedState: dyn(t, obj), Config: dyn(t, obj)})
	require.NoError(t, err)
	require.Empty(t, resp.Diagnostics)
	got, err := decodeValue(resp.NewState, ty)
	require.NoError(t, err)
	requireVal(t, got, path("arn"), cty.StringVal("arn:created"))

	_, err = srv.ApplyResourceChange(ctx, &tfprotov5.ApplyResourceChangeRequest{TypeName: "aws_sqs_queue", PriorState: dyn(t, obj), PlannedState: dyn(t, obj), Config: dyn(t, obj)})
	require.NoError(t, err)

	resp, err = srv.ApplyResourceChange(ctx, &tfprotov5.ApplyResourceChangeRequest{TypeName: "aws_sqs_queue", PriorState: dyn(t, obj), PlannedState: dyn(t, cty.NullVal(ty)), Config: dyn(t, cty.NullVal(ty))})
	require.NoError(t, err)
	require.Contains(t, resp.Diagnostics[0].Detail, "delete refused")
	got, err = decodeValue(resp.NewState, ty)
	require.NoError(t, err)
	require.True(t, got.RawEquals(obj), "a failed delete keeps the object in state")

	read, err := srv.ReadResource(ctx, &tfprotov5.ReadResourceRequest{TypeName: "aws_sqs_queue", CurrentState: dyn(t, obj)})
	require.NoError(t, err)
	got, err = decodeValue(read.NewState, ty)
	require.NoError(t, err)
	require.True(t, got.IsNull(), "a handler reports a vanished object as null")
	require.Equal(t, []string{"create eu-central-1", "update", "delete", "read"}, rec.calls)

	_, err = NewServer(realCatalog(t), WithHandler("aws_nope", rec))
	require.ErrorContains(t, err, "no such resource type")
}

func TestServerUpgradeResourceState(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	ty := ImpliedType(srv.cat.Resources["aws_sqs_queue"].Block)
	resp, err := srv.UpgradeResourceState(context.Background(), &tfprotov5.UpgradeResourceStateRequest{
		TypeName: "aws_sqs_queue", RawState: &tfprotov5.RawState{JSON: []byte(`{"name":"q","visibility_timeout_seconds":30,"attribute_from_v5":"x","tags":{"a":"b"}}`)},
	})
	require.NoError(t, err)
	require.Empty(t, resp.Diagnostics)
	got, err := decodeValue(resp.UpgradedState, ty)
	require.NoError(t, err)
	requireVal(t, got, path("name"), cty.StringVal("q"))
	requireVal(t, got, path("visibility_timeout_seconds"), cty.NumberIntVal(30))
	requireVal(t, got, path("arn"), cty.NullVal(cty.String))

	resp, err = srv.UpgradeResourceState(context.Background(), &tfprotov5.UpgradeResourceStateRequest{
		TypeName: "aws_sqs_queue", RawState: &tfprotov5.RawState{JSON: []byte(`{"name":`)},
	})
	require.NoError(t, err)
	require.Equal(t, "Unreadable state", resp.Diagnostics[0].Summary)
}

func readData(t testing.TB, srv *Server, typeName, cfgJSON string) (cty.Value, []*tfprotov5.Diagnostic) {
	t.Helper()
	b := srv.cat.DataSources[typeName].Block
	resp, err := srv.ReadDataSource(context.Background(), &tfprotov5.ReadDataSourceRequest{TypeName: typeName, Config: dyn(t, configOf(t, b, cfgJSON))})
	require.NoError(t, err)
	if resp.State == nil {
		return cty.NilVal, resp.Diagnostics
	}
	v, err := decodeValue(resp.State, ImpliedType(b))
	require.NoError(t, err)
	return v, resp.Diagnostics
}

func TestDataSources(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	require.Empty(t, configure(t, srv, `{"region":"eu-west-1","default_tags":[{"tags":{"project":"taskpipe","skip":"me"}}],"ignore_tags":[{"keys":["skip"]}]}`))

	v, diags := readData(t, srv, "aws_region", `{}`)
	require.Empty(t, diags)
	requireVal(t, v, path("region"), cty.StringVal("eu-west-1"))
	requireVal(t, v, path("name"), cty.StringVal("eu-west-1"))
	requireVal(t, v, path("description"), cty.StringVal("Europe (Ireland)"))
	requireVal(t, v, path("endpoint"), cty.StringVal("ec2.eu-west-1.amazonaws.com"))

	v, diags = readData(t, srv, "aws_region", `{"region":"cn-north-1"}`)
	require.Empty(t, diags)
	requireVal(t, v, path("endpoint"), cty.StringVal("ec2.cn-north-1.amazonaws.com.cn"))

	v, diags = readData(t, srv, "aws_partition", `{}`)
	require.Empty(t, diags)
	requireVal(t, v, path("partition"), cty.StringVal("aws"))
	requireVal(t, v, path("dns_suffix"), cty.StringVal("amazonaws.com"))
	requireVal(t, v, path("reverse_dns_prefix"), cty.StringVal("com.amazonaws"))

	v, diags = readData(t, srv, "aws_default_tags", `{}`)
	require.Empty(t, diags)
	requireVal(t, v, path("tags"), cty.MapVal(map[string]cty.Value{"project": cty.StringVal("taskpipe")}))

	_, diags = readData(t, srv, "aws_iam_policy_document", `{}`)
	require.Len(t, diags, 1)
	require.Contains(t, diags[0].Detail, "does not support the aws_iam_policy_document data source")
}

func TestCallerIdentity(t *testing.T) {
	t.Parallel()
	var gotAuth, gotBody string
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotAuth, gotBody = r.Header.Get("Authorization"), string(b)
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>`+
			`<Arn>arn:aws:iam::000000000000:root</Arn><UserId>AKIDLOCAL</UserId><Account>000000000000</Account>`+
			`</GetCallerIdentityResult><ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`)
	}))
	t.Cleanup(sts.Close)

	srv := newTestServer(t, nil)
	require.Empty(t, configure(t, srv, `{"region":"us-east-1","access_key":"test","secret_key":"test","skip_metadata_api_check":"true","endpoints":[{"sts":"`+sts.URL+`"}]}`))
	v, diags := readData(t, srv, "aws_caller_identity", `{}`)
	require.Empty(t, diags, "diagnostics: %v", diagSummaries(diags))
	requireVal(t, v, path("account_id"), cty.StringVal("000000000000"))
	requireVal(t, v, path("id"), cty.StringVal("000000000000"))
	requireVal(t, v, path("arn"), cty.StringVal("arn:aws:iam::000000000000:root"))
	requireVal(t, v, path("user_id"), cty.StringVal("AKIDLOCAL"))
	require.Contains(t, gotBody, "Action=GetCallerIdentity")
	require.True(t, strings.Contains(gotAuth, "Credential=test/") && strings.Contains(gotAuth, "/us-east-1/sts/aws4_request"), "request signed for sts: %s", gotAuth)

	// Nothing listening: a clear error naming the endpoint.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	srv2 := newTestServer(t, nil)
	require.Empty(t, configure(t, srv2, `{"region":"us-east-1","access_key":"test","secret_key":"test","skip_metadata_api_check":"true","endpoints":[{"sts":"`+deadURL+`"}]}`))
	_, diags = readData(t, srv2, "aws_caller_identity", `{}`)
	require.Len(t, diags, 1)
	require.Equal(t, "Cannot read aws_caller_identity", diags[0].Summary)
	require.Contains(t, diags[0].Detail, "calling STS GetCallerIdentity at "+deadURL)
}
