package fixtureweb

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Robots is what the robots.txt of a site's origin says. A robots.txt
// governs a whole origin (RFC 9309 §2.3), and the sites share one host, so
// Start serves each variant on a listener of its own and each site lives
// on the listener of its variant.
type Robots string

// The robots.txt variants. Each comment says what the scraper (package
// scrape, Crawl) makes of it.
const (
	// RobotsNone: 404, no file: everything is allowed.
	RobotsNone Robots = "none"
	// RobotsAllow: a file that allows everything.
	RobotsAllow Robots = "allow"
	// RobotsDisallowAll: "Disallow: /": the task fails with kind robots,
	// with no request to the site.
	RobotsDisallowAll Robots = "disallow-all"
	// RobotsDisallowKey: the contact pages are disallowed: the crawl skips
	// that key page.
	RobotsDisallowKey Robots = "disallow-key"
	// RobotsServerError: 503 on every request: unreachable, everything is
	// disallowed, the task fails with kind robots after the client's
	// attempts at the file.
	RobotsServerError Robots = "server-error"
	// RobotsCrawlDelay: "Crawl-delay: 1": the key pages come one second
	// apart.
	RobotsCrawlDelay Robots = "crawl-delay"
)

// RobotsVariants returns every variant in a fixed order (part of what a
// seed means).
func RobotsVariants() []Robots {
	return []Robots{RobotsNone, RobotsAllow, RobotsDisallowAll, RobotsDisallowKey, RobotsServerError, RobotsCrawlDelay}
}

// DefaultRobots weighs the variants: most sites have no robots.txt.
func DefaultRobots() map[Robots]int {
	return map[Robots]int{RobotsNone: 82, RobotsAllow: 6, RobotsDisallowAll: 3, RobotsDisallowKey: 3,
		RobotsServerError: 3, RobotsCrawlDelay: 3}
}

// crawlDelay is the Crawl-delay of RobotsCrawlDelay.
const crawlDelay = time.Second

// robotsBody is the file of each variant that has one.
var robotsBody = map[Robots]string{
	RobotsAllow:       "# fixture web: everything allowed\nUser-agent: *\nAllow: /\n",
	RobotsDisallowAll: "User-agent: *\nDisallow: /\n",
	RobotsDisallowKey: "User-agent: *\nDisallow: /site/*/contact\n",
	RobotsCrawlDelay:  fmt.Sprintf("User-agent: *\nCrawl-delay: %d\nAllow: /\n", int(crawlDelay/time.Second)),
}

// disallows reports whether variant v's file disallows path.
func (v Robots) disallows(path string) bool {
	switch v {
	case RobotsDisallowAll, RobotsServerError:
		return true
	case RobotsDisallowKey:
		return strings.HasPrefix(path, "/site/") && strings.Contains(path, "/contact")
	}
	return false
}

func validateRobots(m map[Robots]int) error {
	for v, w := range m {
		if !slices.Contains(RobotsVariants(), v) {
			return fmt.Errorf("robots variant %q unknown", v)
		}
		if w < 0 {
			return fmt.Errorf("robots variant %s has a negative weight", v)
		}
	}
	return nil
}

// drawRobots picks site id's variant from the seed alone.
func drawRobots(c *Config, id int) Robots {
	total := 0
	for _, v := range RobotsVariants() {
		total += c.Robots[v]
	}
	if total == 0 {
		return RobotsNone
	}
	k := int(unit(c.Seed, id, streamRobots) * float64(total))
	for _, v := range RobotsVariants() {
		if k < c.Robots[v] {
			return v
		}
		k -= c.Robots[v]
	}
	return RobotsNone
}

// serveRobots answers GET /robots.txt of an origin of variant v.
func (w *Web) serveRobots(rw http.ResponseWriter, v Robots) {
	w.robotsRequests.Add(1)
	switch v {
	case RobotsNone:
		http.NotFound(rw, nil)
	case RobotsServerError:
		http.Error(rw, "robots.txt is unavailable", http.StatusServiceUnavailable)
	default:
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = rw.Write([]byte(robotsBody[v])) // an error means the client left
	}
}
