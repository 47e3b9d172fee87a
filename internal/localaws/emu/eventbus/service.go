// Package eventbus emulates the Amazon EventBridge (CloudWatch Events) API
// over its AWS JSON 1.1 protocol (X-Amz-Target: AWSEvents.<Operation>). For
// now it serves TestEventPattern, which answers with the same event-pattern
// engine the Pipe filters use (internal/eventpattern).
package eventbus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

const (
	contentType = "application/x-amz-json-1.1"
	// targetPrefix names the service in X-Amz-Target (botocore events model).
	targetPrefix = "AWSEvents."
	// maxBody bounds a request body; TestEventPattern carries two strings.
	maxBody = 1 << 20
	// maxPatternLength is the EventPattern length limit of the Events API
	// model, as in the Lambda and Pipes models (docs/aws-behaviour.md §5.9).
	maxPatternLength = 4096
)

// Service is the EventBridge API handler. It is an http.Handler.
type Service struct{}

// New returns the EventBridge service.
func New() *Service { return &Service{} }

// ServeHTTP implements http.Handler for the AWS JSON 1.1 protocol.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	if !ok || op == "" {
		writeError(w, http.StatusBadRequest, "UnknownOperationException", "missing or malformed X-Amz-Target header")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", fmt.Sprintf("read request body: %v", err))
		return
	}
	// Validated against AWS's EventBridge model before the operation runs.
	if e := awsmodel.CheckJSON(emu.ServiceEvents, op, body); e != nil {
		writeError(w, e.Status, e.Code, e.Message)
		return
	}
	switch op {
	case "TestEventPattern":
		s.testEventPattern(w, body)
	default:
		writeError(w, http.StatusBadRequest, "UnknownOperationException",
			fmt.Sprintf("operation %s is not emulated by the taskpipe local cloud", op))
	}
}

// testEventPatternInput is the request shape (botocore events 2015-10-07).
type testEventPatternInput struct {
	EventPattern *string `json:"EventPattern"`
	Event        *string `json:"Event"`
}

// mandatoryEventFields must all be present in a TestEventPattern event.
// The API reference also lists "resources", but AWS accepts events without
// it: most AWS-validated cases in the conformance file omit it (LocalStack's
// provider notes the same).
var mandatoryEventFields = []string{"id", "account", "source", "time", "region", "detail-type"}

// testEventPattern answers {Result: bool}. An invalid pattern is an
// InvalidEventPatternException; an event that is not JSON or lacks a
// mandatory field is a ValidationException "Parameter Event is not valid."
// (AWS wording, as LocalStack's AWS-validated provider reproduces it).
func (s *Service) testEventPattern(w http.ResponseWriter, body []byte) {
	var in testEventPatternInput
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", fmt.Sprintf("decode TestEventPattern request: %v", err))
		return
	}
	var missing []string
	if in.EventPattern == nil {
		missing = append(missing, "Value null at 'eventPattern' failed to satisfy constraint: Member must not be null")
	} else if n := len([]rune(*in.EventPattern)); n > maxPatternLength {
		missing = append(missing, fmt.Sprintf("Value at 'eventPattern' failed to satisfy constraint: Member must have length less than or equal to %d", maxPatternLength))
	}
	if in.Event == nil {
		missing = append(missing, "Value null at 'event' failed to satisfy constraint: Member must not be null")
	}
	if len(missing) > 0 {
		writeError(w, http.StatusBadRequest, "ValidationException",
			fmt.Sprintf("%d validation error%s detected: %s", len(missing), plural(len(missing)), strings.Join(missing, "; ")))
		return
	}

	var event map[string]any
	dec := json.NewDecoder(strings.NewReader(*in.Event))
	dec.UseNumber()
	if err := dec.Decode(&event); err != nil || event == nil || hasTrailingData(dec) {
		writeError(w, http.StatusBadRequest, "ValidationException", "Parameter Event is not valid.")
		return
	}
	for _, f := range mandatoryEventFields {
		if _, ok := event[f]; !ok {
			writeError(w, http.StatusBadRequest, "ValidationException", "Parameter Event is not valid.")
			return
		}
	}

	p, err := eventpattern.Compile([]byte(*in.EventPattern))
	if err != nil {
		if eventpattern.IsInvalidPattern(err) {
			writeError(w, http.StatusBadRequest, "InvalidEventPatternException", err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, "InternalException", err.Error())
		return
	}
	ok, err := p.MatchValue(event)
	if err != nil {
		if errors.Is(err, eventpattern.ErrEventTooComplex) {
			writeError(w, http.StatusBadRequest, "ValidationException", "Parameter Event is not valid: "+err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, "InternalException", err.Error())
		return
	}
	writeJSON(w, map[string]bool{"Result": ok})
}

func hasTrailingData(dec *json.Decoder) bool {
	_, err := dec.Token()
	return !errors.Is(err, io.EOF)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing left to tell it
}

// writeError writes an AWS JSON 1.1 error ({"__type", "message"}); SDKs read
// the code from __type (after any '#') or X-Amzn-ErrorType.
func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"__type": code, "message": message}) // client gone: nothing to do
}
