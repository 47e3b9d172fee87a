package tfprovider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

// TestCrossRulesNameSchemaAttributes: every attribute and block a rule
// names exists in the provider's 6.47.0 schema, so a rule read from a
// provider revision other than 6.47.0 cannot name what 6.47.0 lacks.
func TestCrossRulesNameSchemaAttributes(t *testing.T) {
	t.Parallel()
	cat := realCatalog(t)
	for typeName, rules := range crossRules {
		sch, ok := cat.Resources[typeName]
		require.True(t, ok, "%s is not in the %s schema", typeName, crossRuleProviderVersion)
		for _, r := range rules {
			require.NotEmpty(t, r.Source, "%s %s %s: source file", typeName, r.Kind, r.Attr)
			for _, key := range append([]string{r.Attr}, r.Keys...) {
				require.True(t, schemaHasKey(sch.Block, key), "%s: %s (%s on %s) is not in the %s schema", typeName, key, r.Kind, r.Attr, crossRuleProviderVersion)
			}
		}
	}
}

func schemaHasKey(b *tfjson.SchemaBlock, key string) bool {
	segs := strings.Split(key, ".")
	for i := 0; i < len(segs); i++ {
		seg := segs[i]
		if _, ok := b.Attributes[seg]; ok {
			return i == len(segs)-1
		}
		nb, ok := b.NestedBlocks[seg]
		if !ok {
			return false
		}
		if i+1 < len(segs) {
			if _, err := strconv.Atoi(segs[i+1]); err == nil {
				i++ // the element index of a list block
			}
		}
		b = nb.Block
	}
	return true
}

// TestCrossRulesPlanted: for each rule kind, planted configurations the
// real provider rejects are rejected here with the SDK's summary and
// detail, and their valid neighbours pass.
func TestCrossRulesPlanted(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	const zip = `"function_name":"f","role":` + testRole + `,"handler":"bootstrap","runtime":"provided.al2023"`
	tests := []struct {
		name, typ, cfg string
		unknown        cty.Path // made unknown before validating, if set
		want           []string // "summary: detail" of each diagnostic, sorted
	}{
		// ConflictsWith (internal/service/sqs/queue.go): both attributes
		// declare it, so the SDK reports the conflict twice.
		{name: "sqs sse off with a key", typ: "aws_sqs_queue", cfg: `{"name":"q","sqs_managed_sse_enabled":false,"kms_master_key_id":"alias/k"}`, want: []string{
			`Conflicting configuration arguments: "kms_master_key_id": conflicts with sqs_managed_sse_enabled`,
			`Conflicting configuration arguments: "sqs_managed_sse_enabled": conflicts with kms_master_key_id`,
		}},
		{name: "sqs sse on with a key", typ: "aws_sqs_queue", cfg: `{"name":"q","sqs_managed_sse_enabled":true,"kms_master_key_id":"alias/k"}`, want: []string{
			`Conflicting configuration arguments: "kms_master_key_id": conflicts with sqs_managed_sse_enabled`,
			`Conflicting configuration arguments: "sqs_managed_sse_enabled": conflicts with kms_master_key_id`,
		}},
		{name: "sqs key alone", typ: "aws_sqs_queue", cfg: `{"name":"q","kms_master_key_id":"alias/k"}`},
		{name: "sqs sse off alone", typ: "aws_sqs_queue", cfg: `{"name":"q","sqs_managed_sse_enabled":false}`},
		{name: "sqs key unknown", typ: "aws_sqs_queue", cfg: `{"name":"q","sqs_managed_sse_enabled":false,"kms_master_key_id":"k"}`, unknown: cty.GetAttrPath("kms_master_key_id")},
		{name: "sqs name and prefix", typ: "aws_sqs_queue", cfg: `{"name":"q","name_prefix":"p"}`, want: []string{
			`Conflicting configuration arguments: "name": conflicts with name_prefix`,
			`Conflicting configuration arguments: "name_prefix": conflicts with name`,
		}},
		{name: "pipe two sources", typ: "aws_pipes_pipe", cfg: `{"role_arn":` + testRole + `,"source":"s","target":` + testQueue +
			`,"source_parameters":[{"dynamodb_stream_parameters":[{"starting_position":"LATEST"}],"sqs_queue_parameters":[{"batch_size":1}]}]}`, want: []string{
			`Conflicting configuration arguments: "source_parameters.0.dynamodb_stream_parameters": conflicts with source_parameters.0.sqs_queue_parameters`,
			`Conflicting configuration arguments: "source_parameters.0.sqs_queue_parameters": conflicts with source_parameters.0.dynamodb_stream_parameters`,
		}},
		{name: "pipe one source", typ: "aws_pipes_pipe", cfg: pipeJSON("", "")},
		{name: "pipe two targets", typ: "aws_pipes_pipe", cfg: pipeJSON("", `"target_parameters":[{"sqs_queue_parameters":[{}],"lambda_function_parameters":[{"invocation_type":"FIRE_AND_FORGET"}]}]`), want: []string{
			`Conflicting configuration arguments: "target_parameters.0.lambda_function_parameters": conflicts with target_parameters.0.sqs_queue_parameters`,
			`Conflicting configuration arguments: "target_parameters.0.sqs_queue_parameters": conflicts with target_parameters.0.lambda_function_parameters`,
		}},
		{name: "pipe input template only", typ: "aws_pipes_pipe", cfg: pipeJSON("", `"target_parameters":[{"input_template":"{}"}]`)},
		{name: "alarm metric and query", typ: "aws_cloudwatch_metric_alarm", cfg: `{"alarm_name":"a","comparison_operator":"GreaterThanThreshold","evaluation_periods":1,"metric_name":"m","metric_query":[{"id":"q","expression":"m1"}]}`, want: []string{
			`Conflicting configuration arguments: "metric_name": conflicts with metric_query`,
			`Conflicting configuration arguments: "metric_query": conflicts with metric_name`,
		}},
		{name: "alarm threshold and metric id", typ: "aws_cloudwatch_metric_alarm", cfg: `{"alarm_name":"a","comparison_operator":"GreaterThanThreshold","evaluation_periods":1,"threshold":1,"threshold_metric_id":"e1"}`, want: []string{
			`Conflicting configuration arguments: "threshold": conflicts with threshold_metric_id`,
			`Conflicting configuration arguments: "threshold_metric_id": conflicts with threshold`,
		}},
		{name: "table capacity and on-demand throughput", typ: "aws_dynamodb_table", cfg: `{"name":"t","read_capacity":5,"on_demand_throughput":[{"max_read_request_units":10}]}`, want: []string{
			`Conflicting configuration arguments: "read_capacity": conflicts with on_demand_throughput`,
		}},
		{name: "role name and prefix", typ: "aws_iam_role", cfg: `{"name":"r","name_prefix":"p","assume_role_policy":"{}"}`, want: []string{
			`Conflicting configuration arguments: "name": conflicts with name_prefix`,
			`Conflicting configuration arguments: "name_prefix": conflicts with name`,
		}},
		{name: "lambda object version with a zip", typ: "aws_lambda_function", cfg: `{` + zip + `,"filename":"f.zip","s3_object_version":"1"}`, want: []string{
			`Conflicting configuration arguments: "s3_object_version": conflicts with filename`,
		}},

		// ExactlyOneOf (internal/service/lambda/function.go,
		// event_source_mapping.go): declared on each member.
		{name: "lambda without code", typ: "aws_lambda_function", cfg: `{` + zip + `}`, want: []string{
			"Invalid combination of arguments: \"filename\": one of `filename,image_uri,s3_bucket` must be specified",
			"Invalid combination of arguments: \"image_uri\": one of `filename,image_uri,s3_bucket` must be specified",
			"Invalid combination of arguments: \"s3_bucket\": one of `filename,image_uri,s3_bucket` must be specified",
		}},
		{name: "lambda zip and image", typ: "aws_lambda_function", cfg: `{` + zip + `,"filename":"f.zip","image_uri":"i"}`, want: []string{
			"Invalid combination of arguments: \"filename\": only one of `filename,image_uri,s3_bucket` can be specified, but `filename,image_uri` were specified.",
			"Invalid combination of arguments: \"image_uri\": only one of `filename,image_uri,s3_bucket` can be specified, but `filename,image_uri` were specified.",
			"Invalid combination of arguments: \"s3_bucket\": only one of `filename,image_uri,s3_bucket` can be specified, but `filename,image_uri` were specified.",
		}},
		{name: "lambda zip unknown", typ: "aws_lambda_function", cfg: `{` + zip + `,"filename":"f.zip"}`, unknown: cty.GetAttrPath("filename")},
		{name: "esm without source", typ: "aws_lambda_event_source_mapping", cfg: `{"function_name":"f"}`, want: []string{
			"Invalid combination of arguments: \"event_source_arn\": one of `event_source_arn,self_managed_event_source` must be specified",
			"Invalid combination of arguments: \"self_managed_event_source\": one of `event_source_arn,self_managed_event_source` must be specified",
		}},
		{name: "esm with source", typ: "aws_lambda_event_source_mapping", cfg: `{"function_name":"f","event_source_arn":` + testQueue + `}`},

		// RequiredWith (internal/service/lambda/function.go).
		{name: "lambda bucket without key", typ: "aws_lambda_function", cfg: `{` + zip + `,"s3_bucket":"b"}`, want: []string{
			"Missing required argument: \"s3_bucket\": all of `s3_bucket,s3_key` must be specified",
		}},
		{name: "lambda key without bucket", typ: "aws_lambda_function", cfg: `{` + zip + `,"filename":"f.zip","s3_key":"k"}`, want: []string{
			"Missing required argument: \"s3_key\": all of `s3_bucket,s3_key` must be specified",
		}},
		{name: "lambda bucket and key", typ: "aws_lambda_function", cfg: `{` + zip + `,"s3_bucket":"b","s3_key":"k"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := configOf(t, srv.cat.Resources[tc.typ].Block, tc.cfg)
			if tc.unknown != nil {
				cfg = withUnknown(t, cfg, tc.unknown)
			}
			got := crossDiagStrings(validateResource(t, srv, tc.typ, cfg))
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if len(want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, want, got)
		})
	}
}

// TestAtLeastOneOf: none of the resources the modules use declares
// AtLeastOneOf, so the kind is proven on a rule of the SDK's shape on
// the log group's attributes.
func TestAtLeastOneOf(t *testing.T) {
	t.Parallel()
	b := realCatalog(t).Resources["aws_cloudwatch_log_group"].Block
	r := crossRule{Kind: atLeastOneOf, Attr: "name", Keys: []string{"name_prefix"}, Source: "test"}
	require.Equal(t, "\"name\": one of `name,name_prefix` must be specified", checkRule(r, configOf(t, b, `{}`)))
	require.Empty(t, checkRule(r, configOf(t, b, `{"name_prefix":"p"}`)))
	require.Empty(t, checkRule(r, withUnknown(t, configOf(t, b, `{"name":"n"}`), cty.GetAttrPath("name"))), "unknown counts as set")
	require.Equal(t, "Missing required argument", crossSummary(atLeastOneOf))
}

// TestCrossRuleCounts prints the table per resource type and kind, for the
// record, and keeps it from shrinking unnoticed.
func TestCrossRuleCounts(t *testing.T) {
	t.Parallel()
	total := 0
	var lines []string
	for typeName, rules := range crossRules {
		n := map[crossKind]int{}
		for _, r := range rules {
			n[r.Kind]++
		}
		total += len(rules)
		lines = append(lines, fmt.Sprintf("%s: %d ConflictsWith, %d ExactlyOneOf, %d AtLeastOneOf, %d RequiredWith; %d value checks, %d ForceNew",
			typeName, n[conflictsWith], n[exactlyOneOf], n[atLeastOneOf], n[requiredWith],
			len(resourceRules[typeName].Validate), len(resourceRules[typeName].ForceNew)))
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	require.Equal(t, 21, len(crossRules), "one entry per resource type the modules use")
	require.Equal(t, 62, total)
}

func crossDiagStrings(diags []*tfprotov5.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	sort.Strings(out)
	return out
}

// TestCrossRulesCoverModuleResources: every resource type the modules
// declare has an entry (possibly empty) in the table, so a module that
// starts using a new resource type is flagged until its rules are read.
func TestCrossRulesCoverModuleResources(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "terraform", "modules", "*", "*.tf"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	re := regexp.MustCompile(`(?m)^resource "(aws_[a-z0-9_]+)"`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			_, ok := crossRules[m[1]]
			require.True(t, ok, "%s uses %s: read its rules from the provider source into crossRules", f, m[1])
		}
	}
}

// TestPlanForceNewFromSource: ForceNew attributes read from the provider
// source besides those in rules_*.go's first pass.
func TestPlanForceNewFromSource(t *testing.T) {
	t.Parallel()
	const fn = `{"function_name":"f","role":"arn:aws:iam::000000000000:role/r","handler":"bootstrap","runtime":"provided.al2023","filename":"f.zip","source_code_hash":"h1"`
	runRealPlanCases(t, "aws_lambda_function", []planCase{{
		name: "tenancy_config replaces the function", prior: fn + `,"tenancy_config":[{"tenant_isolation_mode":"PER_TENANT"}]}`, config: fn + `}`,
		check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
			require.Equal(t, []cty.Path{path("tenancy_config")}, replace)
		},
	}})
	runRealPlanCases(t, "aws_cloudwatch_log_group", []planCase{{
		name: "log_group_class replaces the group", prior: `{"name":"g","log_group_class":"STANDARD"}`, config: `{"name":"g","log_group_class":"INFREQUENT_ACCESS"}`,
		check: func(t *testing.T, _, _ cty.Value, replace []cty.Path) {
			require.Equal(t, []cty.Path{path("log_group_class")}, replace)
		},
	}})
}
