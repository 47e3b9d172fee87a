package alarm

import (
	"encoding/json"
	"net/http"
	"strings"
)

// AdminHandler serves the local cloud's view of the alarms, for people and
// demos rather than SDKs:
//
//	GET  <mount>           {"alarms": [{"name", "state", "reason", ...}, ...]}
//	POST <mount>/evaluate  evaluates now (EvaluateNow), then answers as GET
//
// The lead mounts it under /_taskpipe/alarms; only the path's last element
// matters.
func (s *Service) AdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evaluate := strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/evaluate")
		switch {
		case evaluate && r.Method == http.MethodPost:
			s.EvaluateNow()
		case !evaluate && r.Method == http.MethodGet:
		default:
			writeAdmin(w, http.StatusMethodNotAllowed, map[string]string{
				"error": "use GET on the alarms endpoint or POST on its /evaluate"})
			return
		}
		writeAdmin(w, http.StatusOK, map[string]any{"alarms": s.Alarms()})
	})
}

func writeAdmin(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}
