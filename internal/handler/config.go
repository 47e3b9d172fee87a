package handler

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/emf"
)

// Environment variable names read by the Lambdas (set by the Terraform
// module; documented in the README).
const (
	EnvTableName              = "TABLE_NAME"
	EnvWorkQueueURL           = "WORK_QUEUE_URL"
	EnvWorkDLQURL             = "WORK_DLQ_URL"
	EnvAllowPrivateNetworks   = "ALLOW_PRIVATE_NETWORKS"
	EnvLeaseSeconds           = "LEASE_SECONDS"
	EnvFunctionTimeoutSeconds = "FUNCTION_TIMEOUT_SECONDS"
	EnvMarginSeconds          = "MARGIN_SECONDS"
	EnvRetryBackoffSeconds    = "RETRY_BACKOFF_SECONDS"
	EnvPendingGraceSeconds    = "PENDING_GRACE_SECONDS"
	EnvRunningGraceSeconds    = "RUNNING_GRACE_SECONDS"
	EnvVisibilityTimeoutSecs  = "WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS"
	EnvMaxRedispatch          = "MAX_REDISPATCH"
	EnvLiveShards             = "LIVE_SHARDS"
	EnvLogLevel               = "LOG_LEVEL"
	EnvUserAgent              = "SCRAPER_USER_AGENT"
	EnvOptOutDomains          = "SCRAPER_OPTOUT_DOMAINS"
	EnvMaxPages               = "SCRAPER_MAX_PAGES"
	// EnvDeployment is the deployment's name, the Deployment dimension of
	// every metric (emf.DimDeployment); empty publishes without it.
	EnvDeployment = "DEPLOYMENT_NAME"
)

// Defaults for optional settings.
const (
	// DefaultLease exceeds the production scraper timeout (420 s, seed 001)
	// by a minute.
	DefaultLease = 480 * time.Second
	// DefaultPendingGrace lets a large job's backlog drain before its
	// Pending tasks count as lost (3,575 sites at 140 workers).
	DefaultPendingGrace = 30 * time.Minute
)

// maxSeconds bounds every duration setting (one week): a larger value is
// a unit mistake.
const maxSeconds = 7 * 24 * 3600

// ScraperConfig is the scraper Lambda's environment.
type ScraperConfig struct {
	TableName            string
	WorkQueueURL         string
	WorkDLQURL           string
	AllowPrivateNetworks bool
	Lease                time.Duration
	Margin               time.Duration
	RetryBackoff         time.Duration
	// LiveShards is 0 for the store's default.
	LiveShards int
	LogLevel   slog.Level
	// UserAgent is "" for scrape.DefaultUserAgent.
	UserAgent string
	// OptOut are the registrable domains never fetched, lowercase.
	OptOut []string
	// MaxPages is the key pages per task: 0 for the default, -1 for none.
	MaxPages int
	// Deployment is the metrics' Deployment dimension ("" for none).
	Deployment string
}

// ReconcilerConfig is the reconciler Lambda's environment.
type ReconcilerConfig struct {
	TableName     string
	WorkQueueURL  string
	PendingGrace  time.Duration
	RunningGrace  time.Duration
	MaxRedispatch int
	LiveShards    int
	LogLevel      slog.Level
	// Deployment is the metrics' Deployment dimension ("" for none).
	Deployment string
}

// EnrichConfig is the enrichment Lambda's environment.
type EnrichConfig struct {
	LogLevel slog.Level
	// Deployment is the metrics' Deployment dimension ("" for none).
	Deployment string
}

// envReader collects every problem, so one failed start names them all.
type envReader struct {
	getenv func(string) string
	errs   []error
}

func (r *envReader) required(name string) string {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		r.errs = append(r.errs, fmt.Errorf("%s is required", name))
	}
	return v
}

func (r *envReader) optional(name string) string { return strings.TrimSpace(r.getenv(name)) }

// seconds reads a whole number of seconds in [min, maxSeconds]; empty
// gives def.
func (r *envReader) seconds(name string, def time.Duration, lo int, required bool) time.Duration {
	v := r.optional(name)
	if v == "" {
		if required {
			r.errs = append(r.errs, fmt.Errorf("%s is required", name))
		}
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > maxSeconds {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a whole number of seconds from %d to %d", name, v, lo, maxSeconds))
		return def
	}
	return time.Duration(n) * time.Second
}

func (r *envReader) integer(name string, def, lo, hi int) int {
	v := r.optional(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a whole number from %d to %d", name, v, lo, hi))
		return def
	}
	return n
}

// domains reads a comma-separated list of domain names, lowercased.
func (r *envReader) domains(name string) []string {
	var out []string
	for _, d := range strings.Split(r.optional(name), ",") {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
		switch {
		case d == "":
		case strings.ContainsAny(d, "/: ") || !strings.Contains(d, "."):
			r.errs = append(r.errs, fmt.Errorf("%s: %q is not a domain name", name, d))
		default:
			out = append(out, d)
		}
	}
	return out
}

func (r *envReader) boolean(name string) bool {
	switch v := r.optional(name); v {
	case "", "false":
		return false
	case "true":
		return true
	default:
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want true or false", name, v))
		return false
	}
}

func (r *envReader) logLevel() slog.Level {
	l, err := emf.ParseLevel(r.getenv(EnvLogLevel))
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %w", EnvLogLevel, err))
	}
	return l
}

func (r *envReader) err(fn string) error {
	if len(r.errs) == 0 {
		return nil
	}
	// One line: Lambda turns each stderr line into its own log event.
	msgs := make([]string, len(r.errs))
	for i, e := range r.errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("handler: %s environment: %s", fn, strings.Join(msgs, "; "))
}

// ScraperConfigFromEnv reads the scraper's settings with getenv
// (os.Getenv). When FUNCTION_TIMEOUT_SECONDS is set, the lease must exceed
// it, so a live worker never loses its lease to a redelivery.
func ScraperConfigFromEnv(getenv func(string) string) (ScraperConfig, error) {
	r := &envReader{getenv: getenv}
	c := ScraperConfig{
		TableName:            r.required(EnvTableName),
		WorkQueueURL:         r.required(EnvWorkQueueURL),
		WorkDLQURL:           r.required(EnvWorkDLQURL),
		AllowPrivateNetworks: r.boolean(EnvAllowPrivateNetworks),
		Lease:                r.seconds(EnvLeaseSeconds, DefaultLease, 1, false),
		Margin:               r.seconds(EnvMarginSeconds, DefaultMargin, 1, false),
		RetryBackoff:         r.seconds(EnvRetryBackoffSeconds, 0, 0, false),
		LiveShards:           r.integer(EnvLiveShards, 0, 1, 100),
		LogLevel:             r.logLevel(),
		UserAgent:            r.optional(EnvUserAgent),
		OptOut:               r.domains(EnvOptOutDomains),
		MaxPages:             r.integer(EnvMaxPages, 0, 0, 10),
		Deployment:           r.optional(EnvDeployment),
	}
	if c.MaxPages == 0 && r.optional(EnvMaxPages) == "0" {
		c.MaxPages = -1 // "0" means no key pages, not the default
	}
	if ua := c.UserAgent; ua != "" && (!strings.Contains(ua, "/") || !strings.Contains(ua, "http")) {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a product token with a version and a contact URL, e.g. taskpipe-scraper/1.0 (+https://example.com/bot)", EnvUserAgent, ua))
	}
	if timeout := r.seconds(EnvFunctionTimeoutSeconds, 0, 1, false); timeout > 0 && c.Lease <= timeout {
		r.errs = append(r.errs, fmt.Errorf("%s (%s) must exceed %s (%s)", EnvLeaseSeconds, c.Lease, EnvFunctionTimeoutSeconds, timeout))
	}
	if c.Lease <= 2*c.Margin {
		r.errs = append(r.errs, fmt.Errorf("%s (%s) must exceed twice %s (%s)", EnvLeaseSeconds, c.Lease, EnvMarginSeconds, c.Margin))
	}
	return c, r.err("scraper")
}

// ReconcilerConfigFromEnv reads the reconciler's settings with getenv.
// RUNNING_GRACE_SECONDS is required: it must exceed the work queue's
// visibility timeout (docs/design.md §3), which only the deployment knows; when
// WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS is set too, that is checked.
func ReconcilerConfigFromEnv(getenv func(string) string) (ReconcilerConfig, error) {
	r := &envReader{getenv: getenv}
	c := ReconcilerConfig{
		TableName:     r.required(EnvTableName),
		WorkQueueURL:  r.required(EnvWorkQueueURL),
		PendingGrace:  r.seconds(EnvPendingGraceSeconds, DefaultPendingGrace, 1, false),
		RunningGrace:  r.seconds(EnvRunningGraceSeconds, 0, 1, true),
		MaxRedispatch: r.integer(EnvMaxRedispatch, DefaultMaxRedispatch, 1, 100000),
		LiveShards:    r.integer(EnvLiveShards, 0, 1, 100),
		LogLevel:      r.logLevel(),
		Deployment:    r.optional(EnvDeployment),
	}
	if vis := r.seconds(EnvVisibilityTimeoutSecs, 0, 0, false); vis > 0 && c.RunningGrace > 0 && c.RunningGrace <= vis {
		r.errs = append(r.errs, fmt.Errorf("%s (%s) must exceed %s (%s), or the reconciler races SQS's own redelivery",
			EnvRunningGraceSeconds, c.RunningGrace, EnvVisibilityTimeoutSecs, vis))
	}
	return c, r.err("reconciler")
}

// EnrichConfigFromEnv reads the enrichment's settings with getenv.
func EnrichConfigFromEnv(getenv func(string) string) (EnrichConfig, error) {
	r := &envReader{getenv: getenv}
	c := EnrichConfig{LogLevel: r.logLevel(), Deployment: r.optional(EnvDeployment)}
	return c, r.err("enrich")
}
