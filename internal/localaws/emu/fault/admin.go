package fault

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// AdminHandler serves the injector's control API. Mount it at
// /_taskpipe/faults and /_taskpipe/faults/ (only the path's last element
// matters):
//
//	GET    …/faults          the current Config, plus "seed"
//	PUT    …/faults[?seed=N] replace the Config (validated; 400 with every
//	                          problem listed); seed, when given, restarts
//	                          the decision streams
//	DELETE …/faults          turn every fault off
//	GET    …/faults/stats    Stats: counters of injected faults and kills
//	DELETE …/faults/stats    zero the counters
func (in *Injector) AdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimRight(r.URL.Path, "/")
		switch {
		case strings.HasSuffix(path, "/stats"):
			in.serveStats(w, r)
		case strings.HasSuffix(path, "/faults") || path == "":
			in.serveConfig(w, r)
		default:
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no fault endpoint " + r.URL.Path})
		}
	})
}

type configView struct {
	Config
	Seed uint64 `json:"seed"`
}

func (in *Injector) serveConfig(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodPut:
		var seed *uint64
		if s := r.URL.Query().Get("seed"); s != "" {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("seed %q is not an unsigned integer", s)})
				return
			}
			seed = &v
		}
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		var cfg Config
		if err := dec.Decode(&cfg); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "fault config: " + err.Error()})
			return
		}
		if err := in.SetConfig(cfg); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		if seed != nil {
			in.Reseed(*seed)
		}
	case http.MethodDelete:
		if err := in.SetConfig(Config{}); err != nil {
			// The zero Config is always valid; reaching here is a bug.
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
	default:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET, PUT or DELETE"})
		return
	}
	writeJSON(w, http.StatusOK, configView{Config: in.Config(), Seed: in.Seed()})
}

func (in *Injector) serveStats(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodDelete:
		in.ResetStats()
	default:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET or DELETE"})
		return
	}
	writeJSON(w, http.StatusOK, in.Stats())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}
