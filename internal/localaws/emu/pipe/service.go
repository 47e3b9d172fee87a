package pipe

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// Invoker runs a Lambda function synchronously (RequestResponse) for a
// pipe's enrichment step. The local cloud's function service satisfies it
// through an adapter (see the package documentation); tests pass a plain
// InvokerFunc.
type Invoker interface {
	// Invoke runs the function and returns its response. An error means the
	// invocation did not complete (no such function, throttled: wrap
	// ErrThrottled); a function that ran and failed, timed out or crashed
	// returns a nil error and an Invocation with FunctionError set.
	Invoke(ctx context.Context, function string, payload []byte) (Invocation, error)
}

// Invocation is the outcome of a synchronous invoke.
type Invocation struct {
	// Payload is the function's response (or its error document).
	Payload []byte
	// FunctionError is X-Amz-Function-Error ("Unhandled"); non-empty means
	// the function failed.
	FunctionError string
	// ErrorType is the error's type ("errorString", "Runtime.ExitError"),
	// for logs only.
	ErrorType string
}

// InvokerFunc adapts a function to Invoker.
type InvokerFunc func(ctx context.Context, function string, payload []byte) (Invocation, error)

// Invoke implements Invoker.
func (f InvokerFunc) Invoke(ctx context.Context, function string, payload []byte) (Invocation, error) {
	return f(ctx, function, payload)
}

// Faults lets the local cloud inject failures into pipe executions; the
// local cloud's emu.Faults satisfies it.
type Faults interface {
	// PipeTargetFails reports whether sending this message (body) to the
	// pipe's target must fail. It is asked before each SendMessage; a
	// failure fails the execution as a target-stage error after the
	// messages before it were sent, as a real SendMessage failure does.
	PipeTargetFails(pipeName string, body []byte) bool
	// PipeEnrichmentFails reports whether this enrichment invocation must
	// fail as a function error (an enrichment-stage failure: the batch is
	// retried whole), after hanging for hang, as a function that runs
	// into its timeout does.
	PipeEnrichmentFails(pipeName string) (fail bool, hang time.Duration)
}

// ErrThrottled marks an enrichment invocation that Lambda refused for lack
// of concurrency (TooManyRequestsException). Invoker adapters wrap it.
// Like AWS's other service-side errors it does not count toward
// MaximumRetryAttempts and does not bisect: the batch is retried with
// backoff until it succeeds or its records expire (docs/aws-behaviour.md §1.5).
var ErrThrottled = errors.New("pipe: enrichment invocation throttled")

// Options configure a Service.
type Options struct {
	// AccountID and Region name the pipes' ARNs (default emu.DefaultAccountID,
	// emu.DefaultRegion).
	AccountID string
	Region    string
	// Now is the clock for creation times, record ages, DLQ timestamps and
	// metrics (default time.Now). Batching windows and retry backoffs wait
	// in real time.
	Now func() time.Time
	// Tables provides the DynamoDB streams pipes read (required for any
	// pipe to be created).
	Tables *table.Service
	// Queues provides the SQS targets and dead-letter queues (required for
	// any pipe to be created).
	Queues *queue.Service
	// Invoker runs Lambda enrichments; nil makes CreatePipe/UpdatePipe
	// reject an Enrichment.
	Invoker Invoker
	// Metrics receives the AWS/EventBridge/Pipes datapoints; nil drops them.
	Metrics emu.MetricSink
	// Faults, when set, is asked before every message sent to the target.
	Faults Faults
	// RetryBackoff is the delay before the first retry of a failed batch;
	// it doubles per attempt up to 64 times its value (default 1 s; tests
	// use milliseconds).
	RetryBackoff time.Duration
	// Authorizer, when set, authorizes what the pipe does as its role:
	// reading the source at CreatePipe (a pipe that cannot is
	// CREATE_FAILED, as on AWS), and each target send, dead-letter send and
	// enrichment invoke.
	Authorizer emu.Authorizer
	// Logs, when set, receives each pipe's execution records in its
	// LogConfiguration's CloudWatch Logs group (logs.go).
	Logs LogSink
	// Logger receives what the pipes' LogConfiguration asks for, and a
	// warning for every record dropped without a dead-letter queue
	// (default: discard).
	Logger *slog.Logger
}

// Service is the emulated EventBridge Pipes API and runtime. It implements
// http.Handler for the REST-JSON protocol; every pipe runs in its own
// goroutine until it is deleted or the service is closed.
type Service struct {
	opts Options
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	pipes map[string]*pipe

	ledger ledger

	// logStreams are the log streams created (logs.go), by stream ARN.
	logStreams sync.Map
}

// New returns a Service with no pipes.
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
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{opts: opts, log: log, ctx: ctx, cancel: cancel, pipes: map[string]*pipe{}}
}

// Close stops every pipe's runtime and waits for it; in-flight invocations
// see their context cancelled. The API keeps answering, but no record is
// delivered afterwards.
func (s *Service) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

func (s *Service) now() time.Time { return s.opts.Now() }

// pipeARN is arn:aws:pipes:<region>:<account>:pipe/<name>.
func (s *Service) pipeARN(name string) string {
	return "arn:aws:pipes:" + s.opts.Region + ":" + s.opts.AccountID + ":pipe/" + name
}

// OperationName implements emu.OperationNamer: the operation from the
// method and path, "" for a request no route matches.
func (s *Service) OperationName(r *http.Request) string {
	op, _, err := route(r)
	if err != nil {
		return ""
	}
	return op
}

// ServeHTTP implements http.Handler for the REST-JSON routes of
// aws-sdk-go-v2 service/pipes serializers.go.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, name, err := route(r)
	if err != nil {
		err.write(w)
		return
	}
	emu.SetOperation(r, op)
	var body []byte
	if r.Body != nil && (r.Method == http.MethodPost || r.Method == http.MethodPut) {
		b, rerr := readBody(w, r)
		if rerr != nil {
			rerr.write(w)
			return
		}
		body = b
	}
	if e := checkModel(r, op, body); e != nil {
		e.write(w)
		return
	}
	var (
		out  any
		aerr *apiError
	)
	switch op {
	case "CreatePipe":
		out, aerr = s.createPipe(name, body)
	case "DescribePipe":
		out, aerr = s.describePipe(name)
	case "UpdatePipe":
		out, aerr = s.updatePipe(name, body)
	case "DeletePipe":
		out, aerr = s.deletePipe(name)
	case "StartPipe":
		out, aerr = s.startPipe(name)
	case "StopPipe":
		out, aerr = s.stopPipe(name)
	case "ListPipes":
		out, aerr = s.listPipes(r.URL.Query())
	case "ListTagsForResource":
		out, aerr = s.listTags(name)
	case "TagResource":
		out, aerr = s.tagResource(name, body)
	case "UntagResource":
		out, aerr = s.untagResource(name, r.URL.Query()["tagKeys"])
	}
	if aerr != nil {
		aerr.write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out) // the client went away; nothing left to tell it
}

// maxBody bounds request bodies: the largest legal CreatePipe (five 4 KiB
// patterns, two 8 KiB templates, 50 tags) is far below it.
const maxBody = 1 << 20

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return nil, errSerialization("read request body: %v", err)
	}
	return b, nil
}

// route maps method and path to the operation and its path member (pipe
// name or, for tag operations, the resource ARN).
func route(r *http.Request) (op, member string, err *apiError) {
	p := r.URL.EscapedPath()
	unknown := &apiError{Status: http.StatusNotFound, Type: "UnknownOperationException",
		Message: "the taskpipe local cloud's Pipes API has no operation for " + r.Method + " " + p}
	seg := func(raw string) (string, *apiError) {
		v, uerr := url.PathUnescape(raw)
		if uerr != nil {
			return "", errSerialization("malformed path segment %q: %v", raw, uerr)
		}
		return v, nil
	}
	switch {
	case p == "/v1/pipes" || p == "/v1/pipes/":
		if r.Method == http.MethodGet {
			return "ListPipes", "", nil
		}
	case strings.HasPrefix(p, "/v1/pipes/"):
		rest := strings.TrimPrefix(p, "/v1/pipes/")
		raw, action, _ := strings.Cut(rest, "/")
		name, e := seg(raw)
		if e != nil {
			return "", "", e
		}
		switch {
		case action == "" && r.Method == http.MethodPost:
			return "CreatePipe", name, nil
		case action == "" && r.Method == http.MethodGet:
			return "DescribePipe", name, nil
		case action == "" && r.Method == http.MethodPut:
			return "UpdatePipe", name, nil
		case action == "" && r.Method == http.MethodDelete:
			return "DeletePipe", name, nil
		case action == "start" && r.Method == http.MethodPost:
			return "StartPipe", name, nil
		case action == "stop" && r.Method == http.MethodPost:
			return "StopPipe", name, nil
		}
	case strings.HasPrefix(p, "/tags/"):
		arn, e := seg(strings.TrimPrefix(p, "/tags/"))
		if e != nil {
			return "", "", e
		}
		switch r.Method {
		case http.MethodGet:
			return "ListTagsForResource", arn, nil
		case http.MethodPost:
			return "TagResource", arn, nil
		case http.MethodDelete:
			return "UntagResource", arn, nil
		}
	}
	return "", "", unknown
}

// Target returns the operation a request calls and the pipe name (or, for
// the tag operations, the ARN) it addresses, "" for ListPipes or a request
// the API does not serve, for the local cloud's IAM checks.
func Target(r *http.Request) (op, member string) {
	op, member, err := route(r)
	if err != nil {
		return "", ""
	}
	return op, member
}
