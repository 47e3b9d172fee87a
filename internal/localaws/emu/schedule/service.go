package schedule

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // IANA time zones without relying on the host's zoneinfo

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// Invoker is the Lambda service as the scheduler needs it. The local cloud
// passes a small adapter over internal/localaws/emu/function; tests pass a fake.
type Invoker interface {
	// InvokeAsync hands payload to the function as an asynchronous
	// invocation (InvocationType Event), which is how Scheduler invokes
	// Lambda targets (Lambda developer guide,
	// with-eventbridge-scheduler.html). An error means Lambda did not
	// accept the event (no such function, throttled, service failure);
	// the scheduler then retries per the target's RetryPolicy.
	InvokeAsync(ctx context.Context, functionARN string, payload []byte) error
}

// Options configures a Service. Invoker is required.
type Options struct {
	// AccountID and Region name the ARNs (default emu.DefaultAccountID,
	// emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the time when Clock is nil (default time.Now, real timers).
	Now func() time.Time
	// Clock drives every schedule; a *ManualClock lets tests and demos
	// move time (default SystemClock(Now)).
	Clock Clock
	// Invoker runs the Lambda targets.
	Invoker Invoker
	// Queues receives dead-letter events of targets with a
	// DeadLetterConfig (optional: without it such events are dropped, with
	// a warning).
	Queues *queue.Service
	// Logger receives deliveries at Debug and failures at Warn (default:
	// discard).
	Logger *slog.Logger
	// NewID returns execution ids (default 16 random hex digits).
	NewID func() string
}

// Service is EventBridge Scheduler: the REST-JSON API (an http.Handler,
// registered under emu.ServiceScheduler) and the timer that invokes due
// schedules. All methods are safe for concurrent use.
type Service struct {
	opts  Options
	clock Clock
	log   *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}

	mu        sync.Mutex
	groups    map[string]*group
	schedules map[key]*schedule
	retries   []*job
}

type key struct{ group, name string }

type group struct {
	name, arn         string
	created, modified time.Time
	tags              map[string]string
}

// schedule is one schedule and its timer state.
type schedule struct {
	name, group, arn  string
	req               ScheduleRequest // normalized: every default filled in
	expr              *Expression
	occ               occurrences
	created, modified time.Time
	// next is the next occurrence to fire; zero when none is left.
	next  time.Time
	stats *counters
}

// job is one delivery attempt of one occurrence.
type job struct {
	scheduleARN string
	target      Target
	occ         time.Time
	attempt     int
	due         time.Time
	stats       *counters
}

// session tags ctx with the role the delivery runs as, so the local
// cloud's Invoker can authorize it. Scheduler assumes the target's role
// with aws:SourceArn set to the schedule group's ARN
// (https://docs.aws.amazon.com/scheduler/latest/UserGuide/setting-up.html#setting-up-execution-role).
func (j *job) session(ctx context.Context) context.Context {
	if j.target.RoleArn == nil {
		return ctx
	}
	// arn:aws:scheduler:<region>:<account>:schedule/<group>/<name>
	source := j.scheduleARN
	if head, rest, ok := strings.Cut(source, ":schedule/"); ok {
		group, _, _ := strings.Cut(rest, "/")
		source = head + ":schedule-group/" + group
	}
	return emu.WithRoleSession(ctx, emu.RoleSession{Service: "scheduler.amazonaws.com", Role: *j.target.RoleArn, Source: source})
}

// New starts a Service and its timer. It panics without an Invoker, a
// wiring bug.
func New(opts Options) *Service {
	if opts.Invoker == nil {
		panic("schedule: New needs Options.Invoker")
	}
	if opts.AccountID == "" {
		opts.AccountID = emu.DefaultAccountID
	}
	if opts.Region == "" {
		opts.Region = emu.DefaultRegion
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock(opts.Now)
	}
	if opts.NewID == nil {
		opts.NewID = randomID
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{
		opts: opts, clock: opts.Clock, log: log,
		ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		groups: map[string]*group{}, schedules: map[key]*schedule{},
	}
	now := s.clock.Now()
	s.groups[DefaultGroup] = &group{name: DefaultGroup, arn: s.groupARN(DefaultGroup), created: now, modified: now}
	s.wg.Add(1)
	go s.run()
	return s
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Close stops the timer and waits for deliveries in progress.
func (s *Service) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

func (s *Service) groupARN(name string) string {
	return "arn:aws:scheduler:" + s.opts.Region + ":" + s.opts.AccountID + ":schedule-group/" + name
}

func (s *Service) scheduleARN(group, name string) string {
	return "arn:aws:scheduler:" + s.opts.Region + ":" + s.opts.AccountID + ":schedule/" + group + "/" + name
}

// poke wakes the timer after schedules changed.
func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// errNoSchedule is AWS's message for an unknown schedule (AWS-recorded,
// LocalStack test_get_schedule_not_found / test_delete_schedule_not_found).
func errNoSchedule(name string) *Error {
	return errorf(ErrNotFound, "Schedule %s does not exist.", name)
}

func errNoGroup(name string) *Error {
	return errorf(ErrNotFound, "Schedule group %s does not exist.", name)
}

// prepared is a validated ScheduleRequest.
type prepared struct {
	req  ScheduleRequest
	expr *Expression
	loc  *time.Location
}

// prepare validates a request and fills in AWS's defaults.
func (s *Service) prepare(name string, in ScheduleRequest) (prepared, error) {
	req := in
	if err := checkName("name", name); err != nil {
		return prepared{}, err
	}
	if req.GroupName == nil || *req.GroupName == "" {
		g := DefaultGroup
		req.GroupName = &g
	}
	if err := checkName("groupName", *req.GroupName); err != nil {
		return prepared{}, err
	}
	if req.ScheduleExpression == nil {
		return prepared{}, errorf(ErrValidation, "1 validation error detected: Value null at 'scheduleExpression' failed to satisfy constraint: Member must not be null")
	}
	if len(*req.ScheduleExpression) > exprMaxLength {
		return prepared{}, errLength("scheduleExpression", exprMaxLength)
	}
	expr, err := ParseExpression(*req.ScheduleExpression)
	if err != nil {
		// AWS-recorded wording (LocalStack
		// tests_create_schedule_with_invalid_schedule_expression).
		return prepared{}, errorf(ErrValidation, "Invalid Schedule Expression %s.", *req.ScheduleExpression)
	}
	tz := defaultTimezone
	if req.ScheduleExpressionTimezone != nil && *req.ScheduleExpressionTimezone != "" {
		tz = *req.ScheduleExpressionTimezone
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "Local" {
		// AWS's wording is UNCONFIRMED.
		return prepared{}, errorf(ErrValidation, "Invalid ScheduleExpressionTimezone %s: not an IANA time zone name.", tz)
	}
	req.ScheduleExpressionTimezone = &tz
	if err := checkWindow(req.FlexibleTimeWindow); err != nil {
		return prepared{}, err
	}
	if err := checkTarget(req.Target); err != nil {
		return prepared{}, err
	}
	req.Target = withDefaults(*req.Target)
	switch req.State {
	case "":
		req.State = StateEnabled
	case StateEnabled, StateDisabled:
	default:
		return prepared{}, errEnum("state", req.State, StateEnabled, StateDisabled)
	}
	switch req.ActionAfterCompletion {
	case "":
		req.ActionAfterCompletion = ActionNone
	case ActionNone, ActionDelete:
	default:
		return prepared{}, errEnum("actionAfterCompletion", req.ActionAfterCompletion, ActionNone, ActionDelete)
	}
	if req.Description != nil && len(*req.Description) > descMaxLength {
		return prepared{}, errLength("description", descMaxLength)
	}
	if req.StartDate != nil && req.EndDate != nil && !time.Time(*req.EndDate).After(time.Time(*req.StartDate)) {
		// AWS's wording is UNCONFIRMED.
		return prepared{}, errorf(ErrValidation, "The EndDate you specify must be after the StartDate.")
	}
	if req.StartDate != nil && !expr.OneTime() && time.Time(*req.StartDate).Before(s.clock.Now().Add(-5*time.Minute)) {
		// Scheduler refuses a StartDate more than five minutes in the
		// past (AWS's wording as users report it; UNCONFIRMED by a
		// recording).
		return prepared{}, errorf(ErrValidation, "The StartDate you specify cannot be earlier than 5 minutes prior to the current time.")
	}
	return prepared{req: req, expr: expr, loc: loc}, nil
}

func checkWindow(w *FlexibleTimeWindow) error {
	if w == nil {
		return errorf(ErrValidation, "1 validation error detected: Value null at 'flexibleTimeWindow' failed to satisfy constraint: Member must not be null")
	}
	switch w.Mode {
	case ModeOff:
		if w.MaximumWindowInMinutes != nil {
			// AWS's wording is UNCONFIRMED.
			return errorf(ErrValidation, "MaximumWindowInMinutes is only valid when FlexibleTimeWindow Mode is FLEXIBLE.")
		}
	case ModeFlexible:
		if w.MaximumWindowInMinutes == nil {
			return errorf(ErrValidation, "MaximumWindowInMinutes is required when FlexibleTimeWindow Mode is FLEXIBLE.")
		}
		if v := *w.MaximumWindowInMinutes; v < 1 || v > 1440 {
			return errRange("flexibleTimeWindow.maximumWindowInMinutes", int64(v), 1, 1440)
		}
	default:
		return errEnum("flexibleTimeWindow.mode", w.Mode, ModeOff, ModeFlexible)
	}
	return nil
}

func checkTarget(t *Target) error {
	if t == nil {
		return errorf(ErrValidation, "1 validation error detected: Value null at 'target' failed to satisfy constraint: Member must not be null")
	}
	if t.Arn == nil || *t.Arn == "" {
		return errorf(ErrValidation, "1 validation error detected: Value null at 'target.arn' failed to satisfy constraint: Member must not be null")
	}
	if len(*t.Arn) > arnMaxLength {
		return errLength("target.arn", arnMaxLength)
	}
	if !lambdaPattern.MatchString(*t.Arn) || len(t.EcsParameters)+len(t.EventBridgeParameters)+len(t.KinesisParameters)+
		len(t.SageMakerPipelineParameters)+len(t.SqsParameters) > 0 {
		return errorf(ErrValidation,
			"The taskpipe local cloud's EventBridge Scheduler invokes only AWS Lambda function targets; %s is not a Lambda function ARN (or carries another target's parameters).", *t.Arn)
	}
	if t.RoleArn == nil || *t.RoleArn == "" {
		return errorf(ErrValidation, "1 validation error detected: Value null at 'target.roleArn' failed to satisfy constraint: Member must not be null")
	}
	if !rolePattern.MatchString(*t.RoleArn) {
		return errPattern("target.roleArn", *t.RoleArn, rolePattern.String())
	}
	if t.Input != nil {
		if len(*t.Input) < 1 || len(*t.Input) > inputMaxLength {
			return errorf(ErrValidation, "1 validation error detected: Value at 'target.input' failed to satisfy constraint: Member must have length between 1 and %d", inputMaxLength)
		}
		// "If you are configuring a templated Lambda … target, the input
		// must be a well-formed JSON" (API reference, Target.Input).
		if !json.Valid([]byte(*t.Input)) {
			return errorf(ErrValidation, "Target Input must be well-formed JSON for a Lambda target.")
		}
	}
	if rp := t.RetryPolicy; rp != nil {
		if v := rp.MaximumEventAgeInSeconds; v != nil && (*v < 60 || *v > 86400) {
			return errRange("target.retryPolicy.maximumEventAgeInSeconds", int64(*v), 60, 86400)
		}
		if v := rp.MaximumRetryAttempts; v != nil && (*v < 0 || *v > 185) {
			return errRange("target.retryPolicy.maximumRetryAttempts", int64(*v), 0, 185)
		}
	}
	if dl := t.DeadLetterConfig; dl != nil && dl.Arn != nil && !dlqPattern.MatchString(*dl.Arn) {
		return errPattern("target.deadLetterConfig.arn", *dl.Arn, dlqPattern.String())
	}
	return nil
}

// withDefaults fills the RetryPolicy defaults AWS reports.
func withDefaults(t Target) *Target {
	rp := RetryPolicy{}
	if t.RetryPolicy != nil {
		rp = *t.RetryPolicy
	}
	if rp.MaximumEventAgeInSeconds == nil {
		v := int32(defaultMaxEventAge)
		rp.MaximumEventAgeInSeconds = &v
	}
	if rp.MaximumRetryAttempts == nil {
		v := int32(defaultMaxRetries)
		rp.MaximumRetryAttempts = &v
	}
	t.RetryPolicy = &rp
	return &t
}

// occurrencesOf builds the timing of a schedule changed at now.
func occurrencesOf(p prepared, now time.Time) occurrences {
	o := occurrences{expr: p.expr, loc: p.loc, anchor: now}
	if p.req.StartDate != nil {
		o.start = time.Time(*p.req.StartDate)
		o.anchor = o.start
	}
	if p.req.EndDate != nil {
		o.end = time.Time(*p.req.EndDate)
	}
	return o
}

// firstNext is the first occurrence of a schedule created or updated at
// now. A one-time schedule whose time has passed still fires if the
// event is younger than its MaximumEventAgeInSeconds (emulator choice;
// AWS accepts such schedules, AWS-recorded, but its firing is UNCONFIRMED).
func (sch *schedule) firstNext(now time.Time) time.Time {
	from := now
	if sch.expr.OneTime() {
		from = now.Add(-sch.maxAge())
	}
	next, ok := sch.occ.atOrAfter(from)
	if !ok {
		return time.Time{}
	}
	return next
}

func (sch *schedule) maxAge() time.Duration {
	return time.Duration(*sch.req.Target.RetryPolicy.MaximumEventAgeInSeconds) * time.Second
}

// Create creates a schedule (CreateSchedule) and returns its ARN. A retry
// with the ClientToken of the request that created the schedule returns
// the same ARN.
func (s *Service) Create(name string, in ScheduleRequest) (string, error) {
	p, err := s.prepare(name, in)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := *p.req.GroupName
	if s.groups[g] == nil {
		return "", errNoGroup(g)
	}
	k := key{g, name}
	if old := s.schedules[k]; old != nil {
		if p.req.ClientToken != nil && old.req.ClientToken != nil && *p.req.ClientToken == *old.req.ClientToken {
			return old.arn, nil
		}
		// AWS's wording is UNCONFIRMED.
		return "", errorf(ErrConflict, "Schedule %s already exists.", name)
	}
	now := s.clock.Now()
	sch := &schedule{
		name: name, group: g, arn: s.scheduleARN(g, name), req: p.req, expr: p.expr,
		occ: occurrencesOf(p, now), created: now, modified: now, stats: &counters{},
	}
	sch.next = sch.firstNext(now)
	s.schedules[k] = sch
	s.poke()
	s.log.Info("schedule created", "arn", sch.arn, "expression", sch.expr.String(), "next", sch.next)
	return sch.arn, nil
}

// Update replaces a schedule (UpdateSchedule); members left out take their
// defaults. The timer restarts from now: a rate schedule without
// StartDate fires at once and then every period.
func (s *Service) Update(name string, in ScheduleRequest) (string, error) {
	p, err := s.prepare(name, in)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sch := s.schedules[key{*p.req.GroupName, name}]
	if sch == nil {
		return "", errNoSchedule(name)
	}
	now := s.clock.Now()
	if p.req.ClientToken == nil {
		p.req.ClientToken = sch.req.ClientToken
	}
	sch.req, sch.expr, sch.modified = p.req, p.expr, now
	sch.occ = occurrencesOf(p, now)
	sch.next = sch.firstNext(now)
	s.poke()
	return sch.arn, nil
}

// Get returns a schedule (GetSchedule); an empty group is "default".
func (s *Service) Get(group, name string) (ScheduleOutput, error) {
	if group == "" {
		group = DefaultGroup
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sch := s.schedules[key{group, name}]
	if sch == nil {
		return ScheduleOutput{}, errNoSchedule(name)
	}
	return sch.output(), nil
}

func (sch *schedule) output() ScheduleOutput {
	r := sch.req
	t := *r.Target
	return ScheduleOutput{
		ActionAfterCompletion: r.ActionAfterCompletion, Arn: sch.arn,
		CreationDate: EpochSeconds(sch.created), Description: r.Description, EndDate: r.EndDate,
		FlexibleTimeWindow: *r.FlexibleTimeWindow, GroupName: sch.group, KmsKeyArn: r.KmsKeyArn,
		LastModificationDate: EpochSeconds(sch.modified), Name: sch.name,
		ScheduleExpression: *r.ScheduleExpression, ScheduleExpressionTimezone: *r.ScheduleExpressionTimezone,
		StartDate: r.StartDate, State: r.State, Target: t,
	}
}

// Delete deletes a schedule (DeleteSchedule); retries of its events
// already under way continue.
func (s *Service) Delete(group, name string) error {
	if group == "" {
		group = DefaultGroup
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.schedules[key{group, name}] == nil {
		return errNoSchedule(name)
	}
	delete(s.schedules, key{group, name})
	s.poke()
	return nil
}

// ListRequest filters and pages ListSchedules.
type ListRequest struct {
	GroupName  string
	NamePrefix string
	State      string
	MaxResults int
	NextToken  string
}

// ListResult is the ListSchedules response.
type ListResult struct {
	Schedules []ScheduleSummary `json:"Schedules"`
	NextToken *string           `json:"NextToken,omitempty"`
}

// page applies MaxResults (1–100, default 100) and NextToken to keys
// sorted ascending. The token is the last key returned, encoded.
func page(keys []string, maxResults int, token string) ([]string, *string, error) {
	limit := 100
	if maxResults != 0 {
		if maxResults < 1 || maxResults > 100 {
			return nil, nil, errRange("maxResults", int64(maxResults), 1, 100)
		}
		limit = maxResults
	}
	start := 0
	if token != "" {
		after, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return nil, nil, errorf(ErrValidation, "Invalid NextToken.")
		}
		start, _ = slices.BinarySearch(keys, string(after)+"\x00")
	}
	end := min(start+limit, len(keys))
	out := keys[start:end]
	if end < len(keys) {
		next := base64.RawURLEncoding.EncodeToString([]byte(keys[end-1]))
		return out, &next, nil
	}
	return out, nil, nil
}

// List lists schedules by group and name (ListSchedules).
func (s *Service) List(req ListRequest) (ListResult, error) {
	switch req.State {
	case "", StateEnabled, StateDisabled:
	default:
		return ListResult{}, errEnum("state", req.State, StateEnabled, StateDisabled)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	byKey := map[string]*schedule{}
	keys := []string{}
	for k, sch := range s.schedules {
		if req.GroupName != "" && k.group != req.GroupName ||
			!strings.HasPrefix(k.name, req.NamePrefix) ||
			req.State != "" && sch.req.State != req.State {
			continue
		}
		sk := k.group + "/" + k.name
		byKey[sk] = sch
		keys = append(keys, sk)
	}
	slices.Sort(keys)
	keys, next, err := page(keys, req.MaxResults, req.NextToken)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Schedules: []ScheduleSummary{}, NextToken: next}
	for _, k := range keys {
		sch := byKey[k]
		res.Schedules = append(res.Schedules, ScheduleSummary{
			Arn: sch.arn, CreationDate: EpochSeconds(sch.created), GroupName: sch.group,
			LastModificationDate: EpochSeconds(sch.modified), Name: sch.name, State: sch.req.State,
			Target: TargetSummary{Arn: *sch.req.Target.Arn},
		})
	}
	return res, nil
}

// CreateGroup creates a schedule group (CreateScheduleGroup).
func (s *Service) CreateGroup(name string, tags []Tag) (string, error) {
	if err := checkName("name", name); err != nil {
		return "", err
	}
	tm, err := tagMap(tags)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups[name] != nil {
		// AWS's wording is UNCONFIRMED.
		return "", errorf(ErrConflict, "Schedule group %s already exists.", name)
	}
	now := s.clock.Now()
	g := &group{name: name, arn: s.groupARN(name), created: now, modified: now, tags: tm}
	s.groups[name] = g
	return g.arn, nil
}

// GetGroup returns a schedule group (GetScheduleGroup).
func (s *Service) GetGroup(name string) (GroupOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[name]
	if g == nil {
		return GroupOutput{}, errNoGroup(name)
	}
	return g.output(), nil
}

func (g *group) output() GroupOutput {
	return GroupOutput{Arn: g.arn, CreationDate: EpochSeconds(g.created), LastModificationDate: EpochSeconds(g.modified), Name: g.name, State: groupActive}
}

// DeleteGroup deletes a schedule group and its schedules
// (DeleteScheduleGroup); the default group cannot be deleted.
func (s *Service) DeleteGroup(name string) error {
	if name == DefaultGroup {
		// AWS's wording is UNCONFIRMED.
		return errorf(ErrValidation, "The default schedule group cannot be deleted.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups[name] == nil {
		return errNoGroup(name)
	}
	delete(s.groups, name)
	for k := range s.schedules {
		if k.group == name {
			delete(s.schedules, k)
		}
	}
	s.poke()
	return nil
}

// GroupListResult is the ListScheduleGroups response.
type GroupListResult struct {
	ScheduleGroups []GroupOutput `json:"ScheduleGroups"`
	NextToken      *string       `json:"NextToken,omitempty"`
}

// ListGroups lists schedule groups by name (ListScheduleGroups).
func (s *Service) ListGroups(namePrefix string, maxResults int, token string) (GroupListResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := []string{}
	for n := range s.groups {
		if strings.HasPrefix(n, namePrefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	names, next, err := page(names, maxResults, token)
	if err != nil {
		return GroupListResult{}, err
	}
	res := GroupListResult{ScheduleGroups: []GroupOutput{}, NextToken: next}
	for _, n := range names {
		res.ScheduleGroups = append(res.ScheduleGroups, s.groups[n].output())
	}
	return res, nil
}

// tagMap validates tags (keys 1–128, values 0–256 characters).
func tagMap(tags []Tag) (map[string]string, error) {
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		if t.Key == nil || len(*t.Key) < 1 || len(*t.Key) > 128 {
			return nil, errorf(ErrValidation, "1 validation error detected: Value at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128")
		}
		if t.Value == nil || len(*t.Value) > 256 {
			return nil, errorf(ErrValidation, "1 validation error detected: Value at 'tags.member.value' failed to satisfy constraint: Member must have length between 1 and 256")
		}
		out[*t.Key] = *t.Value
	}
	return out, nil
}

// groupByARNLocked finds a group by ARN. Only schedule groups take tags.
func (s *Service) groupByARNLocked(arn string) (*group, error) {
	for _, g := range s.groups {
		if g.arn == arn {
			return g, nil
		}
	}
	if strings.Contains(arn, ":schedule/") {
		return nil, errorf(ErrValidation, "Tags are supported on schedule groups only; %s is a schedule.", arn)
	}
	return nil, errorf(ErrNotFound, "Resource %s does not exist.", arn)
}

// Tags returns a schedule group's tags by ARN (ListTagsForResource),
// sorted by key.
func (s *Service) Tags(arn string) ([]Tag, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.groupByARNLocked(arn)
	if err != nil {
		return nil, err
	}
	out := []Tag{}
	for _, k := range slices.Sorted(maps.Keys(g.tags)) {
		out = append(out, Tag{Key: &k, Value: ptr(g.tags[k])})
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// TagResource adds or replaces tags of a schedule group.
func (s *Service) TagResource(arn string, tags []Tag) error {
	tm, err := tagMap(tags)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.groupByARNLocked(arn)
	if err != nil {
		return err
	}
	if g.tags == nil {
		g.tags = map[string]string{}
	}
	maps.Copy(g.tags, tm)
	return nil
}

// UntagResource removes tags of a schedule group.
func (s *Service) UntagResource(arn string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.groupByARNLocked(arn)
	if err != nil {
		return err
	}
	for _, k := range keys {
		delete(g.tags, k)
	}
	return nil
}

// Stats are the delivery counters of one schedule.
type Stats struct {
	// Invocations counts events Lambda accepted (on-demand fires included).
	Invocations int64 `json:"invocations"`
	// Failures counts attempts Lambda refused; Retries the retries
	// scheduled after them.
	Failures int64 `json:"failures"`
	Retries  int64 `json:"retries"`
	// DeadLettered counts events sent to the DeadLetterConfig queue;
	// Dropped those given up with nowhere to go.
	DeadLettered int64 `json:"deadLettered"`
	Dropped      int64 `json:"dropped"`
	// Expired counts times the timer skipped occurrences older than
	// MaximumEventAgeInSeconds (after the clock jumped; one per jump).
	Expired int64 `json:"expired"`
	// Next is the next occurrence (zero when none is left or the
	// schedule is disabled).
	Next time.Time `json:"next"`
	// LastScheduledTime is the occurrence of the last delivery attempt.
	LastScheduledTime time.Time `json:"lastScheduledTime"`
}

type counters struct {
	invocations, failures, retries, deadLettered, dropped, expired atomic.Int64
	last                                                           atomic.Int64 // unix nanos
}

// Stats returns a schedule's counters; an empty group is "default".
func (s *Service) Stats(group, name string) (Stats, bool) {
	if group == "" {
		group = DefaultGroup
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sch := s.schedules[key{group, name}]
	if sch == nil {
		return Stats{}, false
	}
	c := sch.stats
	st := Stats{
		Invocations: c.invocations.Load(), Failures: c.failures.Load(), Retries: c.retries.Load(),
		DeadLettered: c.deadLettered.Load(), Dropped: c.dropped.Load(), Expired: c.expired.Load(),
	}
	if sch.req.State == StateEnabled {
		st.Next = sch.next
	}
	if n := c.last.Load(); n != 0 {
		st.LastScheduledTime = time.Unix(0, n).UTC()
	}
	return st, true
}

// sortJobs orders deliveries by occurrence, then schedule.
func sortJobs(jobs []*job) {
	slices.SortFunc(jobs, func(a, b *job) int {
		if c := a.due.Compare(b.due); c != 0 {
			return c
		}
		return cmp.Compare(a.scheduleARN, b.scheduleARN)
	})
}

// describe is a job for logs.
func (j *job) describe() string {
	return fmt.Sprintf("%s at %s (attempt %d)", j.scheduleARN, j.occ.Format(time.RFC3339), j.attempt)
}
