package emf

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// Log attribute keys shared by the Lambdas, so one CloudWatch Logs Insights
// query (filter taskId = "…") follows a task across functions.
const (
	KeyRequestID = "requestId"
	KeyTaskID    = "taskId"
	KeyRunID     = "runId"
)

// NewLogger returns a JSON slog logger on w. The Lambdas log to stderr and
// write metrics to stdout, so a log line and a metric line never share a
// write.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// ParseLevel reads a LOG_LEVEL value: debug, info, warn or error, in any
// case; empty means info.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("emf: parse log level %q: want debug, info, warn or error", s)
}

// ForInvocation returns l with the Lambda request id of ctx, when ctx comes
// from the Lambda runtime; otherwise l itself.
func ForInvocation(ctx context.Context, l *slog.Logger) *slog.Logger {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		return l.With(slog.String(KeyRequestID, lc.AwsRequestID))
	}
	return l
}

// ForTask returns l with the task and run ids (the run id only when known).
func ForTask(l *slog.Logger, taskID, runID string) *slog.Logger {
	if runID == "" {
		return l.With(slog.String(KeyTaskID, taskID))
	}
	return l.With(slog.String(KeyTaskID, taskID), slog.String(KeyRunID, runID))
}
