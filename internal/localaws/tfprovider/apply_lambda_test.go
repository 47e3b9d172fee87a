package tfprovider_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

// TestApplyLambda applies a function from the scraper's zip with its SQS
// event source mapping, updates both in place, and checks drift and
// destroy.
func TestApplyLambda(t *testing.T) {
	t.Parallel()
	root, err := tfprovidertest.RepoRoot()
	require.NoError(t, err)
	arch := demo.LambdaArch()
	zip := filepath.Join(ensureZips(t, root, arch), "scraper-"+map[string]string{"x86_64": "amd64", "arm64": "arm64"}[arch]+".zip")
	e := newApplyEnv(t, "lambda")
	e.base = append(e.base, "zip="+zip, "arch="+arch)
	ctx := context.Background()
	lc := lambda.NewFromConfig(e.cfg)

	e.apply()
	st := e.state()
	fn := attrs(t, st, "aws_lambda_function.fn")
	fnARN := "arn:aws:lambda:us-east-1:000000000000:function:scraper"
	require.Equal(t, "scraper", fn["id"])
	require.Equal(t, fnARN, fn["arn"])
	require.Equal(t, "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/"+fnARN+"/invocations", fn["invoke_arn"])
	require.Equal(t, fnARN+":$LATEST", fn["qualified_arn"])
	require.Equal(t, "$LATEST", fn["version"])
	require.Equal(t, fn["source_code_hash"], fn["code_sha256"], "filebase64sha256 is the package's CodeSha256")
	require.NotZero(t, fn["source_code_size"])
	require.NotEmpty(t, fn["last_modified"])
	require.EqualValues(t, 2, fn["reserved_concurrent_executions"])
	esm := attrs(t, st, "aws_lambda_event_source_mapping.sqs")
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, esm["id"], "the id is the mapping's UUID")
	require.Equal(t, esm["id"], esm["uuid"])
	require.Equal(t, fnARN, esm["function_arn"])
	require.Equal(t, "Enabled", esm["state"])

	e.requireNoChanges()

	p := e.plan("memory=256", "batch_size=5")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_lambda_function.fn":              {tfjson.ActionUpdate},
		"aws_lambda_event_source_mapping.sqs": {tfjson.ActionUpdate},
	}, changes(p))
	e.apply("memory=256", "batch_size=5")
	cfg, err := lc.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("scraper")})
	require.NoError(t, err)
	require.EqualValues(t, 256, aws.ToInt32(cfg.MemorySize))
	m, err := lc.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(esm["id"].(string))})
	require.NoError(t, err)
	require.EqualValues(t, 5, aws.ToInt32(m.BatchSize))
	e.requireNoChanges("memory=256", "batch_size=5")

	// Drift: the timeout changed out of band; the mapping deleted.
	_, err = lc.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String("scraper"), Timeout: aws.Int32(60)})
	require.NoError(t, err)
	_, err = lc.DeleteEventSourceMapping(ctx, &lambda.DeleteEventSourceMappingInput{UUID: m.UUID})
	require.NoError(t, err)
	p = e.plan("memory=256", "batch_size=5")
	require.Equal(t, map[string]tfjson.Actions{
		"aws_lambda_function.fn":              {tfjson.ActionUpdate},
		"aws_lambda_event_source_mapping.sqs": {tfjson.ActionCreate},
	}, changes(p))
	e.apply("memory=256", "batch_size=5")
	e.requireNoChanges("memory=256", "batch_size=5")

	e.destroy("memory=256", "batch_size=5")
	fns, err := lc.ListFunctions(ctx, &lambda.ListFunctionsInput{})
	require.NoError(t, err)
	require.Empty(t, fns.Functions)
	esms, err := lc.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{})
	require.NoError(t, err)
	require.Empty(t, esms.EventSourceMappings)
}
