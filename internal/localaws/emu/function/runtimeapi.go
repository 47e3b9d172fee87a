package function

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// Runtime API and Extensions API headers (docs/aws-behaviour.md §4.2, §4.3,
// §4.4; aws-lambda-go lambda/runtime_api_client.go).
const (
	hdrRequestID     = "Lambda-Runtime-Aws-Request-Id"
	hdrDeadline      = "Lambda-Runtime-Deadline-Ms"
	hdrFunctionARN   = "Lambda-Runtime-Invoked-Function-Arn"
	hdrTraceID       = "Lambda-Runtime-Trace-Id"
	hdrClientContext = "Lambda-Runtime-Client-Context"
	hdrErrorType     = "Lambda-Runtime-Function-Error-Type"
	trailerErrorBody = "Lambda-Runtime-Function-Error-Body"
	hdrExtensionName = "Lambda-Extension-Name"
	hdrExtensionID   = "Lambda-Extension-Identifier"
)

// ServeHTTP serves the instance's own endpoint: the Runtime API
// (/2018-06-01/…) and the Extensions API (/2020-01-01/extension/…) for its
// bootstrap, and, for every other request, the AWS API calls the function
// makes, which go to Options.Upstream tagged with emu.WithCaller.
func (inst *instance) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/2018-06-01/runtime/invocation/next":
		inst.handleNext(w, r)
	case strings.HasPrefix(p, "/2018-06-01/runtime/invocation/"):
		rest := strings.TrimPrefix(p, "/2018-06-01/runtime/invocation/")
		id, action, _ := strings.Cut(rest, "/")
		switch action {
		case "response":
			inst.handleResponse(w, r, id)
		case "error":
			inst.handleError(w, r, id)
		default:
			writeRuntimeError(w, http.StatusNotFound, "InvalidRequest", "Unknown Runtime API path "+p)
		}
	case p == "/2018-06-01/runtime/init/error":
		inst.handleInitError(w, r)
	case p == "/2018-06-01/ping":
		_, _ = io.WriteString(w, "pong") // the runtime went away; nothing to do
	case strings.HasPrefix(p, "/2018-06-01/"):
		writeRuntimeError(w, http.StatusNotFound, "InvalidRequest", "Unknown Runtime API path "+p)
	case p == "/2020-01-01/extension/register":
		inst.handleRegister(w, r)
	case p == "/2020-01-01/extension/event/next":
		inst.handleExtensionNext(w, r)
	case p == "/2020-01-01/extension/init/error", p == "/2020-01-01/extension/exit/error":
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64*1024)) // only logged
		inst.svc.log.Warn("lambda extension reported an error", "function", inst.fn.name, "path", p, "errorType", r.Header.Get("Lambda-Extension-Function-Error-Type"), "body", string(body))
		writeAccepted(w)
	case strings.HasPrefix(p, "/2020-01-01/extension/"), p == "/2020-08-15/logs", p == "/2022-07-01/telemetry":
		writeRuntimeError(w, http.StatusNotFound, "InvalidRequest", "The taskpipe local cloud does not emulate "+p)
	default:
		inst.proxy(w, r)
	}
}

// writeRuntimeError writes RIE's error shape (docs/aws-behaviour.md §4.1).
func writeRuntimeError(w http.ResponseWriter, status int, errType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorDoc(errType, msg)) // the runtime went away; nothing to do
}

// writeAccepted is the 202 {"status":"OK"} of /response, /error and
// /init/error; aws-lambda-go treats anything but 202 as fatal.
func writeAccepted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, `{"status":"OK"}`) // the runtime went away; nothing to do
}

// handleNext answers GET /next: it completes the previous invocation's
// bookkeeping (the environment becomes warm), then blocks until an
// invocation is assigned and delivers it.
func (inst *instance) handleNext(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeRuntimeError(w, http.StatusMethodNotAllowed, "InvalidRequest", "use GET")
		return
	}
	s := inst.svc
	inst.mu.Lock()
	prev := inst.cur
	if !inst.initDone {
		inst.initDone = true
		inst.initDuration = time.Since(inst.started)
	}
	inst.mu.Unlock()
	inst.sampleMemory()
	if prev != nil {
		// A new /next completes the previous invoke (§4.1). A runtime that
		// asks for more work without answering fails the invocation.
		prev.complete(outcome{
			payload:   errorDoc("Runtime.NoResponse", fmt.Sprintf("RequestId: %s Error: the runtime asked for the next event without answering this one", prev.id)),
			errorType: "Runtime.NoResponse", funcErr: true, status: statusError,
		})
		select {
		case <-prev.finalized:
		case <-inst.exited:
			return
		case <-r.Context().Done():
			return
		}
		inst.mu.Lock()
		inst.lastID, inst.cur = prev.id, nil
		inst.mu.Unlock()
		s.mu.Lock()
		if inst.state == stFinishing {
			s.idleLocked(inst)
		}
		s.mu.Unlock()
	}

	var inv *invocation
	select {
	case inv = <-inst.assign:
	case <-inst.exited:
		return
	case <-r.Context().Done():
		return
	}
	now := time.Now()
	deadline := now.Add(inv.timeout)
	inv.mu.Lock()
	inv.start, inv.deadline = now, deadline
	inv.mu.Unlock()
	inst.mu.Lock()
	inst.cur = inv
	inst.mu.Unlock()
	s.mu.Lock()
	if inst.state != stDead {
		inst.state = stInvoking
	}
	s.mu.Unlock()
	if inst.out != nil {
		// What the runtime printed while starting or between events
		// belongs before START.
		inst.out.drain()
	}
	inst.platformStart(inv)

	h := w.Header()
	h.Set(hdrRequestID, inv.id)
	// The deadline is wall-clock epoch milliseconds, read by the runtime
	// with its own clock (aws-lambda-go parses it with strconv.ParseInt).
	h.Set(hdrDeadline, strconv.FormatInt(deadline.UnixMilli(), 10))
	h.Set(hdrFunctionARN, inv.arn)
	h.Set(hdrTraceID, inv.traceID)
	if inv.clientContext != "" {
		h.Set(hdrClientContext, inv.clientContext)
	}
	h.Set("Content-Type", "application/json")
	inv.deliverOnce.Do(func() { close(inv.delivered) })
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload) // a broken connection shows up as the process's exit
}

// idleLocked returns an environment to the warm pool after its runtime
// asked for the next event, or stops it when it is stale (code or
// configuration changed, function deleted, limit lowered).
func (s *Service) idleLocked(inst *instance) {
	fn := inst.fn
	if inst.counted {
		inst.counted = false
		fn.busy--
	}
	reason := ""
	switch {
	case s.closed:
		reason = "local cloud shutting down"
	case fn.deleted:
		reason = "function deleted"
	case inst.gen != fn.gen:
		reason = "configuration or code changed"
	case len(fn.instances) > fn.limit(s):
		reason = "concurrency lowered"
	}
	if reason != "" {
		s.removeLocked(inst)
		s.stopAsync(inst, reason)
		return
	}
	inst.state = stIdle
	inst.lastUsed = time.Now()
	fn.idle = append(fn.idle, inst)
	fn.notifyLocked()
}

// current returns the active invocation a /response or /error names, or
// writes RIE's error: 400 InvalidRequestID for an unknown id, 403
// InvalidStateTransition for one already answered.
func (inst *instance) current(w http.ResponseWriter, id string) *invocation {
	inst.mu.Lock()
	cur, last := inst.cur, inst.lastID
	inst.mu.Unlock()
	switch {
	case cur != nil && cur.id == id && !cur.completed():
		return cur
	case (cur != nil && cur.id == id) || (last != "" && last == id):
		writeRuntimeError(w, http.StatusForbidden, "InvalidStateTransition", "State transition is not allowed: the invocation "+id+" was already answered")
	default:
		writeRuntimeError(w, http.StatusBadRequest, "InvalidRequestID", "Invalid request ID")
	}
	return nil
}

func (inst *instance) handleResponse(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodPost {
		writeRuntimeError(w, http.StatusMethodNotAllowed, "InvalidRequest", "use POST")
		return
	}
	inv := inst.current(w, id)
	if inv == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxResponsePayload+1))
	if err != nil {
		inst.svc.log.Warn("read runtime response", "function", inst.fn.name, "requestId", id, "err", err)
		writeRuntimeError(w, http.StatusBadRequest, "InvalidRequest", "read response body: "+err.Error())
		return
	}
	inst.sampleMemory()
	if len(body) > maxResponsePayload {
		msg := fmt.Sprintf("Response payload size exceeded maximum allowed payload size (%d bytes).", maxResponsePayload)
		inv.complete(outcome{payload: errorDoc("Function.ResponseSizeTooLarge", msg), errorType: "Function.ResponseSizeTooLarge", funcErr: true, status: statusError})
		writeRuntimeError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", fmt.Sprintf("Exceeded maximum allowed payload size (%d bytes).", maxResponsePayload))
		return
	}
	// aws-lambda-go reports a response stream that failed part-way in
	// trailers (§4.3).
	if typ := r.Trailer.Get(hdrErrorType); typ != "" {
		doc, derr := base64.StdEncoding.DecodeString(r.Trailer.Get(trailerErrorBody))
		if derr != nil || !json.Valid(doc) {
			doc = errorDoc(typ, "the function's response stream failed")
		}
		inv.complete(outcome{payload: doc, errorType: typ, funcErr: true, status: statusError})
		writeAccepted(w)
		return
	}
	inv.complete(outcome{payload: body, status: statusSuccess})
	writeAccepted(w)
}

func (inst *instance) handleError(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodPost {
		writeRuntimeError(w, http.StatusMethodNotAllowed, "InvalidRequest", "use POST")
		return
	}
	inv := inst.current(w, id)
	if inv == nil {
		return
	}
	body, typ, ok := readErrorBody(w, r)
	if !ok {
		return
	}
	inst.sampleMemory()
	// The runtime's error document is what the invoker receives, with
	// X-Amz-Function-Error: Unhandled.
	inv.complete(outcome{payload: body, errorType: typ, funcErr: true, status: statusError})
	writeAccepted(w)
}

// readErrorBody reads an /error or /init/error body and its error type:
// the Lambda-Runtime-Function-Error-Type header, else the body's
// errorType (aws-lambda-go sends only the body, §4.3).
func readErrorBody(w http.ResponseWriter, r *http.Request) ([]byte, string, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxResponsePayload+1))
	if err != nil {
		writeRuntimeError(w, http.StatusBadRequest, "InvalidRequest", "read error body: "+err.Error())
		return nil, "", false
	}
	if len(body) > maxResponsePayload {
		writeRuntimeError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", fmt.Sprintf("Exceeded maximum allowed payload size (%d bytes).", maxResponsePayload))
		return nil, "", false
	}
	typ := r.Header.Get(hdrErrorType)
	if typ == "" {
		var doc struct {
			ErrorType string `json:"errorType"`
		}
		if json.Unmarshal(body, &doc) == nil {
			typ = doc.ErrorType
		}
	}
	if typ == "" {
		typ = "Runtime.Unknown"
	}
	if len(body) == 0 {
		body = errorDoc(typ, "")
	}
	return body, typ, true
}

// handleInitError records a runtime's init failure; the pending invocation
// fails with it and the environment is replaced (§4.3).
func (inst *instance) handleInitError(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeRuntimeError(w, http.StatusMethodNotAllowed, "InvalidRequest", "use POST")
		return
	}
	inst.mu.Lock()
	done := inst.initDone
	inst.mu.Unlock()
	if done {
		writeRuntimeError(w, http.StatusForbidden, "InvalidStateTransition", "State transition is not allowed: init already completed")
		return
	}
	body, typ, ok := readErrorBody(w, r)
	if !ok {
		return
	}
	inst.mu.Lock()
	inst.initErr, inst.initErrType = body, typ
	inst.mu.Unlock()
	inst.failOnce.Do(func() { close(inst.initFailed) })
	writeAccepted(w)
}

// handleRegister registers an extension. aws-lambda-go's
// lambda.WithEnableSIGTERM registers "GoLangEnableSIGTERM" with no events
// and needs 200 plus Lambda-Extension-Identifier (§4.4); from then on a
// shutdown sends SIGTERM before SIGKILL.
func (inst *instance) handleRegister(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeRuntimeError(w, http.StatusMethodNotAllowed, "InvalidRequest", "use POST")
		return
	}
	name := r.Header.Get(hdrExtensionName)
	if name == "" {
		writeRuntimeError(w, http.StatusForbidden, "Extension.InvalidExtensionName", "Empty extension name")
		return
	}
	var req struct {
		Events []string `json:"events"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64*1024)) // a short read leaves req empty, which is valid
	_ = json.Unmarshal(body, &req)                         // an empty or odd body registers for no events
	if slices.Contains(req.Events, "INVOKE") {
		writeRuntimeError(w, http.StatusForbidden, "Extension.UnsupportedEvent",
			"The taskpipe local cloud delivers only SHUTDOWN events to extensions, not INVOKE")
		return
	}
	inst.mu.Lock()
	if inst.initDone {
		inst.mu.Unlock()
		writeRuntimeError(w, http.StatusForbidden, "InvalidStateTransition", "State transition is not allowed: extensions register during init")
		return
	}
	id := uuid.NewString()
	inst.sigterm, inst.extID = true, id
	inst.extShutdown = slices.Contains(req.Events, "SHUTDOWN")
	inst.mu.Unlock()
	w.Header().Set(hdrExtensionID, id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	b, _ := json.Marshal(map[string]string{ // strings always marshal
		"functionName": inst.cfg.FunctionName, "functionVersion": "$LATEST", "handler": inst.cfg.Handler,
	})
	_, _ = w.Write(b) // the runtime went away; nothing to do
}

// handleExtensionNext blocks: an extension registered for SHUTDOWN gets
// that event when the environment stops; one registered for nothing (the
// SIGTERM helper) waits until the process ends, as in Lambda.
func (inst *instance) handleExtensionNext(w http.ResponseWriter, r *http.Request) {
	inst.mu.Lock()
	id, shutdown := inst.extID, inst.extShutdown
	inst.mu.Unlock()
	if id == "" || r.Header.Get(hdrExtensionID) != id {
		writeRuntimeError(w, http.StatusForbidden, "Extension.InvalidExtensionID", "Unknown extension identifier")
		return
	}
	stopping := inst.stopping
	if !shutdown {
		stopping = nil
	}
	select {
	case <-stopping:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		b, _ := json.Marshal(map[string]any{ // plain values always marshal
			"eventType": "SHUTDOWN", "shutdownReason": "spindown",
			"deadlineMs": time.Now().Add(shutdownGrace).UnixMilli(),
		})
		_, _ = w.Write(b) // the process is stopping anyway
	case <-inst.exited:
	case <-r.Context().Done():
	}
}

// proxy forwards an AWS API call the function made to the local cloud,
// with the calling instance attached, so the router, the services and
// fault injection know which process sent it.
func (inst *instance) proxy(w http.ResponseWriter, r *http.Request) {
	up := inst.svc.opts.Upstream
	if up == nil {
		emu.WriteJSONError(w, http.StatusBadGateway, "ServiceUnavailableException",
			"the Lambda emulation has no upstream for AWS API calls (function.Options.Upstream is nil)")
		return
	}
	up.ServeHTTP(w, r.WithContext(emu.WithCaller(r.Context(), inst.caller)))
}
