package fault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// maxInspectBody bounds how much of a request body a kill rule's
// BodyContains reads (DynamoDB's largest request, a 25-item batch of
// 400 KB items, is about 10 MB; SQS batches are 1 MiB).
const maxInspectBody = 16 << 20

// Middleware returns the router middleware that injects the API faults:
// DynamoDB throttling and server errors, and kill rules. Register it with
// router.Use before any middleware that must see every request; admin
// requests are never touched.
func (in *Injector) Middleware() emu.Middleware {
	return func(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
		if op.Service == emu.ServiceAdmin {
			return false
		}
		if op.Service == emu.ServiceDynamoDB && in.dynamoDBFault(w, r, op) {
			return true
		}
		return in.kill(w, r, op)
	}
}

// dynamoDBFault answers the request with an injected error when the
// DynamoDB faults select it.
func (in *Injector) dynamoDBFault(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
	caller, fromFunction := emu.CallerFrom(r.Context())
	in.mu.Lock()
	f := in.cfg.DynamoDB
	ops := f.Operations
	if len(ops) == 0 {
		ops = DataPlaneOperations
	}
	if f.ThrottleRate+f.ServerErrorRate <= 0 || !inScope(ops, op.Operation) ||
		len(f.Functions) > 0 && (!fromFunction || !inScope(f.Functions, caller.Function)) {
		in.mu.Unlock()
		return false
	}
	in.stats.DynamoDBRequests++
	throttle := in.rollLocked(streamThrottle, f.ThrottleRate)
	serverErr := !throttle && in.rollLocked(streamServerError, f.ServerErrorRate/(1-f.ThrottleRate))
	switch {
	case throttle:
		in.stats.DynamoDBThrottles++
	case serverErr:
		in.stats.DynamoDBServerErrors++
	}
	account, region := in.account, in.region
	in.mu.Unlock()

	switch {
	case throttle:
		code := f.ThrottleError
		if code == "" {
			code = ErrProvisionedThroughputExceeded
		}
		in.log.Debug("fault: dynamodb throttle", "operation", op.Operation, "error", code)
		writeDynamoDBError(w, http.StatusBadRequest, code, throttleMessage(code), throttlingReasons(r, op.Operation, account, region))
		return true
	case serverErr:
		in.log.Debug("fault: dynamodb server error", "operation", op.Operation)
		writeDynamoDBError(w, http.StatusInternalServerError, "InternalServerError", "Internal server error", nil)
		return true
	}
	return false
}

// throttleMessage is the text DynamoDB sends with each throttling error.
func throttleMessage(code string) string {
	if code == ErrThrottling {
		return "Rate of requests exceeds the allowed throughput."
	}
	return "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
}

var readOps = map[string]bool{"GetItem": true, "BatchGetItem": true, "Query": true, "Scan": true,
	"TransactGetItems": true, "ExecuteStatement": true}

// throttlingReasons builds the ThrottlingReasons member DynamoDB adds to
// throttling errors ({reason: "TableWriteKeyRangeThroughputExceeded",
// resource: table ARN}; API_ThrottlingReason). The table comes from the
// request's TableName; without one the list is left out.
func throttlingReasons(r *http.Request, operation, account, region string) []map[string]string {
	body, err := peekBody(r, maxInspectBody)
	if err != nil {
		return nil
	}
	var req struct{ TableName string }
	if json.Unmarshal(body, &req) != nil || req.TableName == "" {
		return nil
	}
	kind := "Write"
	if readOps[operation] {
		kind = "Read"
	}
	return []map[string]string{{
		"reason":   "Table" + kind + "KeyRangeThroughputExceeded",
		"resource": fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, account, req.TableName),
	}}
}

// writeDynamoDBError writes an error in DynamoDB's AWS JSON 1.0 shape,
// "__type" namespaced as DynamoDB does (see internal/localaws/emu/table errors.go).
func writeDynamoDBError(w http.ResponseWriter, status int, code, msg string, reasons []map[string]string) {
	body := map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#" + code, "message": msg}
	if reasons != nil {
		body["ThrottlingReasons"] = reasons
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Requestid", uuid.NewString())
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // the client went away; nothing left to tell it
}

// peekBody reads the request body and puts it back for the next reader.
func peekBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("fault: read request body: %w", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("fault: request body over %d bytes", limit)
	}
	return body, nil
}

// kill applies the kill rules: a matching request from a function
// instance is served through the service's own handler into a buffer; if
// it succeeded, the instance is killed and the connection closed without
// an answer. A request that failed is answered normally and kills nobody.
func (in *Injector) kill(w http.ResponseWriter, r *http.Request, op emu.Op) bool {
	caller, ok := emu.CallerFrom(r.Context())
	if !ok {
		return false
	}
	in.mu.Lock()
	rules := in.cfg.Kill
	in.mu.Unlock()
	if len(rules) == 0 {
		return false
	}
	var body []byte
	bodyRead := false
	rule := -1
	for i, k := range rules {
		if k.Function != "" && k.Function != caller.Function || k.Service != "" && k.Service != op.Service ||
			k.Operation != "" && k.Operation != op.Operation {
			continue
		}
		if k.BodyContains != "" {
			if !bodyRead {
				var err error
				body, err = peekBody(r, maxInspectBody)
				if err != nil {
					in.log.Warn("fault: kill rule cannot inspect the body", "err", err)
					return false
				}
				bodyRead = true
			}
			if !bytes.Contains(body, []byte(k.BodyContains)) {
				continue
			}
		}
		if in.armed(i, k) {
			rule = i
			break
		}
	}
	if rule < 0 {
		return false
	}
	next := in.services(op.Service)
	if next == nil {
		return false
	}
	rec := newRecorder()
	next.ServeHTTP(rec, r)
	if rec.status < 200 || rec.status > 299 {
		rec.copyTo(w)
		return true
	}
	in.mu.Lock()
	// Times is checked again: concurrent requests may both have been armed.
	if t := rules[rule].Times; t > 0 && in.fired != nil && rule < len(in.fired) && in.fired[rule] >= t {
		in.mu.Unlock()
		rec.copyTo(w)
		return true
	}
	if rule < len(in.fired) {
		in.fired[rule]++
	}
	if k := rules[rule]; k.Action == KillAtTimeout {
		in.mu.Unlock()
		rec.copyTo(w)
		in.freezeAfter(caller, rule, op, time.Duration(k.Delay))
		return true
	}
	if rule < len(in.stats.KillsByRule) {
		in.stats.KillsByRule[rule]++
	}
	in.stats.Kills++
	in.stats.Killed = append(in.stats.Killed, Kill{At: in.now(), Rule: rule, Function: caller.Function,
		Instance: caller.Instance, Service: op.Service, Operation: op.Operation})
	if len(in.stats.Killed) > maxKillRecords {
		in.stats.Killed = in.stats.Killed[len(in.stats.Killed)-maxKillRecords:]
	}
	in.mu.Unlock()
	reason := fmt.Sprintf("fault injection: kill rule %d after a successful %s", rule, op)
	in.log.Info("fault: killing function instance", "function", caller.Function, "instance", caller.Instance,
		"operation", op.String(), "rule", rule)
	if caller.Kill != nil {
		caller.Kill(reason)
	}
	abort(w)
	return true
}

// freezeAfter freezes the caller's instance d after its request was
// answered (KillAtTimeout); the invocation then ends at the function's
// timeout. An invocation that ended first is counted as missed.
func (in *Injector) freezeAfter(caller *emu.Caller, rule int, op emu.Op, d time.Duration) {
	freeze := func() {
		reason := fmt.Sprintf("fault injection: kill rule %d, %s after a successful %s: frozen until the function's timeout", rule, d, op)
		ok := caller.Freeze != nil && caller.Freeze(reason)
		in.mu.Lock()
		defer in.mu.Unlock()
		if !ok {
			in.stats.FreezeMissed++
			return
		}
		if rule < len(in.stats.KillsByRule) {
			in.stats.KillsByRule[rule]++
		}
		in.stats.Frozen++
		in.stats.Killed = append(in.stats.Killed, Kill{At: in.now(), Rule: rule, Function: caller.Function,
			Instance: caller.Instance, Service: op.Service, Operation: op.Operation, Action: KillAtTimeout})
		if len(in.stats.Killed) > maxKillRecords {
			in.stats.Killed = in.stats.Killed[len(in.stats.Killed)-maxKillRecords:]
		}
	}
	if d <= 0 {
		freeze() // before the answer leaves: the process waits for it, frozen
		return
	}
	time.AfterFunc(d, freeze)
}

// armed decides whether rule i fires for this matching request.
func (in *Injector) armed(i int, k KillRule) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if k.Times > 0 && i < len(in.fired) && in.fired[i] >= k.Times {
		return false
	}
	if !in.rollLocked(streamKill+uint64(i), k.Rate) {
		return false
	}
	in.stats.KillCandidates++
	return true
}

// abort closes the connection without a response: the killed worker must
// not learn that its request succeeded. Hijacking is the clean way; where
// the writer cannot be hijacked (HTTP/2, a buffering wrapper),
// http.ErrAbortHandler makes net/http drop the response just as quietly.
func abort(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		// The connection is ours and is being dropped on purpose; its
		// close error says nothing anyone could act on.
		_ = conn.Close()
		return
	}
	if errors.Is(err, http.ErrNotSupported) {
		panic(http.ErrAbortHandler)
	}
	// Otherwise the connection was already hijacked or closed: nothing
	// is left to abort.
}

// recorder buffers a response the kill rule may never send.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *recorder) copyTo(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes()) // the client went away; nothing left to tell it
}
