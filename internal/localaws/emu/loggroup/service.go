package loggroup

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Options configures a Service. The zero value gives AWS's behaviour in
// the local cloud's account and region.
type Options struct {
	// AccountID and Region name the ARNs (default emu.DefaultAccountID,
	// emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the clock for creation and ingestion times, the too-old and
	// too-new checks of PutLogEvents and retention (default time.Now).
	Now func() time.Time
}

// Service is an in-memory CloudWatch Logs. All methods are safe for
// concurrent use.
type Service struct {
	opts Options

	mu     sync.Mutex
	groups map[string]*group
	seq    uint64 // orders events that share a timestamp
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
	return &Service{opts: opts, groups: map[string]*group{}}
}

// Event is one log event to append.
type Event struct {
	Timestamp time.Time
	Message   string
}

// StoredEvent is one log event as stored.
type StoredEvent struct {
	Stream    string
	Timestamp time.Time
	Ingestion time.Time
	Message   string
}

// GroupInfo describes a log group.
type GroupInfo struct {
	Name          string
	ARN           string // arn:aws:logs:<region>:<account>:log-group:<name>
	Created       time.Time
	RetentionDays int // 0: never expire
	Class         string
	Tags          map[string]string
	StoredBytes   int64
}

type group struct {
	name               string
	created            int64 // ms
	retention          int   // days; 0 = never expire
	class              string
	kmsKeyID           string
	deletionProtection bool
	tags               map[string]string
	streams            map[string]*stream
}

type stream struct {
	name         string
	created      int64 // ms
	events       []event
	firstEvent   int64
	lastEvent    int64
	lastIngested int64
	storedBytes  int64
}

type event struct {
	ts, ingested int64 // ms
	seq          uint64
	msg          string
}

// key orders events: by timestamp, then by arrival.
type key struct {
	ts  int64
	seq uint64
}

func (e event) key() key { return key{e.ts, e.seq} }

func (k key) less(o key) bool {
	if k.ts != o.ts {
		return k.ts < o.ts
	}
	return k.seq < o.seq
}

// eventOverhead is the per-event byte overhead PutLogEvents counts toward
// its batch size ("PutLogEvents" API reference: "the sum of all event
// messages in UTF-8, plus 26 bytes for each log event").
const eventOverhead = 26

// retentionDays are the values PutRetentionPolicy accepts (the
// RetentionInDays enum of the CloudWatch Logs API reference).
var retentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

var (
	groupNameRE  = regexp.MustCompile(`^[\.\-_/#A-Za-z0-9]+$`)
	streamNameRE = regexp.MustCompile(`^[^:*]*$`)
)

func (s *Service) nowMS() int64 { return s.opts.Now().UnixMilli() }

// groupARN is the log group ARN without the trailing ":*" (logGroupArn in
// DescribeLogGroups; the form tagging APIs take).
func (s *Service) groupARN(name string) string {
	return "arn:aws:logs:" + s.opts.Region + ":" + s.opts.AccountID + ":log-group:" + name
}

func validateGroupName(name string) *Error {
	switch {
	case len(name) < 1 || len(name) > 512:
		return errValidation(name, "logGroupName", "Member must have length between 1 and 512")
	case !groupNameRE.MatchString(name):
		return errValidation(name, "logGroupName", `Member must satisfy regular expression pattern: [\.\-_/#A-Za-z0-9]+`)
	}
	return nil
}

func validateStreamName(name string) *Error {
	switch {
	case len(name) < 1 || len(name) > 512:
		return errValidation(name, "logStreamName", "Member must have length between 1 and 512")
	case !streamNameRE.MatchString(name):
		return errValidation(name, "logStreamName", "Member must satisfy regular expression pattern: [^:*]*")
	}
	return nil
}

// CreateGroupInput holds the CreateLogGroup parameters.
type CreateGroupInput struct {
	Name               string
	Class              string // STANDARD (default), INFREQUENT_ACCESS or DELIVERY
	KMSKeyID           string
	DeletionProtection bool
	Tags               map[string]string
}

// CreateGroup creates a log group.
func (s *Service) CreateGroup(in CreateGroupInput) error {
	if err := validateGroupName(in.Name); err != nil {
		return err
	}
	// Source: CreateLogGroup API reference — names may not start with
	// "aws/", which AWS services reserve.
	if strings.HasPrefix(strings.ToLower(in.Name), "aws/") {
		return errorf(ErrInvalidParameter, "Log groups starting with AWS/ are reserved for AWS.")
	}
	switch in.Class {
	case "":
		in.Class = "STANDARD"
	case "STANDARD", "INFREQUENT_ACCESS", "DELIVERY":
	default:
		return errValidation(in.Class, "logGroupClass", "Member must satisfy enum value set: [STANDARD, INFREQUENT_ACCESS, DELIVERY]")
	}
	if err := validateTags(in.Tags); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.groups[in.Name]; ok {
		return errorf(ErrResourceAlreadyExists, "The specified log group already exists")
	}
	s.groups[in.Name] = &group{
		name: in.Name, created: s.nowMS(), class: in.Class, kmsKeyID: in.KMSKeyID,
		deletionProtection: in.DeletionProtection, tags: copyTags(in.Tags), streams: map[string]*stream{},
	}
	return nil
}

// DeleteGroup deletes a log group and its streams.
func (s *Service) DeleteGroup(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.groups[name]; !ok {
		return errNoGroup()
	}
	delete(s.groups, name)
	return nil
}

// Group describes one log group.
func (s *Service) Group(name string) (GroupInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return GroupInfo{}, errNoGroup()
	}
	return s.info(g), nil
}

func (s *Service) info(g *group) GroupInfo {
	s.expireGroup(g)
	var stored int64
	for _, st := range g.streams {
		stored += st.storedBytes
	}
	return GroupInfo{
		Name: g.name, ARN: s.groupARN(g.name), Created: time.UnixMilli(g.created).UTC(),
		RetentionDays: g.retention, Class: g.class, Tags: copyTags(g.tags), StoredBytes: stored,
	}
}

// SetRetention sets a group's retention in days; 0 removes the policy
// (events never expire).
func (s *Service) SetRetention(name string, days int) error {
	if days != 0 && !validRetention(days) {
		return errValidation(days, "retentionInDays", "Member must satisfy enum value set: "+retentionEnum())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return errNoGroup()
	}
	g.retention = days
	s.expireGroup(g)
	return nil
}

func validRetention(days int) bool {
	for _, d := range retentionDays {
		if d == days {
			return true
		}
	}
	return false
}

func retentionEnum() string {
	parts := make([]string, len(retentionDays))
	for i, d := range retentionDays {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// CreateStream creates a log stream in an existing group.
func (s *Service) CreateStream(groupName, streamName string) error {
	if err := validateStreamName(streamName); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return errNoGroup()
	}
	if _, ok := g.streams[streamName]; ok {
		return errorf(ErrResourceAlreadyExists, "The specified log stream already exists")
	}
	g.streams[streamName] = &stream{name: streamName, created: s.nowMS()}
	return nil
}

// DeleteStream deletes a log stream.
func (s *Service) DeleteStream(groupName, streamName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return errNoGroup()
	}
	if _, ok := g.streams[streamName]; !ok {
		return errNoStream()
	}
	delete(g.streams, streamName)
	return nil
}

// Append adds events to a stream, creating the group (STANDARD class, no
// retention) and the stream when they do not exist, as the Lambda service
// does for a function's log group. Events are stored in timestamp order;
// the PutLogEvents batch rules do not apply.
func (s *Service) Append(groupName, streamName string, events ...Event) error {
	if err := validateGroupName(groupName); err != nil {
		return err
	}
	if err := validateStreamName(streamName); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowMS()
	g, ok := s.groups[groupName]
	if !ok {
		g = &group{name: groupName, created: now, class: "STANDARD", tags: map[string]string{}, streams: map[string]*stream{}}
		s.groups[groupName] = g
	}
	st, ok := g.streams[streamName]
	if !ok {
		st = &stream{name: streamName, created: now}
		g.streams[streamName] = st
	}
	for _, e := range events {
		s.insert(st, e.Timestamp.UnixMilli(), now, e.Message)
	}
	return nil
}

// insert stores one event in key order. Appends in time order (the usual
// case) cost O(1).
func (s *Service) insert(st *stream, ts, ingested int64, msg string) {
	s.seq++
	e := event{ts: ts, ingested: ingested, seq: s.seq, msg: msg}
	n := len(st.events)
	if n == 0 || !e.key().less(st.events[n-1].key()) {
		st.events = append(st.events, e)
	} else {
		i := sort.Search(n, func(i int) bool { return e.key().less(st.events[i].key()) })
		st.events = append(st.events, event{})
		copy(st.events[i+1:], st.events[i:])
		st.events[i] = e
	}
	if st.firstEvent == 0 || ts < st.firstEvent {
		st.firstEvent = ts
	}
	if ts > st.lastEvent {
		st.lastEvent = ts
	}
	st.lastIngested = ingested
	st.storedBytes += int64(len(msg)) + eventOverhead
}

// Events returns every unexpired event of a stream in timestamp order.
func (s *Service) Events(groupName, streamName string) ([]StoredEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return nil, errNoGroup()
	}
	st, ok := g.streams[streamName]
	if !ok {
		return nil, errNoStream()
	}
	s.expireGroup(g)
	out := make([]StoredEvent, len(st.events))
	for i, e := range st.events {
		out[i] = StoredEvent{Stream: st.name, Timestamp: time.UnixMilli(e.ts).UTC(), Ingestion: time.UnixMilli(e.ingested).UTC(), Message: e.msg}
	}
	return out, nil
}

// Streams lists the names of a group's streams, sorted.
func (s *Service) Streams(groupName string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[groupName]
	if !ok {
		return nil, errNoGroup()
	}
	names := make([]string, 0, len(g.streams))
	for n := range g.streams {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// expireGroup drops the events older than the group's retention. CloudWatch
// deletes expired events in the background; the local cloud does it
// whenever a group is read or written, against the injected clock.
func (s *Service) expireGroup(g *group) {
	if g.retention == 0 {
		return
	}
	cutoff := s.nowMS() - int64(g.retention)*24*int64(time.Hour/time.Millisecond)
	for _, st := range g.streams {
		i := sort.Search(len(st.events), func(i int) bool { return st.events[i].ts >= cutoff })
		if i == 0 {
			continue
		}
		for _, e := range st.events[:i] {
			st.storedBytes -= int64(len(e.msg)) + eventOverhead
		}
		st.events = append(st.events[:0:0], st.events[i:]...)
		if len(st.events) > 0 {
			st.firstEvent = st.events[0].ts
		}
	}
}

// retentionCutoff is the oldest timestamp a group keeps, or MinInt64.
func (s *Service) retentionCutoff(g *group) int64 {
	if g.retention == 0 {
		return -1 << 63
	}
	return s.nowMS() - int64(g.retention)*24*int64(time.Hour/time.Millisecond)
}

func copyTags(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// maxTags is the per-resource tag limit (CloudWatch Logs quotas).
const maxTags = 50

func validateTags(tags map[string]string) *Error {
	if len(tags) > maxTags {
		return errorf(ErrTooManyTags, "A resource can have no more than %d tags.", maxTags)
	}
	for k, v := range tags {
		if len(k) < 1 || len(k) > 128 {
			return errValidation(k, "tags", "Map keys must have length between 1 and 128")
		}
		if len(v) > 256 {
			return errValidation(v, "tags", "Map values must have length less than or equal to 256")
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return errorf(ErrInvalidParameter, "Tag keys starting with 'aws:' are reserved for AWS use.")
		}
	}
	return nil
}

// TagGroup adds or replaces tags of a group.
func (s *Service) TagGroup(name string, tags map[string]string) error {
	if err := validateTags(tags); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return errNoGroup()
	}
	merged := copyTags(g.tags)
	for k, v := range tags {
		merged[k] = v
	}
	if len(merged) > maxTags {
		return errorf(ErrTooManyTags, "A resource can have no more than %d tags.", maxTags)
	}
	g.tags = merged
	return nil
}

// UntagGroup removes tags from a group.
func (s *Service) UntagGroup(name string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return errNoGroup()
	}
	for _, k := range keys {
		delete(g.tags, k)
	}
	return nil
}

// groupFromARN maps a log group ARN (with or without the trailing ":*")
// to the group's name.
func (s *Service) groupFromARN(arn string) (string, *Error) {
	prefix := "arn:aws:logs:" + s.opts.Region + ":" + s.opts.AccountID + ":log-group:"
	name, ok := strings.CutPrefix(arn, prefix)
	if !ok || name == "" {
		return "", errorf(ErrInvalidParameter, "Invalid resource ARN %q: want %s<name>", arn, prefix)
	}
	return strings.TrimSuffix(name, ":*"), nil
}

// groupFromIdentifier accepts a group name or ARN (logGroupIdentifier).
func (s *Service) groupFromIdentifier(id string) (string, *Error) {
	if strings.HasPrefix(id, "arn:") {
		return s.groupFromARN(id)
	}
	return id, nil
}
