package queue

import (
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// QueueDefault passed as a wait or visibility duration means "use the
// queue's attribute" (ReceiveMessageWaitTimeSeconds, VisibilityTimeout).
const QueueDefault time.Duration = -1

// Options configures a Service. The zero value gives AWS's behaviour in
// the local cloud's account and region.
type Options struct {
	// AccountID and Region name the queues' ARNs and URLs
	// (default emu.DefaultAccountID, emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the clock for every time-based rule: delays, visibility
	// timeouts, retention, timestamps, the purge and re-create cooldowns
	// (default time.Now). Long polling waits in real time, bounded by the
	// request; after moving a fake clock, call Wake.
	Now func() time.Time
	// NewID returns message and move-task ids (default uuid.NewString).
	NewID func() string
	// RecreateCooldown is how long a deleted queue's name stays unusable
	// (QueueDeletedRecently). Zero means AWS's 60 s; negative disables it.
	RecreateCooldown time.Duration
	// DefaultMoveRate is the messages per second of a move task started
	// without MaxNumberOfMessagesPerSecond (AWS picks a "system-optimized"
	// rate; default 500, the documented maximum).
	DefaultMoveRate int
}

// Service is an in-memory SQS: the engine behind the HTTP handler and the
// Go API used in-process by the pipe runtime and the event source mappings.
// All methods are safe for concurrent use.
type Service struct {
	opts Options

	mu      sync.Mutex
	queues  map[string]*queue      // by name
	deleted map[string]int64       // name → deletion time (ns), for QueueDeletedRecently
	tasks   map[string][]*moveTask // by source ARN, newest first
	seq     uint64

	closed    chan struct{}
	closeOnce sync.Once
	workers   sync.WaitGroup
}

// New returns an empty Service.
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
	if opts.NewID == nil {
		opts.NewID = uuid.NewString
	}
	if opts.RecreateCooldown == 0 {
		opts.RecreateCooldown = 60 * time.Second
	}
	if opts.DefaultMoveRate <= 0 || opts.DefaultMoveRate > maxMoveRate {
		opts.DefaultMoveRate = maxMoveRate
	}
	return &Service{
		opts:    opts,
		queues:  map[string]*queue{},
		deleted: map[string]int64{},
		tasks:   map[string][]*moveTask{},
		closed:  make(chan struct{}),
	}
}

// Close stops the background move tasks and wakes every long poll, which
// then returns ErrClosed. It waits for the move tasks to stop.
func (s *Service) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	s.workers.Wait()
	return nil
}

func (s *Service) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func (s *Service) now() int64 { return s.opts.Now().UnixNano() }

// Wake makes waiting receivers re-check their queues. Tests that move a
// fake clock call it so that messages whose delay or visibility timeout
// ended "in fake time" are delivered to long polls already waiting.
func (s *Service) Wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.queues {
		q.signal()
	}
}

// QueueInfo identifies a queue.
type QueueInfo struct {
	Name      string
	ARN       string
	AccountID string
}

// URL returns the queue URL under an endpoint such as "http://127.0.0.1:4566":
// <endpoint>/<account>/<name>, the path form SQS uses.
func (i QueueInfo) URL(endpoint string) string {
	return strings.TrimRight(endpoint, "/") + "/" + i.AccountID + "/" + i.Name
}

// Counts are a queue's approximate message counts, as in the
// ApproximateNumberOfMessages* attributes.
type Counts struct {
	Visible  int // ApproximateNumberOfMessages
	InFlight int // ApproximateNumberOfMessagesNotVisible
	Delayed  int // ApproximateNumberOfMessagesDelayed
}

type msgState uint8

const (
	stateVisible msgState = iota
	stateDelayed
	stateInflight
)

// message is one stored message. Times are Unix nanoseconds of the
// injected clock.
type message struct {
	id           string
	body         string
	md5Body      string
	attrs        map[string]MessageAttribute // never mutated after send
	md5Attrs     string
	traceHeader  string
	groupID      string
	senderID     string
	dlqSource    string // DeadLetterQueueSourceArn once redriven
	sent         int64  // SentTimestamp
	enqueued     int64  // retention clock; kept on a DLQ move (standard queues)
	receiveCount int
	firstReceive int64
	lastReceive  int64
	receipt      string // handle of the latest receive
	state        msgState
	visibleAt    int64
	seq          uint64
	idx          [numHeapKinds]int
}

type queue struct {
	name, arn           string
	created, modified   int64
	attrs               queueAttrs
	tags                map[string]string
	msgs                map[string]*message
	ready, pending      msgHeap
	age                 msgHeap
	nDelayed, nInflight int
	lastPurge           int64
	notify              chan struct{} // closed to wake waiters; nil when none wait
	waiters             int
}

func newQueue(name, arn string, now int64, attrs queueAttrs, tags map[string]string) *queue {
	return &queue{
		name: name, arn: arn, created: now, modified: now, attrs: attrs, tags: tags,
		msgs:    map[string]*message{},
		ready:   msgHeap{kind: kindReady},
		pending: msgHeap{kind: kindPending},
		age:     msgHeap{kind: kindAge},
	}
}

func (q *queue) info(account string) QueueInfo {
	return QueueInfo{Name: q.name, ARN: q.arn, AccountID: account}
}

// signal wakes every receiver waiting on the queue.
func (q *queue) signal() {
	if q.notify != nil {
		close(q.notify)
		q.notify = nil
	}
}

func (q *queue) waitChan() <-chan struct{} {
	if q.notify == nil {
		q.notify = make(chan struct{})
	}
	return q.notify
}

func (s *Service) arnOf(name string) string {
	return "arn:aws:sqs:" + s.opts.Region + ":" + s.opts.AccountID + ":" + name
}

func (s *Service) info(q *queue) QueueInfo { return q.info(s.opts.AccountID) }

// nameOf resolves a queue reference: a queue URL (any host; the last two
// path segments are <account>/<name>), a queue ARN, or a bare name (which
// AWS also accepts as QueueUrl: AWS-validated LocalStack test
// test_posting_to_queue_via_queue_name).
func (s *Service) nameOf(ref string) (string, bool) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "arn:") {
		region, account, name, ok := parseARN(ref)
		return name, ok && region == s.opts.Region && account == s.opts.AccountID
	}
	if strings.Contains(ref, "/") {
		parts := strings.Split(strings.TrimRight(ref, "/"), "/")
		if len(parts) < 2 || parts[len(parts)-2] != s.opts.AccountID {
			return "", false
		}
		return parts[len(parts)-1], parts[len(parts)-1] != ""
	}
	return ref, ref != ""
}

func (s *Service) lookupLocked(ref string) (*queue, error) {
	if s.isClosed() {
		return nil, errorf(ErrClosed, "The local SQS service is shut down.")
	}
	name, ok := s.nameOf(ref)
	if !ok {
		return nil, errNoQueue()
	}
	q := s.queues[name]
	if q == nil {
		return nil, errNoQueue()
	}
	return q, nil
}

func (s *Service) queueByARNLocked(arn string) *queue {
	region, account, name, ok := parseARN(arn)
	if !ok || region != s.opts.Region || account != s.opts.AccountID {
		return nil
	}
	return s.queues[name]
}

// Queue resolves a queue URL, ARN or name.
func (s *Service) Queue(ref string) (QueueInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return QueueInfo{}, err
	}
	return s.info(q), nil
}

// QueueByARN returns the queue with this ARN, if it exists.
func (s *Service) QueueByARN(arn string) (QueueInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueByARNLocked(arn)
	if q == nil {
		return QueueInfo{}, false
	}
	return s.info(q), true
}

// CreateQueue creates a standard queue, or returns the existing one when
// every given attribute matches it (tags are not compared). Attribute
// values are the wire strings ("30", a RedrivePolicy JSON document).
func (s *Service) CreateQueue(name string, attrs, tags map[string]string) (QueueInfo, error) {
	if err := validQueueName(name); err != nil {
		return QueueInfo{}, err
	}
	if err := validTags(tags); err != nil {
		return QueueInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return QueueInfo{}, errorf(ErrClosed, "The local SQS service is shut down.")
	}
	now := s.now()
	arn := s.arnOf(name)
	if q := s.queues[name]; q != nil {
		next, err := s.applyAttributesLocked(arn, q.attrs, attrs, true)
		if err != nil {
			return QueueInfo{}, err
		}
		// Only the given attributes are compared (AWS-validated LocalStack
		// test test_create_queue_with_different_attributes_raises_exception).
		probe := &queue{arn: q.arn, attrs: next}
		for _, n := range sortedKeys(attrs) {
			cur, _ := q.attributeLocked(n)
			want, _ := probe.attributeLocked(n)
			if !sameSetting(n, cur, want) {
				return QueueInfo{}, errorf(ErrQueueNameExists,
					"A queue already exists with the same name and a different value for attribute %s", n)
			}
		}
		return s.info(q), nil
	}
	if at, ok := s.deleted[name]; ok {
		if s.opts.RecreateCooldown > 0 && now-at < int64(s.opts.RecreateCooldown) {
			return QueueInfo{}, errorf(ErrQueueDeletedRecently,
				"You must wait 60 seconds after deleting a queue before you can create another with the same name.")
		}
		delete(s.deleted, name)
	}
	a, err := s.applyAttributesLocked(arn, defaultAttrs(), attrs, true)
	if err != nil {
		return QueueInfo{}, err
	}
	q := newQueue(name, arn, now, a, copyTags(tags))
	s.queues[name] = q
	return s.info(q), nil
}

// DeleteQueue deletes a queue and its messages. Receivers waiting on it
// return QueueDoesNotExist.
func (s *Service) DeleteQueue(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	now := s.now()
	for name, at := range s.deleted {
		if now-at >= int64(s.opts.RecreateCooldown) {
			delete(s.deleted, name) // past the cooldown: forget it
		}
	}
	delete(s.queues, q.name)
	s.deleted[q.name] = now
	q.signal()
	return nil
}

// ListQueues returns the queues whose names start with prefix, by name.
func (s *Service) ListQueues(prefix string) []QueueInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]QueueInfo, 0, len(s.queues))
	for name, q := range s.queues {
		if strings.HasPrefix(name, prefix) {
			out = append(out, s.info(q))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DeadLetterSourceQueues returns the queues whose RedrivePolicy targets the
// given queue, by name.
func (s *Service) DeadLetterSourceQueues(ref string) ([]QueueInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dlq, err := s.lookupLocked(ref)
	if err != nil {
		return nil, err
	}
	return s.sourcesOfLocked(dlq), nil
}

func (s *Service) sourcesOfLocked(dlq *queue) []QueueInfo {
	var out []QueueInfo
	for _, q := range s.queues {
		if q.attrs.redrive != nil && q.attrs.redrive.DeadLetterTargetArn == dlq.arn {
			out = append(out, s.info(q))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Attributes returns queue attributes by name ("All" or none for all of
// them), as GetQueueAttributes does. FIFO-only names yield nothing.
func (s *Service) Attributes(ref string, names ...string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return nil, err
	}
	s.advanceLocked(q, s.now())
	want := names
	for _, n := range names {
		if n == AttrAll {
			want = nil
			break
		}
	}
	if len(want) == 0 {
		want = readableAttrs
	}
	out := make(map[string]string, len(want))
	for _, n := range want {
		if !knownReadable(n) && !fifoOnlyAttrs[n] {
			return nil, unknownAttr(n)
		}
		if v, ok := q.attributeLocked(n); ok {
			out[n] = v
		}
	}
	return out, nil
}

func knownReadable(name string) bool {
	for _, n := range readableAttrs {
		if n == name {
			return true
		}
	}
	return false
}

// SetAttributes changes queue attributes (SetQueueAttributes).
func (s *Service) SetAttributes(ref string, attrs map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	next, err := s.applyAttributesLocked(q.arn, q.attrs, attrs, false)
	if err != nil {
		return err
	}
	now := s.now()
	q.attrs = next
	q.modified = now
	// A shorter retention period applies to the messages already stored
	// (CreateQueue Attributes doc).
	s.advanceLocked(q, now)
	return nil
}

// Counts returns the approximate message counts of a queue.
func (s *Service) Counts(ref string) (Counts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return Counts{}, err
	}
	s.advanceLocked(q, s.now())
	return Counts{Visible: q.ready.Len(), InFlight: q.nInflight, Delayed: q.nDelayed}, nil
}

// Purge deletes every message of a queue, in flight or not. A second purge
// within 60 s is PurgeQueueInProgress (AWS-recorded, docs/aws-behaviour.md §3.6).
func (s *Service) Purge(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupLocked(ref)
	if err != nil {
		return err
	}
	now := s.now()
	if q.lastPurge != 0 && now-q.lastPurge < int64(60*time.Second) {
		return errorf(ErrPurgeQueueInProgress, "Only one PurgeQueue operation on %s is allowed every 60 seconds.", q.name)
	}
	q.lastPurge = now
	q.msgs = map[string]*message{}
	q.ready.items, q.pending.items, q.age.items = nil, nil, nil
	q.nDelayed, q.nInflight = 0, 0
	return nil
}

// nextSeqLocked orders messages that become visible at the same instant.
func (s *Service) nextSeqLocked() uint64 {
	s.seq++
	return s.seq
}

// advanceLocked applies the passage of time to a queue: messages past the
// retention period are deleted, and delayed or in-flight messages whose
// time has come become visible.
func (s *Service) advanceLocked(q *queue, now int64) {
	cutoff := now - int64(q.attrs.retention)*int64(time.Second)
	for m := q.age.peek(); m != nil && m.enqueued <= cutoff; m = q.age.peek() {
		q.removeLocked(m)
	}
	woke := false
	for m := q.pending.peek(); m != nil && m.visibleAt <= now; m = q.pending.peek() {
		q.pending.pop()
		if m.state == stateDelayed {
			q.nDelayed--
		} else {
			q.nInflight--
		}
		m.state = stateVisible
		q.ready.push(m)
		woke = true
	}
	if woke {
		q.signal()
	}
}

func (q *queue) removeLocked(m *message) {
	delete(q.msgs, m.id)
	switch m.state {
	case stateVisible:
		q.ready.remove(m)
	case stateDelayed:
		q.pending.remove(m)
		q.nDelayed--
	case stateInflight:
		q.pending.remove(m)
		q.nInflight--
	}
	q.age.remove(m)
}

// enqueueLocked stores a new message, visible after delay.
func (s *Service) enqueueLocked(q *queue, m *message, now int64, delay time.Duration) {
	if old := q.msgs[m.id]; old != nil {
		q.removeLocked(old)
	}
	m.seq = s.nextSeqLocked()
	q.msgs[m.id] = m
	q.age.push(m)
	if delay > 0 {
		m.state = stateDelayed
		m.visibleAt = now + int64(delay)
		q.pending.push(m)
		q.nDelayed++
		return
	}
	m.state = stateVisible
	m.visibleAt = now
	q.ready.push(m)
	q.signal()
}

func newNonce() uint64 { return rand.Uint64() } //nolint:gosec // receipt handle uniqueness, not secrecy

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
