package mapping

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// PathPrefix is the REST path of the event source mapping operations
// (Lambda model; aws-sdk-go-v2 service/lambda schemas.go HTTP traits).
const PathPrefix = "/2015-03-31/event-source-mappings"

// maxBody bounds a request body; mapping requests are small.
const maxBody = 1 << 20

// ServeHTTP serves the five event source mapping operations of the Lambda
// REST-JSON protocol:
//
//	POST   /2015-03-31/event-source-mappings         CreateEventSourceMapping (202)
//	GET    /2015-03-31/event-source-mappings         ListEventSourceMappings
//	GET    /2015-03-31/event-source-mappings/{UUID}  GetEventSourceMapping
//	PUT    /2015-03-31/event-source-mappings/{UUID}  UpdateEventSourceMapping (202)
//	DELETE /2015-03-31/event-source-mappings/{UUID}  DeleteEventSourceMapping (202)
//
// A trailing slash on the collection path is accepted (older SDKs send
// one). It names the operation for the router's counters.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, PathPrefix)
	if !ok || rest != "" && rest[0] != '/' {
		writeError(w, errorf(ErrUnsupportedOperation, "%s %s is not an event source mapping operation", r.Method, r.URL.Path))
		return
	}
	id := strings.Trim(rest, "/")
	if strings.Contains(id, "/") {
		writeError(w, errorf(ErrUnsupportedOperation, "%s %s is not an event source mapping operation", r.Method, r.URL.Path))
		return
	}
	op, ok := operation(r.Method, id)
	if !ok {
		writeError(w, errorf(ErrUnsupportedOperation, "%s is not allowed on %s", r.Method, r.URL.Path))
		return
	}
	emu.SetOperation(r, op)
	if e := checkModel(r, op); e != nil {
		writeError(w, e)
		return
	}
	switch op {
	case "CreateEventSourceMapping":
		s.serveCreate(w, r)
	case "ListEventSourceMappings":
		s.serveList(w, r)
	case "GetEventSourceMapping":
		cfg, err := s.Get(id)
		respond(w, http.StatusOK, cfg, err)
	case "UpdateEventSourceMapping":
		var req UpdateRequest
		if !decode(w, r, &req) {
			return
		}
		cfg, err := s.Update(id, req)
		respond(w, http.StatusAccepted, cfg, err)
	case "DeleteEventSourceMapping":
		cfg, err := s.Delete(id)
		respond(w, http.StatusAccepted, cfg, err)
	}
}

// operation names the operation of a method on the collection (id "") or
// on one mapping.
func operation(method, id string) (string, bool) {
	switch {
	case id == "" && method == http.MethodPost:
		return "CreateEventSourceMapping", true
	case id == "" && method == http.MethodGet:
		return "ListEventSourceMappings", true
	case id == "":
		return "", false
	case method == http.MethodGet:
		return "GetEventSourceMapping", true
	case method == http.MethodPut:
		return "UpdateEventSourceMapping", true
	case method == http.MethodDelete:
		return "DeleteEventSourceMapping", true
	}
	return "", false
}

func (s *Service) serveCreate(w http.ResponseWriter, r *http.Request) {
	var req CreateRequest
	if !decode(w, r, &req) {
		return
	}
	cfg, err := s.Create(req)
	respond(w, http.StatusAccepted, cfg, err)
}

func (s *Service) serveList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := ListRequest{EventSourceArn: q.Get("EventSourceArn"), FunctionName: q.Get("FunctionName"), Marker: q.Get("Marker")}
	if v := q.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeError(w, errorf(ErrInvalidParameterValue, "MaxItems %q is not an integer.", v))
			return
		}
		if n == 0 {
			writeError(w, errRange("maxItems", 0, 1, maxListItems))
			return
		}
		req.MaxItems = n
	}
	res, err := s.List(req)
	respond(w, http.StatusOK, res, err)
}

// decode reads a JSON request body; a malformed one is Lambda's
// InvalidRequestContentException.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, errorf(ErrInvalidRequestContent, "Could not read the request body: %v", err))
		return false
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, errorf(ErrInvalidRequestContent, "Could not parse request body into json: %v", err))
		return false
	}
	return true
}

// respond writes v with status, or the error.
func respond(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

// writeError writes err in the Lambda REST-JSON error shape. Errors that
// are not *Error are internal (500 ServiceException).
func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = errorf(ErrService, "%v", err)
	}
	body := map[string]string{}
	if !e.noUserType {
		body["Type"] = "User"
	}
	key := "message"
	if e.upperKey {
		key = "Message"
	}
	body[key] = e.Message
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", e.Type)
	w.WriteHeader(e.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // the client went away; nothing left to tell it
}
