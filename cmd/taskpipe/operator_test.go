package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

func TestOperatorHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"submit", "status", "results", "retry", "dlq", "filter"}},
		{[]string{"help", "submit"}, []string{"Usage: taskpipe submit", "-max-attempts", "Exit status: 0 every line written; 3", "-tf-dir"}},
		{[]string{"help", "status"}, []string{"Usage: taskpipe status RUN", "-watch", "-interval"}},
		{[]string{"help", "results"}, []string{"Usage: taskpipe results RUN", "-format", "formula"}},
		{[]string{"help", "retry"}, []string{"Usage: taskpipe retry RUN", "-kind", "-dry-run"}},
		{[]string{"help", "dlq"}, []string{"Usage: taskpipe dlq <list|redrive>", "pipe DLQ"}},
		{[]string{"dlq", "list", "-h"}, []string{"Usage: taskpipe dlq list", "ChangeMessageVisibilityBatch"}},
		{[]string{"dlq", "redrive", "--help"}, []string{"Usage: taskpipe dlq redrive", "StartMessageMoveTask", "AT_SEQUENCE_NUMBER"}},
		{[]string{"help", "filter"}, []string{"Usage: taskpipe filter test", "internal/cli/testdata/filter-default.json"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
			out := stdout.String() + stderr.String()
			for _, w := range tt.want {
				require.Contains(t, out, w)
			}
		})
	}
}

func TestOperatorUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"status"}, "want exactly one RUN"},
		{[]string{"results", "r", "--format", "xml"}, `--format "xml": want jsonl or csv`},
		{[]string{"retry", "r", "--kind", "nope"}, `unknown kind "nope"`},
		{[]string{"dlq"}, "name a subcommand"},
		{[]string{"dlq", "drop"}, `unknown subcommand "drop"`},
		{[]string{"dlq", "list", "--queue", "x"}, `--queue "x"`},
		{[]string{"filter", "test"}, "need both --pattern FILE and --records FILE"},
		{[]string{"submit", "--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			require.Equal(t, exitUsage, code)
			require.Contains(t, stderr.String(), tt.want)
		})
	}
}

func TestOperatorFilterExitCodes(t *testing.T) {
	t.Parallel()
	td := filepath.Join("..", "..", "internal", "cli", "testdata")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"filter", "test", "--pattern", filepath.Join(td, "filter-default.json"),
		"--records", filepath.Join(td, "stream-records.json")}, &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	require.Contains(t, stdout.String(), "record 3: MODIFY {taskId=20260101T000000Z-3fa9c2/0000001}: MATCH filter 2")

	stdout.Reset()
	code = run(context.Background(), []string{"filter", "test", "--pattern", filepath.Join(td, "filter-unsupported.json"),
		"--records", filepath.Join(td, "stream-records.jsonl")}, &stdout, &stderr)
	require.Equal(t, exitError, code)
	require.Contains(t, stdout.String(), "filter 2: INVALID")
}

func TestAdaptErr(t *testing.T) {
	t.Parallel()
	var ue *usageError
	require.True(t, errors.As(adaptErr(&cli.UsageError{Msg: "m"}), &ue))
	var ce *exitCodeError
	require.True(t, errors.As(adaptErr(&cli.ExitError{Code: 3, Err: errors.New("x")}), &ce))
	require.Equal(t, 3, ce.code)
	require.NoError(t, adaptErr(nil))
}

// TestSubmitBinary runs the real binary (this test binary acting as main)
// against a local cloud, configured only through the environment as an
// operator would: it prints the run id and exits 3 for a rejected line.
func TestSubmitBinary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cloud := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, cloud.Start(ctx))
	t.Cleanup(func() { require.NoError(t, cloud.Close()) })
	ddb := dynamodb.New(dynamodb.Options{Region: emu.DefaultRegion, BaseEndpoint: aws.String(cloud.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	require.NoError(t, dynamostore.CreateTable(ctx, ddb, "tasks", dynamostore.TableOptions{}))

	file := filepath.Join(t.TempDir(), "urls.txt")
	require.NoError(t, os.WriteFile(file, []byte("a.example.com\nftp://nope\nb.example.com\n"), 0o600))
	cmd := exec.Command(os.Args[0], "submit", "--run", "bin", file)
	cmd.Env = append(os.Environ(), envRunMain+"=1", cli.EnvTable+"=tasks", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	cmd.Env = append(cmd.Env, cloud.Env()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "want exit status 3, got %v; stderr: %s", err, stderr.String())
	require.Equal(t, cli.ExitRejected, ee.ExitCode(), "stderr: %s", stderr.String())
	require.Equal(t, "bin\n", stdout.String())
	require.Contains(t, stderr.String(), `line 2: normalize "ftp://nope"`)
	require.Contains(t, stderr.String(), "taskpipe submit: 1 input lines rejected (listed above); the other 2 written")

	store, err := dynamostore.New(ddb, dynamostore.Options{Table: "tasks"})
	require.NoError(t, err)
	counts, err := store.RunCounts(ctx, "bin")
	require.NoError(t, err)
	require.Equal(t, 2, counts["Pending"])
}
