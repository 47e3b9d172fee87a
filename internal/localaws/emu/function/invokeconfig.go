package function

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Asynchronous invocation configuration (PutFunctionEventInvokeConfig and
// friends, API version 2019-09-25). Lambda retries a failed asynchronous
// event up to MaximumRetryAttempts times (0–2, default 2) and discards events
// older than MaximumEventAgeInSeconds (60–21600, default 21600 = 6 h)
// ("Configuring error handling for asynchronous invocation", Lambda
// developer guide). Destinations are not emulated, so configurations that
// set one are refused rather than stored and ignored.

// Limits of the asynchronous invocation settings (API_PutFunctionEventInvokeConfig).
const (
	maxAsyncRetries   = 2
	minAsyncEventAge  = 60
	maxAsyncEventAgeS = 21600
)

// EventInvokeConfig is a function's asynchronous invocation configuration,
// in the wire shape of FunctionEventInvokeConfig.
type EventInvokeConfig struct {
	FunctionArn              string           `json:"FunctionArn"`
	LastModified             float64          `json:"LastModified"` // epoch seconds
	MaximumRetryAttempts     *int             `json:"MaximumRetryAttempts,omitempty"`
	MaximumEventAgeInSeconds *int             `json:"MaximumEventAgeInSeconds,omitempty"`
	DestinationConfig        *json.RawMessage `json:"DestinationConfig,omitempty"`
}

type eventInvokeConfigInput struct {
	MaximumRetryAttempts     *int             `json:"MaximumRetryAttempts"`
	MaximumEventAgeInSeconds *int             `json:"MaximumEventAgeInSeconds"`
	DestinationConfig        *json.RawMessage `json:"DestinationConfig"`
}

// validate checks the ranges and refuses destinations.
func (in eventInvokeConfigInput) validate() *Error {
	if r := in.MaximumRetryAttempts; r != nil && (*r < 0 || *r > maxAsyncRetries) {
		return errValidation(strconv.Itoa(*r), "maximumRetryAttempts", "Member must have value less than or equal to 2")
	}
	if a := in.MaximumEventAgeInSeconds; a != nil && (*a < minAsyncEventAge || *a > maxAsyncEventAgeS) {
		return errValidation(strconv.Itoa(*a), "maximumEventAgeInSeconds", "Member must have value between 60 and 21600")
	}
	if in.DestinationConfig != nil && string(*in.DestinationConfig) != "{}" && string(*in.DestinationConfig) != "null" {
		var d struct {
			OnSuccess *struct{ Destination string }
			OnFailure *struct{ Destination string }
		}
		if err := json.Unmarshal(*in.DestinationConfig, &d); err != nil {
			return errorf(ErrInvalidRequestContent, "Could not parse DestinationConfig: %v", err)
		}
		if (d.OnSuccess != nil && d.OnSuccess.Destination != "") || (d.OnFailure != nil && d.OnFailure.Destination != "") {
			return errorf(ErrInvalidParameter, "The taskpipe local cloud does not emulate asynchronous invocation destinations")
		}
	}
	return nil
}

// asyncLimits returns how many retries a failed async event of fn gets and
// how old it may grow. Callers hold s.mu.
func (s *Service) asyncLimitsLocked(fn *function) (retries int, maxAge time.Duration) {
	retries, maxAge = len(s.opts.AsyncRetryDelays), maxEventAge
	if c := fn.invokeConfig; c != nil {
		if c.MaximumRetryAttempts != nil {
			retries = min(retries, *c.MaximumRetryAttempts)
		}
		if c.MaximumEventAgeInSeconds != nil {
			maxAge = time.Duration(*c.MaximumEventAgeInSeconds) * time.Second
		}
	}
	return retries, maxAge
}

// putEventInvokeConfig stores a configuration. replace (Put) resets
// unspecified settings to their defaults; otherwise (Update) it merges.
func (s *Service) putEventInvokeConfig(ref, qualifier string, in eventInvokeConfigInput, replace bool) (EventInvokeConfig, error) {
	if err := in.validate(); err != nil {
		return EventInvokeConfig{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, qualifier)
	if err != nil {
		return EventInvokeConfig{}, err
	}
	cur := fn.invokeConfig
	if cur == nil || replace {
		cur = &EventInvokeConfig{FunctionArn: fn.arn + ":$LATEST"}
	}
	next := *cur
	if in.MaximumRetryAttempts != nil {
		next.MaximumRetryAttempts = in.MaximumRetryAttempts
	}
	if in.MaximumEventAgeInSeconds != nil {
		next.MaximumEventAgeInSeconds = in.MaximumEventAgeInSeconds
	}
	next.LastModified = float64(s.opts.Now().UnixMilli()) / 1000
	fn.invokeConfig = &next
	return next, nil
}

func (s *Service) getEventInvokeConfig(ref, qualifier string) (EventInvokeConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, qualifier)
	if err != nil {
		return EventInvokeConfig{}, err
	}
	if fn.invokeConfig == nil {
		return EventInvokeConfig{}, errorf(ErrNotFound, "The function %s doesn't have an EventInvokeConfig", fn.arn+":$LATEST")
	}
	return *fn.invokeConfig, nil
}

func (s *Service) deleteEventInvokeConfig(ref, qualifier string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, err := s.lookupLocked(ref, qualifier)
	if err != nil {
		return err
	}
	if fn.invokeConfig == nil {
		return errorf(ErrNotFound, "The function %s doesn't have an EventInvokeConfig", fn.arn+":$LATEST")
	}
	fn.invokeConfig = nil
	return nil
}

func (s *Service) httpPutEventInvokeConfig(replace bool, op string) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, name string) {
		var in eventInvokeConfigInput
		if err := readJSON(r, op, maxJSONRequest, &in); err != nil {
			writeError(w, err)
			return
		}
		out, err := s.putEventInvokeConfig(name, r.URL.Query().Get("Qualifier"), in, replace)
		if err != nil {
			fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func (s *Service) httpGetEventInvokeConfig(w http.ResponseWriter, r *http.Request, name string) {
	out, err := s.getEventInvokeConfig(name, r.URL.Query().Get("Qualifier"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) httpListEventInvokeConfigs(w http.ResponseWriter, _ *http.Request, name string) {
	out := struct {
		FunctionEventInvokeConfigs []EventInvokeConfig `json:"FunctionEventInvokeConfigs"`
	}{FunctionEventInvokeConfigs: []EventInvokeConfig{}}
	cfg, err := s.getEventInvokeConfig(name, "")
	switch {
	case err == nil:
		out.FunctionEventInvokeConfigs = append(out.FunctionEventInvokeConfigs, cfg)
	case isNotFoundConfig(err):
	default:
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// isNotFoundConfig tells "the function exists but has no configuration"
// from a missing function.
func isNotFoundConfig(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Type == ErrNotFound.Type && strings.HasSuffix(e.Message, "EventInvokeConfig")
}

func (s *Service) httpDeleteEventInvokeConfig(w http.ResponseWriter, r *http.Request, name string) {
	if err := s.deleteEventInvokeConfig(name, r.URL.Query().Get("Qualifier")); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
