// Package emf writes CloudWatch metrics as Embedded Metric Format log lines
// and builds the JSON slog logger the Lambdas share.
//
// A Lambda's stdout goes to CloudWatch Logs, which extracts every line that
// carries an "_aws" block into metrics, with no API call and no extra
// permission ("Specification: Embedded metric format", CloudWatch user
// guide). The metric names below are a contract: the Terraform alarms refer
// to them by name, so renaming one means changing the alarms too.
package emf

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

// Namespace is the CloudWatch namespace of every taskpipe metric.
const Namespace = "taskpipe"

// Metric names. Each comment says who emits it, its unit and dimensions.
// Dimensioned metrics are also emitted without dimensions (an empty
// dimension set), so an alarm can watch the total.
const (
	// TasksFinished (scraper, Count): a task was finished with a result.
	TasksFinished = "TasksFinished"
	// TasksFailed (scraper, Count, ErrorKind): a task moved to Failed;
	// ErrorKind is fatal or exhausted.
	TasksFailed = "TasksFailed"
	// TasksReleased (scraper, Count): a retryable failure released the task
	// for another delivery.
	TasksReleased = "TasksReleased"
	// DuplicatesSkipped (scraper, Count): a delivery for a task that is
	// already Finished or Failed was acknowledged and skipped.
	DuplicatesSkipped = "DuplicatesSkipped"
	// ClaimsSkipped (scraper, Count): a delivery for a task another worker
	// holds a live lease on was acknowledged and skipped.
	ClaimsSkipped = "ClaimsSkipped"
	// StaleClaims (scraper, Count): Finish, Fail or Release found the claim
	// taken over; the worker's outcome was discarded.
	StaleClaims = "StaleClaims"
	// PoisonForwarded (scraper, Count): an unparseable message, or one for a
	// task that does not exist, was forwarded to the work DLQ.
	PoisonForwarded = "PoisonForwarded"
	// MessagesRetried (scraper, Count): a message was reported in
	// batchItemFailures, so SQS delivers it again.
	MessagesRetried = "MessagesRetried"
	// FetchLatency (scraper, Milliseconds): time spent scraping one task.
	FetchLatency = "FetchLatency"
	// Redispatched (reconciler, Count, State): a work message was re-sent
	// for a task overdue in State (Pending or Running).
	Redispatched = "Redispatched"
	// StuckFailed (reconciler, Count): a Running task with no attempts left
	// and a long-expired lease was failed as stuck.
	StuckFailed = "StuckFailed"
	// OldestLiveTaskAge (reconciler, Seconds, State): how long the oldest
	// overdue task of State has been due (Pending: since it became Pending;
	// Running: since its lease expired); 0 when none is overdue.
	OldestLiveTaskAge = "OldestLiveTaskAge"
	// ReconcileIncomplete (reconciler, Count): 1 when a run stopped before
	// its deadline with work left over, else 0.
	ReconcileIncomplete = "ReconcileIncomplete"
	// EnrichDropped (enrich, Count): stream records dropped because they
	// are not task records.
	EnrichDropped = "EnrichDropped"
)

// Dimension names.
const (
	DimErrorKind = "ErrorKind"
	DimState     = "State"
	// DimDeployment names the deployment (the Terraform module's name) on
	// every metric of a Writer made ForDeployment: the namespace is shared
	// by every deployment in an account and region, so an alarm must
	// select its own (issue 12 #6).
	DimDeployment = "Deployment"
)

// Unit is a CloudWatch metric unit.
type Unit string

// The units taskpipe uses.
const (
	UnitCount        Unit = "Count"
	UnitMilliseconds Unit = "Milliseconds"
	UnitSeconds      Unit = "Seconds"
)

// Metric is one value to record.
type Metric struct {
	Name  string
	Unit  Unit
	Value float64
}

// Count returns a Count metric.
func Count(name string, n int) Metric { return Metric{Name: name, Unit: UnitCount, Value: float64(n)} }

// Milliseconds returns a Milliseconds metric of d.
func Milliseconds(name string, d time.Duration) Metric {
	return Metric{Name: name, Unit: UnitMilliseconds, Value: float64(d) / float64(time.Millisecond)}
}

// Seconds returns a Seconds metric of d.
func Seconds(name string, d time.Duration) Metric {
	return Metric{Name: name, Unit: UnitSeconds, Value: d.Seconds()}
}

// Dimension is one metric dimension.
type Dimension struct {
	Name  string
	Value string
}

// Recorder records metrics. The handlers depend on this, so tests can use
// an in-memory recorder.
type Recorder interface {
	Record(dims []Dimension, metrics ...Metric) error
}

// Writer is a Recorder that writes one EMF JSON line per Record call. It is
// safe for concurrent use.
type Writer struct {
	// Now is the clock stamped into each line.
	Now func() time.Time

	mu         sync.Mutex
	w          io.Writer
	deployment string
}

// New returns a Writer on w (os.Stdout in a Lambda).
func New(w io.Writer, now func() time.Time) *Writer {
	return &Writer{Now: now, w: w}
}

// ForDeployment makes every later Record carry the Deployment dimension
// with the value name, in each of its dimension sets; "" leaves metrics
// without it. It returns w, and must be called before w is shared.
func (w *Writer) ForDeployment(name string) *Writer {
	w.deployment = name
	return w
}

// metricDirective and friends follow the EMF document structure: the root
// holds "_aws" plus one member per dimension and metric.
type metricDirective struct {
	Namespace  string       `json:"Namespace"`
	Dimensions [][]string   `json:"Dimensions"`
	Metrics    []metricDefn `json:"Metrics"`
}

type metricDefn struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit,omitempty"`
}

type metadata struct {
	Timestamp         int64             `json:"Timestamp"`
	CloudWatchMetrics []metricDirective `json:"CloudWatchMetrics"`
}

// Record writes metrics with dims as one EMF line. With dimensions, the
// line declares two dimension sets, dims and none, so CloudWatch keeps
// both the per-dimension series and the total. A Writer ForDeployment adds
// Deployment to both sets: the total is then the deployment's.
func (w *Writer) Record(dims []Dimension, metrics ...Metric) error {
	if len(metrics) == 0 {
		return nil
	}
	root := make(map[string]any, 2+len(dims)+len(metrics))
	keys := make([]string, 0, len(dims))
	var base []string
	if w.deployment != "" {
		root[DimDeployment] = w.deployment
		base = []string{DimDeployment}
	}
	for _, d := range dims {
		if d.Name == "" || d.Name == "_aws" {
			return fmt.Errorf("emf: record: invalid dimension name %q", d.Name)
		}
		if _, dup := root[d.Name]; dup {
			return fmt.Errorf("emf: record: duplicate dimension %q", d.Name)
		}
		root[d.Name] = d.Value
		keys = append(keys, d.Name)
	}
	sort.Strings(keys)
	sets := [][]string{append([]string{}, base...)}
	if len(keys) > 0 {
		sets = [][]string{append(append([]string{}, base...), keys...), append([]string{}, base...)}
	}
	defs := make([]metricDefn, 0, len(metrics))
	for _, m := range metrics {
		if m.Name == "" || m.Name == "_aws" {
			return fmt.Errorf("emf: record: invalid metric name %q", m.Name)
		}
		if _, dup := root[m.Name]; dup {
			return fmt.Errorf("emf: record: metric %q collides with another member", m.Name)
		}
		root[m.Name] = m.Value
		defs = append(defs, metricDefn{Name: m.Name, Unit: m.Unit})
	}
	root["_aws"] = metadata{
		Timestamp:         w.Now().UnixMilli(),
		CloudWatchMetrics: []metricDirective{{Namespace: Namespace, Dimensions: sets, Metrics: defs}},
	}
	line, err := json.Marshal(root)
	if err != nil {
		return fmt.Errorf("emf: record: %w", err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("emf: record: write: %w", err)
	}
	return nil
}
