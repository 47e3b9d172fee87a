package mapping

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// Invoker is the Lambda service as a mapping needs it. The local cloud
// passes a small adapter over internal/localaws/emu/function; tests pass a fake.
type Invoker interface {
	// FunctionARN resolves a function name, partial ARN or ARN (with an
	// optional version or alias qualifier) to the function's ARN, as
	// CreateEventSourceMapping's FunctionName accepts them; false when no
	// such function exists.
	FunctionARN(name string) (arn string, ok bool)
	// Invoke runs the function synchronously (InvocationType
	// RequestResponse) with payload, as the poller does. A function error
	// is a result with FunctionError set, not an error. Return an error
	// wrapping ErrThrottled when the invocation was throttled (Lambda's
	// TooManyRequestsException); any other error fails the batch.
	Invoke(ctx context.Context, functionARN string, payload []byte) (InvokeResult, error)
}

// InvokeResult is the outcome of a synchronous invocation.
type InvokeResult struct {
	// Payload is the function's response (or error document).
	Payload []byte
	// FunctionError is the X-Amz-Function-Error value ("Unhandled",
	// "Handled"), empty when the function succeeded. Timeouts and crashed
	// runtimes are function errors too.
	FunctionError string
}

// ErrThrottled marks an invocation Lambda refused for lack of concurrency.
// The poller retries it with backoff while the messages stay invisible
// (services-sqs-errorhandling.html: "Lambda continues to retry the message
// until the message's timestamp exceeds your queue's visibility timeout").
var ErrThrottled = errors.New("mapping: function invocation throttled")

// FunctionTimeouts is optionally implemented by an Invoker. When it is,
// Create and Update refuse a queue whose visibility timeout is shorter
// than the function timeout, as Lambda does (services-sqs-configure.html:
// "Lambda validates this requirement when you create or update an event
// source mapping").
type FunctionTimeouts interface {
	FunctionTimeout(functionARN string) (time.Duration, bool)
}

// QueueAccess is optionally implemented by an Invoker. When it is, Create
// refuses a function whose execution role cannot consume the queue, as
// Lambda does (with-sqs.html, "Execution role permissions":
// ReceiveMessage, DeleteMessage, GetQueueAttributes).
type QueueAccess interface {
	// CannotConsume returns the first of those actions the function's
	// role may not call on the queue, or "".
	CannotConsume(functionARN, queueARN string) string
}

// Options configures a Service. Queues and Invoker are required.
type Options struct {
	// AccountID and Region name mapping ARNs and event records (default
	// emu.DefaultAccountID, emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the clock for LastModified and for the throttle-retry
	// deadline, which follows the queue's (injected) clock (default
	// time.Now).
	Now func() time.Time
	// Queues is the local SQS the pollers read.
	Queues *queue.Service
	// Invoker runs the functions.
	Invoker Invoker
	// Faults injects duplicate deliveries, lost and slow acknowledgements
	// (default emu.NoFaults).
	Faults emu.Faults
	// Metrics receives the mapping metrics of mappings whose MetricsConfig
	// asks for EventCount (optional).
	Metrics emu.MetricSink
	// Logger receives poller problems at Warn and batches at Debug
	// (default: discard).
	Logger *slog.Logger
	// NewUUID returns mapping UUIDs (default uuid.NewString).
	NewUUID func() string
	// SleepFunc waits for an acknowledgement delay or a throttle backoff;
	// it returns early with ctx's error (default: a real timer).
	SleepFunc func(ctx context.Context, d time.Duration) error
	// PollWait is the long-poll wait of each receive (default 20 s, the
	// SQS maximum, which is what Lambda's pollers use).
	PollWait time.Duration
	// DefaultMaxConcurrency bounds the concurrent invocations of a mapping
	// without ScalingConfig (default 1250, the documented ceiling of SQS
	// scaling: docs/aws-behaviour.md §4.10). The function's own concurrency limit
	// applies below it through throttling.
	DefaultMaxConcurrency int
}

// Service is the Lambda event source mapping service for SQS sources: the
// CRUD API (an http.Handler for the /2015-03-31/event-source-mappings
// paths, and the same operations as Go methods) and one poller per
// enabled mapping. All methods are safe for concurrent use.
type Service struct {
	opts   Options
	log    *slog.Logger
	faults emu.Faults

	// ctx is the parent of every poller and invocation; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	mappings map[string]*mapping // by UUID
	seq      uint64
	closed   bool
}

// mapping is one event source mapping and its runtime state.
type mapping struct {
	// Guarded by Service.mu.
	cfg          Configuration
	functionName string // as last given, for the conflict message
	seq          uint64 // creation order, for listing
	filters      []filter
	tags         map[string]string
	poller       *poller
	deleted      bool

	// slots bound the concurrent batches (Configuration.maxConcurrency).
	slotMu    sync.Mutex
	slots     int
	slotFreed chan struct{}

	stats counters
}

// poller is the running receive loop of an enabled mapping.
type poller struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a Service. It panics when Queues or Invoker is missing,
// which is a wiring bug.
func New(opts Options) *Service {
	if opts.Queues == nil || opts.Invoker == nil {
		panic("mapping: New needs Options.Queues and Options.Invoker")
	}
	if opts.AccountID == "" {
		opts.AccountID = emu.DefaultAccountID
	}
	if opts.Region == "" {
		opts.Region = emu.DefaultRegion
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewUUID == nil {
		opts.NewUUID = uuid.NewString
	}
	if opts.SleepFunc == nil {
		opts.SleepFunc = sleep
	}
	if opts.PollWait <= 0 {
		opts.PollWait = 20 * time.Second
	}
	if opts.DefaultMaxConcurrency <= 0 {
		opts.DefaultMaxConcurrency = 1250
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	faults := opts.Faults
	if faults == nil {
		faults = emu.NoFaults{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{
		opts: opts, log: log, faults: faults,
		ctx: ctx, cancel: cancel,
		mappings: map[string]*mapping{},
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops every poller, cancels the invocations in flight and waits
// for all of them to return.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// Stats are the counters of one mapping since it was created.
type Stats struct {
	// Polled counts messages received from the queue.
	Polled int64
	// FilteredOut counts messages no filter matched; they were deleted.
	FilteredOut int64
	// Batches counts invocations made (duplicate deliveries included);
	// Records counts the records they carried.
	Batches int64
	Records int64
	// Succeeded counts batches the function completed (partially or
	// fully); FailedBatches counts batches that failed as a whole: function
	// errors, invocation errors, invalid partial batch responses, and
	// throttled batches whose messages ran out of visibility time.
	Succeeded     int64
	FailedBatches int64
	// FunctionErrors and InvalidResponses break FailedBatches down.
	FunctionErrors   int64
	InvalidResponses int64
	// ItemFailures counts messages a partial batch response kept.
	ItemFailures int64
	// Deleted counts acknowledgements sent (successful DeleteMessage calls).
	Deleted int64
	// Throttles counts throttled invocation attempts.
	Throttles int64
	// Duplicates counts duplicate deliveries injected by Faults.
	Duplicates int64
	// DroppedAcks counts deletes Faults made the poller skip; DelayedAcks
	// counts batches whose deletes Faults held back.
	DroppedAcks int64
	DelayedAcks int64
	// InFlight is the number of invocations running now; PeakConcurrency
	// the most that ever ran at once.
	InFlight        int64
	PeakConcurrency int64
}

type counters struct {
	polled, filteredOut, batches, records, succeeded, failedBatches atomic.Int64
	functionErrors, invalidResponses, itemFailures, deleted         atomic.Int64
	throttles, duplicates, droppedAcks, delayedAcks                 atomic.Int64
	inFlight, peak                                                  atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Polled: c.polled.Load(), FilteredOut: c.filteredOut.Load(),
		Batches: c.batches.Load(), Records: c.records.Load(),
		Succeeded: c.succeeded.Load(), FailedBatches: c.failedBatches.Load(),
		FunctionErrors: c.functionErrors.Load(), InvalidResponses: c.invalidResponses.Load(),
		ItemFailures: c.itemFailures.Load(), Deleted: c.deleted.Load(),
		Throttles: c.throttles.Load(), Duplicates: c.duplicates.Load(),
		DroppedAcks: c.droppedAcks.Load(), DelayedAcks: c.delayedAcks.Load(),
		InFlight: c.inFlight.Load(), PeakConcurrency: c.peak.Load(),
	}
}

// Stats returns the counters of a mapping; false when no mapping has the
// UUID (deleted mappings are forgotten).
func (s *Service) Stats(uuid string) (Stats, bool) {
	s.mu.Lock()
	m := s.mappings[uuid]
	s.mu.Unlock()
	if m == nil {
		return Stats{}, false
	}
	return m.stats.snapshot(), true
}

// mappingARN is arn:aws:lambda:<region>:<account>:event-source-mapping:<uuid>.
func (s *Service) mappingARN(id string) string {
	return "arn:aws:lambda:" + s.opts.Region + ":" + s.opts.AccountID + ":event-source-mapping:" + id
}

// checkSource validates EventSourceArn: an SQS queue ARN of a queue that
// exists. Other services are refused plainly: the local cloud emulates
// only SQS mappings.
func (s *Service) checkSource(arn *string) (string, error) {
	if arn == nil || *arn == "" {
		return "", errorf(ErrInvalidParameterValue,
			"EventSourceArn is required: the taskpipe local cloud supports only Amazon SQS event sources.")
	}
	parts := strings.SplitN(*arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return "", errorf(ErrValidation,
			"1 validation error detected: Value '%s' at 'eventSourceArn' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-])+:([a-z]{2}(-gov)?-[a-z]+-\\d{1})?:(\\d{12})?:(.*)", *arn)
	}
	if parts[2] != "sqs" {
		return "", errorf(ErrInvalidParameterValue,
			"The taskpipe local cloud supports only Amazon SQS event sources; %s sources such as %s are not emulated.", parts[2], *arn)
	}
	if _, ok := s.opts.Queues.QueueByARN(*arn); !ok {
		// AWS's exact wording is UNCONFIRMED; it refuses the mapping with
		// InvalidParameterValueException.
		return "", errorf(ErrInvalidParameterValue, "The provided event source queue %s does not exist.", *arn)
	}
	return *arn, nil
}

// resolveFunction maps FunctionName to its ARN. "Function does not exist"
// is the message Lambda gives CreateEventSourceMapping for an unknown
// function (widely reported; no recording found, UNCONFIRMED).
func (s *Service) resolveFunction(name *string) (string, error) {
	if name == nil || *name == "" {
		return "", errorf(ErrValidation,
			"1 validation error detected: Value null at 'functionName' failed to satisfy constraint: Member must not be null")
	}
	arn, ok := s.opts.Invoker.FunctionARN(*name)
	if !ok {
		return "", errorf(ErrResourceNotFound, "Function does not exist")
	}
	return arn, nil
}

// checkTimeout refuses a queue whose visibility timeout is shorter than
// the function timeout, when the Invoker knows function timeouts. The
// message is the one AWS users report (UNCONFIRMED by a recording).
func (s *Service) checkTimeout(queueARN, functionARN string) error {
	ft, ok := s.opts.Invoker.(FunctionTimeouts)
	if !ok {
		return nil
	}
	timeout, ok := ft.FunctionTimeout(functionARN)
	if !ok {
		return nil
	}
	attrs, err := s.opts.Queues.Attributes(queueARN, "VisibilityTimeout")
	if err != nil {
		return fmt.Errorf("mapping: read queue visibility timeout: %w", err)
	}
	vis, err := strconv.Atoi(attrs["VisibilityTimeout"])
	if err != nil {
		return fmt.Errorf("mapping: queue VisibilityTimeout %q: %w", attrs["VisibilityTimeout"], err)
	}
	if secs := int(timeout / time.Second); secs > vis {
		return errorf(ErrInvalidParameterValue,
			"Queue visibility timeout: %d seconds is less than Function timeout: %d seconds", vis, secs)
	}
	return nil
}

// conflictLocked returns the ResourceConflictException for a second
// mapping of the same queue and function (AWS-recorded message:
// LocalStack test_duplicate_event_source_mappings).
func (s *Service) conflictLocked(queueARN, functionARN, functionName, except string) error {
	for id, m := range s.mappings {
		if id != except && m.cfg.EventSourceArn == queueARN && m.cfg.FunctionArn == functionARN {
			return errorf(ErrResourceConflict,
				"An event source mapping with SQS arn (\" %s \") and function (\" %s \") already exists. Please update or delete the existing mapping with UUID %s",
				queueARN, functionName, id)
		}
	}
	return nil
}

// Create creates a mapping (CreateEventSourceMapping). The returned
// configuration is the response: State Creating, or Disabled for a mapping
// created disabled. An enabled mapping starts polling at once.
func (s *Service) Create(req CreateRequest) (Configuration, error) {
	if err := req.check(); err != nil {
		return Configuration{}, err
	}
	queueARN, err := s.checkSource(req.EventSourceArn)
	if err != nil {
		return Configuration{}, err
	}
	functionARN, err := s.resolveFunction(req.FunctionName)
	if err != nil {
		return Configuration{}, err
	}
	if qa, ok := s.opts.Invoker.(QueueAccess); ok {
		if action := qa.CannotConsume(functionARN, queueARN); action != "" {
			return Configuration{}, errorf(ErrInvalidParameterValue,
				"The provided execution role does not have permissions to call %s on SQS", action)
		}
	}
	batch := int32(defaultBatchSize)
	if req.BatchSize != nil {
		batch = *req.BatchSize
	}
	var window int32
	if req.MaximumBatchingWindowInSeconds != nil {
		window = *req.MaximumBatchingWindowInSeconds
	}
	if err := validateNumbers(batch, window, req.ScalingConfig); err != nil {
		return Configuration{}, err
	}
	if err := validateResponseTypes(req.FunctionResponseTypes); err != nil {
		return Configuration{}, err
	}
	if err := validateMetrics(req.MetricsConfig); err != nil {
		return Configuration{}, err
	}
	filters, err := compileFilters(req.FilterCriteria)
	if err != nil {
		return Configuration{}, err
	}
	if err := s.checkTimeout(queueARN, functionARN); err != nil {
		return Configuration{}, err
	}
	enabled := req.Enabled == nil || *req.Enabled

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Configuration{}, errorf(ErrService, "The local Lambda service is shut down.")
	}
	if err := s.conflictLocked(queueARN, functionARN, *req.FunctionName, ""); err != nil {
		return Configuration{}, err
	}
	id := s.opts.NewUUID()
	cfg := Configuration{
		UUID:                           id,
		BatchSize:                      batch,
		EventSourceArn:                 queueARN,
		EventSourceMappingArn:          s.mappingARN(id),
		FunctionArn:                    functionARN,
		FunctionResponseTypes:          slices.Clone(req.FunctionResponseTypes),
		LastModified:                   EpochSeconds(s.opts.Now()),
		MaximumBatchingWindowInSeconds: window,
		StateTransitionReason:          transitionUserInitiated,
		State:                          StateDisabled,
	}
	if len(filters) > 0 {
		cfg.FilterCriteria = req.FilterCriteria
	}
	if req.ScalingConfig != nil && req.ScalingConfig.MaximumConcurrency != nil {
		cfg.ScalingConfig = req.ScalingConfig
	}
	if req.MetricsConfig != nil && len(req.MetricsConfig.Metrics) > 0 {
		cfg.MetricsConfig = req.MetricsConfig
	}
	if req.KMSKeyArn != nil && *req.KMSKeyArn != "" {
		cfg.KMSKeyArn = *req.KMSKeyArn
	}
	cfg = cfg.clone()
	s.seq++
	m := &mapping{
		cfg: cfg, functionName: *req.FunctionName, seq: s.seq, filters: filters,
		tags: maps.Clone(req.Tags), slotFreed: make(chan struct{}, 1),
	}
	s.mappings[id] = m
	resp := cfg.clone()
	if enabled {
		m.cfg.State = StateEnabled
		resp.State = StateCreating
		s.startLocked(m)
	}
	s.log.Info("event source mapping created", "uuid", id, "queue", queueARN, "function", functionARN, "enabled", enabled)
	return resp, nil
}

// Get returns a mapping (GetEventSourceMapping).
func (s *Service) Get(id string) (Configuration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.mappings[id]
	if m == nil {
		return Configuration{}, errNotFound()
	}
	return m.cfg.clone(), nil
}

// Update changes a mapping (UpdateEventSourceMapping); absent members keep
// their values. An empty FilterCriteria removes the filters, a
// ScalingConfig without MaximumConcurrency removes the cap, and an empty
// MetricsConfig removes the metrics. The response State is Enabling or
// Disabling when Enabled changes, else Updating; polling starts or stops
// before Update returns (invocations in flight finish on their own).
func (s *Service) Update(id string, req UpdateRequest) (Configuration, error) {
	if err := req.check(); err != nil {
		return Configuration{}, err
	}
	s.mu.Lock()
	m := s.mappings[id]
	if m == nil {
		s.mu.Unlock()
		return Configuration{}, errNotFound()
	}
	cfg := m.cfg.clone()
	functionName := m.functionName
	s.mu.Unlock()

	if req.FunctionName != nil {
		arn, err := s.resolveFunction(req.FunctionName)
		if err != nil {
			return Configuration{}, err
		}
		cfg.FunctionArn, functionName = arn, *req.FunctionName
	}
	if req.BatchSize != nil {
		cfg.BatchSize = *req.BatchSize
	}
	if req.MaximumBatchingWindowInSeconds != nil {
		cfg.MaximumBatchingWindowInSeconds = *req.MaximumBatchingWindowInSeconds
	}
	if req.ScalingConfig != nil {
		cfg.ScalingConfig = nil
		if req.ScalingConfig.MaximumConcurrency != nil {
			cfg.ScalingConfig = req.ScalingConfig
		}
	}
	if err := validateNumbers(cfg.BatchSize, cfg.MaximumBatchingWindowInSeconds, cfg.ScalingConfig); err != nil {
		return Configuration{}, err
	}
	if req.FunctionResponseTypes != nil {
		if err := validateResponseTypes(*req.FunctionResponseTypes); err != nil {
			return Configuration{}, err
		}
		cfg.FunctionResponseTypes = *req.FunctionResponseTypes
	}
	if req.MetricsConfig != nil {
		if err := validateMetrics(req.MetricsConfig); err != nil {
			return Configuration{}, err
		}
		cfg.MetricsConfig = nil
		if len(req.MetricsConfig.Metrics) > 0 {
			cfg.MetricsConfig = req.MetricsConfig
		}
	}
	if req.KMSKeyArn != nil {
		cfg.KMSKeyArn = *req.KMSKeyArn
	}
	filtersChanged := req.FilterCriteria != nil
	var filters []filter
	if filtersChanged {
		var err error
		if filters, err = compileFilters(req.FilterCriteria); err != nil {
			return Configuration{}, err
		}
		cfg.FilterCriteria = nil
		if len(filters) > 0 {
			cfg.FilterCriteria = req.FilterCriteria
		}
	}
	if req.FunctionName != nil {
		if err := s.checkTimeout(cfg.EventSourceArn, cfg.FunctionArn); err != nil {
			return Configuration{}, err
		}
	}
	wasEnabled := cfg.State == StateEnabled
	enabled := wasEnabled
	if req.Enabled != nil {
		enabled = *req.Enabled
	}

	s.mu.Lock()
	if m.deleted {
		s.mu.Unlock()
		return Configuration{}, errNotFound()
	}
	if err := s.conflictLocked(cfg.EventSourceArn, cfg.FunctionArn, functionName, id); err != nil {
		s.mu.Unlock()
		return Configuration{}, err
	}
	cfg.LastModified = EpochSeconds(s.opts.Now())
	cfg.StateTransitionReason = transitionUserInitiated
	cfg.State = StateDisabled
	if enabled {
		cfg.State = StateEnabled
	}
	m.cfg = cfg.clone()
	m.functionName = functionName
	if filtersChanged {
		m.filters = filters
	}
	var stop *poller
	switch {
	case enabled && m.poller == nil:
		s.startLocked(m)
	case !enabled && m.poller != nil:
		stop, m.poller = m.poller, nil
	}
	s.mu.Unlock()
	stopPoller(stop)

	resp := cfg.clone()
	switch {
	case enabled && !wasEnabled:
		resp.State = StateEnabling
	case !enabled && wasEnabled:
		resp.State = StateDisabling
	default:
		resp.State = StateUpdating
	}
	return resp, nil
}

// Delete deletes a mapping (DeleteEventSourceMapping) and returns its
// configuration with State Deleting. Polling has stopped when Delete
// returns; invocations in flight finish and acknowledge as usual.
func (s *Service) Delete(id string) (Configuration, error) {
	s.mu.Lock()
	m := s.mappings[id]
	if m == nil {
		s.mu.Unlock()
		return Configuration{}, errNotFound()
	}
	delete(s.mappings, id)
	m.deleted = true
	stop := m.poller
	m.poller = nil
	resp := m.cfg.clone()
	s.mu.Unlock()
	stopPoller(stop)
	resp.State = StateDeleting
	s.log.Info("event source mapping deleted", "uuid", id)
	return resp, nil
}

// ListRequest filters and pages ListEventSourceMappings.
type ListRequest struct {
	EventSourceArn string
	FunctionName   string
	Marker         string
	MaxItems       int
}

// ListResult is the ListEventSourceMappings response.
type ListResult struct {
	EventSourceMappings []Configuration `json:"EventSourceMappings"`
	NextMarker          *string         `json:"NextMarker,omitempty"`
}

// List page sizes: the default without MaxItems (Lambda returns up to 100
// mappings per page) and the MaxListItems maximum of the Lambda model.
const (
	defaultListPage = 100
	maxListItems    = 10000
)

// List lists mappings in creation order (ListEventSourceMappings). A
// FunctionName filter that names no function matches nothing. The marker
// is opaque; an invalid one is InvalidParameterValueException.
func (s *Service) List(req ListRequest) (ListResult, error) {
	limit := defaultListPage
	if req.MaxItems != 0 {
		if req.MaxItems < 1 || req.MaxItems > maxListItems {
			return ListResult{}, errRange("maxItems", int64(req.MaxItems), 1, maxListItems)
		}
		limit = req.MaxItems
	}
	var after uint64
	if req.Marker != "" {
		v, err := strconv.ParseUint(req.Marker, 36, 64)
		if err != nil {
			return ListResult{}, errorf(ErrInvalidParameterValue, "Invalid marker %q.", req.Marker)
		}
		after = v
	}
	functionARN := ""
	if req.FunctionName != "" {
		arn, ok := s.opts.Invoker.FunctionARN(req.FunctionName)
		if !ok {
			return ListResult{EventSourceMappings: []Configuration{}}, nil
		}
		functionARN = arn
	}
	s.mu.Lock()
	all := make([]*mapping, 0, len(s.mappings))
	for _, m := range s.mappings {
		if m.seq <= after ||
			req.EventSourceArn != "" && m.cfg.EventSourceArn != req.EventSourceArn ||
			functionARN != "" && m.cfg.FunctionArn != functionARN {
			continue
		}
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b *mapping) int { return cmp.Compare(a.seq, b.seq) })
	res := ListResult{EventSourceMappings: []Configuration{}}
	for i, m := range all {
		if i == limit {
			next := strconv.FormatUint(all[i-1].seq, 36)
			res.NextMarker = &next
			break
		}
		res.EventSourceMappings = append(res.EventSourceMappings, m.cfg.clone())
	}
	s.mu.Unlock()
	return res, nil
}

// Mappings returns every mapping's configuration in creation order.
func (s *Service) Mappings() []Configuration {
	res, err := s.List(ListRequest{MaxItems: maxListItems})
	if err != nil {
		return nil
	}
	return res.EventSourceMappings
}

// byARN finds a mapping by its EventSourceMappingArn.
func (s *Service) byARNLocked(arn string) *mapping {
	for _, m := range s.mappings {
		if m.cfg.EventSourceMappingArn == arn {
			return m
		}
	}
	return nil
}

// Tags returns the tags of a mapping by its ARN. The Lambda tagging API
// (/2017-03-31/tags/{ARN}) belongs to the function service, which can
// delegate mapping ARNs here.
func (s *Service) Tags(arn string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byARNLocked(arn)
	if m == nil {
		return nil, errNotFound()
	}
	out := maps.Clone(m.tags)
	if out == nil {
		out = map[string]string{}
	}
	return out, nil
}

// TagResource adds or replaces tags of a mapping by its ARN.
func (s *Service) TagResource(arn string, tags map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byARNLocked(arn)
	if m == nil {
		return errNotFound()
	}
	if m.tags == nil {
		m.tags = map[string]string{}
	}
	maps.Copy(m.tags, tags)
	return nil
}

// UntagResource removes tags of a mapping by its ARN.
func (s *Service) UntagResource(arn string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byARNLocked(arn)
	if m == nil {
		return errNotFound()
	}
	for _, k := range keys {
		delete(m.tags, k)
	}
	return nil
}
