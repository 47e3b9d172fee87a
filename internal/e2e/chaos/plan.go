package chaos

import (
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// ClaimMarker occurs in the body of the scraper's claim request and in no
// other request: the claim's update expression increments attempts
// (dynamostore claim.go, claimUpdate). The kill rule selects the claim
// with it, so the worker dies right after it took the task.
const ClaimMarker = "#attempts = #attempts + :one"

// Plan says which faults a chaos run injects and how often.
type Plan struct {
	// Mix weighs the fixture web's behaviours (ChaosMix by default).
	Mix fixtureweb.Mix
	// PoisonRate is the number of poison messages put on the work queue,
	// as a share of the input lines.
	PoisonRate float64
	// ThrottleRate is the share of DynamoDB data-plane requests throttled.
	ThrottleRate float64
	// DuplicateRate is the share of SQS deliveries made twice.
	DuplicateRate float64
	// DropAckRate is the share of acknowledgements (deletes) lost.
	DropAckRate float64
	// AckDelay holds every acknowledgement this long.
	AckDelay time.Duration
	// KillRate is the share of the scraper's claims after which its
	// process is killed.
	KillRate float64
	// TimeoutRate is the share of the scraper's claims after which its
	// process is frozen TimeoutAfter later, when its fetches are under
	// way: the invocation runs into the function's timeout and the
	// platform kills it there (fault.KillAtTimeout).
	TimeoutRate  float64
	TimeoutAfter time.Duration
	// ServerErrorRate is the share of DynamoDB data-plane requests
	// answered 500 InternalServerError (the SDKs retry it).
	ServerErrorRate float64
	// PipeFailureRate is the share of the Pipe's SendMessage calls to the
	// work queue that fail, each decided anew: the pipe retries (and
	// bisects) the batch, sending its earlier messages again.
	PipeFailureRate float64
	// PipeRefuseRate is the share of work messages whose every
	// SendMessage from the Pipe fails: bisect isolates each, the pipe
	// dead-letters it after its retries, and the reconciler re-dispatches
	// the task once its Pending grace is over.
	PipeRefuseRate float64
	// EnrichErrorRate and EnrichTimeoutRate are the shares of the Pipe's
	// enrichment invocations that fail as a function error, or hang for
	// EnrichTimeout and fail as a timeout: the batch is retried whole
	// (enrichment has no partial batch failure handling), and after its
	// retries the pipe dead-letters it and the reconciler re-dispatches
	// its tasks. They need a stack with enrichment on (the local example).
	EnrichErrorRate   float64
	EnrichTimeoutRate float64
	EnrichTimeout     time.Duration
	// FilterEdit applies the stack again in the middle of the dispatch
	// with the pipe's filter rewritten (EditedFilter: the same records,
	// other patterns), while the pipe's target is down, so the update
	// lands on a pipe with records in flight.
	FilterEdit bool
}

// ChaosMix is the fixture web of a chaos run: 10% flaky sites (503 before
// they heal) and 2% fatal ones (404, not HTML, redirect loop), with the
// demo's other behaviours at small shares so every path carries load.
// fixtureweb.ChaosMix is harsher (14% fatal); the issue asks for 2%.
func ChaosMix() fixtureweb.Mix {
	return fixtureweb.Mix{
		fixtureweb.Healthy:       77,
		fixtureweb.Slow:          3,
		fixtureweb.Flaky:         10,
		fixtureweb.ServerError:   2,
		fixtureweb.NotFound:      1,
		fixtureweb.RedirectChain: 2,
		fixtureweb.RedirectLoop:  0.5,
		fixtureweb.Huge:          0.5,
		fixtureweb.NotHTML:       0.5,
		fixtureweb.SlowDrip:      1.5,
		fixtureweb.RateLimited:   2,
	}
}

// FullPlan is the chaos run: 10% flaky and 2% fatal sites, 1%
// poison messages, 1% of claims killed, 5% duplicate deliveries, 1%
// DynamoDB throttling, slow acknowledgements, and 1% lost ones (SQS's
// DeleteMessage can fail like any call; the message then comes back after
// its visibility timeout, which the pipeline must shrug off).
//
// On top of those: 1% of DynamoDB requests answered 500, 2% of the Pipe's
// sends failing, 0.5% of work messages the Pipe can never send (its DLQ
// and the reconciler recover them), 1% of the Pipe's enrichment
// invocations failing and 0.5% timing out, 1% of claims followed by a
// function timeout mid-fetch, and the mid-run filter edit.
func FullPlan() Plan {
	return Plan{
		Mix:             ChaosMix(),
		PoisonRate:      0.01,
		ThrottleRate:    0.01,
		DuplicateRate:   0.05,
		DropAckRate:     0.01,
		AckDelay:        300 * time.Millisecond,
		KillRate:        0.01,
		ServerErrorRate: 0.01,
		PipeFailureRate: 0.02,
		PipeRefuseRate:  0.005,
		// The local example runs enrichment. A timed-out invocation
		// hangs 1 s and then fails as a timeout (Sandbox.Timedout), which
		// is what the pipe sees of one that ran out its 30 s.
		EnrichErrorRate:   0.01,
		EnrichTimeoutRate: 0.005,
		EnrichTimeout:     time.Second,
		TimeoutRate:       0.01,
		TimeoutAfter:      DefaultTimeoutAfter,
		FilterEdit:        true,
	}
}

// DefaultTimeoutAfter is how long after its claim a scraper is frozen for
// a timeout fault: on the fixture web a claim's robots.txt and start-page
// fetches take a few to some tens of milliseconds, so the freeze lands
// while they are in flight (the run reports the freezes that found the
// invocation already over).
const DefaultTimeoutAfter = 10 * time.Millisecond

// ShortPlan is the chaos run of make test: the same faults at rates that
// make each fire several times in a few hundred tasks.
func ShortPlan() Plan {
	return Plan{
		Mix:           ChaosMix(),
		PoisonRate:    0.03,
		ThrottleRate:  0.03,
		DuplicateRate: 0.1,
		DropAckRate:   0.02,
		AckDelay:      200 * time.Millisecond,
		KillRate:      0.03,
		// 2% of 300 tasks is about 6 refused messages.
		ServerErrorRate: 0.02,
		PipeFailureRate: 0.05,
		PipeRefuseRate:  0.02,
		TimeoutRate:     0.03,
		TimeoutAfter:    DefaultTimeoutAfter,
		FilterEdit:      true,
	}
}

// Validate reports every problem of the plan at once.
func (p Plan) Validate() error {
	var errs []string
	rates := []struct {
		name string
		v    float64
	}{{"poison", p.PoisonRate}, {"throttle", p.ThrottleRate}, {"duplicate", p.DuplicateRate},
		{"drop-ack", p.DropAckRate}, {"kill", p.KillRate}, {"ddb-5xx", p.ServerErrorRate},
		{"pipe-fail", p.PipeFailureRate}, {"pipe-refuse", p.PipeRefuseRate},
		{"enrich-error", p.EnrichErrorRate}, {"enrich-timeout", p.EnrichTimeoutRate}, {"fn-timeout", p.TimeoutRate}}
	for _, r := range rates {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			errs = append(errs, fmt.Sprintf("%s rate %v outside 0..1", r.name, r.v))
		}
	}
	if p.ThrottleRate+p.ServerErrorRate > 1 {
		errs = append(errs, fmt.Sprintf("throttle rate %v + ddb-5xx rate %v above 1", p.ThrottleRate, p.ServerErrorRate))
	}
	if p.EnrichErrorRate+p.EnrichTimeoutRate > 1 {
		errs = append(errs, fmt.Sprintf("enrich-error rate %v + enrich-timeout rate %v above 1", p.EnrichErrorRate, p.EnrichTimeoutRate))
	}
	if p.EnrichTimeout < 0 || p.EnrichTimeout > time.Minute {
		errs = append(errs, fmt.Sprintf("enrich timeout %s outside 0..1m", p.EnrichTimeout))
	}
	if p.KillRate+p.TimeoutRate > 1 {
		errs = append(errs, fmt.Sprintf("kill rate %v + fn-timeout rate %v above 1", p.KillRate, p.TimeoutRate))
	}
	if p.TimeoutAfter < 0 || p.TimeoutAfter > time.Minute {
		errs = append(errs, fmt.Sprintf("fn-timeout-after %s outside 0..1m", p.TimeoutAfter))
	}
	if p.AckDelay < 0 || p.AckDelay > time.Minute {
		errs = append(errs, fmt.Sprintf("ack delay %s outside 0..1m", p.AckDelay))
	}
	if len(errs) > 0 {
		return fmt.Errorf("chaos: plan: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Poison returns how many poison messages the plan sends for sites input
// lines: at least one when the rate is positive.
func (p Plan) Poison(sites int) int {
	if p.PoisonRate <= 0 {
		return 0
	}
	return max(1, int(math.Round(p.PoisonRate*float64(sites))))
}

// FaultConfig is the injector configuration of the plan for a deployed
// stack: DynamoDB throttling and server errors on the data plane for every
// caller, SQS faults on the work queue, the pipe's target faults on the
// stack's pipe, the kill rule on the scraper's claim.
func (p Plan) FaultConfig(o demo.Outputs) fault.Config {
	var c fault.Config
	c.DynamoDB.ThrottleRate = p.ThrottleRate
	c.DynamoDB.ServerErrorRate = p.ServerErrorRate
	if p.PipeFailureRate > 0 || p.PipeRefuseRate > 0 || p.EnrichErrorRate > 0 || p.EnrichTimeoutRate > 0 {
		c.Pipes = fault.PipeFaults{TargetFailureRate: p.PipeFailureRate, TargetRefuseRate: p.PipeRefuseRate,
			EnrichmentFailureRate: p.EnrichErrorRate, EnrichmentTimeoutRate: p.EnrichTimeoutRate,
			EnrichmentTimeout: fault.Duration(p.EnrichTimeout), Pipes: []string{o.PipeName}}
	}
	queue := path.Base(o.WorkQueueURL)
	if p.DuplicateRate > 0 || p.DropAckRate > 0 || p.AckDelay > 0 {
		c.SQS = fault.SQSFaults{DuplicateRate: p.DuplicateRate, DropAckRate: p.DropAckRate,
			AckDelay: fault.Duration(p.AckDelay), Queues: []string{queue}}
	}
	if p.KillRate > 0 {
		c.Kill = append(c.Kill, fault.KillRule{Function: o.Functions["scraper"], Service: "dynamodb", Operation: "UpdateItem",
			BodyContains: ClaimMarker, Rate: p.KillRate})
	}
	if p.TimeoutRate > 0 {
		// Rolled after the kill rule, for the claims it spared: its rate
		// is scaled so it applies to the share of all claims asked for.
		rate := p.TimeoutRate
		if p.KillRate > 0 {
			rate = min(1, p.TimeoutRate/(1-p.KillRate))
		}
		c.Kill = append(c.Kill, fault.KillRule{Function: o.Functions["scraper"], Service: "dynamodb", Operation: "UpdateItem",
			BodyContains: ClaimMarker, Rate: rate, Action: fault.KillAtTimeout, Delay: fault.Duration(p.TimeoutAfter)})
	}
	return c
}

// EditedFilter is the pipe filter of the mid-run edit: "becomes Pending"
// as the dispatch module's default says it (new status Pending, old
// status absent or anything but Pending), with the second pattern's
// anything-but rewritten as the list of the other states. Every record
// matches the edited filter exactly when it matches the default, so the
// edit must neither skip nor replay a record.
func EditedFilter() []string {
	return []string{
		`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":[{"exists":false}]}}}}`,
		`{"dynamodb":{"NewImage":{"status":{"S":["Pending"]}},"OldImage":{"status":{"S":["Running","Finished","Failed"]}}}}`,
	}
}
