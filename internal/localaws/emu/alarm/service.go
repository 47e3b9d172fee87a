package alarm

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

// Alarm states (StateValue enum).
const (
	StateOK               = "OK"
	StateAlarm            = "ALARM"
	StateInsufficientData = "INSUFFICIENT_DATA"
)

// Queues is the part of the SQS engine's Go API (*queue.Service) the alarm
// service samples for the AWS/SQS metrics.
type Queues interface {
	ListQueues(prefix string) []queue.QueueInfo
	Counts(ref string) (queue.Counts, error)
}

// Ticker delivers evaluation ticks; *time.Ticker through RealTicker, a
// channel the test owns in tests.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }

// RealTicker is the default Options.NewTicker.
func RealTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

// Options configures a Service. The zero value works: account and region
// default to the local cloud's, the clock to time.Now.
type Options struct {
	// AccountID and Region name alarm and dashboard ARNs
	// (default emu.DefaultAccountID, emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the clock of every rule: evaluation windows, timestamps,
	// retention (default time.Now).
	Now func() time.Time
	// Interval is how often Start's loop samples the queues and evaluates
	// every alarm (default one minute, CloudWatch's evaluation frequency for
	// standard-resolution alarms and SQS's metric resolution).
	Interval time.Duration
	// NewTicker makes the loop's ticker (default RealTicker). Each tick
	// evaluates at Now(), not at the tick's time, so a fake clock and a
	// fake ticker can be driven together.
	NewTicker func(time.Duration) Ticker
	// Console receives one line per alarm state change
	// ("alarm <name>: OK -> ALARM: <reason>"); nil discards them.
	Console io.Writer
	// Queues, when set, is sampled at every tick for the AWS/SQS metrics.
	Queues Queues
	// Logger receives dropped datapoints and state changes (default: discard).
	Logger *slog.Logger
	// Retention is how long datapoints are kept (default 26 h: more than
	// the longest evaluation window of a sub-hour alarm, one day).
	Retention time.Duration
	// Dashboards is the account's dashboard store, shared by the Services
	// of every region of one account (default: a store of its own).
	Dashboards *Dashboards
}

// Service is the local cloud's CloudWatch: a metric store fed by
// PutMetricData and by in-process emitters (emu.MetricSink), metric alarms
// evaluated on a clock, dashboards, tags and alarm history. It serves the
// API over HTTP (ServeHTTP) and is safe for concurrent use.
type Service struct {
	opts Options

	mu      sync.Mutex
	metrics *store
	alarms  map[string]*alarmDef
	history []historyEntry
	dash    *Dashboards

	startOnce sync.Once
	closeOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
}

var _ emu.MetricSink = (*Service)(nil)

// New returns a Service with no metrics, alarms or dashboards. Nothing runs
// in the background until Start.
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
	if opts.Interval <= 0 {
		opts.Interval = time.Minute
	}
	if opts.NewTicker == nil {
		opts.NewTicker = RealTicker
	}
	if opts.Console == nil {
		opts.Console = io.Discard
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Retention <= 0 {
		opts.Retention = 26 * time.Hour
	}
	if opts.Dashboards == nil {
		opts.Dashboards = NewDashboards()
	}
	return &Service{
		opts:    opts,
		metrics: newStore(),
		alarms:  map[string]*alarmDef{},
		dash:    opts.Dashboards,
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
}

// Start runs the evaluation loop in the background: every Interval it
// samples the queues and evaluates every alarm. Calling it again does nothing.
func (s *Service) Start() {
	s.startOnce.Do(func() {
		t := s.opts.NewTicker(s.opts.Interval)
		go func() {
			defer close(s.done)
			defer t.Stop()
			for {
				select {
				case <-s.stop:
					return
				case <-t.C():
					s.EvaluateNow()
				}
			}
		}()
	})
}

// Close stops the loop started by Start and waits for it. It is safe to
// call more than once, and without Start.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		started := true
		// A Start after Close must not launch a loop; a Service never
		// started has no loop to wait for.
		s.startOnce.Do(func() { started = false })
		close(s.stop)
		if started {
			<-s.done
		}
	})
	return nil
}

// PutMetrics implements emu.MetricSink: datapoints from functions' EMF
// lines, Pipe executions and the like. A datapoint without a time is
// stamped with Now; invalid ones (no namespace or name, a value CloudWatch
// would reject) are logged and dropped. It never blocks on anything but
// the store's lock.
func (s *Service) PutMetrics(ms ...emu.Metric) {
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if m.Namespace == "" || m.Name == "" || !finite(m.Value) || len(m.Dimensions) > maxDimensions {
			s.opts.Logger.Warn("alarm: dropped an invalid datapoint", "namespace", m.Namespace, "name", m.Name,
				"value", m.Value, "dimensions", len(m.Dimensions))
			continue
		}
		t := m.Time
		if t.IsZero() {
			t = now
		}
		s.metrics.add(m.Namespace, m.Name, m.Dimensions, valuePoint(epochMillis(t), unitOrNone(m.Unit), m.Value))
	}
}

// SQS metric names the sampler publishes (AWS/SQS, dimension QueueName;
// SQS developer guide "Available CloudWatch metrics for Amazon SQS").
const (
	sqsNamespace  = "AWS/SQS"
	sqsVisible    = "ApproximateNumberOfMessagesVisible"
	sqsNotVisible = "ApproximateNumberOfMessagesNotVisible"
	sqsDelayed    = "ApproximateNumberOfMessagesDelayed"
)

// EvaluateNow does what one tick of the loop does, at Now(): sample the
// queues' AWS/SQS metrics, drop expired datapoints and evaluate every alarm.
func (s *Service) EvaluateNow() {
	now := epochMillis(s.opts.Now())
	s.sampleQueues(now)
	var lines []string
	s.mu.Lock()
	s.metrics.prune(now.Add(-s.opts.Retention))
	s.pruneHistoryLocked(now)
	names := make([]string, 0, len(s.alarms))
	for name := range s.alarms {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := s.alarms[name]
		res := s.evaluateLocked(a, now)
		if res.retain || res.state == a.state {
			continue
		}
		lines = append(lines, s.transitionLocked(a, now, res.state, res.reason, res.reasonData))
	}
	s.mu.Unlock()
	s.printLines(lines)
}

func (s *Service) sampleQueues(now time.Time) {
	if s.opts.Queues == nil {
		return
	}
	var ms []emu.Metric
	for _, q := range s.opts.Queues.ListQueues("") {
		c, err := s.opts.Queues.Counts(q.ARN)
		if err != nil {
			// Deleted between the listing and now: it has no metrics.
			continue
		}
		dims := map[string]string{"QueueName": q.Name}
		for _, m := range []struct {
			name string
			v    int
		}{{sqsVisible, c.Visible}, {sqsNotVisible, c.InFlight}, {sqsDelayed, c.Delayed}} {
			ms = append(ms, emu.Metric{Namespace: sqsNamespace, Name: m.name, Dimensions: dims,
				Value: float64(m.v), Unit: "Count", Time: now})
		}
	}
	s.PutMetrics(ms...)
}

// transitionLocked moves an alarm to a new state, records the history item
// and returns the console line.
func (s *Service) transitionLocked(a *alarmDef, now time.Time, state, reason, reasonData string) string {
	old := a.state
	oldReason := a.reason
	a.state, a.reason, a.reasonData = state, reason, reasonData
	a.stateUpdated, a.stateTransitioned = now, now
	newState := map[string]any{"stateValue": state, "stateReason": reason}
	if reasonData != "" && json.Valid([]byte(reasonData)) {
		newState["stateReasonData"] = json.RawMessage(reasonData)
	}
	data := mustJSON(map[string]any{
		"version":  "1.0",
		"oldState": map[string]any{"stateValue": old, "stateReason": oldReason},
		"newState": newState,
	})
	s.addHistoryLocked(historyEntry{alarm: a.name, t: now, kind: historyState,
		summary: fmt.Sprintf("Alarm updated from %s to %s", old, state), data: data})
	line := fmt.Sprintf("alarm %s: %s -> %s: %s", a.name, old, state, reason)
	s.opts.Logger.Info("alarm state change", "alarm", a.name, "from", old, "to", state, "reason", reason)
	return line
}

func (s *Service) printLines(lines []string) {
	for _, l := range lines {
		// A console that fails to take a line loses only that line; the
		// state change itself is recorded in the history.
		if _, err := fmt.Fprintln(s.opts.Console, l); err != nil {
			s.opts.Logger.Warn("alarm: console write", "err", err)
		}
	}
}

// AlarmStatus is one alarm's state, as the admin endpoint lists it.
type AlarmStatus struct {
	Name       string            `json:"name"`
	State      string            `json:"state"`
	Reason     string            `json:"reason"`
	Updated    time.Time         `json:"updated"`
	Namespace  string            `json:"namespace"`
	Metric     string            `json:"metric"`
	Dimensions map[string]string `json:"dimensions,omitempty"`
}

// Alarms returns every alarm's state, by name.
func (s *Service) Alarms() []AlarmStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]AlarmStatus, 0, len(s.alarms))
	for _, a := range s.alarms {
		out = append(out, AlarmStatus{Name: a.name, State: a.state, Reason: a.reason, Updated: a.stateUpdated,
			Namespace: a.namespace, Metric: a.metricName, Dimensions: a.dims})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// State returns one alarm's state value, or "" when there is no such alarm.
func (s *Service) State(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.alarms[name]; a != nil {
		return a.state
	}
	return ""
}

func (s *Service) alarmARN(name string) string {
	return fmt.Sprintf("arn:aws:cloudwatch:%s:%s:alarm:%s", s.opts.Region, s.opts.AccountID, name)
}

func fmtValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%g", v)
}

// unitOrNone stores a datapoint sent without a unit under "None", the
// StandardUnit for "no unit", as CloudWatch Logs metric filters document
// for their metrics (MetricTransformation Unit: "If you omit this, the unit
// is set as None"); an alarm with Unit None then matches it. The
// PutMetricData reference does not say; this is the local cloud's reading.
func unitOrNone(u string) string {
	if u == "" {
		return "None"
	}
	return u
}
