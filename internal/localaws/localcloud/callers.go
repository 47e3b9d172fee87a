package localcloud

import (
	"net/http"
	"sort"
	"sync"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// ClientCaller is the Caller of CallerCount for requests that did not come
// from a function instance: SDKs, the CLI, Terraform.
const ClientCaller = "client"

// CallerCount is one row of CountsByCaller: how many requests one caller
// (a function name, or ClientCaller) made to one operation.
type CallerCount struct {
	Caller    string `json:"caller"`
	Service   string `json:"service"`
	Operation string `json:"operation"`
	Count     int64  `json:"count"`
}

// callerCounter splits the router's request counts by the function that
// sent them. The router counts per operation only; a run's cost needs to
// know which part of the traffic the pipeline's functions made and which
// part its operator did (submit, status polls), and the function runtime
// tags every request a function instance forwards with emu.WithCaller.
type callerCounter struct {
	mu     sync.Mutex
	counts map[emu.Op]map[string]int64 // op → function → requests
}

func newCallerCounter() *callerCounter {
	return &callerCounter{counts: map[emu.Op]map[string]int64{}}
}

// middleware counts function-originated requests; it never answers one.
// It runs before the service, so it sees the operations the router knows
// beforehand: from X-Amz-Target for the JSON protocols, and from the
// services that implement emu.OperationNamer for the REST ones the
// functions call (S3, Pipes).
func (cc *callerCounter) middleware(_ http.ResponseWriter, r *http.Request, op emu.Op) bool {
	c, ok := emu.CallerFrom(r.Context())
	if !ok || op.Service == emu.ServiceAdmin {
		return false
	}
	if op.Operation == "" {
		op.Operation = "Unknown"
	}
	cc.mu.Lock()
	m := cc.counts[op]
	if m == nil {
		m = map[string]int64{}
		cc.counts[op] = m
	}
	m[c.Function]++
	cc.mu.Unlock()
	return false
}

func (cc *callerCounter) reset() {
	cc.mu.Lock()
	cc.counts = map[emu.Op]map[string]int64{}
	cc.mu.Unlock()
}

// split turns the router's totals into rows per caller: the function rows
// as counted, and the rest of each total as ClientCaller. Sorted by
// service, operation, caller.
func (cc *callerCounter) split(totals []emu.OpCount) []CallerCount {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var out []CallerCount
	seen := map[emu.Op]bool{}
	for _, t := range totals {
		op := emu.Op{Service: t.Service, Operation: t.Operation}
		seen[op] = true
		rest := t.Count
		for fn, n := range cc.counts[op] {
			out = append(out, CallerCount{Caller: fn, Service: t.Service, Operation: t.Operation, Count: n})
			rest -= n
		}
		// A function request counted here but not yet by the router (it
		// counts after the service answers) leaves rest below zero for a
		// moment; it is never a client request.
		if rest > 0 {
			out = append(out, CallerCount{Caller: ClientCaller, Service: t.Service, Operation: t.Operation, Count: rest})
		}
	}
	for op, m := range cc.counts {
		if seen[op] {
			continue
		}
		for fn, n := range m {
			out = append(out, CallerCount{Caller: fn, Service: op.Service, Operation: op.Operation, Count: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		if a.Operation != b.Operation {
			return a.Operation < b.Operation
		}
		return a.Caller < b.Caller
	})
	return out
}

// CountsByCaller returns the router's request counts split by caller: each
// function's own requests (counted as its instances forwarded them) and
// the rest as ClientCaller. The rows of one operation add up to the
// router's count of it once no request is in flight.
func (c *Cloud) CountsByCaller() []CallerCount { return c.callers.split(c.router.Counts()) }

// ResetCounts zeroes the router's request counters and the per-caller
// split, so a measurement can start after set-up (terraform apply).
func (c *Cloud) ResetCounts() {
	c.router.ResetCounts()
	c.callers.reset()
}
