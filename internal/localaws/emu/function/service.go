package function

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

// LogSink receives the log events of every function; *loggroup.Service
// implements it. Append must create the group and stream when missing, as
// the Lambda service does.
type LogSink interface {
	Append(group, stream string, events ...loggroup.Event) error
}

// Options configures a Service. Zero values take the defaults.
type Options struct {
	// AccountID and Region name the ARNs and are the AWS_REGION of every
	// function (default emu.DefaultAccountID, emu.DefaultRegion).
	AccountID string
	Region    string
	// Now stamps log events, metrics, LastModified and the age of async
	// events (default time.Now). Process deadlines, durations and idle
	// reaping use the real clock: the bootstrap reads its deadline with
	// its own clock, and the processes are real.
	Now func() time.Time
	// Upstream receives every AWS API call a function makes (the local
	// cloud's router), with emu.WithCaller set. Nil answers such calls
	// with an error.
	Upstream http.Handler
	// EventSourceMappings serves /2015-03-31/event-source-mappings…; nil
	// answers those requests with ResourceNotFoundException.
	EventSourceMappings http.Handler
	// Console receives every function output line and platform line,
	// prefixed "[name] " (default: discard).
	Console io.Writer
	// Logs receives the same lines as CloudWatch Logs events (default:
	// none).
	Logs LogSink
	// Metrics receives the AWS/Lambda metrics and the functions' Embedded
	// Metric Format datapoints (default: none). It must not block.
	Metrics emu.MetricSink
	// MaxInstancesPerFunction caps the processes (and so the concurrent
	// invocations) of a function without reserved concurrency (default
	// 64). Reserved concurrency, when set, is the cap instead.
	MaxInstancesPerFunction int
	// AccountConcurrency is the account's concurrency quota in the region
	// (default 1000, the Lambda default quota). It bounds the total
	// reserved concurrency at AccountConcurrency-100, and the functions
	// without a reservation share what is left: beyond it their
	// invocations are throttled (ConcurrentInvocationLimitExceeded).
	AccountConcurrency int
	// WorkDir holds the extracted packages (default: a new temporary
	// directory, removed by Close).
	WorkDir string
	// IdleTimeout is how long an idle process is kept warm before it is
	// stopped (default 10 minutes; negative keeps them until Close).
	// Lambda does not document its own figure.
	IdleTimeout time.Duration
	// InitTimeout bounds a process's start-up, from exec to its first
	// /next (default 10 s, Lambda's init phase limit), counted in the
	// process's CPU time on a shared host (initTimeLeft).
	InitTimeout time.Duration
	// AsyncRetryDelays are the waits before the retries of a failed
	// asynchronous invocation; its length is the number of retries
	// (default 1 min and 2 min: Lambda's two retries, "Error handling and
	// automatic retries in Lambda").
	AsyncRetryDelays []time.Duration
	// TransitionDelay is how long a new function stays Pending and an
	// updated one InProgress (state.go), on the Now clock (default 0:
	// Active and Successful at once).
	TransitionDelay time.Duration
	// Authorizer, when set, authorizes log delivery as the function's
	// execution role (platform.go, mayLog): events the role may not write
	// are dropped. Nil delivers every event.
	Authorizer emu.Authorizer
	// Logger receives lifecycle messages (default: discard).
	Logger *slog.Logger
}

// Service is the local cloud's AWS Lambda: the control plane (an
// http.Handler for the Lambda REST-JSON API) and the runtime that executes
// each function's bootstrap through the Lambda Runtime API. All methods are
// safe for concurrent use.
type Service struct {
	opts    Options
	log     *slog.Logger
	workDir string
	ownDir  bool

	consoleMu sync.Mutex

	mu        sync.Mutex
	functions map[string]*function
	closed    bool
	done      chan struct{}
	wg        sync.WaitGroup // background goroutines: dispatchers, stops, reaper
}

// New returns a Service with no functions.
func New(opts Options) *Service {
	if opts.AccountID == "" {
		opts.AccountID = emu.DefaultAccountID
	}
	if opts.Region == "" {
		opts.Region = emu.DefaultRegion
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Console == nil {
		opts.Console = io.Discard
	}
	if opts.MaxInstancesPerFunction <= 0 {
		opts.MaxInstancesPerFunction = 64
	}
	if opts.AccountConcurrency <= 0 {
		opts.AccountConcurrency = 1000
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = 10 * time.Second
	}
	if opts.AsyncRetryDelays == nil {
		opts.AsyncRetryDelays = []time.Duration{time.Minute, 2 * time.Minute}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		opts:      opts,
		log:       opts.Logger,
		workDir:   opts.WorkDir,
		functions: map[string]*function{},
		done:      make(chan struct{}),
	}
	if opts.IdleTimeout > 0 {
		s.wg.Add(1)
		go s.reapIdle()
	}
	return s
}

// Close stops every process (SIGTERM first for runtimes that registered
// for it, then SIGKILL), fails queued asynchronous events, and removes the
// work directory when the Service created it. In-flight invocations fail.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	var all []*instance
	for _, fn := range s.functions {
		for inst := range fn.instances {
			all = append(all, inst)
			s.removeLocked(inst)
		}
		fn.async = nil
		// Drop the current package too, so its directory goes even in a
		// caller's WorkDir; Stats stay readable after Close.
		s.releaseCodeLocked(fn.code)
		fn.notifyLocked()
	}
	s.mu.Unlock()
	for _, inst := range all {
		s.stopAsync(inst, "local cloud shutting down")
	}
	s.wg.Wait()
	if s.ownDir {
		if err := os.RemoveAll(s.workDir); err != nil {
			return fmt.Errorf("function: close: %w", err)
		}
	}
	return nil
}

// ensureWorkDir creates the work directory on first use.
func (s *Service) ensureWorkDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workDir != "" {
		return s.workDir, nil
	}
	dir, err := os.MkdirTemp("", "taskpipe-lambda-")
	if err != nil {
		return "", fmt.Errorf("function: work dir: %w", err)
	}
	s.workDir, s.ownDir = dir, true
	return dir, nil
}

// function is one Lambda function. Its fields are guarded by Service.mu.
type function struct {
	name    string
	arn     string
	cfg     Configuration
	code    *codeVersion
	gen     int // bumped by every code or configuration change
	reserve *int
	tags    map[string]string
	deleted bool

	instances map[*instance]struct{}
	idle      []*instance // warm processes blocked in /next, most recent last
	busy      int         // processes holding an invocation slot
	changed   chan struct{}

	async       []*asyncEvent
	dispatching bool
	stats       Stats

	// invokeConfig is the asynchronous invocation configuration, nil
	// when none was put (the defaults apply).
	invokeConfig *EventInvokeConfig

	// settles ends the create (creating) or update transition (state.go).
	settles  time.Time
	creating bool
}

// codeVersion is one deployment package, extracted once.
type codeVersion struct {
	sha256 string // base64, as CodeSha256
	size   int64
	dir    string // task root
	users  int    // instances running it, plus one while it is current
}

// notifyLocked wakes everyone waiting for a slot or for a state change.
func (fn *function) notifyLocked() {
	close(fn.changed)
	fn.changed = make(chan struct{})
}

// limit is the most invocations the function may run at once.
func (fn *function) limit(s *Service) int {
	if fn.reserve != nil {
		return *fn.reserve
	}
	return s.opts.MaxInstancesPerFunction
}

// unreservedPoolLocked is the account's unreserved concurrency: what the
// functions without reserved concurrency share ("Lambda ... unreserved
// concurrency pool", https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html).
func (s *Service) unreservedPoolLocked() int {
	pool := s.opts.AccountConcurrency
	for _, fn := range s.functions {
		if fn.reserve != nil {
			pool -= *fn.reserve
		}
	}
	return pool
}

// unreservedBusyLocked counts the running invocations of the functions
// without reserved concurrency, which draw on the unreserved pool.
func (s *Service) unreservedBusyLocked() int {
	n := 0
	for _, fn := range s.functions {
		if fn.reserve == nil {
			n += fn.busy
		}
	}
	return n
}

func (s *Service) functionARN(name string) string {
	return "arn:aws:lambda:" + s.opts.Region + ":" + s.opts.AccountID + ":function:" + name
}

// lastModified formats a time as Lambda's LastModified
// ("2006-01-02T15:04:05.000+0000").
func lastModified(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000-0700")
}

// parseName resolves a FunctionName path parameter: a name, a partial ARN
// (account:function:name) or a full ARN, each with an optional
// ":qualifier". It returns the name and the qualifier.
func (s *Service) parseName(ref string) (name, qualifier string, err *Error) {
	parts := strings.Split(ref, ":")
	switch {
	case len(parts) >= 7 && parts[0] == "arn" && parts[2] == "lambda" && parts[5] == "function":
		if parts[3] != s.opts.Region || parts[4] != s.opts.AccountID {
			return "", "", errNotFound(ref)
		}
		name = parts[6]
		if len(parts) == 8 {
			qualifier = parts[7]
		} else if len(parts) > 8 {
			return "", "", errValidation(ref, "functionName", "Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_\\.]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?")
		}
	case len(parts) >= 3 && parts[1] == "function":
		if parts[0] != s.opts.AccountID {
			return "", "", errNotFound(ref)
		}
		name = parts[2]
		if len(parts) == 4 {
			qualifier = parts[3]
		}
	case len(parts) <= 2:
		name = parts[0]
		if len(parts) == 2 {
			qualifier = parts[1]
		}
	default:
		return "", "", errValidation(ref, "functionName", "Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_\\.]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?")
	}
	if !functionNameRE.MatchString(name) {
		return "", "", errValidation(ref, "functionName", "Member must satisfy regular expression pattern: [a-zA-Z0-9-_]+ with 1 to 64 characters")
	}
	return name, qualifier, nil
}

// lookupLocked finds a function by name, partial or full ARN; only the
// unqualified function and $LATEST exist (no versions or aliases).
func (s *Service) lookupLocked(ref, qualifier string) (*function, *Error) {
	name, q, err := s.parseName(ref)
	if err != nil {
		return nil, err
	}
	if qualifier == "" {
		qualifier = q
	} else if q != "" && q != qualifier {
		return nil, errorf(ErrInvalidParameter, "The derived qualifier from the function name does not match the specified qualifier.")
	}
	fn, ok := s.functions[name]
	if !ok || fn.deleted {
		return nil, errNotFound(s.functionARN(name))
	}
	if qualifier != "" && qualifier != "$LATEST" {
		return nil, errNotFound(s.functionARN(name) + ":" + qualifier)
	}
	return fn, nil
}

// Create creates a function from a zip package (CreateFunction).
func (s *Service) Create(in CreateInput) (Configuration, error) {
	if !functionNameRE.MatchString(in.FunctionName) {
		return Configuration{}, errValidation(in.FunctionName, "functionName", "Member must satisfy regular expression pattern: [a-zA-Z0-9-_]+ with 1 to 64 characters")
	}
	if in.PackageType != "" && in.PackageType != "Zip" {
		return Configuration{}, errorf(ErrInvalidParameter, "The taskpipe local cloud runs only Zip packages; PackageType %s is not supported", in.PackageType)
	}
	if err := validateRuntime(in.Runtime); err != nil {
		return Configuration{}, err
	}
	archs, err := validateArchitectures(in.Architectures)
	if err != nil {
		return Configuration{}, err
	}
	if verr := validateRole(in.Role); verr != nil {
		return Configuration{}, verr
	}
	timeout, memory := defaultTimeout, defaultMemory
	if in.Timeout != nil {
		timeout = *in.Timeout
	}
	if in.MemorySize != nil {
		memory = *in.MemorySize
	}
	if verr := validateTimeout(timeout); verr != nil {
		return Configuration{}, verr
	}
	if verr := validateMemory(memory); verr != nil {
		return Configuration{}, verr
	}
	if verr := validateEnvironment(in.Environment); verr != nil {
		return Configuration{}, verr
	}
	logging, lerr := normalizeLogging(in.LoggingConfig, in.FunctionName)
	if lerr != nil {
		return Configuration{}, lerr
	}
	if verr := validateTags(in.Tags); verr != nil {
		return Configuration{}, verr
	}
	if in.EphemeralStorage != nil && in.EphemeralStorage.Size != 0 && (in.EphemeralStorage.Size < 512 || in.EphemeralStorage.Size > 10240) {
		return Configuration{}, errValidation(in.EphemeralStorage.Size, "ephemeralStorage.size", "Member must have value between 512 and 10240")
	}
	if verr := unsupportedCode(in.Code.S3Bucket, in.Code.S3Key, in.Code.ImageURI); verr != nil {
		return Configuration{}, verr
	}
	if len(in.Code.ZipFile) == 0 {
		return Configuration{}, errorf(ErrInvalidParameter, "Please provide a source for function code (Code.ZipFile).")
	}
	if len(in.Layers) > 0 {
		return Configuration{}, errorf(ErrInvalidParameter, "The taskpipe local cloud does not emulate layers")
	}
	if in.Publish {
		return Configuration{}, errorf(ErrInvalidParameter, "The taskpipe local cloud does not emulate published versions; create the function with Publish false and invoke $LATEST")
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Configuration{}, errorf(ErrServiceUnavailable, "the local cloud is shutting down")
	}
	if fn, ok := s.functions[in.FunctionName]; ok && !fn.deleted {
		s.mu.Unlock()
		return Configuration{}, errorf(ErrConflict, "Function already exist: %s", in.FunctionName)
	}
	s.mu.Unlock()

	code, cerr := s.storeCode(in.FunctionName, in.Code.ZipFile)
	if cerr != nil {
		return Configuration{}, cerr
	}
	cfg := Configuration{
		FunctionName: in.FunctionName, FunctionArn: s.functionARN(in.FunctionName),
		Runtime: in.Runtime, Role: in.Role, Handler: in.Handler, Description: in.Description,
		Timeout: timeout, MemorySize: memory, Version: "$LATEST",
		TracingConfig: TracingConfig{Mode: "PassThrough"}, State: "Active", LastUpdateStatus: "Successful",
		PackageType: "Zip", Architectures: archs, EphemeralStorage: EphemeralStorage{Size: defaultEphemeral},
		LoggingConfig: logging, SnapStart: SnapStartResponse{ApplyOn: "None", OptimizationStatus: "Off"},
		RuntimeVersionConfig: &RuntimeVersionConfig{RuntimeVersionArn: runtimeVersionARN(s.opts.Region, in.Runtime)},
		DeadLetterConfig:     in.DeadLetterConfig,
	}
	if in.Environment != nil {
		cfg.Environment = &EnvironmentResponse{Variables: copyMap(in.Environment.Variables)}
	}
	if in.TracingConfig != nil && in.TracingConfig.Mode != "" {
		cfg.TracingConfig = *in.TracingConfig
	}
	if in.EphemeralStorage != nil && in.EphemeralStorage.Size != 0 {
		cfg.EphemeralStorage = *in.EphemeralStorage
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if fn, ok := s.functions[in.FunctionName]; ok && !fn.deleted {
		s.releaseCodeLocked(code)
		return Configuration{}, errorf(ErrConflict, "Function already exist: %s", in.FunctionName)
	}
	fn := &function{
		name: in.FunctionName, arn: cfg.FunctionArn, code: code, tags: copyMap(in.Tags),
		instances: map[*instance]struct{}{}, changed: make(chan struct{}),
	}
	s.stampLocked(fn, &cfg)
	fn.cfg = cfg
	s.functions[fn.name] = fn
	s.beginTransitionLocked(fn, true)
	s.log.Info("lambda function created", "function", fn.name, "codeSha256", code.sha256, "codeSize", code.size)
	return s.viewLocked(fn), nil
}

func unsupportedCode(bucket, key, image string) *Error {
	if bucket != "" || key != "" {
		return errorf(ErrInvalidParameter, "The taskpipe local cloud has no S3: upload the package as ZipFile")
	}
	if image != "" {
		return errorf(ErrInvalidParameter, "The taskpipe local cloud runs only Zip packages, not container images")
	}
	return nil
}

// stampLocked sets the fields that change with every update.
func (s *Service) stampLocked(fn *function, cfg *Configuration) {
	cfg.CodeSha256, cfg.CodeSize = fn.code.sha256, fn.code.size
	cfg.LastModified = lastModified(s.opts.Now())
	cfg.RevisionID = uuid.NewString()
	fn.gen++
}

// configLocked returns a copy of the configuration safe to hand out.
func (fn *function) configLocked() Configuration {
	c := fn.cfg
	c.Architectures = append([]string(nil), c.Architectures...)
	if c.Environment != nil {
		c.Environment = &EnvironmentResponse{Variables: copyMap(c.Environment.Variables)}
	}
	if c.RuntimeVersionConfig != nil {
		rv := *c.RuntimeVersionConfig
		c.RuntimeVersionConfig = &rv
	}
	if c.DeadLetterConfig != nil {
		d := *c.DeadLetterConfig
		c.DeadLetterConfig = &d
	}
	return c
}

// storeCode validates and extracts a package; an identical package already
// extracted for the function is shared.
func (s *Service) storeCode(name string, zipData []byte) (*codeVersion, *Error) {
	if len(zipData) > maxZipRequest {
		return nil, errorf(ErrRequestEntityTooLarge, "Request must be smaller than %d bytes for the CreateFunction operation", maxZipRequest)
	}
	if err := checkZip(zipData); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(zipData)
	root, err := s.ensureWorkDir()
	if err != nil {
		return nil, errorf(ErrServiceUnavailable, "%v", err)
	}
	// One directory per upload: an identical re-upload gets a fresh copy,
	// which keeps the bookkeeping simple and costs only disk.
	dir := filepath.Join(root, name, hex.EncodeToString(sum[:8])+"-"+uuid.NewString()[:8])
	if err := extractZip(zipData, dir); err != nil {
		_ = os.RemoveAll(dir) // best effort; the error below is what matters
		var apiErr *Error
		if errors.As(err, &apiErr) {
			return nil, apiErr
		}
		return nil, errorf(ErrServiceUnavailable, "extract package: %v", err)
	}
	return &codeVersion{sha256: base64.StdEncoding.EncodeToString(sum[:]), size: int64(len(zipData)), dir: dir, users: 1}, nil
}

// releaseCodeLocked drops one user of a package and removes its directory
// when nothing uses it any more.
func (s *Service) releaseCodeLocked(c *codeVersion) {
	c.users--
	if c.users > 0 {
		return
	}
	dir := c.dir
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := os.RemoveAll(dir); err != nil {
			s.log.Warn("remove extracted package", "dir", dir, "err", err)
		}
	}()
}

// Configuration returns a function's configuration
// (GetFunctionConfiguration).
func (s *Service) Configuration(ref string) (Configuration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return Configuration{}, err
	}
	return s.viewLocked(fn), nil
}

// Functions lists every function's configuration, sorted by name.
func (s *Service) Functions() []Configuration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Configuration, 0, len(s.functions))
	for _, fn := range s.functions {
		if !fn.deleted {
			out = append(out, s.viewLocked(fn))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FunctionName < out[j].FunctionName })
	return out
}

// UpdateConfiguration changes a function's configuration
// (UpdateFunctionConfiguration). Invocations after it run in new
// processes; warm processes of the old configuration are stopped once
// idle.
func (s *Service) UpdateConfiguration(ref string, in UpdateConfigInput) (Configuration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Configuration{}, errorf(ErrServiceUnavailable, "the local cloud is shutting down")
	}
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return Configuration{}, err
	}
	if in.RevisionID != "" && in.RevisionID != fn.cfg.RevisionID {
		return Configuration{}, errRevision()
	}
	if berr := s.errBusyLocked(fn); berr != nil {
		return Configuration{}, berr
	}
	cfg := fn.configLocked()
	if in.Runtime != nil {
		if verr := validateRuntime(*in.Runtime); verr != nil {
			return Configuration{}, verr
		}
		cfg.Runtime = *in.Runtime
		cfg.RuntimeVersionConfig = &RuntimeVersionConfig{RuntimeVersionArn: runtimeVersionARN(s.opts.Region, cfg.Runtime)}
	}
	if in.Role != nil {
		if verr := validateRole(*in.Role); verr != nil {
			return Configuration{}, verr
		}
		cfg.Role = *in.Role
	}
	if in.Handler != nil {
		cfg.Handler = *in.Handler
	}
	if in.Description != nil {
		cfg.Description = *in.Description
	}
	if in.Timeout != nil {
		if verr := validateTimeout(*in.Timeout); verr != nil {
			return Configuration{}, verr
		}
		cfg.Timeout = *in.Timeout
	}
	if in.MemorySize != nil {
		if verr := validateMemory(*in.MemorySize); verr != nil {
			return Configuration{}, verr
		}
		cfg.MemorySize = *in.MemorySize
	}
	if in.Environment != nil {
		if verr := validateEnvironment(in.Environment); verr != nil {
			return Configuration{}, verr
		}
		cfg.Environment = &EnvironmentResponse{Variables: copyMap(in.Environment.Variables)}
	}
	if in.LoggingConfig != nil {
		merged := *in.LoggingConfig
		if merged.LogFormat == "" {
			merged.LogFormat = cfg.LoggingConfig.LogFormat
		}
		if merged.LogGroup == "" {
			merged.LogGroup = cfg.LoggingConfig.LogGroup
		}
		logging, lerr := normalizeLogging(&merged, fn.name)
		if lerr != nil {
			return Configuration{}, lerr
		}
		cfg.LoggingConfig = logging
	}
	if in.TracingConfig != nil && in.TracingConfig.Mode != "" {
		cfg.TracingConfig = *in.TracingConfig
	}
	if in.EphemeralStorage != nil && in.EphemeralStorage.Size != 0 {
		if in.EphemeralStorage.Size < 512 || in.EphemeralStorage.Size > 10240 {
			return Configuration{}, errValidation(in.EphemeralStorage.Size, "ephemeralStorage.size", "Member must have value between 512 and 10240")
		}
		cfg.EphemeralStorage = *in.EphemeralStorage
	}
	if in.DeadLetterConfig != nil {
		cfg.DeadLetterConfig = in.DeadLetterConfig
	}
	if len(in.Layers) > 0 {
		return Configuration{}, errorf(ErrInvalidParameter, "The taskpipe local cloud does not emulate layers")
	}
	s.stampLocked(fn, &cfg)
	fn.cfg = cfg
	s.retireLocked(fn)
	s.beginTransitionLocked(fn, false)
	return s.viewLocked(fn), nil
}

func errRevision() *Error {
	return errorf(ErrPreconditionFailed, "The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to retrieve the latest Revision Id")
}

// UpdateCode replaces a function's package (UpdateFunctionCode). A DryRun
// validates the package and returns the configuration it would have.
func (s *Service) UpdateCode(ref string, in UpdateCodeInput) (Configuration, error) {
	if verr := unsupportedCode(in.S3Bucket, in.S3Key, in.ImageURI); verr != nil {
		return Configuration{}, verr
	}
	if len(in.ZipFile) == 0 {
		return Configuration{}, errorf(ErrInvalidParameter, "Please provide a source for function code (ZipFile).")
	}
	if in.Publish {
		return Configuration{}, errorf(ErrInvalidParameter, "The taskpipe local cloud does not emulate published versions")
	}
	var archs []string
	if len(in.Architectures) > 0 {
		a, verr := validateArchitectures(in.Architectures)
		if verr != nil {
			return Configuration{}, verr
		}
		archs = a
	}
	s.mu.Lock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		s.mu.Unlock()
		return Configuration{}, err
	}
	if in.RevisionID != "" && in.RevisionID != fn.cfg.RevisionID {
		s.mu.Unlock()
		return Configuration{}, errRevision()
	}
	if berr := s.errBusyLocked(fn); berr != nil {
		s.mu.Unlock()
		return Configuration{}, berr
	}
	name := fn.name
	s.mu.Unlock()

	if in.DryRun {
		if verr := checkZip(in.ZipFile); verr != nil {
			return Configuration{}, verr
		}
		sum := sha256.Sum256(in.ZipFile)
		s.mu.Lock()
		defer s.mu.Unlock()
		cfg := s.viewLocked(fn)
		cfg.CodeSha256, cfg.CodeSize = base64.StdEncoding.EncodeToString(sum[:]), int64(len(in.ZipFile))
		return cfg, nil
	}
	code, cerr := s.storeCode(name, in.ZipFile)
	if cerr != nil {
		return Configuration{}, cerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.releaseCodeLocked(code)
		return Configuration{}, errorf(ErrServiceUnavailable, "the local cloud is shutting down")
	}
	if fn.deleted {
		s.releaseCodeLocked(code)
		return Configuration{}, errNotFound(fn.arn)
	}
	s.releaseCodeLocked(fn.code)
	fn.code = code
	cfg := fn.configLocked()
	if archs != nil {
		cfg.Architectures = archs
	}
	s.stampLocked(fn, &cfg)
	fn.cfg = cfg
	s.retireLocked(fn)
	s.beginTransitionLocked(fn, false)
	s.log.Info("lambda function code updated", "function", fn.name, "codeSha256", code.sha256)
	return s.viewLocked(fn), nil
}

// retireLocked stops the idle processes of older generations; busy ones
// stop when their invocation ends.
func (s *Service) retireLocked(fn *function) {
	keep := fn.idle[:0]
	var stale []*instance
	for _, inst := range fn.idle {
		if inst.gen == fn.gen {
			keep = append(keep, inst)
		} else {
			stale = append(stale, inst)
		}
	}
	fn.idle = keep
	for _, inst := range stale {
		s.removeLocked(inst)
		s.stopAsync(inst, "configuration or code changed")
	}
	fn.notifyLocked()
}

// Delete deletes a function (DeleteFunction). Warm processes stop now;
// invocations in flight finish, then their processes stop. Queued
// asynchronous events are dropped.
func (s *Service) Delete(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errorf(ErrServiceUnavailable, "the local cloud is shutting down")
	}
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return err
	}
	fn.deleted = true
	delete(s.functions, fn.name)
	// Detach the idle list first: removeLocked splices the instance out of
	// fn.idle, which would skip entries of a list being ranged over.
	idle := fn.idle
	fn.idle = nil
	for _, inst := range idle {
		s.removeLocked(inst)
		s.stopAsync(inst, "function deleted")
	}
	fn.async = nil
	s.releaseCodeLocked(fn.code)
	fn.notifyLocked()
	s.log.Info("lambda function deleted", "function", fn.name)
	return nil
}

// PutConcurrency sets a function's reserved concurrency
// (PutFunctionConcurrency); 0 throttles every invocation.
func (s *Service) PutConcurrency(ref string, reserved int) error {
	if reserved < 0 {
		return errValidation(reserved, "reservedConcurrentExecutions", "Member must have value greater than or equal to 0")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return err
	}
	total := reserved
	for _, other := range s.functions {
		if other != fn && other.reserve != nil {
			total += *other.reserve
		}
	}
	// Source: PutFunctionConcurrency API reference — reservations may not
	// leave the account with less than 100 unreserved.
	if s.opts.AccountConcurrency-total < 100 {
		return errorf(ErrInvalidParameter, "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100].")
	}
	r := reserved
	fn.reserve = &r
	s.trimIdleLocked(fn)
	fn.notifyLocked()
	return nil
}

// Concurrency returns a function's reserved concurrency, if set.
func (s *Service) Concurrency(ref string) (int, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return 0, false, err
	}
	if fn.reserve == nil {
		return 0, false, nil
	}
	return *fn.reserve, true, nil
}

// DeleteConcurrency removes a function's reserved concurrency.
func (s *Service) DeleteConcurrency(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, "")
	if err != nil {
		return err
	}
	fn.reserve = nil
	s.trimIdleLocked(fn)
	fn.notifyLocked()
	return nil
}

// trimIdleLocked stops idle processes beyond a lowered limit.
func (s *Service) trimIdleLocked(fn *function) {
	for len(fn.instances) > fn.limit(s) && len(fn.idle) > 0 {
		inst := fn.idle[0]
		fn.idle = fn.idle[1:]
		s.removeLocked(inst)
		s.stopAsync(inst, "concurrency lowered")
	}
}

// Tags returns a function's tags, by ARN.
func (s *Service) Tags(arn string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(arn, "")
	if err != nil {
		return nil, err
	}
	return copyMap(fn.tags), nil
}

// Tag adds or replaces tags of a function, by ARN.
func (s *Service) Tag(arn string, tags map[string]string) error {
	if err := validateTags(tags); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(arn, "")
	if err != nil {
		return err
	}
	merged := copyMap(fn.tags)
	for k, v := range tags {
		merged[k] = v
	}
	if err := validateTags(merged); err != nil {
		return err
	}
	fn.tags = merged
	return nil
}

// Untag removes tags from a function, by ARN.
func (s *Service) Untag(arn string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(arn, "")
	if err != nil {
		return err
	}
	for _, k := range keys {
		delete(fn.tags, k)
	}
	return nil
}

// reapIdle stops processes that have been idle longer than IdleTimeout.
func (s *Service) reapIdle() {
	defer s.wg.Done()
	every := s.opts.IdleTimeout / 4
	if every > 30*time.Second {
		every = 30 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		cutoff := time.Now().Add(-s.opts.IdleTimeout)
		s.mu.Lock()
		for _, fn := range s.functions {
			// Split first, then remove: removeLocked edits fn.idle.
			var keep, stale []*instance
			for _, inst := range fn.idle {
				if inst.lastUsed.Before(cutoff) {
					stale = append(stale, inst)
				} else {
					keep = append(keep, inst)
				}
			}
			fn.idle = keep
			for _, inst := range stale {
				s.removeLocked(inst)
				s.stopAsync(inst, "idle")
			}
		}
		s.mu.Unlock()
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeConsole writes a line prefixed with the function name.
func (s *Service) writeConsole(name, line string) {
	s.consoleMu.Lock()
	defer s.consoleMu.Unlock()
	_, _ = io.WriteString(s.opts.Console, "["+name+"] "+line+"\n") // console output is best effort
}
