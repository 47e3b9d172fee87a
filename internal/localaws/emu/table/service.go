package table

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/truora/minidyn/server"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// TargetPrefix is the X-Amz-Target prefix of the DynamoDB API.
const TargetPrefix = "DynamoDB_20120810"

// maxBody caps request bodies; DynamoDB's largest requests (25-item
// batches of 400 KB items) stay well below it.
const maxBody = 16 << 20

// Options configure a Service.
type Options struct {
	// AccountID and Region appear in ARNs and stream records; empty means
	// emu.DefaultAccountID and emu.DefaultRegion.
	AccountID string
	Region    string
	// Now is the clock (table creation times, stream labels, record
	// timestamps, 24-hour trimming); nil means time.Now.
	Now func() time.Time
	// StreamRetention is how long stream records, and disabled streams,
	// stay readable; zero means 24 hours, AWS's fixed retention.
	StreamRetention time.Duration
}

// Service is the emulated DynamoDB API. It implements http.Handler for the
// JSON 1.0 protocol and offers the in-process stream API (Stream,
// LatestStreamARN, Streams) to the Streams API and the Pipe runtime.
type Service struct {
	opts Options
	db   *server.Client
	// scratch evaluates updates on index-free copies (see update.go).
	scratch *server.Client

	// mu guards the table registry and minidyn's control plane, whose
	// methods take no lock of their own: control-plane operations hold it
	// exclusively, data-plane operations shared. Writes additionally hold
	// their tables' writeMu (always after mu, in table-name order), which
	// makes "read old images, write, read new images, append records"
	// atomic with respect to every other write to the same table.
	mu      sync.RWMutex
	tables  map[string]*table
	streams map[string]*Stream // by ARN, including disabled ones

	seq atomic.Uint64 // last sequence number handed out
	ops map[string]func([]byte) (any, error)
}

// New returns an empty DynamoDB service.
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
	if opts.StreamRetention <= 0 {
		opts.StreamRetention = 24 * time.Hour
	}
	s := &Service{
		opts:    opts,
		db:      server.NewClient(),
		scratch: server.NewClient(),
		tables:  map[string]*table{},
		streams: map[string]*Stream{},
	}
	s.ops = map[string]func([]byte) (any, error){
		"CreateTable":               s.createTable,
		"DescribeTable":             s.describeTable,
		"UpdateTable":               s.updateTable,
		"DeleteTable":               s.deleteTable,
		"ListTables":                s.listTables,
		"DescribeTimeToLive":        s.describeTimeToLive,
		"UpdateTimeToLive":          s.updateTimeToLive,
		"TagResource":               s.tagResource,
		"UntagResource":             s.untagResource,
		"ListTagsOfResource":        s.listTagsOfResource,
		"DescribeContinuousBackups": s.describeContinuousBackups,
		"UpdateContinuousBackups":   s.updateContinuousBackups,
		"GetItem":                   s.getItemOp,
		"PutItem":                   s.putItem,
		"UpdateItem":                s.updateItem,
		"DeleteItem":                s.deleteItem,
		"Query":                     s.query,
		"Scan":                      s.scan,
		"BatchGetItem":              s.batchGetItem,
		"BatchWriteItem":            s.batchWriteItem,
		"TransactGetItems":          s.transactGetItems,
		"TransactWriteItems":        s.transactWriteItems,
	}
	return s
}

// Operations lists the emulated operation names, sorted.
func (s *Service) Operations() []string {
	out := make([]string, 0, len(s.ops))
	for name := range s.ops {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix, op, _ := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	h := s.ops[op]
	if prefix != TargetPrefix || h == nil {
		WriteError(w, apiErr("UnknownOperationException",
			"operation %q is not emulated by the taskpipe local cloud (DynamoDB supports: %s)",
			r.Header.Get("X-Amz-Target"), strings.Join(s.Operations(), ", ")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		WriteError(w, apiErr("SerializationException", "read request body: %v", err))
		return
	}
	if e := CheckModel(emu.ServiceDynamoDB, op, body); e != nil {
		WriteError(w, e)
		return
	}
	out, err := s.call(h, body)
	if err != nil {
		WriteError(w, fromMinidyn(err))
		return
	}
	WriteResult(w, out)
}

// call runs an operation, turning a panic into an error response instead
// of a dropped connection.
func (s *Service) call(h func([]byte) (any, error), body []byte) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	return h(body)
}

// panicError classifies a recovered panic. minidyn's expression
// interpreter panics on some malformed expressions (found by fuzzing, e.g.
// "SET a = if_not_exists()"), which AWS rejects with a ValidationException;
// any other panic is an emulator fault and says so with a 500.
func panicError(p any) *APIError {
	if strings.Contains(string(debug.Stack()), "github.com/truora/minidyn/interpreter") {
		return validation("Invalid expression: the local cloud's expression engine (minidyn) could not evaluate it: %v", p)
	}
	return &APIError{Code: "InternalServerError", Status: http.StatusInternalServerError,
		Message: fmt.Sprintf("local cloud: panic in DynamoDB emulation: %v", p)}
}

// WriteResult writes a successful JSON 1.0 response with the X-Amz-Crc32
// header DynamoDB sends (the Go SDK and botocore verify it when present).
func WriteResult(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		WriteError(w, &APIError{Code: "InternalServerError", Status: http.StatusInternalServerError,
			Message: "local cloud: encode response: " + err.Error()})
		return
	}
	writeBody(w, http.StatusOK, buf.Bytes())
}

// WriteError writes an AWS JSON 1.0 error response.
func WriteError(w http.ResponseWriter, e *APIError) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.Body()); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, `{"__type":"%sInternalServerError","message":"local cloud: encode error response"}`, nsDynamoDB)
	}
	writeBody(w, e.HTTPStatus(), buf.Bytes())
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	h.Set("X-Amzn-Requestid", requestID())
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client went away; nothing left to tell it
}

// requestID returns a DynamoDB-style request id (52 upper-case alphanumerics).
func requestID() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 52)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}

// eventID returns 32 lower-case hex characters, the shape of AWS's record
// event ids (docs/aws-behaviour.md §2.4).
func eventID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rand.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return hex.EncodeToString(b[:])
}

// decode parses a request body. A body that is not valid JSON for the
// operation's shape is a SerializationException, as on AWS.
func decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return apiErr("SerializationException", "unexpected JSON type for field %q: %v", ute.Field, ute.Value)
		}
		return apiErr("SerializationException", "malformed JSON request: %v", err)
	}
	return nil
}

func (s *Service) now() time.Time { return s.opts.Now() }

// epoch renders a timestamp as the JSON 1.0 protocol does: seconds since
// the epoch as a number, with milliseconds.
func epoch(t time.Time) float64 {
	return float64(t.UnixMilli()) / 1000
}
