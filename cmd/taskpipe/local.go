package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// runLocal serves the local cloud until ctx is done (SIGINT/SIGTERM), then
// shuts it down cleanly: in-flight requests finish and long polls are
// released.
func runLocal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("local", "[--addr host:port] [--region r] [--account id] [--account-concurrency n] [--allow-host h,...] [--allow-cross-origin] [-v]", stderr)
	addr := fs.String("addr", localcloud.DefaultAddr, "listen address (port 0 picks a free port)")
	region := fs.String("region", emu.DefaultRegion, "region of every ARN and queue URL")
	account := fs.String("account", emu.DefaultAccountID, "account id of every ARN and queue URL")
	concurrency := fs.Int("account-concurrency", 1000, "the account's Lambda concurrency quota in the region: reservations must leave 100 unreserved, unreserved functions are throttled beyond the rest (new accounts may get as little as 10)")
	allowHosts := fs.String("allow-host", "", "comma-separated Host names to accept besides localhost, 127.0.0.1, [::1] and the listen host (e.g. host.docker.internal)")
	crossOrigin := fs.Bool("allow-cross-origin", false, "accept requests from web pages (Origin or Sec-Fetch-Site: cross-site headers), refused by default")
	verbose := fs.Bool("v", false, "log every request (debug level)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *concurrency < 1 {
		return &usageError{msg: fmt.Sprintf("--account-concurrency must be at least 1, got %d", *concurrency)}
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var hosts []string
	for _, h := range strings.Split(*allowHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	cloud := localcloud.New(localcloud.Config{Addr: *addr, Region: *region, AccountID: *account, Logger: log,
		AllowedHosts: hosts, AllowCrossOrigin: *crossOrigin, AccountConcurrency: *concurrency})
	if err := cloud.Start(ctx); err != nil {
		return fmt.Errorf("start local cloud: %w", err)
	}

	fmt.Fprintf(stdout, "# taskpipe local cloud at %s; Ctrl-C stops it. For clients (%s is the admin API's token,\n# sent as %s on /_taskpipe/ requests):\n",
		cloud.URL(), localcloud.EnvAdminToken, localcloud.AdminTokenHeader)
	for _, kv := range cloud.Env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(stdout, "export %s=%s\n", k, shellQuote(v))
	}

	select {
	case <-ctx.Done():
	case <-cloud.Done():
	}
	if err := cloud.Close(); err != nil {
		return fmt.Errorf("stop local cloud: %w", err)
	}
	return cloud.Err()
}

// shellQuote quotes v for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(v string) string {
	safe := v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r))
	}) < 0
	if safe {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
