package demo

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/e2e/pricing"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/task"
)

// CostPer is the number of tasks the cost estimate is for.
const CostPer = 1000

// Report is everything a demo run measured.
type Report struct {
	Name   string
	Sites  int
	Seed   int64
	RunID  string
	TFVars []string

	// Phases are the steps of the run with their wall times; Total is the
	// whole of Run; Wall is from the start of the submit until every task
	// was terminal.
	Phases []Phase
	Total  time.Duration
	Wall   time.Duration
	// Quiet says the work queue drained and no function ran before the
	// counters were read.
	Quiet bool
	// ReconcilerFired counts on-demand fires of the reconciler's schedule:
	// when the run stalled, and once after the last task was terminal.
	ReconcilerFired int

	// Lines is the number of input lines; Input their parse (accepted,
	// rejected with line numbers, duplicates); Submitted the tasks written.
	Lines int
	// Blank counts the blank (or # comment) lines, which submit skips.
	Blank     int
	Input     *cli.Input
	Submitted int
	// Expected is the fixture web's prediction for the input.
	Expected fixtureweb.Tally

	Outcomes Outcomes
	// Mismatches are tasks (or rejected lines) whose outcome differs from
	// the fixture web's expectation.
	Mismatches []Mismatch
	// Stuck are tasks still live at the timeout.
	Stuck   []task.Task
	Latency Latency
	DLQ     []DLQMessage
	Metrics Metrics

	// Requests are the AWS API requests the run made over HTTP, split by
	// caller (a function's name, or "client": the submitter and the
	// demo's status polls).
	Requests  []localcloud.CallerCount
	Functions []FunctionReport
	Mapping   mapping.Stats
	Schedule  schedule.Stats
	Web       fixtureweb.Stats
	Documents Documents
	Dynamo    DynamoUsage
	Cost      pricing.Estimate
	// CostARM is the same estimate with every function on arm64, the
	// pipeline module's default architecture.
	CostARM pricing.Estimate

	Checks []Check
	// Leftovers are resources found in the local cloud after destroy.
	Leftovers []string
}

// Phase is one step of the run.
type Phase struct {
	Name     string
	Duration time.Duration
}

// Outcomes are the run's tasks as the table has them at the end.
type Outcomes struct {
	Tasks        int
	States       map[task.State]int
	FailedByKind map[task.ErrorKind]int
	// Claims is the sum of the tasks' attempts; Released the claims that
	// ended in a release for another delivery (attempts - 1 per task).
	Claims   int
	Released int
}

// Finished and Failed count the terminal tasks.
func (o Outcomes) Finished() int { return o.States[task.StateFinished] }

// Failed counts the failed tasks.
func (o Outcomes) Failed() int { return o.States[task.StateFailed] }

// Live counts the tasks not terminal.
func (o Outcomes) Live() int { return o.States[task.StatePending] + o.States[task.StateRunning] }

// Mismatch is a task (or rejected line) whose end differs from the fixture
// web's expectation.
type Mismatch struct {
	TaskID    string
	Line      int
	URL       string
	Behavior  string
	Got       string
	Want      string
	LastError string
}

// DLQMessage is one message of a DLQ, as taskpipe dlq list --json prints.
type DLQMessage struct {
	Queue  string `json:"queue"`
	Reason string `json:"reason"`
	TaskID string `json:"taskId"`
	URL    string `json:"url"`
	// MessageID, Body, ReceiveCount (this listing's receive included) and
	// SourceQueue (the ARN the message came from) identify the message.
	MessageID    string `json:"messageId"`
	Body         string `json:"body"`
	ReceiveCount int    `json:"receiveCount"`
	SourceQueue  string `json:"sourceQueueArn"`
}

// Metrics are the run's metric sums from the CloudWatch emulation.
type Metrics struct {
	Finished, Failed, FailedFatal, FailedExhausted float64
	Released, DuplicatesSkipped, ClaimsSkipped     float64
	StaleClaims, PoisonForwarded, MessagesRetried  float64
	Redispatched, StuckFailed, ReconcileIncomplete float64
	EnrichDropped                                  float64
	KeyPagesSkipped                                float64
	PipeEvents, PipeInvocations, PipeFailed        float64
}

// FunctionReport is one function's runtime figures: the function
// service's counters and what its REPORT lines say.
type FunctionReport struct {
	Role     string
	Name     string
	Arch     string
	MemoryMB int
	Stats    function.Stats
	// Reports counts REPORT lines; Inits those with an Init Duration (a
	// process's first invocation); BilledMS and DurationMS add up their
	// durations; MaxMemoryMB is the highest Max Memory Used.
	Reports      int
	Inits        int
	BilledMS     int64
	DurationMS   float64
	MaxMemoryMB  int64
	SampleReport string
	LogBytes     int64
	LogEvents    int
	logGroup     string
}

// Latency summarises task latency (finishedAt - createdAt).
type Latency struct {
	N             int
	P50, P95, Max time.Duration
}

// LatencyOf returns the nearest-rank percentiles of ds.
func LatencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return Latency{N: len(s), P50: percentile(s, 50), P95: percentile(s, 95), Max: s[len(s)-1]}
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

// Check is one reconciliation check.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// FailedChecks names the checks that failed.
func (r *Report) FailedChecks() []string {
	var out []string
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	return out
}

// ServiceSide are the requests the local cloud's runtimes make in process
// on the pipeline's behalf (on AWS: the Lambda pollers, the pipe and the
// scheduler), which therefore never reach the HTTP router. They come from
// the runtimes' own counters.
type ServiceSide struct {
	Service, Operation, By string
	Count                  float64
	// Estimated is true when the counter counts something close to the
	// requests rather than the requests (see Note).
	Estimated bool
	Note      string
}

// ServiceSide lists the in-process requests the run made.
func (r *Report) ServiceSide() []ServiceSide {
	fn := func(role string) string {
		for _, f := range r.Functions {
			if f.Role == role {
				return f.Name
			}
		}
		return role
	}
	rows := []ServiceSide{
		{Service: "lambda", Operation: "Invoke", By: "event source mapping → " + fn("scraper"), Count: float64(r.Mapping.Batches)},
		{Service: "sqs", Operation: "ReceiveMessage", By: "event source mapping", Count: float64(r.Mapping.Batches), Estimated: true,
			Note: "one receive per delivered batch of 1; Lambda's pollers may receive more per call, and idle long polls add a fixed cost"},
		{Service: "sqs", Operation: "DeleteMessage", By: "event source mapping", Count: float64(r.Mapping.Deleted)},
		{Service: "lambda", Operation: "Invoke", By: "pipe → " + fn("enrich"), Count: r.Metrics.PipeInvocations},
		{Service: "sqs", Operation: "SendMessage", By: "pipe → work queue", Count: r.Metrics.PipeEvents, Estimated: true,
			Note: "one message per event after enrichment; Pipes may batch them"},
		{Service: "lambda", Operation: "Invoke", By: "scheduler → " + fn("reconciler"), Count: float64(r.Schedule.Invocations)},
	}
	if !r.hasFunction("enrich") {
		rows = append(rows[:3], rows[4:]...)
	}
	return rows
}

func (r *Report) hasFunction(role string) bool {
	for _, f := range r.Functions {
		if f.Role == role {
			return true
		}
	}
	return false
}

// Usage turns the report's measurements into the cost model's input.
// Priced: every Lambda invocation and its billed duration; every SQS
// request the pipeline made (over HTTP, and the pollers' and pipe's
// in-process ones); the DynamoDB write units of every write (the
// submitter's included) and the pipeline's reads; the pipe's events; the
// functions' log bytes. Not priced: the client's reads (the demo's own
// status polls).
func (r *Report) Usage() pricing.Usage {
	u := pricing.Usage{Tasks: r.Submitted}
	for _, f := range r.Functions {
		u.Functions = append(u.Functions, pricing.FunctionUsage{
			Name: f.Name, Arch: f.Arch, MemoryMB: f.MemoryMB,
			Invocations: float64(f.Stats.Invocations), BilledMS: float64(f.BilledMS),
		})
		u.LogBytes += float64(f.LogBytes)
	}
	for _, c := range r.Requests {
		switch {
		case c.Service == "sqs":
			u.SQSRequests += float64(c.Count)
		case c.Service == "s3" && s3PutClass[c.Operation]:
			u.S3PutRequests += float64(c.Count)
		case c.Service == "s3" && c.Operation != "DeleteObject" && c.Operation != "DeleteObjects":
			// DELETE requests are free (pricing's s3.put-requests note).
			u.S3GetRequests += float64(c.Count)
		}
	}
	u.S3StoredBytes = float64(r.Documents.Bytes)
	for _, s := range r.ServiceSide() {
		if s.Service == "sqs" {
			u.SQSRequests += s.Count
		}
	}
	u.DynamoWriteUnits = r.Dynamo.WriteUnits()
	u.DynamoReadUnits = r.Dynamo.ReadUnits()
	u.PipeRequests = r.Metrics.PipeEvents
	return u
}

// s3PutClass are the operations S3 bills at the PUT, COPY, POST, LIST rate.
var s3PutClass = map[string]bool{
	"PutObject": true, "CopyObject": true, "CreateMultipartUpload": true, "UploadPart": true,
	"CompleteMultipartUpload": true, "ListObjects": true, "ListObjectsV2": true, "ListObjectVersions": true,
	"ListBuckets": true, "ListMultipartUploads": true, "ListParts": true,
}

// estimateARM prices the run as if every function ran on arm64.
func (r *Report) estimateARM() (pricing.Estimate, error) {
	u := r.Usage()
	for i := range u.Functions {
		u.Functions[i].Arch = "arm64"
	}
	return pricing.Default().Estimate(u, CostPer)
}

// perTask divides n by the submitted tasks.
func (r *Report) perTask(n float64) float64 {
	if r.Submitted == 0 {
		return 0
	}
	return n / float64(r.Submitted)
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
