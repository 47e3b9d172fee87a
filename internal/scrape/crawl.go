package scrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/maintext"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// minKeyPageBytes is the least byte budget a key page is fetched with: a
// smaller one would yield little more than the page's head.
const minKeyPageBytes = 64 << 10

// crawl is one Crawl: its document, robots.txt cache, per-origin clock
// and byte budget.
type crawl struct {
	c         *Client
	b         *site.Builder
	agent     string
	robots    map[string]*robots   // by origin
	last      map[string]time.Time // last page fetch per origin
	bytesLeft int64
}

// Crawl fetches the website at rawURL politely and returns its site
// document: robots.txt of each origin first (once per Crawl), then the
// start page, then up to Options.MaxPages key pages of the same
// registrable domain chosen from the start page's links
// (site.ChooseKeyPages), each with at most MaxAttempts fetches, Crawl-delay
// kept between page fetches of one origin, and all of it within
// MaxCrawlBytes and ctx's deadline less Options.CrawlReserve.
//
// Only the start page decides the error: an invalid URL or any failure of
// the start page is returned with its task kind (as Scrape's); a domain on
// the opt-out list fails with task.KindOptOut before any request; a
// robots.txt that disallows the start URL, or that is unreachable, fails
// with task.KindRobots. A key page that fails, is disallowed or does not
// fit the budget is recorded in the document's fetches and skipped.
func (c *Client) Crawl(ctx context.Context, rawURL string) (*site.Document, error) {
	start := c.opts.Now()
	u, err := weburl.Normalize(rawURL)
	if err != nil {
		return nil, fmt.Errorf("scrape: crawl: %w", task.Fatal(err))
	}
	if d, ok := c.optedOut(u.Hostname()); ok {
		return nil, fmt.Errorf("scrape: crawl %s: %w", u, task.OptedOut(fmt.Errorf("%s is on the opt-out list", d)))
	}
	cr := &crawl{
		c: c, b: site.NewBuilder(u.String(), start, c.opts.UserAgent), agent: productToken(c.opts.UserAgent),
		robots: map[string]*robots{}, last: map[string]time.Time{}, bytesLeft: c.opts.MaxCrawlBytes,
	}
	rb, err := cr.robotsFor(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("scrape: crawl %s: %w", u, err)
	}
	if ok, why := rb.allowed(u, cr.agent); !ok {
		return nil, fmt.Errorf("scrape: crawl %s: %w", u, task.Robots(errors.New(why)))
	}
	pr, err := c.fetchPage(ctx, u, min(c.opts.MaxBodyBytes, cr.bytesLeft))
	cr.record(u, site.RoleStart, pr, err, c.opts.Now().Sub(start))
	if err != nil {
		return nil, err
	}
	cr.addPage(ctx, u, site.RoleStart, pr)
	for _, k := range site.ChooseKeyPages(pr.resp.finalURL, pr.page.Links, c.opts.MaxPages) {
		cr.keyPage(ctx, k)
	}
	return cr.b.Document(), nil
}

// productToken is the user agent's product name, which robots.txt groups
// match (RFC 9309 §2.2.1): "taskpipe-scraper" of
// "taskpipe-scraper/1.0 (+https://...)".
func productToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), "/")
	tok, _, _ = strings.Cut(tok, " ")
	return strings.ToLower(tok)
}

// optedOut reports whether host's registrable domain is on the opt-out
// list, and which entry matched.
func (c *Client) optedOut(host string) (string, bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range c.opts.OptOut {
		if host == d || strings.HasSuffix(host, "."+d) {
			return d, true
		}
	}
	return "", false
}

// origin is u's scheme://host[:port].
func origin(u *url.URL) *url.URL { return &url.URL{Scheme: u.Scheme, Host: u.Host} }

// robotsFor returns the robots.txt of u's origin, fetching it on first use.
func (cr *crawl) robotsFor(ctx context.Context, u *url.URL) (*robots, error) {
	o := origin(u)
	if r, ok := cr.robots[o.String()]; ok {
		return r, nil
	}
	r, err := cr.c.fetchRobots(ctx, o, cr.agent)
	if err != nil {
		return nil, err
	}
	cr.robots[o.String()] = r
	cr.b.AddRobots(r.verdict)
	cr.b.AddFetch(r.fetch)
	return r, nil
}

// record adds the provenance of a page fetch.
func (cr *crawl) record(u *url.URL, role site.PageRole, pr pageResult, err error, took time.Duration) {
	f := site.Fetch{
		URL: u.String(), Role: role, Outcome: site.FetchOK, Attempts: pr.attempts, Status: pr.page.Status,
		Bytes: pr.page.Bytes, FetchMillis: took.Milliseconds(), Truncated: pr.page.Truncated,
	}
	if err != nil {
		f.Outcome, f.Error = site.FetchFailed, task.Truncate(err.Error(), 500)
		var se *StatusError
		if errors.As(err, &se) {
			f.Status = se.Code
		}
	} else {
		cr.bytesLeft -= pr.page.Bytes
	}
	cr.last[origin(u).String()] = cr.c.opts.Now()
	cr.b.AddFetch(f)
}

// skip records a key page that was not fetched.
func (cr *crawl) skip(k site.KeyPage, outcome site.FetchOutcome, why string) {
	cr.b.AddFetch(site.Fetch{URL: k.URL, Role: k.Role, Outcome: outcome, Error: why})
}

// timeLeft is the time until ctx's deadline less the reserve; a large
// value when ctx has no deadline.
func (cr *crawl) timeLeft(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return time.Hour
	}
	return dl.Sub(cr.c.opts.Now()) - cr.c.opts.CrawlReserve
}

// keyPage fetches one key page if robots.txt, the budget and the
// Crawl-delay allow; whatever happens is recorded, nothing is returned.
func (cr *crawl) keyPage(ctx context.Context, k site.KeyPage) {
	u, err := url.Parse(k.URL)
	if err != nil {
		cr.skip(k, site.FetchFailed, err.Error())
		return
	}
	switch {
	case cr.bytesLeft < min(minKeyPageBytes, cr.c.opts.MaxBodyBytes):
		cr.skip(k, site.FetchSkipped, "the crawl's byte budget is spent")
		return
	case cr.timeLeft(ctx) <= 0:
		cr.skip(k, site.FetchSkipped, "the crawl's time budget is spent")
		return
	}
	rb, err := cr.robotsFor(ctx, u)
	if err != nil {
		cr.skip(k, site.FetchFailed, "robots.txt: "+err.Error())
		return
	}
	if ok, why := rb.allowed(u, cr.agent); !ok {
		cr.skip(k, site.FetchDisallowed, why)
		return
	}
	if d := rb.crawlDelay(); d > 0 {
		wait := cr.last[origin(u).String()].Add(d).Sub(cr.c.opts.Now())
		if wait > 0 {
			if wait >= cr.timeLeft(ctx) {
				cr.skip(k, site.FetchSkipped, fmt.Sprintf("Crawl-delay %v does not fit the crawl's time budget", d))
				return
			}
			if err := cr.c.opts.Sleep(ctx, wait); err != nil {
				cr.skip(k, site.FetchSkipped, "waiting for Crawl-delay: "+err.Error())
				return
			}
		}
	}
	kctx, cancel := cr.budgetContext(ctx)
	defer cancel()
	t0 := cr.c.opts.Now()
	pr, err := cr.c.fetchPage(kctx, u, min(cr.c.opts.MaxBodyBytes, cr.bytesLeft))
	cr.record(u, k.Role, pr, err, cr.c.opts.Now().Sub(t0))
	if err == nil {
		cr.addPage(kctx, u, k.Role, pr)
	}
}

// budgetContext ends CrawlReserve before ctx's deadline, so a key page
// never eats the time the caller keeps to write the outcome.
func (cr *crawl) budgetContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, dl.Add(-cr.c.opts.CrawlReserve))
	}
	return context.WithCancel(ctx)
}

// addPage extracts the page's main content and adds it to the document.
func (cr *crawl) addPage(ctx context.Context, u *url.URL, role site.PageRole, pr pageResult) {
	p := pr.page
	final := pr.resp.finalURL
	page := site.Page{
		URL: u.String(), FinalURL: final.String(), Role: role, Status: p.Status, ContentType: pr.resp.contentType,
		Bytes: p.Bytes, FetchedAt: pr.resp.at.UTC(), FetchMillis: pr.latency.Milliseconds(), Language: p.Lang,
		Title: p.Title, Description: p.Description, H1: p.H1, Canonical: p.Canonical, Alternates: p.Alternates,
		TextLength: p.TextLength, InternalLinks: p.InternalLinks, ExternalLinks: p.ExternalLinks, Truncated: p.Truncated,
	}
	content, err := maintext.Extract(ctx, p.Content, final, cr.c.opts.ContentTimeout)
	page.Text, page.Markdown, page.ContentTruncated = content.Text, content.Markdown, content.Truncated
	if err != nil {
		page.ContentError = strings.TrimPrefix(err.Error(), "site: extract content: ")
	}
	cr.b.AddPage(page, found(p, final, content.Organizations))
}

// found is what a page contributes to the site-level fields: its e-mail
// addresses and social profiles, its phone numbers (tel: links, then the
// visible text), and its organisations (JSON-LD, then microdata).
func found(p Page, final *url.URL, microdata []site.Organization) site.Found {
	region := site.RegionHint(final.Hostname(), p.Lang)
	f := site.Found{Emails: p.Emails, SiteName: p.SiteName}
	for _, s := range p.Socials {
		f.Socials = append(f.Socials, site.Social{Network: s.Network, URL: s.URL})
	}
	for _, raw := range p.TelLinks {
		if e, ok := site.NormalizePhone(raw, region); ok {
			f.Phones = append(f.Phones, site.Phone{E164: e, Raw: raw, Source: site.PhoneFromTelLink, Page: final.String()})
		}
	}
	for _, ph := range site.FindPhones(p.VisibleText, region) {
		ph.Page = final.String()
		f.Phones = append(f.Phones, ph)
	}
	for _, b := range p.JSONLD {
		f.Organizations = append(f.Organizations, site.ParseJSONLD(b, final, region)...)
	}
	for _, o := range microdata {
		if o.Telephone != "" && !strings.HasPrefix(o.Telephone, "+") {
			if e, ok := site.NormalizePhone(o.Telephone, region); ok {
				o.Telephone = e
			}
		}
		f.Organizations = append(f.Organizations, o)
	}
	return f
}

// isNXDomain reports a name that does not exist.
func isNXDomain(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d) && d.IsNotFound
}

// ExtractDocument builds the site document that Crawl would build from
// one page, read from r (a saved page, at most Options.MaxBodyBytes) as if
// it were the start page fetched from pageURL: the same parsing, main
// content, contacts and structured data, without any request (no robots
// verdict, no key pages, status 0).
func (c *Client) ExtractDocument(ctx context.Context, r io.Reader, pageURL *url.URL) (*site.Document, error) {
	p, err := ReadPage(r, "text/html", pageURL, c.opts.MaxBodyBytes)
	if err != nil {
		return nil, fmt.Errorf("scrape: extract %s: %w", pageURL, err)
	}
	now := c.opts.Now()
	cr := &crawl{c: c, b: site.NewBuilder(pageURL.String(), now, c.opts.UserAgent)}
	cr.addPage(ctx, pageURL, site.RoleStart, pageResult{page: p, resp: fetched{contentType: "text/html", finalURL: pageURL, at: now}})
	return cr.b.Document(), nil
}
