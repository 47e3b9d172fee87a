package schedule

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxBody bounds a request body; schedule requests are small.
const maxBody = 1 << 20

// ServeHTTP serves the EventBridge Scheduler REST-JSON API (paths of
// aws-sdk-go-v2 service/scheduler serializers.go):
//
//	POST/GET/PUT/DELETE /schedules/{Name}   Create/Get/Update/DeleteSchedule
//	GET                 /schedules          ListSchedules
//	POST/GET/DELETE     /schedule-groups/{Name}  Create/Get/DeleteScheduleGroup
//	GET                 /schedule-groups    ListScheduleGroups
//	GET/POST/DELETE     /tags/{ResourceArn} ListTagsForResource/TagResource/UntagResource
//
// It names each operation for the router's counters.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	q := r.URL.Query()
	switch {
	case path == "/schedules":
		s.serveList(w, r, q)
		return
	case path == "/schedule-groups":
		s.serveGroupList(w, r, q)
		return
	case strings.HasPrefix(path, "/schedules/"):
		if name, ok := segment(path, "/schedules/"); ok {
			s.serveSchedule(w, r, name, q)
			return
		}
	case strings.HasPrefix(path, "/schedule-groups/"):
		if name, ok := segment(path, "/schedule-groups/"); ok {
			s.serveGroup(w, r, name)
			return
		}
	case strings.HasPrefix(path, "/tags/"):
		if arn, err := url.PathUnescape(strings.TrimPrefix(path, "/tags/")); err == nil && arn != "" {
			s.serveTags(w, r, arn, q)
			return
		}
	}
	writeError(w, errorf(ErrValidation, "%s %s is not an EventBridge Scheduler operation emulated by the taskpipe local cloud.", r.Method, path))
}

// segment returns the single unescaped path segment after prefix.
func segment(path, prefix string) (string, bool) {
	raw := strings.TrimPrefix(path, prefix)
	if raw == "" || strings.Contains(raw, "/") {
		return "", false
	}
	v, err := url.PathUnescape(raw)
	return v, err == nil
}

func (s *Service) serveList(w http.ResponseWriter, r *http.Request, q url.Values) {
	if r.Method != http.MethodGet {
		writeError(w, errorf(ErrValidation, "%s /schedules is not an EventBridge Scheduler operation.", r.Method))
		return
	}
	if !begin(w, r, "ListSchedules") {
		return
	}
	n, err := intParam(q, "MaxResults")
	if err != nil {
		writeError(w, err)
		return
	}
	res, err := s.List(ListRequest{
		GroupName: q.Get("ScheduleGroup"), NamePrefix: q.Get("NamePrefix"), State: q.Get("State"),
		MaxResults: n, NextToken: q.Get("NextToken"),
	})
	respond(w, res, err)
}

func (s *Service) serveGroupList(w http.ResponseWriter, r *http.Request, q url.Values) {
	if r.Method != http.MethodGet {
		writeError(w, errorf(ErrValidation, "%s /schedule-groups is not an EventBridge Scheduler operation.", r.Method))
		return
	}
	if !begin(w, r, "ListScheduleGroups") {
		return
	}
	n, err := intParam(q, "MaxResults")
	if err != nil {
		writeError(w, err)
		return
	}
	res, err := s.ListGroups(q.Get("NamePrefix"), n, q.Get("NextToken"))
	respond(w, res, err)
}

func (s *Service) serveSchedule(w http.ResponseWriter, r *http.Request, name string, q url.Values) {
	switch r.Method {
	case http.MethodPost:
		if !begin(w, r, "CreateSchedule") {
			return
		}
		var req ScheduleRequest
		if !decode(w, r, &req) {
			return
		}
		arn, err := s.Create(name, req)
		respond(w, map[string]string{"ScheduleArn": arn}, err)
	case http.MethodGet:
		if !begin(w, r, "GetSchedule") {
			return
		}
		out, err := s.Get(q.Get("groupName"), name)
		respond(w, out, err)
	case http.MethodPut:
		if !begin(w, r, "UpdateSchedule") {
			return
		}
		var req ScheduleRequest
		if !decode(w, r, &req) {
			return
		}
		arn, err := s.Update(name, req)
		respond(w, map[string]string{"ScheduleArn": arn}, err)
	case http.MethodDelete:
		if !begin(w, r, "DeleteSchedule") {
			return
		}
		respond(w, struct{}{}, s.Delete(q.Get("groupName"), name))
	default:
		writeError(w, errorf(ErrValidation, "%s /schedules/{Name} is not an EventBridge Scheduler operation.", r.Method))
	}
}

func (s *Service) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	switch r.Method {
	case http.MethodPost:
		if !begin(w, r, "CreateScheduleGroup") {
			return
		}
		var req struct {
			ClientToken *string `json:"ClientToken"`
			Tags        []Tag   `json:"Tags"`
		}
		if !decode(w, r, &req) {
			return
		}
		arn, err := s.CreateGroup(name, req.Tags)
		respond(w, map[string]string{"ScheduleGroupArn": arn}, err)
	case http.MethodGet:
		if !begin(w, r, "GetScheduleGroup") {
			return
		}
		out, err := s.GetGroup(name)
		respond(w, out, err)
	case http.MethodDelete:
		if !begin(w, r, "DeleteScheduleGroup") {
			return
		}
		respond(w, struct{}{}, s.DeleteGroup(name))
	default:
		writeError(w, errorf(ErrValidation, "%s /schedule-groups/{Name} is not an EventBridge Scheduler operation.", r.Method))
	}
}

func (s *Service) serveTags(w http.ResponseWriter, r *http.Request, arn string, q url.Values) {
	switch r.Method {
	case http.MethodGet:
		if !begin(w, r, "ListTagsForResource") {
			return
		}
		tags, err := s.Tags(arn)
		respond(w, map[string][]Tag{"Tags": tags}, err)
	case http.MethodPost:
		if !begin(w, r, "TagResource") {
			return
		}
		var req struct {
			Tags []Tag `json:"Tags"`
		}
		if !decode(w, r, &req) {
			return
		}
		respond(w, struct{}{}, s.TagResource(arn, req.Tags))
	case http.MethodDelete:
		if !begin(w, r, "UntagResource") {
			return
		}
		respond(w, struct{}{}, s.UntagResource(arn, q["TagKeys"]))
	default:
		writeError(w, errorf(ErrValidation, "%s /tags/{ResourceArn} is not an EventBridge Scheduler operation.", r.Method))
	}
}

func intParam(q url.Values, name string) (int, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errorf(ErrValidation, "%s %q is not an integer.", name, v)
	}
	if n == 0 {
		return 0, errRange(strings.ToLower(name[:1])+name[1:], 0, 1, 100)
	}
	return n, nil
}

// decode reads a JSON body; a malformed one is a ValidationException.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, errorf(ErrValidation, "Could not read the request body: %v", err))
		return false
	}
	if strings.TrimSpace(string(body)) == "" {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, errorf(ErrValidation, "Could not parse the request body as JSON: %v", err))
		return false
	}
	return true
}

func respond(w http.ResponseWriter, v any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

// writeError writes err in the Scheduler error shape; errors that are not
// *Error are internal.
func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = errorf(ErrInternal, "%v", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", e.Type)
	w.WriteHeader(e.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"Message": e.Message}) // the client went away
}

// AdminHandler serves the local cloud's schedule controls, to be mounted
// under emu.AdminPrefix+"schedules/":
//
//	POST /_taskpipe/schedules/{group}/{name}/fire   invoke the target now (200 Firing,
//	                                                404 no schedule, 502 refused)
//	GET  /_taskpipe/schedules/{group}/{name}        the schedule and its Stats
//
// Only the part of the path after "/schedules/" is read, so any mount
// point ending in /schedules/ works.
func (s *Service) AdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, rest, ok := strings.Cut(r.URL.Path, "/schedules/")
		parts := strings.Split(rest, "/")
		switch {
		case ok && len(parts) == 3 && parts[2] == "fire" && r.Method == http.MethodPost:
			f, err := s.Fire(r.Context(), parts[0], parts[1])
			switch {
			case errors.Is(err, ErrNotFound):
				adminJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
			case err != nil:
				adminJSON(w, http.StatusBadGateway, map[string]any{"error": err.Error(), "firing": f})
			default:
				adminJSON(w, http.StatusOK, f)
			}
		case ok && len(parts) == 2 && r.Method == http.MethodGet:
			out, err := s.Get(parts[0], parts[1])
			if err != nil {
				adminJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
				return
			}
			st, _ := s.Stats(parts[0], parts[1])
			adminJSON(w, http.StatusOK, map[string]any{"schedule": out, "stats": st})
		default:
			adminJSON(w, http.StatusNotFound, map[string]string{
				"error": "no schedule admin endpoint " + r.Method + " " + r.URL.Path +
					"; use POST …/schedules/{group}/{name}/fire or GET …/schedules/{group}/{name}",
			})
		}
	})
}

func adminJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}
