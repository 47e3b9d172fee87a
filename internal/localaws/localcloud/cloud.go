// Package localcloud assembles taskpipe's local cloud: one HTTP endpoint
// (default http://127.0.0.1:4566) that routes every request to the emulated
// AWS service it is for (internal/localaws/emu and its subpackages), plus the local
// cloud's own admin API under /_taskpipe/.
//
// Point any AWS SDK, the AWS CLI or Terraform at it with the variables from
// Env (AWS_ENDPOINT_URL and dummy credentials); in-process users (the Pipe
// runtime, tests) reach the services directly through the accessors.
package localcloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/alarm"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/bucket"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/eventbus"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/identity"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/pipe"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/stream"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// DefaultAddr is where the local cloud listens unless told otherwise; 4566
// is the port LocalStack made customary, so existing tooling finds it.
const DefaultAddr = "127.0.0.1:4566"

// shutdownTimeout bounds how long Close waits for in-flight requests.
const shutdownTimeout = 10 * time.Second

// Config configures a Cloud. Zero values take the defaults.
type Config struct {
	// Addr is the listen address, host:port (default DefaultAddr). Port 0
	// picks a free port; URL and Env report the real one after Start.
	Addr string
	// Region and AccountID name every ARN and queue URL (default
	// emu.DefaultRegion, emu.DefaultAccountID).
	Region    string
	AccountID string
	// Now is the clock of every service (default time.Now).
	Now func() time.Time
	// Logger receives lifecycle messages at Info and one line per request
	// at Debug (default: discard).
	Logger *slog.Logger
	// Console receives every function output line, prefixed with the
	// function's name, and alarm state changes (default: discard).
	Console io.Writer
	// MaxInstancesPerFunction caps the processes of a function without
	// reserved concurrency (default 64).
	MaxInstancesPerFunction int
	// PipeRetryBackoff is the delay before a Pipe retries a failed batch,
	// doubling per attempt (default 1 s).
	PipeRetryBackoff time.Duration
	// FaultSeed seeds the fault injector's random decisions; faults are
	// off until configured through the admin API.
	FaultSeed uint64
	// AllowedHosts are Host names accepted besides localhost, 127.0.0.1,
	// [::1] and the listen host (e.g. host.docker.internal); see guard.go.
	AllowedHosts []string
	// AllowCrossOrigin accepts requests from web pages (an Origin header
	// or Sec-Fetch-Site: cross-site), refused by default.
	AllowCrossOrigin bool
	// AdminToken is the token the admin API requires; empty means a
	// random one (AdminToken and Env report it).
	AdminToken string
	// Account is the account-global state (IAM, dashboards) this Cloud
	// shares with the Clouds of the account's other regions (default: an
	// account of its own). When set, its ID is the AccountID.
	Account *Account
	// AccountConcurrency is the account's Lambda concurrency quota in this
	// region (default 1000): reservations must leave 100 of it
	// unreserved, and unreserved functions are throttled beyond the rest
	// (function.Options.AccountConcurrency).
	AccountConcurrency int
	// LambdaTransition is how long a new function stays Pending and an
	// updated one InProgress (function.Options.TransitionDelay; default
	// DefaultLambdaTransition, negative: none), so that a client that does
	// not wait for Active and Successful fails here as on AWS.
	LambdaTransition time.Duration
	// IAM is IAMEnforce or IAMOff; empty is IAMOff, so package tests that
	// create functions without roles keep working. The taskpipe command,
	// the demo and chaos default to IAMEnforce (--iam).
	IAM IAMMode
}

// DefaultLambdaTransition is Config.LambdaTransition's default: long enough
// that a client that does not wait is caught, short enough not to slow the
// ones that do (the SDK waiters and the Terraform provider poll it).
const DefaultLambdaTransition = 250 * time.Millisecond

// Cloud is the assembled local cloud.
type Cloud struct {
	cfg        Config
	adminToken string
	log        *slog.Logger
	router     *emu.Router
	admin      *http.ServeMux
	// callers splits the router's counts by the function that sent them.
	callers *callerCounter

	queue    *queue.Service
	tables   *table.Service
	streams  *stream.Service
	events   *eventbus.Service
	identity *identity.Service
	buckets  *bucket.Service
	iam      *authorizer

	logs      *loggroup.Service
	alarms    *alarm.Service
	faults    *fault.Injector
	mappings  *mapping.Service
	functions *function.Service
	schedules *schedule.Service
	pipes     *pipe.Service

	inFlight atomic.Int64 // API requests being served (admin excluded)

	mu       sync.Mutex
	srv      *http.Server
	ln       net.Listener
	started  bool
	closed   bool
	done     chan struct{} // closed when serving has stopped
	serveErr error
	closeErr error
	closing  sync.Once
}

// New builds every service and the router; nothing listens until Start.
func New(cfg Config) *Cloud {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Region == "" {
		cfg.Region = emu.DefaultRegion
	}
	if cfg.AccountID == "" {
		cfg.AccountID = emu.DefaultAccountID
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Account == nil {
		cfg.Account = NewAccount(cfg.AccountID, cfg.Now)
	}
	cfg.AccountID = cfg.Account.ID()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Console == nil {
		cfg.Console = io.Discard
	}
	if cfg.LambdaTransition == 0 {
		cfg.LambdaTransition = DefaultLambdaTransition
	}
	if cfg.AdminToken == "" {
		cfg.AdminToken = newAdminToken()
	}
	c := &Cloud{
		cfg:        cfg,
		adminToken: cfg.AdminToken,
		log:        cfg.Logger,
		router:     emu.NewRouter(),
		admin:      http.NewServeMux(),
		callers:    newCallerCounter(),
		done:       make(chan struct{}),
	}
	c.queue = queue.New(queue.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now})
	c.tables = table.New(table.Options{AccountID: cfg.AccountID, Region: cfg.Region, Now: cfg.Now})
	c.streams = stream.New(c.tables, stream.Options{Now: cfg.Now})
	c.events = eventbus.New()
	c.identity = cfg.Account.identity
	c.buckets = cfg.Account.buckets

	c.router.Handle(emu.ServiceSQS, c.queue)
	c.router.Handle(emu.ServiceDynamoDB, c.tables)
	c.router.Handle(emu.ServiceStreams, c.streams)
	c.router.Handle(emu.ServiceEvents, c.events)
	c.router.Handle(emu.ServiceIAM, c.identity.IAM())
	c.router.Handle(emu.ServiceSTS, c.identity.STS())
	c.router.Handle(emu.ServiceS3, c.buckets)
	c.router.Handle(emu.ServiceAdmin, c.admin)
	c.router.SetGuard(c.guard)
	c.router.Use(reportOp)
	c.router.Use(c.callers.middleware)
	c.router.Use(c.checkRegion)
	c.iam = newAuthorizer(c)
	c.router.Use(c.authorizeFunctionCall)
	c.runtimeServices(cfg)
	c.routeAdmin()
	return c
}

// Services lists the service keys the cloud serves, sorted.
func (c *Cloud) Services() []string {
	s := []string{emu.ServiceDynamoDB, emu.ServiceEvents, emu.ServiceIAM, emu.ServiceLambda, emu.ServiceLogs,
		emu.ServiceMonitoring, emu.ServicePipes, emu.ServiceS3, emu.ServiceScheduler, emu.ServiceSQS, emu.ServiceStreams, emu.ServiceSTS}
	sort.Strings(s)
	return s
}

// Router returns the router, for registering more services and middleware.
func (c *Cloud) Router() *emu.Router { return c.router }

// Buckets returns the S3 service, for in-process users.
func (c *Cloud) Buckets() *bucket.Service { return c.buckets }

// Queue returns the SQS service, for in-process users.
func (c *Cloud) Queue() *queue.Service { return c.queue }

// Tables returns the DynamoDB service, for in-process users.
func (c *Cloud) Tables() *table.Service { return c.tables }

// Streams returns the DynamoDB Streams API service.
func (c *Cloud) Streams() *stream.Service { return c.streams }

// Identity returns the IAM/STS state.
func (c *Cloud) Identity() *identity.Service { return c.identity }

// Functions returns the Lambda service (stats, in-process invokes).
func (c *Cloud) Functions() *function.Service { return c.functions }

// Mappings returns the SQS event source mappings (stats).
func (c *Cloud) Mappings() *mapping.Service { return c.mappings }

// Schedules returns EventBridge Scheduler (fire a schedule now).
func (c *Cloud) Schedules() *schedule.Service { return c.schedules }

// Pipes returns the Pipes service.
func (c *Cloud) Pipes() *pipe.Service { return c.pipes }

// Alarms returns CloudWatch (alarm states, evaluate now).
func (c *Cloud) Alarms() *alarm.Service { return c.alarms }

// Logs returns CloudWatch Logs.
func (c *Cloud) Logs() *loggroup.Service { return c.logs }

// Faults returns the fault injector.
func (c *Cloud) Faults() *fault.Injector { return c.faults }

// HandleAdmin adds an endpoint to the admin API; pattern is an
// http.ServeMux pattern under emu.AdminPrefix, e.g.
// "POST /_taskpipe/faults". Register before Start.
func (c *Cloud) HandleAdmin(pattern string, h http.Handler) { c.admin.Handle(pattern, h) }

// Handler returns the whole endpoint (router, with request logging), for
// callers that serve it themselves, e.g. with httptest.
func (c *Cloud) Handler() http.Handler { return c.logged(c.router) }

// Start listens on Config.Addr and serves in the background. It returns once
// the endpoint accepts connections. Serving stops at Close or when ctx is
// done (which then closes the cloud as Close does).
func (c *Cloud) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started || c.closed {
		return errors.New("localcloud: already started or closed")
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", c.cfg.Addr)
	if err != nil {
		return fmt.Errorf("localcloud: listen on %s: %w", c.cfg.Addr, err)
	}
	c.started = true
	c.ln = ln
	c.srv = &http.Server{
		Handler:           c.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(c.log.Handler(), slog.LevelWarn),
	}
	go func() {
		err := c.srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			c.mu.Lock()
			c.serveErr = fmt.Errorf("localcloud: serve: %w", err)
			c.mu.Unlock()
		}
		close(c.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			if err := c.Close(); err != nil {
				c.log.Error("local cloud shutdown", "err", err)
			}
		case <-c.done:
		}
	}()
	c.log.Info("local cloud listening", "url", "http://"+ln.Addr().String(),
		"region", c.cfg.Region, "account", c.cfg.AccountID, "services", c.Services())
	return nil
}

// InFlight is the number of API requests being served right now (long
// polls included, admin requests excluded).
func (c *Cloud) InFlight() int64 { return c.inFlight.Load() }

// Done is closed when the server has stopped serving.
func (c *Cloud) Done() <-chan struct{} { return c.done }

// Err returns why serving stopped, if it stopped on its own (nil after a
// clean Close).
func (c *Cloud) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serveErr
}

// Close shuts the cloud down cleanly: it stops accepting connections,
// releases long polls (they answer at once), lets in-flight requests finish
// (up to 10 s, then connections are cut) and stops the services' background
// work. It is safe to call more than once and before Start.
func (c *Cloud) Close() error {
	c.closing.Do(func() {
		c.mu.Lock()
		srv, started := c.srv, c.started
		c.closed = true
		c.mu.Unlock()
		if !started {
			c.closeErr = errors.Join(c.closeRuntime(), c.queue.Close())
			close(c.done)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		shut := make(chan error, 1)
		go func() { shut <- srv.Shutdown(ctx) }()
		// Shutdown waits for in-flight requests; SQS long polls would hold
		// it for up to 20 s, so release them now.
		rerr := c.closeRuntime()
		qerr := c.queue.Close()
		serr := <-shut
		if serr != nil {
			serr = errors.Join(fmt.Errorf("localcloud: shutdown: %w", serr), srv.Close())
		}
		<-c.done
		c.closeErr = errors.Join(serr, rerr, qerr)
		c.log.Info("local cloud stopped")
	})
	return c.closeErr
}

// URL is the endpoint's base URL: the real address after Start, the
// configured one before.
func (c *Cloud) URL() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln != nil {
		return "http://" + c.ln.Addr().String()
	}
	return "http://" + c.cfg.Addr
}

// Env returns the environment a client needs to use the local cloud, as
// KEY=value pairs: the endpoint (AWS_ENDPOINT_URL, honoured by every current
// AWS SDK, the CLI and the Terraform provider), the region, dummy
// credentials (any are accepted, but SDKs refuse to sign without some),
// and the admin API's token.
func (c *Cloud) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + c.URL(),
		"AWS_REGION=" + c.cfg.Region,
		"AWS_DEFAULT_REGION=" + c.cfg.Region,
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		EnvAdminToken + "=" + c.adminToken,
	}
}
