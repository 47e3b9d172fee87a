package function

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// maxJSONRequest bounds the body of the JSON operations other than the
// code uploads.
const maxJSONRequest = 1 << 20

// ServeHTTP serves the Lambda REST-JSON API. Paths, methods and success
// codes follow the operations' HTTP traits in
// aws-sdk-go-v2/service/lambda/schemas/schemas.go.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Amzn-RequestId", uuid.NewString())
	segs, err := pathSegments(r.URL.EscapedPath())
	if err != nil {
		writeError(w, errorf(ErrInvalidParameter, "malformed path %q: %v", r.URL.Path, err))
		return
	}
	if len(segs) >= 2 && segs[1] == "event-source-mappings" {
		if s.opts.EventSourceMappings == nil {
			emu.SetOperation(r, "EventSourceMappings")
			writeError(w, errorf(ErrNotFound, "The taskpipe local cloud has no event source mapping service configured"))
			return
		}
		s.opts.EventSourceMappings.ServeHTTP(w, r)
		return
	}
	route, ok := s.route(r.Method, segs)
	if !ok {
		emu.SetOperation(r, "Unknown")
		writeError(w, errorf(ErrUnknownOperation, "%s %s is not an operation the taskpipe local cloud emulates for Lambda", r.Method, r.URL.Path))
		return
	}
	emu.SetOperation(r, route.op)
	if e := checkModel(r, route.op); e != nil {
		writeError(w, e)
		return
	}
	route.serve(w, r)
}

type route struct {
	op    string
	serve func(w http.ResponseWriter, r *http.Request)
}

// pathSegments splits an escaped path and unescapes each segment, so an
// ARN label (with escaped colons) stays one segment.
func pathSegments(escaped string) ([]string, error) {
	escaped = strings.Trim(escaped, "/")
	if escaped == "" {
		return nil, nil
	}
	parts := strings.Split(escaped, "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			return nil, fmt.Errorf("unescape %q: %w", p, err)
		}
		parts[i] = u
	}
	return parts, nil
}

func (s *Service) route(method string, segs []string) (route, bool) {
	n := len(segs)
	if n < 2 {
		return route{}, false
	}
	version, kind := segs[0], segs[1]
	name := ""
	if n >= 3 {
		name = segs[2]
	}
	sub := ""
	if n >= 4 {
		sub = segs[3]
	}
	h := func(op string, f func(http.ResponseWriter, *http.Request, string)) (route, bool) {
		return route{op: op, serve: func(w http.ResponseWriter, r *http.Request) { f(w, r, name) }}, true
	}
	switch {
	case version == "2015-03-31" && kind == "functions" && n == 2:
		switch method {
		case http.MethodPost:
			return h("CreateFunction", s.httpCreateFunction)
		case http.MethodGet:
			return h("ListFunctions", s.httpListFunctions)
		}
	case version == "2015-03-31" && kind == "functions" && n == 3:
		switch method {
		case http.MethodGet:
			return h("GetFunction", s.httpGetFunction)
		case http.MethodDelete:
			return h("DeleteFunction", s.httpDeleteFunction)
		}
	case version == "2015-03-31" && kind == "functions" && n == 4:
		switch {
		case sub == "configuration" && method == http.MethodGet:
			return h("GetFunctionConfiguration", s.httpGetFunctionConfiguration)
		case sub == "configuration" && method == http.MethodPut:
			return h("UpdateFunctionConfiguration", s.httpUpdateFunctionConfiguration)
		case sub == "code" && method == http.MethodPut:
			return h("UpdateFunctionCode", s.httpUpdateFunctionCode)
		case sub == "invocations" && method == http.MethodPost:
			return h("Invoke", s.httpInvoke)
		case sub == "versions" && method == http.MethodGet:
			return h("ListVersionsByFunction", s.httpListVersions)
		case sub == "policy" && method == http.MethodGet:
			return h("GetPolicy", s.httpGetPolicy)
		}
	case version == "2017-10-31" && kind == "functions" && n == 4 && sub == "concurrency":
		switch method {
		case http.MethodPut:
			return h("PutFunctionConcurrency", s.httpPutConcurrency)
		case http.MethodDelete:
			return h("DeleteFunctionConcurrency", s.httpDeleteConcurrency)
		}
	case version == "2019-09-30" && kind == "functions" && n == 4 && sub == "concurrency" && method == http.MethodGet:
		return h("GetFunctionConcurrency", s.httpGetConcurrency)
	case version == "2020-06-30" && kind == "functions" && n == 4 && sub == "code-signing-config" && method == http.MethodGet:
		return h("GetFunctionCodeSigningConfig", s.httpGetCodeSigningConfig)
	case version == "2017-03-31" && kind == "tags" && n == 3:
		switch method {
		case http.MethodPost:
			return h("TagResource", s.httpTagResource)
		case http.MethodDelete:
			return h("UntagResource", s.httpUntagResource)
		case http.MethodGet:
			return h("ListTags", s.httpListTags)
		}
	case version == "2019-09-25" && kind == "functions" && n == 4 && sub == "event-invoke-config":
		switch method {
		case http.MethodPut:
			return h("PutFunctionEventInvokeConfig", s.httpPutEventInvokeConfig(true, "PutFunctionEventInvokeConfig"))
		case http.MethodPost:
			return h("UpdateFunctionEventInvokeConfig", s.httpPutEventInvokeConfig(false, "UpdateFunctionEventInvokeConfig"))
		case http.MethodGet:
			return h("GetFunctionEventInvokeConfig", s.httpGetEventInvokeConfig)
		case http.MethodDelete:
			return h("DeleteFunctionEventInvokeConfig", s.httpDeleteEventInvokeConfig)
		}
	case version == "2019-09-25" && kind == "functions" && n == 5 && sub == "event-invoke-config" && segs[4] == "list" && method == http.MethodGet:
		return h("ListFunctionEventInvokeConfigs", s.httpListEventInvokeConfigs)
	case version == "2016-08-19" && kind == "account-settings" && n == 2 && method == http.MethodGet:
		return h("GetAccountSettings", s.httpGetAccountSettings)
	}
	return route{}, false
}

// writeJSON writes a success response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

// fail writes a Go API error.
func fail(w http.ResponseWriter, err error) {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		writeError(w, apiErr)
		return
	}
	writeError(w, &Error{Type: "ServiceException", Status: http.StatusInternalServerError, Message: err.Error()})
}

// readJSON decodes a request body of at most limit bytes.
func readJSON(r *http.Request, op string, limit int64, v any) *Error {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return errorf(ErrInvalidRequestContent, "read request body: %v", err)
	}
	if int64(len(body)) > limit {
		return errorf(ErrRequestEntityTooLarge, "Request must be smaller than %d bytes for the %s operation", limit, op)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errorf(ErrInvalidRequestContent, "Could not parse request body into json: %v", err)
	}
	return nil
}

func (s *Service) httpCreateFunction(w http.ResponseWriter, r *http.Request, _ string) {
	var in CreateInput
	if err := readJSON(r, "CreateFunction", maxZipRequest+4096, &in); err != nil {
		writeError(w, err)
		return
	}
	cfg, err := s.Create(in)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, cfg)
}

// getFunctionOutput is the GetFunction response.
type getFunctionOutput struct {
	Configuration Configuration     `json:"Configuration"`
	Code          codeLocation      `json:"Code"`
	Tags          map[string]string `json:"Tags,omitempty"`
	Concurrency   *concurrency      `json:"Concurrency,omitempty"`
}

// codeLocation has no presigned URL: the local cloud has no S3.
type codeLocation struct {
	RepositoryType string `json:"RepositoryType"`
}

type concurrency struct {
	ReservedConcurrentExecutions *int `json:"ReservedConcurrentExecutions,omitempty"`
}

func (s *Service) httpGetFunction(w http.ResponseWriter, r *http.Request, name string) {
	s.mu.Lock()
	fn, err := s.lookupLocked(name, r.URL.Query().Get("Qualifier"))
	if err != nil {
		s.mu.Unlock()
		writeError(w, err)
		return
	}
	out := getFunctionOutput{Configuration: s.viewLocked(fn), Code: codeLocation{RepositoryType: "S3"}, Tags: copyMap(fn.tags)}
	if fn.reserve != nil {
		v := *fn.reserve
		out.Concurrency = &concurrency{ReservedConcurrentExecutions: &v}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) httpGetFunctionConfiguration(w http.ResponseWriter, r *http.Request, name string) {
	s.mu.Lock()
	fn, err := s.lookupLocked(name, r.URL.Query().Get("Qualifier"))
	if err != nil {
		s.mu.Unlock()
		writeError(w, err)
		return
	}
	cfg := s.viewLocked(fn)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, cfg)
}

func (s *Service) httpListFunctions(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	maxItems := 50
	if v := q.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			writeError(w, errValidation(v, "maxItems", "Member must have value between 1 and 10000"))
			return
		}
		maxItems = n
	}
	marker := q.Get("Marker")
	all := s.Functions()
	// The marker is the last name of the previous page; names are sorted.
	page := all[sort.Search(len(all), func(i int) bool { return all[i].FunctionName > marker }):]
	out := struct {
		Functions  []Configuration `json:"Functions"`
		NextMarker string          `json:"NextMarker,omitempty"`
	}{Functions: []Configuration{}}
	if len(page) > maxItems {
		page = page[:maxItems]
		out.NextMarker = page[len(page)-1].FunctionName
	}
	out.Functions = append(out.Functions, page...)
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) httpListVersions(w http.ResponseWriter, _ *http.Request, name string) {
	cfg, err := s.Configuration(name)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]Configuration{"Versions": {cfg}})
}

func (s *Service) httpGetPolicy(w http.ResponseWriter, _ *http.Request, name string) {
	if _, err := s.Configuration(name); err != nil {
		fail(w, err)
		return
	}
	// No resource policies are emulated, so every function has none.
	writeError(w, errorf(ErrNotFound, "The resource you requested does not exist."))
}

func (s *Service) httpGetCodeSigningConfig(w http.ResponseWriter, _ *http.Request, name string) {
	cfg, err := s.Configuration(name)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"CodeSigningConfigArn": "", "FunctionName": cfg.FunctionName})
}

func (s *Service) httpGetAccountSettings(w http.ResponseWriter, _ *http.Request, _ string) {
	s.mu.Lock()
	var reserved, count int
	var total int64
	for _, fn := range s.functions {
		count++
		total += fn.code.size
		if fn.reserve != nil {
			reserved += *fn.reserve
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"AccountLimit": map[string]any{
			"ConcurrentExecutions":           s.opts.AccountConcurrency,
			"UnreservedConcurrentExecutions": s.opts.AccountConcurrency - reserved,
			"CodeSizeUnzipped":               maxUnzipped,
			"CodeSizeZipped":                 52428800,
			"TotalCodeSize":                  80530636800,
		},
		"AccountUsage": map[string]any{"FunctionCount": count, "TotalCodeSize": total},
	})
}

func (s *Service) httpUpdateFunctionConfiguration(w http.ResponseWriter, r *http.Request, name string) {
	var in UpdateConfigInput
	if err := readJSON(r, "UpdateFunctionConfiguration", maxJSONRequest, &in); err != nil {
		writeError(w, err)
		return
	}
	cfg, err := s.UpdateConfiguration(name, in)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, cfg)
}

func (s *Service) httpUpdateFunctionCode(w http.ResponseWriter, r *http.Request, name string) {
	var in UpdateCodeInput
	if err := readJSON(r, "UpdateFunctionCode", maxZipRequest+4096, &in); err != nil {
		writeError(w, err)
		return
	}
	cfg, err := s.UpdateCode(name, in)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, cfg)
}

func (s *Service) httpDeleteFunction(w http.ResponseWriter, r *http.Request, name string) {
	if q := r.URL.Query().Get("Qualifier"); q != "" && q != "$LATEST" {
		writeError(w, errorf(ErrInvalidParameter, "Deletion of versions is not supported by the taskpipe local cloud"))
		return
	}
	if err := s.Delete(name); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type reservedConcurrency struct {
	ReservedConcurrentExecutions *int `json:"ReservedConcurrentExecutions"`
}

func (s *Service) httpPutConcurrency(w http.ResponseWriter, r *http.Request, name string) {
	var in reservedConcurrency
	if err := readJSON(r, "PutFunctionConcurrency", maxJSONRequest, &in); err != nil {
		writeError(w, err)
		return
	}
	if in.ReservedConcurrentExecutions == nil {
		writeError(w, errValidation("null", "reservedConcurrentExecutions", "Member must not be null"))
		return
	}
	if err := s.PutConcurrency(name, *in.ReservedConcurrentExecutions); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, in)
}

func (s *Service) httpGetConcurrency(w http.ResponseWriter, _ *http.Request, name string) {
	n, ok, err := s.Concurrency(name)
	if err != nil {
		fail(w, err)
		return
	}
	out := reservedConcurrency{}
	if ok {
		out.ReservedConcurrentExecutions = &n
	}
	// Without a reservation the body is {} (the member is absent).
	if out.ReservedConcurrentExecutions == nil {
		writeJSON(w, http.StatusOK, struct{}{})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Service) httpDeleteConcurrency(w http.ResponseWriter, _ *http.Request, name string) {
	if err := s.DeleteConcurrency(name); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// MappingTagger is the tagging API of the event source mapping service.
// The Lambda tagging operations (/2017-03-31/tags/{ARN}) cover mappings
// too; when Options.EventSourceMappings implements this interface, tag
// requests for mapping ARNs go to it.
type MappingTagger interface {
	Tags(arn string) (map[string]string, error)
	TagResource(arn string, tags map[string]string) error
	UntagResource(arn string, keys []string) error
}

// mappingTagger returns the mapping service's tagging API when arn names
// an event source mapping.
func (s *Service) mappingTagger(arn string) (MappingTagger, bool) {
	if !strings.Contains(arn, ":event-source-mapping:") {
		return nil, false
	}
	mt, ok := s.opts.EventSourceMappings.(MappingTagger)
	return mt, ok
}

// failForeign writes an error from another service: its Error() is
// "<Type>: <message>", as every local cloud service error is.
func failForeign(w http.ResponseWriter, err error) {
	var own *Error
	if errors.As(err, &own) {
		writeError(w, own)
		return
	}
	typ, msg, ok := strings.Cut(err.Error(), ": ")
	if !ok || strings.ContainsAny(typ, " .") {
		writeError(w, &Error{Type: "ServiceException", Status: http.StatusInternalServerError, Message: err.Error()})
		return
	}
	status := http.StatusBadRequest
	switch typ {
	case ErrNotFound.Type:
		status = http.StatusNotFound
	case ErrConflict.Type:
		status = http.StatusConflict
	case "ServiceException":
		status = http.StatusInternalServerError
	}
	writeError(w, &Error{Type: typ, Status: status, Message: msg})
}

func (s *Service) httpTagResource(w http.ResponseWriter, r *http.Request, arn string) {
	var in struct {
		Tags map[string]string `json:"Tags"`
	}
	if err := readJSON(r, "TagResource", maxJSONRequest, &in); err != nil {
		writeError(w, err)
		return
	}
	var err error
	if mt, ok := s.mappingTagger(arn); ok {
		if verr := validateTags(in.Tags); verr != nil {
			writeError(w, verr)
			return
		}
		err = mt.TagResource(arn, in.Tags)
	} else {
		err = s.Tag(arn, in.Tags)
	}
	if err != nil {
		failForeign(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) httpUntagResource(w http.ResponseWriter, r *http.Request, arn string) {
	keys := r.URL.Query()["tagKeys"]
	var err error
	if mt, ok := s.mappingTagger(arn); ok {
		err = mt.UntagResource(arn, keys)
	} else {
		err = s.Untag(arn, keys)
	}
	if err != nil {
		failForeign(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) httpListTags(w http.ResponseWriter, _ *http.Request, arn string) {
	var tags map[string]string
	var err error
	if mt, ok := s.mappingTagger(arn); ok {
		tags, err = mt.Tags(arn)
	} else {
		tags, err = s.Tags(arn)
	}
	if err != nil {
		failForeign(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]map[string]string{"Tags": tags})
}

// httpInvoke serves Invoke (docs/aws-behaviour.md §4.7): the payload is the
// body; X-Amz-Invocation-Type picks RequestResponse (200), Event (202) or
// DryRun (204); function errors come back as 200 with
// X-Amz-Function-Error: Unhandled.
func (s *Service) httpInvoke(w http.ResponseWriter, r *http.Request, name string) {
	var opts InvokeOptions
	switch t := r.Header.Get("X-Amz-Invocation-Type"); t {
	case "", "RequestResponse":
		opts.Type = Sync
	case "Event":
		opts.Type = Async
	case "DryRun":
		opts.Type = DryRun
	default:
		writeError(w, errValidation(t, "invocationType", "Member must satisfy enum value set: [Event, RequestResponse, DryRun]"))
		return
	}
	opts.Qualifier = r.URL.Query().Get("Qualifier")
	opts.TraceID = r.Header.Get("X-Amzn-Trace-Id")
	switch lt := r.Header.Get("X-Amz-Log-Type"); lt {
	case "", "None":
	case "Tail":
		opts.LogTail = opts.Type == Sync
	default:
		writeError(w, errValidation(lt, "logType", "Member must satisfy enum value set: [None, Tail]"))
		return
	}
	if cc := r.Header.Get("X-Amz-Client-Context"); cc != "" {
		raw, err := base64.StdEncoding.DecodeString(cc)
		if err != nil || len(cc) > 3583 || !json.Valid(raw) {
			writeError(w, errorf(ErrInvalidRequestContent, "Client context must be a valid Base64-encoded JSON object of at most 3583 bytes."))
			return
		}
		opts.ClientContext = string(raw)
	}
	limit := int64(maxSyncPayload)
	if opts.Type == Async {
		limit = maxAsyncPayload
	}
	payload, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeError(w, errorf(ErrInvalidRequestContent, "read request body: %v", err))
		return
	}
	res, ierr := s.Invoke(r.Context(), name, payload, opts)
	if ierr != nil {
		fail(w, ierr)
		return
	}
	w.Header().Set("X-Amzn-RequestId", res.RequestID)
	switch res.StatusCode {
	case http.StatusAccepted, http.StatusNoContent:
		w.WriteHeader(res.StatusCode)
		return
	}
	w.Header().Set("X-Amz-Executed-Version", res.ExecutedVersion)
	if res.FunctionError != "" {
		w.Header().Set("X-Amz-Function-Error", res.FunctionError)
	}
	if opts.LogTail {
		w.Header().Set("X-Amz-Log-Result", base64.StdEncoding.EncodeToString([]byte(res.LogTail)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(res.Payload) // the caller went away; nothing left to tell it
}
