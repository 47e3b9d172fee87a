package fixtureweb

import (
	"encoding/json"
	"net/http"
)

// Stats are the web's request counters since New. Comparing them with the
// Requests of each Expectation shows the extra fetches that duplicate
// deliveries and retries cost.
type Stats struct {
	// Requests counts requests to site pages (every path under /site/<id>/
	// of an existing site).
	Requests int64 `json:"requests"`
	// ByBehavior splits Requests by the site's behaviour.
	ByBehavior map[Behavior]int64 `json:"byBehavior"`
	// BySite counts the requests to each site that had any.
	BySite map[int]int64 `json:"bySite"`
	// HomeBySite counts the requests to each site's home page (the count
	// flaky and rate-limited sites heal by).
	HomeBySite map[int]int64 `json:"homeBySite"`
	// ByStatus counts responses by status code, site pages and others.
	ByStatus map[int]int64 `json:"byStatus"`
	// RobotsRequests counts requests for /robots.txt, on every listener.
	RobotsRequests int64 `json:"robotsRequests"`
	// Aborted counts requests the client gave up on before any answer.
	Aborted int64 `json:"aborted"`
	// Other counts requests outside the sites: the index, unknown paths
	// and site ids, other methods. The stats endpoint counts nowhere.
	Other int64 `json:"other"`
}

// Stats returns a snapshot of the counters. Counters move independently,
// so a snapshot taken under load may be a few requests apart between
// fields; at rest it is exact.
func (w *Web) Stats() Stats {
	s := Stats{
		Requests:       w.requests.Load(),
		ByBehavior:     make(map[Behavior]int64),
		BySite:         make(map[int]int64),
		HomeBySite:     make(map[int]int64),
		ByStatus:       make(map[int]int64),
		Aborted:        w.aborted.Load(),
		RobotsRequests: w.robotsRequests.Load(),
		Other:          w.other.Load(),
	}
	for i, b := range Behaviors() {
		if n := w.byBehavior[i].Load(); n > 0 {
			s.ByBehavior[b] = n
		}
	}
	for id := range w.hits {
		if n := w.hits[id].Load(); n > 0 {
			s.BySite[id] = n
		}
		if n := w.home[id].Load(); n > 0 {
			s.HomeBySite[id] = n
		}
	}
	for code := range w.byStatus {
		if n := w.byStatus[code].Load(); n > 0 {
			s.ByStatus[code] = n
		}
	}
	return s
}

// Requests returns the number of requests to any page of site id.
func (w *Web) Requests(id int) int64 {
	if id < 0 || id >= len(w.hits) {
		return 0
	}
	return w.hits[id].Load()
}

// serveStats answers a GET or HEAD of StatsPath with Stats as JSON.
func (w *Web) serveStats(sw http.ResponseWriter) {
	b, err := json.Marshal(w.Stats())
	if err != nil {
		http.Error(sw, "fixtureweb: stats: "+err.Error(), http.StatusInternalServerError)
		return
	}
	sw.Header().Set("Content-Type", "application/json")
	sw.Header().Set("Cache-Control", "no-store")
	_, _ = sw.Write(append(b, '\n')) // an error means the client left
}
