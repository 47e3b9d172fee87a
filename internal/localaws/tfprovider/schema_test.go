package tfprovider

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func TestRealSchemaEveryTypeConverts(t *testing.T) {
	t.Parallel()
	cat := realCatalog(t)
	// The README of the schema file promises 113 resources and these data
	// sources; a different count means a different file.
	require.Len(t, cat.Resources, 113)
	require.ElementsMatch(t, []string{
		"aws_caller_identity", "aws_default_tags", "aws_dynamodb_table", "aws_iam_policy_document",
		"aws_iam_role", "aws_kms_alias", "aws_kms_key", "aws_lambda_function", "aws_partition",
		"aws_region", "aws_s3_bucket", "aws_sns_topic", "aws_sqs_queue", "aws_ssm_parameter",
	}, cat.DataSourceTypes())

	check := func(kind, name string, proto *tfprotov5.Schema, want cty.Type) {
		t.Helper()
		require.NotNil(t, proto, "%s %s", kind, name)
		wantTF, err := ProtoType(want)
		require.NoError(t, err)
		// The protocol schema's value type must be exactly the type the
		// provider decodes values with, or every plan would fail to decode.
		require.True(t, proto.ValueType().Equal(wantTF), "%s %s: protocol type %s != implied %s", kind, name, proto.ValueType(), wantTF)
	}
	for name, s := range cat.Resources {
		check("resource", name, cat.proto.ResourceSchemas[name], ImpliedType(s.Block))
		require.Equal(t, int64(s.Version), cat.proto.ResourceSchemas[name].Version, name)
	}
	for name, s := range cat.DataSources {
		check("data source", name, cat.proto.DataSourceSchemas[name], ImpliedType(s.Block))
	}
	check("provider", "aws", cat.proto.Provider, ImpliedType(cat.Provider.Block))
}

func TestRealSchemaKnownTraps(t *testing.T) {
	t.Parallel()
	cat := realCatalog(t)
	pipe := cat.proto.ResourceSchemas["aws_pipes_pipe"].Block
	sp := findBlock(t, pipe, "source_parameters")
	require.Equal(t, tfprotov5.SchemaNestedBlockNestingModeList, sp.Nesting)
	require.EqualValues(t, 1, sp.MaxItems)
	ddb := findBlock(t, sp.Block, "dynamodb_stream_parameters")
	require.True(t, findAttr(t, ddb.Block, "starting_position").Required, "starting_position is Required (schema README)")
	filter := findBlock(t, findBlock(t, sp.Block, "filter_criteria").Block, "filter")
	require.EqualValues(t, 5, filter.MaxItems)
	timeouts := findBlock(t, pipe, "timeouts")
	require.Equal(t, tfprotov5.SchemaNestedBlockNestingModeSingle, timeouts.Nesting)
}

func TestSmallSchemaConversion(t *testing.T) {
	t.Parallel()
	cat := smallCatalog(t)
	s := cat.proto.ResourceSchemas["aws_thing"]
	require.EqualValues(t, 2, s.Version)
	require.Equal(t, "A **thing**.", s.Block.Description)
	require.Equal(t, tfprotov5.StringKindMarkdown, s.Block.DescriptionKind)

	tests := []struct {
		attr  string
		check func(*tfprotov5.SchemaAttribute)
	}{
		{"name", func(a *tfprotov5.SchemaAttribute) {
			require.True(t, a.Required)
			require.Equal(t, "Name.", a.Description)
		}},
		{"id", func(a *tfprotov5.SchemaAttribute) { require.True(t, a.Optional && a.Computed) }},
		{"secret", func(a *tfprotov5.SchemaAttribute) { require.True(t, a.Sensitive) }},
		{"old", func(a *tfprotov5.SchemaAttribute) { require.True(t, a.Deprecated) }},
		{"password_wo", func(a *tfprotov5.SchemaAttribute) { require.True(t, a.WriteOnly) }},
		{"labels", func(a *tfprotov5.SchemaAttribute) {
			require.True(t, a.Type.Equal(tftypes.Map{ElementType: tftypes.String}))
		}},
		{"ports", func(a *tfprotov5.SchemaAttribute) {
			require.True(t, a.Type.Equal(tftypes.List{ElementType: tftypes.Number}))
		}},
		{"pair", func(a *tfprotov5.SchemaAttribute) {
			require.True(t, a.Type.Equal(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "b": tftypes.Bool}}))
		}},
		// Protocol 5 has no nested attributes: served as list(object) with
		// the optional nested attribute marked optional.
		{"nested", func(a *tfprotov5.SchemaAttribute) {
			require.True(t, a.Type.Equal(tftypes.List{ElementType: tftypes.Object{
				AttributeTypes:     map[string]tftypes.Type{"key": tftypes.String, "value": tftypes.String},
				OptionalAttributes: map[string]struct{}{"value": {}},
			}}), "got %s", a.Type)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.attr, func(t *testing.T) {
			t.Parallel()
			tc.check(findAttr(t, s.Block, tc.attr))
		})
	}

	blocks := []struct {
		name     string
		mode     tfprotov5.SchemaNestedBlockNestingMode
		min, max int64
	}{
		{"single", tfprotov5.SchemaNestedBlockNestingModeSingle, 0, 0},
		{"group", tfprotov5.SchemaNestedBlockNestingModeGroup, 0, 0},
		{"lst", tfprotov5.SchemaNestedBlockNestingModeList, 1, 2},
		{"st", tfprotov5.SchemaNestedBlockNestingModeSet, 0, 3},
		{"mp", tfprotov5.SchemaNestedBlockNestingModeMap, 0, 0},
	}
	for _, tc := range blocks {
		b := findBlock(t, s.Block, tc.name)
		require.Equal(t, tc.mode, b.Nesting, tc.name)
		require.Equal(t, tc.min, b.MinItems, tc.name)
		require.Equal(t, tc.max, b.MaxItems, tc.name)
	}
	require.True(t, findBlock(t, s.Block, "st").Block.Deprecated)
	inner := findBlock(t, findBlock(t, s.Block, "lst").Block, "inner")
	require.Equal(t, tfprotov5.SchemaNestedBlockNestingModeSet, inner.Nesting)

	want, err := ProtoType(ImpliedType(cat.Resources["aws_thing"].Block))
	require.NoError(t, err)
	// ImpliedType drops optional-attribute markers (values on the wire have
	// none); compare the parts that carry no nested attribute.
	got := s.ValueType().(tftypes.Object)
	for name, ty := range want.(tftypes.Object).AttributeTypes {
		if name == "nested" {
			continue
		}
		require.True(t, got.AttributeTypes[name].Equal(ty), name)
	}
}

func TestLoadSchemaFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, content, wantErr string
	}{
		{"missing", "", "terraform providers schema -json"},
		{"not json", "{", "decode provider schemas"},
		{"other provider", `{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/google":{"resource_schemas":{}}}}`, "no schema for registry.terraform.io/hashicorp/aws"},
		{"no resources", `{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/aws":{}}}`, "no resource schemas"},
		{"bad nesting", `{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/aws":{"resource_schemas":{"aws_x":{"version":0,"block":{"block_types":{"b":{"nesting_mode":"weird","block":{}}}}}}}}}`, `unknown nesting mode "weird"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if tc.content != "" {
				require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o600))
			}
			_, err := LoadSchemaFile(path)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestLoadSchema(t *testing.T) {
	// Not parallel: it sets an environment variable.
	t.Setenv(SchemaEnv, "")
	cat, err := LoadSchema()
	require.NoError(t, err)
	require.Contains(t, cat.Resources, "aws_pipes_pipe")

	t.Setenv(SchemaEnv, filepath.Join(t.TempDir(), "absent.json"))
	_, err = LoadSchema()
	require.ErrorContains(t, err, "terraform providers schema -json")
}

func TestEmbeddedSchemaProvenance(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("schema", "README.md"))
	require.NoError(t, err)
	sum := sha256.Sum256(EmbeddedSchema())
	require.Contains(t, string(readme), hex.EncodeToString(sum[:]),
		"schema/README.md must record the sha256 of the embedded schema")
}

func TestProviderSchemaArguments(t *testing.T) {
	t.Parallel()
	b := providerSchema().Block
	for _, a := range []string{
		"region", "profile", "access_key", "secret_key", "token", "max_retries", "retry_mode",
		"shared_config_files", "shared_credentials_files", "skip_credentials_validation",
		"skip_metadata_api_check", "skip_region_validation", "skip_requesting_account_id",
		"s3_use_path_style", "sts_region", "insecure", "http_proxy", "custom_ca_bundle",
		"use_fips_endpoint", "use_dualstack_endpoint", "allowed_account_ids", "forbidden_account_ids",
	} {
		require.Contains(t, b.Attributes, a)
	}
	// skip_metadata_api_check is a "nullable bool": a string on the wire.
	require.Equal(t, cty.String, b.Attributes["skip_metadata_api_check"].AttributeType)
	for _, blk := range []string{"default_tags", "ignore_tags", "assume_role", "endpoints"} {
		require.Contains(t, b.NestedBlocks, blk)
	}
	eps := b.NestedBlocks["endpoints"].Block.Attributes
	for _, svc := range []string{"dynamodb", "sqs", "lambda", "pipes", "scheduler", "cloudwatch", "logs", "cloudwatchlogs", "iam", "sts", "sns", "kms", "s3", "ssm", "events"} {
		require.Contains(t, eps, svc)
	}
	require.NotContains(t, eps, "dynamodbstreams", "the real provider has no such endpoint key")
}

// TestProviderCredentialsSensitive: the secret key and the session token
// reach Terraform marked sensitive, so it never prints them (issue 15 #13).
func TestProviderCredentialsSensitive(t *testing.T) {
	t.Parallel()
	ps, err := ProtoSchema(providerSchema())
	require.NoError(t, err)
	tests := []struct {
		attr      string
		sensitive bool
	}{
		{"secret_key", true},
		{"token", true},
		{"access_key", false},
		{"region", false},
	}
	for _, tt := range tests {
		t.Run(tt.attr, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.sensitive, findAttr(t, ps.Block, tt.attr).Sensitive)
		})
	}
}

func findAttr(t testing.TB, b *tfprotov5.SchemaBlock, name string) *tfprotov5.SchemaAttribute {
	t.Helper()
	for _, a := range b.Attributes {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no attribute %s", name)
	return nil
}

func findBlock(t testing.TB, b *tfprotov5.SchemaBlock, name string) *tfprotov5.SchemaNestedBlock {
	t.Helper()
	for _, nb := range b.BlockTypes {
		if nb.TypeName == name {
			return nb
		}
	}
	t.Fatalf("no block %s", name)
	return nil
}
