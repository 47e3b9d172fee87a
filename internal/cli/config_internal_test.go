package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResourcePrecedence(t *testing.T) {
	t.Parallel()
	outputs := map[string][]byte{
		OutputTable:        []byte(`"tf-table"`),
		OutputWorkQueueURL: []byte(`"http://tf/work"`),
		OutputPipeDLQURL:   []byte(`null`),
		OutputWorkDLQURL:   []byte(`["not","a","string"]`),
		OutputLambdaEnv:    []byte(`{"LIVE_SHARDS":"4","TABLE_NAME":"tf-table"}`),
	}
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		table      string
		shards     int
		terraforms int
	}{
		{"Terraform", []string{"--tf-dir", "d"}, nil, "tf-table", 4, 1},
		{"TerraformDirFromEnv", nil, map[string]string{EnvTFDir: "d"}, "tf-table", 4, 1},
		{"EnvOverTerraform", []string{"--tf-dir", "d"}, map[string]string{EnvTable: "env-table", EnvLiveShards: "2"}, "env-table", 2, 0},
		{"FlagOverEnv", []string{"--tf-dir", "d", "--table", "flag-table", "--live-shards", "3"}, map[string]string{EnvTable: "env-table", EnvLiveShards: "2"}, "flag-table", 3, 0},
		{"DefaultShards", []string{"--table", "t"}, nil, "t", 8, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			env := &Env{
				Getenv: func(k string) string { return tt.env[k] },
				TerraformOutputs: func(_ context.Context, dir string) (map[string][]byte, error) {
					calls++
					require.Equal(t, "d", dir)
					return outputs, nil
				},
			}
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			r := env.addResources(fs, OutputTable)
			require.NoError(t, fs.Parse(tt.args))
			ctx := context.Background()
			table, err := r.get(ctx, r.table)
			require.NoError(t, err)
			require.Equal(t, tt.table, table)
			shards, err := r.liveShards(ctx)
			require.NoError(t, err)
			require.Equal(t, tt.shards, shards)
			require.Equal(t, tt.terraforms, calls, "terraform runs only when needed, at most once")
		})
	}
}

func TestResourceErrors(t *testing.T) {
	t.Parallel()
	outputs := map[string][]byte{
		OutputPipeDLQURL: []byte(`null`),
		OutputWorkDLQURL: []byte(`["not","a","string"]`),
		OutputLambdaEnv:  []byte(`{"LIVE_SHARDS":"many"}`),
	}
	env := &Env{
		Getenv:           func(string) string { return "" },
		TerraformOutputs: func(context.Context, string) (map[string][]byte, error) { return outputs, nil },
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	r := env.addResources(fs, OutputTable, OutputWorkQueueURL, OutputWorkDLQURL, OutputPipeDLQURL)
	ctx := context.Background()

	_, err := r.get(ctx, r.table)
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "no source at all is a usage error: %v", err)
	require.ErrorContains(t, err, "missing the table name: set --table or TASKPIPE_TABLE, or point --tf-dir")

	require.NoError(t, fs.Parse([]string{"--tf-dir", "d"}))
	_, err = r.get(ctx, r.workQ)
	require.ErrorContains(t, err, `missing the work queue URL: terraform output in d has no "work_queue_url"`)
	_, err = r.get(ctx, r.pipeDLQ)
	require.ErrorContains(t, err, "missing the pipe DLQ URL: terraform output pipe_dlq_url in d is empty")
	_, err = r.get(ctx, r.workDLQ)
	require.ErrorContains(t, err, "terraform output work_dlq_url in d is not a string")
	_, err = r.liveShards(ctx)
	require.ErrorContains(t, err, `lambda_environment.LIVE_SHARDS = "many" is not a number`)

	env.Getenv = func(k string) string { return map[string]string{EnvLiveShards: "101"}[k] }
	_, err = r.liveShards(ctx)
	require.ErrorContains(t, err, "live shards 101 out of range 1..100")
}

func TestFindTerraformOrder(t *testing.T) {
	t.Parallel()
	p, err := FindTerraform(func(k string) string { return map[string]string{EnvTerraform: "/opt/tf"}[k] }, ".")
	require.NoError(t, err)
	require.Equal(t, "/opt/tf", p, "$TERRAFORM first")
}
