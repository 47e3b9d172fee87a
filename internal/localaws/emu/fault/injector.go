package fault

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Decision streams: each kind of fault draws from its own generator, so
// that (for one seed) the decisions of one kind do not depend on how many
// decisions of another kind were made in between.
const (
	streamThrottle = iota + 1
	streamServerError
	streamDuplicate
	streamDropAck
	streamPipe
	streamEnrichment
	streamKill // + rule index
)

// Injector injects faults into the local cloud: API failures and kills as
// router middleware (Middleware), delivery faults through emu.Faults for
// the in-process SQS pollers and Pipe runtime. It is safe for concurrent
// use; configuration changes apply to the next decision.
type Injector struct {
	services func(service string) http.Handler
	log      *slog.Logger
	now      func() time.Time
	account  string
	region   string

	mu      sync.Mutex
	cfg     Config
	seed    uint64
	streams map[uint64]*rand.Rand
	stats   Stats
	fired   []int           // kills per rule of the current config
	refused map[uint64]bool // body hashes refused so far (PipeRefusedBodies)
	outage  map[string]bool // pipes whose every send fails (SetPipeOutage)
}

var _ emu.Faults = (*Injector)(nil)

// Option configures an Injector.
type Option func(*Injector)

// WithServices gives the injector the router's service handlers
// ((*emu.Router).Handler), which kill rules need to serve a request before
// killing its caller.
func WithServices(lookup func(service string) http.Handler) Option {
	return func(in *Injector) { in.services = lookup }
}

// WithLogger logs every injected fault at Debug and every kill at Info.
func WithLogger(l *slog.Logger) Option { return func(in *Injector) { in.log = l } }

// WithClock sets the clock that stamps kill records (default time.Now).
func WithClock(now func() time.Time) Option { return func(in *Injector) { in.now = now } }

// WithIdentity sets the account and region of the table ARNs in throttling
// reasons (default emu.DefaultAccountID, emu.DefaultRegion).
func WithIdentity(accountID, region string) Option {
	return func(in *Injector) { in.account, in.region = accountID, region }
}

// New returns an injector with cfg, its decisions drawn from generators
// seeded with seed: the same seed and the same sequence of requests give
// the same faults.
func New(cfg Config, seed uint64, opts ...Option) (*Injector, error) {
	in := &Injector{
		log: slog.New(slog.DiscardHandler), now: time.Now,
		account: emu.DefaultAccountID, region: emu.DefaultRegion,
	}
	for _, o := range opts {
		o(in)
	}
	in.reseedLocked(seed)
	if err := in.SetConfig(cfg); err != nil {
		return nil, err
	}
	return in, nil
}

// SetConfig replaces the configuration after validating it. Kill counts
// (for Times) restart with the new rules.
func (in *Injector) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("fault: invalid config: %w", err)
	}
	if len(cfg.Kill) > 0 && in.services == nil {
		return fmt.Errorf("fault: kill rules need the router's service handlers (fault.WithServices)")
	}
	cfg = cloneConfig(cfg)
	in.mu.Lock()
	defer in.mu.Unlock()
	in.cfg = cfg
	in.fired = make([]int, len(cfg.Kill))
	in.stats.KillsByRule = make([]int64, len(cfg.Kill))
	return nil
}

// Config returns the current configuration.
func (in *Injector) Config() Config {
	in.mu.Lock()
	defer in.mu.Unlock()
	return cloneConfig(in.cfg)
}

// Reseed restarts every decision stream from seed.
func (in *Injector) Reseed(seed uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.reseedLocked(seed)
}

func (in *Injector) reseedLocked(seed uint64) {
	in.seed = seed
	in.streams = map[uint64]*rand.Rand{}
}

// Seed returns the current seed.
func (in *Injector) Seed() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.seed
}

// rollLocked draws from a stream and reports whether a fault of
// probability rate fires.
func (in *Injector) rollLocked(stream uint64, rate float64) bool {
	if rate <= 0 {
		return false
	}
	r := in.streams[stream]
	if r == nil {
		r = rand.New(rand.NewPCG(in.seed, stream)) //nolint:gosec // reproducible fault injection, not security
		in.streams[stream] = r
	}
	return r.Float64() < rate
}

// Stats counts the faults injected and the decisions taken, so observed
// rates can be checked against the configured ones.
type Stats struct {
	DynamoDBRequests     int64 `json:"dynamodbRequests"` // requests in scope of the DynamoDB faults
	DynamoDBThrottles    int64 `json:"dynamodbThrottles"`
	DynamoDBServerErrors int64 `json:"dynamodbServerErrors"`
	SQSDeliveries        int64 `json:"sqsDeliveries"` // DuplicateDelivery decisions in scope
	SQSDuplicates        int64 `json:"sqsDuplicates"`
	SQSAcks              int64 `json:"sqsAcks"` // DropAck decisions in scope
	SQSDroppedAcks       int64 `json:"sqsDroppedAcks"`
	SQSDelayedAcks       int64 `json:"sqsDelayedAcks"`
	PipeDeliveries       int64 `json:"pipeDeliveries"` // PipeTargetFails decisions in scope
	PipeTargetFailures   int64 `json:"pipeTargetFailures"`
	// PipeTargetRefusals counts the sends that failed because their body
	// is refused (PipeFaults.TargetRefuseRate); PipeRefusedBodies the
	// distinct bodies refused.
	PipeTargetRefusals int64 `json:"pipeTargetRefusals,omitempty"`
	PipeRefusedBodies  int64 `json:"pipeRefusedBodies,omitempty"`
	// PipeEnrichments counts the enrichment invocations in scope of the
	// enrichment faults; PipeEnrichmentErrors and PipeEnrichmentTimeouts
	// those failed.
	PipeEnrichments        int64 `json:"pipeEnrichments,omitempty"`
	PipeEnrichmentErrors   int64 `json:"pipeEnrichmentErrors,omitempty"`
	PipeEnrichmentTimeouts int64 `json:"pipeEnrichmentTimeouts,omitempty"`
	// PipeOutageFailures counts the sends failed by SetPipeOutage.
	PipeOutageFailures int64 `json:"pipeOutageFailures,omitempty"`
	KillCandidates     int64 `json:"killCandidates"` // matching requests that were served to be killed after
	// Kills counts instances killed at once (KillNow); Frozen those frozen
	// mid-invocation to end at their timeout (KillAtTimeout), and
	// FreezeMissed the KillAtTimeout decisions whose invocation had ended
	// before the delay was over.
	Kills        int64 `json:"kills"`
	Frozen       int64 `json:"frozen,omitempty"`
	FreezeMissed int64 `json:"freezeMissed,omitempty"`
	// KillsByRule counts, per rule of the current configuration, the
	// instances it killed or froze.
	KillsByRule []int64 `json:"killsByRule"`
	// Killed lists the most recent kills (at most 100), oldest first.
	Killed []Kill `json:"killed,omitempty"`
}

// Kill records one killed instance.
type Kill struct {
	At        time.Time `json:"at"`
	Rule      int       `json:"rule"`
	Function  string    `json:"function"`
	Instance  string    `json:"instance"`
	Service   string    `json:"service"`
	Operation string    `json:"operation"`
	// Action is the rule's action (empty for KillNow).
	Action KillAction `json:"action,omitempty"`
}

const maxKillRecords = 100

// Stats returns a copy of the counters.
func (in *Injector) Stats() Stats {
	in.mu.Lock()
	defer in.mu.Unlock()
	s := in.stats
	s.KillsByRule = append([]int64(nil), in.stats.KillsByRule...)
	s.Killed = append([]Kill(nil), in.stats.Killed...)
	return s
}

// ResetStats zeroes the counters (not the decision streams).
func (in *Injector) ResetStats() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stats = Stats{KillsByRule: make([]int64, len(in.cfg.Kill))}
	in.refused = nil
}

// inScope reports whether name is selected by a list (empty selects all).
// Queue lists may name a queue by ARN or by name.
func inScope(list []string, names ...string) bool {
	if len(list) == 0 {
		return true
	}
	for _, l := range list {
		for _, n := range names {
			if l == n {
				return true
			}
		}
	}
	return false
}

func queueNames(arn string) []string {
	if i := strings.LastIndexByte(arn, ':'); i >= 0 {
		return []string{arn, arn[i+1:]}
	}
	return []string{arn}
}

// DuplicateDelivery implements emu.Faults.
func (in *Injector) DuplicateDelivery(queueARN string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.cfg.SQS
	if f.DuplicateRate <= 0 || !inScope(f.Queues, queueNames(queueARN)...) {
		return false
	}
	in.stats.SQSDeliveries++
	if !in.rollLocked(streamDuplicate, f.DuplicateRate) {
		return false
	}
	in.stats.SQSDuplicates++
	in.log.Debug("fault: duplicate delivery", "queue", queueARN)
	return true
}

// DropAck implements emu.Faults.
func (in *Injector) DropAck(queueARN string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.cfg.SQS
	if f.DropAckRate <= 0 || !inScope(f.Queues, queueNames(queueARN)...) {
		return false
	}
	in.stats.SQSAcks++
	if !in.rollLocked(streamDropAck, f.DropAckRate) {
		return false
	}
	in.stats.SQSDroppedAcks++
	in.log.Debug("fault: dropped acknowledgement", "queue", queueARN)
	return true
}

// AckDelay implements emu.Faults.
func (in *Injector) AckDelay(queueARN string) time.Duration {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.cfg.SQS
	if f.AckDelay <= 0 || !inScope(f.Queues, queueNames(queueARN)...) {
		return 0
	}
	in.stats.SQSDelayedAcks++
	return time.Duration(f.AckDelay)
}

// PipeTargetFails implements emu.Faults: a refused body fails every time;
// any other send fails at TargetFailureRate.
func (in *Injector) PipeTargetFails(pipeName string, body []byte) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.outage[pipeName] {
		in.stats.PipeOutageFailures++
		return true
	}
	f := in.cfg.Pipes
	if (f.TargetFailureRate <= 0 && f.TargetRefuseRate <= 0) || !inScope(f.Pipes, pipeName) {
		return false
	}
	in.stats.PipeDeliveries++
	if f.TargetRefuseRate > 0 && in.refusedLocked(body, f.TargetRefuseRate) {
		in.stats.PipeTargetRefusals++
		in.log.Debug("fault: pipe target refused the message", "pipe", pipeName)
		return true
	}
	if !in.rollLocked(streamPipe, f.TargetFailureRate) {
		return false
	}
	in.stats.PipeTargetFailures++
	in.log.Debug("fault: pipe target failure", "pipe", pipeName)
	return true
}

// PipeEnrichmentFails implements emu.Faults: one draw decides between a
// function error, a timeout and success.
func (in *Injector) PipeEnrichmentFails(pipeName string) (bool, time.Duration) {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.cfg.Pipes
	if (f.EnrichmentFailureRate <= 0 && f.EnrichmentTimeoutRate <= 0) || !inScope(f.Pipes, pipeName) {
		return false, 0
	}
	in.stats.PipeEnrichments++
	if !in.rollLocked(streamEnrichment, f.EnrichmentFailureRate+f.EnrichmentTimeoutRate) {
		return false, 0
	}
	// Which of the two: a second draw from the same stream, weighted.
	if in.rollLocked(streamEnrichment, f.EnrichmentTimeoutRate/(f.EnrichmentFailureRate+f.EnrichmentTimeoutRate)) {
		in.stats.PipeEnrichmentTimeouts++
		hang := time.Duration(f.EnrichmentTimeout)
		if hang <= 0 {
			hang = time.Second
		}
		in.log.Debug("fault: pipe enrichment timeout", "pipe", pipeName, "after", hang)
		return true, hang
	}
	in.stats.PipeEnrichmentErrors++
	in.log.Debug("fault: pipe enrichment error", "pipe", pipeName)
	return true, 0
}

// SetPipeOutage makes every send of the named pipe fail (on) or stops
// doing so (off), apart from the configuration and without touching the
// decision streams or the kill counts: a scripted step (an outage across a
// terraform apply) rather than a rate.
func (in *Injector) SetPipeOutage(pipeName string, on bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.outage == nil {
		in.outage = map[string]bool{}
	}
	in.outage[pipeName] = on
	in.log.Debug("fault: pipe outage", "pipe", pipeName, "on", on)
}

// refusedLocked decides, the same way for the same seed and body every
// time, whether a body is refused; it counts each refused body once.
func (in *Injector) refusedLocked(body []byte, rate float64) bool {
	h := fnv.New64a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], in.seed)
	h.Write(seed[:])
	h.Write(body)
	sum := h.Sum64()
	if float64(sum>>11)/(1<<53) >= rate {
		return false
	}
	if in.refused == nil {
		in.refused = map[uint64]bool{}
	}
	if !in.refused[sum] {
		in.refused[sum] = true
		in.stats.PipeRefusedBodies++
	}
	return true
}

func cloneConfig(c Config) Config {
	c.DynamoDB.Operations = append([]string(nil), c.DynamoDB.Operations...)
	c.DynamoDB.Functions = append([]string(nil), c.DynamoDB.Functions...)
	c.SQS.Queues = append([]string(nil), c.SQS.Queues...)
	c.Pipes.Pipes = append([]string(nil), c.Pipes.Pipes...)
	c.Kill = append([]KillRule(nil), c.Kill...)
	return c
}
