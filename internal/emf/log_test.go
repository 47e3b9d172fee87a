package emf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/emf"
)

func TestParseLevel(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"", slog.LevelInfo, false},
		{"info", slog.LevelInfo, false},
		{"DEBUG", slog.LevelDebug, false},
		{" warn ", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{"Error", slog.LevelError, false},
		{"verbose", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := emf.ParseLevel(tt.in)
			if tt.wantErr {
				require.ErrorContains(t, err, "want debug, info, warn or error")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestLoggerCarriesIDs(t *testing.T) {
	t.Parallel()

	var buf bytes.Buffer
	base := emf.NewLogger(&buf, slog.LevelInfo)
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1"})

	emf.ForTask(emf.ForInvocation(ctx, base), "t1", "r1").Info("claimed")
	emf.ForTask(emf.ForInvocation(context.Background(), base), "t2", "").Debug("hidden below info")
	emf.ForTask(emf.ForInvocation(context.Background(), base), "t2", "").Warn("no request id")

	dec := json.NewDecoder(&buf)
	var first, second map[string]any
	require.NoError(t, dec.Decode(&first))
	require.NoError(t, dec.Decode(&second))
	require.False(t, dec.More(), "the debug line is filtered")

	require.Equal(t, "claimed", first["msg"])
	require.Equal(t, "req-1", first[emf.KeyRequestID])
	require.Equal(t, "t1", first[emf.KeyTaskID])
	require.Equal(t, "r1", first[emf.KeyRunID])

	require.Equal(t, "t2", second[emf.KeyTaskID])
	require.NotContains(t, second, emf.KeyRequestID)
	require.NotContains(t, second, emf.KeyRunID)
}
