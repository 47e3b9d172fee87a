package localcloud

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// routeAdmin registers the built-in admin endpoints:
//
//	GET  /_taskpipe/health        {"status":"ok","region":…,"account":…,"services":[…]}
//	GET  /_taskpipe/counts        [{"service":…,"operation":…,"count":…}, …]
//	GET  /_taskpipe/counts/callers  [{"caller":…,"service":…,"operation":…,"count":…}, …]
//	POST /_taskpipe/counts/reset  204, zeroes the counters (both views)
//
// Anything else under the prefix is a JSON 404 (or 405 for a known path with
// the wrong method).
func (c *Cloud) routeAdmin() {
	c.admin.HandleFunc("GET "+emu.AdminPrefix+"health", func(w http.ResponseWriter, _ *http.Request) {
		writeAdminJSON(w, http.StatusOK, map[string]any{
			"status":   "ok",
			"region":   c.cfg.Region,
			"account":  c.cfg.AccountID,
			"services": c.Services(),
			"inFlight": c.InFlight(),
		})
	})
	c.admin.HandleFunc("GET "+emu.AdminPrefix+"counts", func(w http.ResponseWriter, _ *http.Request) {
		writeAdminJSON(w, http.StatusOK, c.router.Counts())
	})
	c.admin.HandleFunc("GET "+emu.AdminPrefix+"counts/callers", func(w http.ResponseWriter, _ *http.Request) {
		writeAdminJSON(w, http.StatusOK, c.CountsByCaller())
	})
	c.admin.HandleFunc("POST "+emu.AdminPrefix+"counts/reset", func(w http.ResponseWriter, _ *http.Request) {
		c.ResetCounts()
		w.WriteHeader(http.StatusNoContent)
	})
	c.admin.HandleFunc(emu.AdminPrefix, func(w http.ResponseWriter, r *http.Request) {
		writeAdminJSON(w, http.StatusNotFound, map[string]string{"error": "no admin endpoint " + r.Method + " " + r.URL.Path})
	})
}

func writeAdminJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

type opKey struct{}

// reportOp is a router middleware that hands the identified operation to
// the logging wrapper; it never answers the request itself.
func reportOp(_ http.ResponseWriter, r *http.Request, op emu.Op) bool {
	if p, ok := r.Context().Value(opKey{}).(*emu.Op); ok {
		*p = op
	}
	return false
}

// statusRecorder remembers the status code a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logged wraps the router: it counts requests in flight and logs each one
// at Debug with the service and operation the router identified, the status
// and the time. The router reports the operation through a middleware, so
// the request is identified once.
func (c *Cloud) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, emu.AdminPrefix) {
			c.inFlight.Add(1)
			defer c.inFlight.Add(-1)
		}
		if !c.log.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now() // wall time of the request, not emulated time
		op := &emu.Op{}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), opKey{}, op)))
		service, operation := op.Service, op.Operation
		if service == "" {
			service, operation = "unidentified", r.Method+" "+r.URL.Path
		}
		c.log.Debug("request", "service", service, "operation", operation,
			"status", rec.status, "duration", time.Since(start).Round(time.Microsecond))
	})
}
