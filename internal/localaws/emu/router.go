package emu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Service keys: the SigV4 signing names, except DynamoDB Streams, which signs
// as "dynamodb" but is told apart by its X-Amz-Target prefix.
const (
	ServiceDynamoDB   = "dynamodb"
	ServiceStreams    = "streams.dynamodb"
	ServiceEvents     = "events"
	ServiceIAM        = "iam"
	ServiceLambda     = "lambda"
	ServiceLogs       = "logs"
	ServiceMonitoring = "monitoring"
	ServicePipes      = "pipes"
	ServiceScheduler  = "scheduler"
	ServiceS3         = "s3"
	ServiceSQS        = "sqs"
	ServiceSTS        = "sts"
	// ServiceAdmin is the local cloud's own control API (fault injection,
	// firing schedules, counters), served under /_taskpipe/.
	ServiceAdmin = "admin"
)

// AdminPrefix is the URL path prefix of the local cloud's own control API.
const AdminPrefix = "/_taskpipe/"

// targetPrefixes maps X-Amz-Target prefixes (JSON protocols) to services.
var targetPrefixes = map[string]string{
	"DynamoDB_20120810":        ServiceDynamoDB,
	"DynamoDBStreams_20120810": ServiceStreams,
	"AmazonSQS":                ServiceSQS,
	"AWSEvents":                ServiceEvents,
	"Logs_20140328":            ServiceLogs,
	// CloudWatch also speaks AWS JSON 1.0: botocore picks it from the
	// model's protocols list (smithy-rpc-v2-cbor, json, query) when it has
	// no CBOR support, as boto3/the CLI 1.43 do; the Go SDK uses CBOR.
	"GraniteServiceVersion20100801": ServiceMonitoring,
}

// cborServices maps Smithy RPC v2 CBOR service shape names to services.
var cborServices = map[string]string{
	"GraniteServiceVersion20100801": ServiceMonitoring,
}

// Op identifies one API operation of one service.
type Op struct {
	Service   string
	Operation string
}

// String returns "service:Operation".
func (o Op) String() string { return o.Service + ":" + o.Operation }

type opKey struct{}

type opHolder struct{ op Op }

// SetOperation lets a REST service handler name the operation it served,
// for the request counters. It is a no-op outside the router.
func SetOperation(r *http.Request, name string) {
	if h, ok := r.Context().Value(opKey{}).(*opHolder); ok {
		h.op.Operation = name
	}
}

// OperationNamer is a REST service handler that can name a request's
// operation from its method, path, query and headers alone. The router
// asks it before the middleware runs, so the caller counters and fault
// rules see the operation (S3 names none in its wire format).
type OperationNamer interface {
	OperationName(r *http.Request) string
}

// Middleware can short-circuit a request (fault injection) before the
// service sees it. It returns true when it wrote a response.
type Middleware func(w http.ResponseWriter, r *http.Request, op Op) bool

// Router dispatches requests to the emulated services and counts them.
type Router struct {
	mu         sync.RWMutex
	services   map[string]http.Handler
	middleware []Middleware
	counts     map[Op]int64
	guard      func(http.ResponseWriter, *http.Request) bool
}

// SetGuard installs a check that runs before anything else, the body
// included, on every request (the local cloud's: who may call it); it
// returns false when it answered.
func (rt *Router) SetGuard(g func(http.ResponseWriter, *http.Request) bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.guard = g
}

// NewRouter returns an empty router.
func NewRouter() *Router {
	return &Router{services: map[string]http.Handler{}, counts: map[Op]int64{}}
}

// Handle registers the handler of a service key.
func (rt *Router) Handle(service string, h http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.services[service] = h
}

// Handler returns the handler registered for a service key, or nil. A
// middleware that must call the service itself (fault injection's "kill the
// caller right after a successful request") reaches it through this.
func (rt *Router) Handler(service string) http.Handler {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.services[service]
}

// Use appends a middleware; middlewares run in order before the service.
func (rt *Router) Use(m Middleware) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.middleware = append(rt.middleware, m)
}

// ServeHTTP implements http.Handler.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt.mu.RLock()
	guard := rt.guard
	rt.mu.RUnlock()
	if guard != nil && !guard(w, r) {
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, BodyLimit(serviceHint(r)))
	}
	op, err := Identify(r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			WriteJSONError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
				fmt.Sprintf("the request body exceeds %d bytes", tooBig.Limit))
			return
		}
		WriteJSONError(w, http.StatusBadRequest, "UnknownOperationException", err.Error())
		return
	}
	if err := checkRPCv2(r); err != nil {
		WriteJSONError(w, http.StatusUnsupportedMediaType, "UnsupportedMediaTypeException", err.Error())
		return
	}
	rt.mu.RLock()
	h := rt.services[op.Service]
	mws := rt.middleware
	rt.mu.RUnlock()
	if h == nil {
		WriteJSONError(w, http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("service %q is not emulated by the taskpipe local cloud", op.Service))
		return
	}
	if n, ok := h.(OperationNamer); ok && op.Operation == "" {
		op.Operation = n.OperationName(r)
	}
	holder := &opHolder{op: op}
	r = r.WithContext(context.WithValue(r.Context(), opKey{}, holder))
	for _, m := range mws {
		if m(w, r, op) {
			rt.count(holder.op)
			return
		}
	}
	h.ServeHTTP(w, r)
	rt.count(holder.op)
}

func (rt *Router) count(op Op) {
	if op.Service == ServiceAdmin {
		return
	}
	if op.Operation == "" {
		op.Operation = "Unknown"
	}
	rt.mu.Lock()
	rt.counts[op]++
	rt.mu.Unlock()
}

// OpCount is one row of Counts.
type OpCount struct {
	Service   string `json:"service"`
	Operation string `json:"operation"`
	Count     int64  `json:"count"`
}

// Counts returns the request counts per service and operation, sorted.
func (rt *Router) Counts() []OpCount {
	rt.mu.RLock()
	out := make([]OpCount, 0, len(rt.counts))
	for op, n := range rt.counts {
		out = append(out, OpCount{Service: op.Service, Operation: op.Operation, Count: n})
	}
	rt.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Service != out[j].Service {
			return out[i].Service < out[j].Service
		}
		return out[i].Operation < out[j].Operation
	})
	return out
}

// ResetCounts zeroes the request counters.
func (rt *Router) ResetCounts() {
	rt.mu.Lock()
	rt.counts = map[Op]int64{}
	rt.mu.Unlock()
}

// Identify returns the service and, where the wire format names it, the
// operation of an AWS API request. REST services name their operation with
// SetOperation.
func Identify(r *http.Request) (Op, error) {
	if strings.HasPrefix(r.URL.Path, AdminPrefix) {
		return Op{Service: ServiceAdmin, Operation: strings.TrimPrefix(r.URL.Path, AdminPrefix)}, nil
	}
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		prefix, opName, ok := strings.Cut(t, ".")
		if !ok {
			return Op{}, fmt.Errorf("malformed X-Amz-Target %q", t)
		}
		svc, known := targetPrefixes[prefix]
		if !known {
			return Op{}, fmt.Errorf("unknown X-Amz-Target prefix %q", prefix)
		}
		return Op{Service: svc, Operation: opName}, nil
	}
	// Smithy RPC v2: POST /service/{ServiceName}/operation/{Operation}.
	if rest, ok := strings.CutPrefix(r.URL.Path, "/service/"); ok {
		svcShape, opName, _ := strings.Cut(rest, "/operation/")
		if svc, known := cborServices[svcShape]; known && opName != "" {
			return Op{Service: svc, Operation: opName}, nil
		}
		return Op{}, fmt.Errorf("unknown RPC v2 service %q", svcShape)
	}
	scope := CredentialScopeService(r)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		action, err := formAction(r)
		if err != nil {
			return Op{}, err
		}
		if scope == "" {
			return Op{}, fmt.Errorf("query request for %q has no SigV4 credential scope", action)
		}
		return Op{Service: scope, Operation: action}, nil
	}
	if scope == "" {
		return Op{}, fmt.Errorf("cannot tell which AWS service %s %s is for: no X-Amz-Target and no SigV4 credential scope", r.Method, r.URL.Path)
	}
	return Op{Service: scope}, nil
}

// CredentialScopeService returns the service part of the SigV4 credential
// scope ("Credential=AKID/20260101/us-east-1/lambda/aws4_request"), or "".
func CredentialScopeService(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[3]
}

// CredentialScopeRegion returns the region of the SigV4 credential scope, or "".
func CredentialScopeRegion(r *http.Request) string {
	_, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[2]
}

// formAction reads the Action field of a query-protocol body and restores
// the body for the service handler.
func formAction(r *http.Request) (string, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return "", fmt.Errorf("read query body: %w", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		return "", fmt.Errorf("parse query body: %w", err)
	}
	action := vals.Get("Action")
	if action == "" {
		return "", fmt.Errorf("query request has no Action")
	}
	return action, nil
}

// WriteJSON writes a 200 response in the AWS JSON protocols. contentType is
// "application/x-amz-json-1.0" or "-1.1"; empty means 1.0.
func WriteJSON(w http.ResponseWriter, contentType string, v any) {
	if contentType == "" {
		contentType = "application/x-amz-json-1.0"
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

// WriteJSONError writes an error in the AWS JSON protocol shape
// ({"__type": ..., "message": ...}); SDKs read the type after any '#'.
func WriteJSONError(w http.ResponseWriter, status int, errType, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-ErrorType", errType)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"__type": errType, "message": message})
}

// The local cloud's identity. Any credentials are accepted; ARNs and queue
// URLs are built from these.
const (
	DefaultAccountID = "000000000000"
	DefaultRegion    = "us-east-1"
)
