package scrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/temoto/robotstxt"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// MaxRobotsBytes is how much of a robots.txt is read: RFC 9309 §2.5 asks
// crawlers to parse at least 500 KiB, and lets them ignore the rest.
const MaxRobotsBytes = 500 << 10

// robots is the robots.txt of one origin, as one crawl sees it.
type robots struct {
	verdict site.RobotsVerdict
	group   *robotstxt.Group // nil unless verdict.Outcome is RobotsRules
	fetch   site.Fetch
}

// allowed reports whether u may be fetched, and if not, why.
func (r *robots) allowed(u *url.URL, agent string) (bool, string) {
	switch r.verdict.Outcome {
	case site.RobotsAllowAll:
		return true, ""
	case site.RobotsDisallowAll:
		return false, fmt.Sprintf("robots.txt %s is unreachable (%s), so everything is disallowed (RFC 9309 §2.3.1.4)",
			r.verdict.URL, r.verdict.Error)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	if r.group.Test(p) {
		return true, ""
	}
	// The library does not say which rule matched; the shortest
	// disallowed prefix of the path names it closely enough for a person
	// to find it in the file.
	// Bounded: each Test scans the group's rules, and a 500 KiB file can
	// hold tens of thousands.
	rule := p
	for i := 1; i <= min(len(p), 256); i++ {
		if !r.group.Test(p[:i]) {
			rule = p[:i]
			break
		}
	}
	return false, fmt.Sprintf("robots.txt %s disallows %s for user-agent %s (rule Disallow: %s)",
		r.verdict.URL, p, agent, rule)
}

// crawlDelay is the Crawl-delay of the group that applies.
func (r *robots) crawlDelay() time.Duration {
	if r.group == nil {
		return 0
	}
	return r.group.CrawlDelay
}

// fetchRobots reads origin's robots.txt through the same client, policy
// and retries as pages, and judges it (RFC 9309 §2.3.1): a 2xx body's
// rules apply; a 4xx means no file, so everything is allowed (§2.3.1.3);
// more than MaxRedirects redirects mean the same (§2.3.1.2); a 5xx, a 429
// (treated like a server error, as Google's crawler does), or a network
// error make it unreachable, so everything is disallowed (§2.3.1.4). A
// fatal error that any request to the origin would meet (a blocked
// address, a name that does not exist) is returned instead.
func (c *Client) fetchRobots(ctx context.Context, origin *url.URL, agent string) (*robots, error) {
	u := origin.JoinPath("robots.txt")
	r := &robots{
		verdict: site.RobotsVerdict{Origin: origin.String(), URL: u.String()},
		fetch:   site.Fetch{URL: u.String(), Role: site.RoleRobots},
	}
	var body []byte
	start := c.opts.Now()
	n, _, err := c.withRetries(ctx, u, func(ctx context.Context) error {
		return c.get(ctx, u, acceptRobots, func(f fetched, b io.Reader) error {
			r.verdict.Status = f.status
			capped := &capReader{r: b, left: MaxRobotsBytes}
			var rerr error
			body, rerr = io.ReadAll(capped)
			if rerr != nil {
				return fmt.Errorf("read robots.txt: %w", rerr)
			}
			r.fetch.Truncated = capped.truncated
			return nil
		})
	})
	r.fetch.Attempts = n
	r.fetch.FetchMillis = c.opts.Now().Sub(start).Milliseconds()
	r.fetch.Bytes = int64(len(body))
	r.verdict.Bytes = int64(len(body))
	var se *StatusError
	switch {
	case err == nil:
		r.fetch.Outcome, r.fetch.Status = site.FetchOK, r.verdict.Status
		data, perr := robotstxt.FromBytes(body)
		if perr != nil {
			// A file the parser refuses has no rules it can apply.
			r.verdict.Outcome, r.verdict.Error = site.RobotsAllowAll, "unparseable: "+perr.Error()
			return r, nil
		}
		r.verdict.Outcome, r.group = site.RobotsRules, data.FindGroup(agent)
		r.verdict.CrawlDelaySeconds = r.group.CrawlDelay.Seconds()
		return r, nil
	case errors.As(err, &se) && se.Code >= 400 && se.Code < 500 && se.Code != http.StatusTooManyRequests:
		r.fetch.Outcome, r.fetch.Status, r.fetch.Error = site.FetchOK, se.Code, se.Error()
		r.verdict.Status, r.verdict.Outcome = se.Code, site.RobotsAllowAll
		return r, nil
	case errors.Is(err, ErrTooManyRedirects):
		r.fetch.Outcome, r.fetch.Error = site.FetchFailed, err.Error()
		r.verdict.Outcome, r.verdict.Error = site.RobotsAllowAll, "more than 5 redirects: unavailable"
		return r, nil
	case errors.Is(err, ErrBlockedAddress) || isNXDomain(err) || ctx.Err() != nil:
		return nil, err
	}
	if errors.As(err, &se) {
		r.fetch.Status, r.verdict.Status = se.Code, se.Code
	}
	r.fetch.Outcome, r.fetch.Error = site.FetchFailed, err.Error()
	r.verdict.Outcome, r.verdict.Error = site.RobotsDisallowAll, shortError(err)
	return r, nil
}

// shortError is the innermost cause of err, for a verdict.
func shortError(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg)-i < 200 {
		return msg[i+2:]
	}
	return task.Truncate(msg, 200)
}
