package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds the wait for every task to become terminal. A
	// killed worker's task comes back after the queue's visibility timeout
	// (180 s in the local example), and a task whose message a duplicate's
	// acknowledgement removed waits for the reconciler's Running grace
	// (240 s) and its next run.
	DefaultTimeout = 15 * time.Minute
	// DefaultQuietTimeout bounds the wait for the pipeline to go quiet
	// once every task is terminal: a lost acknowledgement's message comes
	// back only after the visibility timeout, so it must exceed it.
	DefaultQuietTimeout = 4 * time.Minute
)

// ErrInvariants is returned (wrapped) by Run when an invariant does not
// hold.
var ErrInvariants = errors.New("chaos: invariants broken")

// Config configures Run.
type Config struct {
	// Demo is the run underneath: sites, seed, paths, output. Run sets its
	// Mix (from the plan), Hooks, and the Timeout and QuietTimeout when
	// they are zero.
	Demo demo.Config
	// Plan says which faults to inject (FullPlan when zero).
	Plan Plan
	// FaultSeed seeds the fault injector's decisions.
	FaultSeed uint64
	// HistoryPath, when set, receives the recorded History as JSON.
	HistoryPath string
}

// Outcome is what a chaos run produced.
type Outcome struct {
	Report  *demo.Report
	History *History
	Result  Result
}

// Run runs the demo with the plan's faults, records the History once the
// pipeline is quiet, checks the invariants, adjusts the demo's own
// reconciliation to the faults (see adjustChecks) and prints the
// invariant table after the demo's report. The error wraps ErrInvariants
// when an invariant does not hold, and demo.ErrChecksFailed when a
// reconciliation check failed.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.Plan.zero() {
		cfg.Plan = FullPlan()
	}
	if cfg.Plan.Mix == nil {
		cfg.Plan.Mix = ChaosMix()
	}
	if err := cfg.Plan.Validate(); err != nil {
		return nil, err
	}
	d := cfg.Demo
	d.Mix = cfg.Plan.Mix
	if d.Timeout == 0 {
		d.Timeout = DefaultTimeout
	}
	if d.QuietTimeout == 0 {
		d.QuietTimeout = DefaultQuietTimeout
	}
	if d.Name == "" {
		d.Name = "taskpipe-chaos"
	}
	out := d.Out
	if out == nil {
		out = io.Discard
	}
	oc := &Outcome{}
	var hookErr error
	var poison []Poison
	var edit *filterEdit
	d.Hooks = demo.Hooks{
		BeforeSubmit: func(ctx context.Context, st *demo.Stage) error {
			var err error
			poison, err = cfg.before(ctx, st, d, out)
			if err == nil && cfg.Plan.FilterEdit {
				edit = startFilterEdit(ctx, st, max(1, d.Sites/5))
			}
			return err
		},
		AfterRun: func(ctx context.Context, st *demo.Stage, rep *demo.Report) error {
			rec := &recorder{st: st, rep: rep, poison: poison, plan: cfg.Plan, edit: edit}
			h, err := rec.record(ctx)
			oc.History = h
			if err != nil {
				hookErr = err
				return err
			}
			oc.Result = Check(h)
			adjustChecks(rep, h, oc.Result, st)
			if cfg.HistoryPath != "" {
				if err := h.WriteFile(cfg.HistoryPath); err != nil {
					hookErr = err
					return err
				}
			}
			return nil
		},
	}
	rep, runErr := demo.Run(ctx, d)
	oc.Report = rep
	if oc.History != nil && hookErr == nil {
		if err := printResult(out, oc, cfg); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	if oc.History != nil && hookErr == nil && !oc.Result.OK() {
		runErr = errors.Join(runErr, fmt.Errorf("%w: %s", ErrInvariants, strings.Join(oc.Result.Failed(), "; ")))
	}
	return oc, runErr
}

// before switches the faults on and sends the poison messages: after
// apply, before the submit.
func (cfg Config) before(ctx context.Context, st *demo.Stage, d demo.Config, out io.Writer) ([]Poison, error) {
	api := sqs.NewFromConfig(st.AWS)
	attrs, err := api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(st.Outputs.WorkQueueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameVisibilityTimeout}})
	if err != nil {
		return nil, fmt.Errorf("chaos: work queue attributes: %w", err)
	}
	secs, err := strconv.Atoi(attrs.Attributes[string(sqstypes.QueueAttributeNameVisibilityTimeout)])
	if err != nil {
		return nil, fmt.Errorf("chaos: work queue visibility timeout: %w", err)
	}
	if vis := time.Duration(secs) * time.Second; vis+10*time.Second > d.QuietTimeout {
		return nil, fmt.Errorf("chaos: the work queue's visibility timeout %s leaves no time in the quiet timeout %s: messages of lost acknowledgements would still be invisible when the counts are read", vis, d.QuietTimeout)
	}
	// From before the first record of the run, so every record has its
	// fate.
	st.Cloud.Pipes().TrackDeliveries(st.Outputs.PipeName)
	fc := cfg.Plan.FaultConfig(st.Outputs)
	url := st.Cloud.URL() + emu.AdminPrefix + "faults?seed=" + strconv.FormatUint(cfg.FaultSeed, 10)
	if err := adminJSON(ctx, st.Cloud.AdminClient(), http.MethodPut, url, fc, nil); err != nil {
		return nil, err
	}
	if err := adminJSON(ctx, st.Cloud.AdminClient(), http.MethodDelete, st.Cloud.URL()+emu.AdminPrefix+"faults/stats", nil, nil); err != nil {
		return nil, err
	}
	n := cfg.Plan.Poison(d.Sites)
	poison, err := sendPoison(ctx, api, st.Outputs.WorkQueueURL, n)
	if err != nil {
		return poison, err
	}
	fmt.Fprintf(out, "    faults on (seed %d): %s; %d poison messages sent to the work queue\n", cfg.FaultSeed, cfg.Plan, len(poison))
	return poison, nil
}

// zero reports whether nothing of the plan is set.
func (p Plan) zero() bool {
	return p.Mix == nil && p.PoisonRate == 0 && p.ThrottleRate == 0 && p.DuplicateRate == 0 &&
		p.DropAckRate == 0 && p.AckDelay == 0 && p.KillRate == 0 && p.TimeoutRate == 0 && p.ServerErrorRate == 0 &&
		p.PipeFailureRate == 0 && p.PipeRefuseRate == 0 && p.EnrichErrorRate == 0 && p.EnrichTimeoutRate == 0 && !p.FilterEdit
}

// String lists the plan's faults in one line.
func (p Plan) String() string {
	var parts []string
	add := func(cond bool, format string, args ...any) {
		if cond {
			parts = append(parts, fmt.Sprintf(format, args...))
		}
	}
	add(p.ThrottleRate > 0, "DynamoDB throttling %s", pctf(p.ThrottleRate))
	add(p.DuplicateRate > 0, "duplicate deliveries %s", pctf(p.DuplicateRate))
	add(p.DropAckRate > 0, "lost acks %s", pctf(p.DropAckRate))
	add(p.AckDelay > 0, "acks delayed %s", p.AckDelay)
	add(p.KillRate > 0, "scraper killed after %s of claims", pctf(p.KillRate))
	add(p.TimeoutRate > 0, "scraper frozen %s after %s of claims until its timeout", p.TimeoutAfter, pctf(p.TimeoutRate))
	add(p.PoisonRate > 0, "poison %s of lines", pctf(p.PoisonRate))
	add(p.ServerErrorRate > 0, "DynamoDB 500s %s", pctf(p.ServerErrorRate))
	add(p.PipeFailureRate > 0, "pipe sends failing %s", pctf(p.PipeFailureRate))
	add(p.PipeRefuseRate > 0, "work messages the pipe cannot send %s", pctf(p.PipeRefuseRate))
	add(p.EnrichErrorRate > 0, "enrichment errors %s", pctf(p.EnrichErrorRate))
	add(p.EnrichTimeoutRate > 0, "enrichment timeouts %s", pctf(p.EnrichTimeoutRate))
	add(p.FilterEdit, "pipe filter edited mid-run")
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// printResult prints the invariant table and the faults that fired.
func printResult(w io.Writer, oc *Outcome, cfg Config) error {
	h := oc.History
	st := h.Faults.Stats
	var b strings.Builder
	fmt.Fprintf(&b, "\nChaos invariants (run %s: %d tasks submitted, %d stream records, %d DLQ messages; checked from the recorded history", h.RunID,
		len(h.Submitted), len(h.Stream), len(h.DLQ))
	if cfg.HistoryPath != "" {
		fmt.Fprintf(&b, " in %s", demo.DisplayPath(cfg.HistoryPath))
	}
	b.WriteString(")\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("chaos: print: %w", err)
	}
	if err := oc.Result.Print(w); err != nil {
		return err
	}
	s := oc.Result.Summary
	_, err := fmt.Fprintf(w, "\nFaults injected: %d DynamoDB throttles of %d requests, %d duplicate deliveries of %d, %d lost acks and %d delayed of %d, %d workers killed after their claim, %d poison messages\n"+
		"Stream: %d claims, %d releases, %d claims abandoned (taken over after the lease, or failed as exhausted or stuck: %d and %d)\n",
		st.DynamoDBThrottles, st.DynamoDBRequests, st.SQSDuplicates, st.SQSDeliveries, st.SQSDroppedAcks, st.SQSDelayedAcks, st.SQSAcks,
		st.Kills, len(h.Poison), s.Claims, s.Releases, s.Abandoned, s.Exhausted, s.Stuck)
	if err != nil {
		return fmt.Errorf("chaos: print: %w", err)
	}
	if st.DynamoDBServerErrors+st.PipeDeliveries+st.PipeEnrichments+st.PipeOutageFailures+st.Frozen+st.FreezeMissed > 0 {
		_, err = fmt.Fprintf(w, "Also injected: %d DynamoDB 500s, %d of %d pipe sends failed, %d messages refused by the pipe's target (%d sends), %d sends failed in the outage across the filter edit, %d enrichment errors and %d timeouts of %d invocations, %d scrapers frozen mid-claim until their timeout (%d scraper timeouts; %d freezes found the invocation over)\n",
			st.DynamoDBServerErrors, st.PipeTargetFailures, st.PipeDeliveries, st.PipeRefusedBodies, st.PipeTargetRefusals,
			st.PipeOutageFailures, st.PipeEnrichmentErrors, st.PipeEnrichmentTimeouts, st.PipeEnrichments,
			st.Frozen, h.Faults.ScraperTimeouts, st.FreezeMissed)
		if err != nil {
			return fmt.Errorf("chaos: print: %w", err)
		}
	}
	verdict := "every invariant holds"
	if !oc.Result.OK() {
		verdict = "BROKEN: " + strings.Join(oc.Result.Failed(), "; ")
	}
	if _, err := fmt.Fprintf(w, "Chaos verdict: %s\n", verdict); err != nil {
		return fmt.Errorf("chaos: print: %w", err)
	}
	return nil
}
