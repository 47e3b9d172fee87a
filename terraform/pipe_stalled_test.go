package terraform_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
	"github.com/taskpipe/taskpipe/internal/handler"
)

// parsePipelineFile parses one file of the pipeline module.
func parsePipelineFile(t *testing.T, name string) (*hclsyntax.Body, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("modules", "pipeline", name))
	require.NoError(t, err)
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	require.False(t, diags.HasErrors(), diags.Error())
	return f.Body.(*hclsyntax.Body), src
}

func exprText(src []byte, e hclsyntax.Expression) string {
	r := e.Range()
	return string(src[r.Start.Byte:r.End.Byte])
}

// TestPipeStalledAlarm (issue 12 #7): a stopped or failed pipe emits no
// ExecutionFailed, so the reconciler reads the pipe's state and publishes
// PipeStalled. The module must give it the pipe's name, the grant to
// DescribePipe that pipe, and an alarm on the metric it publishes.
func TestPipeStalledAlarm(t *testing.T) {
	t.Parallel()
	body, src := parsePipelineFile(t, "main.tf")
	var reconciler *hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == "module" && len(b.Labels) == 1 && b.Labels[0] == "reconciler" {
			reconciler = b
		}
	}
	require.NotNil(t, reconciler, "module.reconciler")
	stmts := exprText(src, reconciler.Body.Attributes["policy_statements"].Expr)
	require.Contains(t, stmts, `"pipes:DescribePipe"`)
	require.Contains(t, stmts, "module.dispatch.pipe_arn", "DescribePipe on the pipe's ARN, not *")

	var env string
	for _, b := range body.Blocks {
		if b.Type == "locals" {
			if a, ok := b.Body.Attributes["reconciler_environment"]; ok {
				env = exprText(src, a.Expr)
			}
		}
	}
	require.Contains(t, env, handler.EnvPipeName+" ")
	require.Contains(t, env, "module.dispatch.pipe_name")
	require.Contains(t, env, handler.EnvPipeDesiredState)

	mon, msrc := parsePipelineFile(t, "monitoring.tf")
	var alarm *hclsyntax.Block
	for _, b := range mon.Blocks {
		if b.Type == "resource" && len(b.Labels) == 2 && b.Labels[0] == "aws_cloudwatch_metric_alarm" &&
			strings.Contains(exprText(msrc, b.Body.Attributes["metric_name"].Expr), emf.PipeStalled) {
			alarm = b
		}
	}
	require.NotNil(t, alarm, "an alarm on %s", emf.PipeStalled)
	require.Equal(t, "local.metrics_namespace", exprText(msrc, alarm.Body.Attributes["namespace"].Expr))
	require.Equal(t, `"GreaterThanOrEqualToThreshold"`, exprText(msrc, alarm.Body.Attributes["comparison_operator"].Expr))
	require.Equal(t, "1", exprText(msrc, alarm.Body.Attributes["threshold"].Expr))
}
