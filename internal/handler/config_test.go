package handler_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/handler"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func scraperEnv(overrides map[string]string) map[string]string {
	env := map[string]string{
		"TABLE_NAME":     "tasks",
		"WORK_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/000000000000/work",
		"WORK_DLQ_URL":   "https://sqs.eu-west-1.amazonaws.com/000000000000/work-dlq",
	}
	for k, v := range overrides {
		env[k] = v
	}
	return env
}

func TestScraperConfigFromEnv(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		env     map[string]string
		want    handler.ScraperConfig
		wantErr []string
	}{
		{
			name: "Defaults",
			env:  scraperEnv(nil),
			want: handler.ScraperConfig{TableName: "tasks",
				WorkQueueURL: "https://sqs.eu-west-1.amazonaws.com/000000000000/work",
				WorkDLQURL:   "https://sqs.eu-west-1.amazonaws.com/000000000000/work-dlq",
				Lease:        480 * time.Second, Margin: 15 * time.Second, LogLevel: slog.LevelInfo},
		},
		{
			name: "AllSet",
			env: scraperEnv(map[string]string{"ALLOW_PRIVATE_NETWORKS": "true", "LEASE_SECONDS": "600",
				"FUNCTION_TIMEOUT_SECONDS": "420", "MARGIN_SECONDS": "20", "RETRY_BACKOFF_SECONDS": "60",
				"LIVE_SHARDS": "16", "LOG_LEVEL": "debug",
				"SCRAPER_USER_AGENT":     "acme-bot/2.1 (+https://acme.example/bot)",
				"SCRAPER_OPTOUT_DOMAINS": " Example.COM., shop.example.org ,", "SCRAPER_MAX_PAGES": "3",
				"DEPLOYMENT_NAME": "prod"}),
			want: handler.ScraperConfig{TableName: "tasks",
				WorkQueueURL:         "https://sqs.eu-west-1.amazonaws.com/000000000000/work",
				WorkDLQURL:           "https://sqs.eu-west-1.amazonaws.com/000000000000/work-dlq",
				AllowPrivateNetworks: true, Lease: 600 * time.Second, Margin: 20 * time.Second,
				RetryBackoff: time.Minute, LiveShards: 16, LogLevel: slog.LevelDebug,
				UserAgent: "acme-bot/2.1 (+https://acme.example/bot)",
				OptOut:    []string{"example.com", "shop.example.org"}, MaxPages: 3, Deployment: "prod"},
		},
		{
			name: "NoKeyPages",
			env:  scraperEnv(map[string]string{"SCRAPER_MAX_PAGES": "0"}),
			want: handler.ScraperConfig{TableName: "tasks",
				WorkQueueURL: "https://sqs.eu-west-1.amazonaws.com/000000000000/work",
				WorkDLQURL:   "https://sqs.eu-west-1.amazonaws.com/000000000000/work-dlq",
				Lease:        480 * time.Second, Margin: 15 * time.Second, LogLevel: slog.LevelInfo, MaxPages: -1},
		},
		{
			name: "BadPoliteness",
			env: scraperEnv(map[string]string{"SCRAPER_USER_AGENT": "curl", "SCRAPER_OPTOUT_DOMAINS": "https://x.example/",
				"SCRAPER_MAX_PAGES": "11"}),
			wantErr: []string{`SCRAPER_USER_AGENT="curl": want a product token`, `"https://x.example/" is not a domain name`,
				`SCRAPER_MAX_PAGES="11"`},
		},
		{
			name:    "MissingRequired",
			env:     map[string]string{"WORK_QUEUE_URL": " "},
			wantErr: []string{"TABLE_NAME is required", "WORK_QUEUE_URL is required", "WORK_DLQ_URL is required"},
		},
		{
			name: "Malformed",
			env: scraperEnv(map[string]string{"ALLOW_PRIVATE_NETWORKS": "yes", "LEASE_SECONDS": "8m",
				"LIVE_SHARDS": "0", "LOG_LEVEL": "loud", "RETRY_BACKOFF_SECONDS": "-1"}),
			wantErr: []string{`ALLOW_PRIVATE_NETWORKS="yes": want true or false`,
				`LEASE_SECONDS="8m": want a whole number of seconds`, `LIVE_SHARDS="0"`, "LOG_LEVEL",
				`RETRY_BACKOFF_SECONDS="-1"`},
		},
		{
			name:    "LeaseNotAboveTimeout",
			env:     scraperEnv(map[string]string{"LEASE_SECONDS": "420", "FUNCTION_TIMEOUT_SECONDS": "420"}),
			wantErr: []string{"LEASE_SECONDS (7m0s) must exceed FUNCTION_TIMEOUT_SECONDS (7m0s)"},
		},
		{
			name:    "LeaseNotAboveMargins",
			env:     scraperEnv(map[string]string{"LEASE_SECONDS": "30", "MARGIN_SECONDS": "15"}),
			wantErr: []string{"must exceed twice MARGIN_SECONDS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := handler.ScraperConfigFromEnv(envOf(tt.env))
			if len(tt.wantErr) > 0 {
				for _, w := range tt.wantErr {
					require.ErrorContains(t, err, w)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestReconcilerConfigFromEnv(t *testing.T) {
	t.Parallel()

	base := map[string]string{"TABLE_NAME": "tasks", "WORK_QUEUE_URL": "q", "RUNNING_GRACE_SECONDS": "6000"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    handler.ReconcilerConfig
		wantErr []string
	}{
		{
			name: "Defaults",
			env:  base,
			want: handler.ReconcilerConfig{TableName: "tasks", WorkQueueURL: "q", PendingGrace: 30 * time.Minute,
				RunningGrace: 100 * time.Minute, MaxRedispatch: 1000, LogLevel: slog.LevelInfo},
		},
		{
			name: "AllSet",
			env: with("PENDING_GRACE_SECONDS", "900", "WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS", "5400",
				"MAX_REDISPATCH", "50", "LIVE_SHARDS", "4", "LOG_LEVEL", "warn", "DEPLOYMENT_NAME", "prod"),
			want: handler.ReconcilerConfig{TableName: "tasks", WorkQueueURL: "q", PendingGrace: 15 * time.Minute,
				RunningGrace: 100 * time.Minute, MaxRedispatch: 50, LiveShards: 4, LogLevel: slog.LevelWarn,
				Deployment: "prod"},
		},
		{
			name:    "RunningGraceRequired",
			env:     map[string]string{"TABLE_NAME": "tasks", "WORK_QUEUE_URL": "q"},
			wantErr: []string{"RUNNING_GRACE_SECONDS is required"},
		},
		{
			name:    "RunningGraceMustBePositive",
			env:     with("RUNNING_GRACE_SECONDS", "0"),
			wantErr: []string{`RUNNING_GRACE_SECONDS="0": want a whole number of seconds from 1`},
		},
		{
			name:    "RunningGraceMustExceedVisibility",
			env:     with("WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS", "6000"),
			wantErr: []string{"must exceed WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS", "races SQS's own redelivery"},
		},
		{
			name:    "Malformed",
			env:     with("PENDING_GRACE_SECONDS", "1e3", "MAX_REDISPATCH", "0"),
			wantErr: []string{`PENDING_GRACE_SECONDS="1e3"`, `MAX_REDISPATCH="0"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := handler.ReconcilerConfigFromEnv(envOf(tt.env))
			if len(tt.wantErr) > 0 {
				for _, w := range tt.wantErr {
					require.ErrorContains(t, err, w)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestEnrichConfigFromEnv(t *testing.T) {
	t.Parallel()
	got, err := handler.EnrichConfigFromEnv(envOf(map[string]string{"LOG_LEVEL": "ERROR", "DEPLOYMENT_NAME": "prod"}))
	require.NoError(t, err)
	require.Equal(t, handler.EnrichConfig{LogLevel: slog.LevelError, Deployment: "prod"}, got)

	_, err = handler.EnrichConfigFromEnv(envOf(map[string]string{"LOG_LEVEL": "trace"}))
	require.ErrorContains(t, err, "handler: enrich environment: LOG_LEVEL")
}
