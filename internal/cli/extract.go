package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

var extractHelp = help{
	name:     "extract",
	synopsis: "[--url URL] FILE|-",
	text: `
Prints the site document (docs/site-document.md) that the scraper would
build from one saved HTML page, as indented JSON: the page's fields, its
main content as plain text (the top-level "text") and Markdown, contacts,
phone numbers and structured data. Nothing is fetched. FILE "-" reads
standard input. --url is the address the page was saved from: it resolves
links and picks the region for phone numbers (default
https://example.com/).
`,
}

var scrapeHelp = help{
	name:     "scrape",
	synopsis: "[--allow-private-networks] [--max-pages N] [--user-agent UA] URL",
	text: `
Crawls one website live under the scraper's production policy (robots.txt,
caps, budgets, the address policy) and prints its site document as
indented JSON; a failure prints the error and its kind (fatal, robots,
optout, retryable) and exits 1. --allow-private-networks lets it reach
loopback and private addresses, for local test servers.
`,
}

// Extract is "taskpipe extract".
func (e *Env) Extract(ctx context.Context, args []string) error {
	fs := e.newFlagSet(extractHelp)
	rawURL := fs.String("url", "https://example.com/", "the `URL` the page was saved from")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("extract: name one FILE, or - for standard input")
	}
	u, err := weburl.Normalize(*rawURL)
	if err != nil {
		return usagef("extract: --url: %v", err)
	}
	var r io.Reader = e.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		defer f.Close() // read-only
		r = f
	}
	c, err := scrape.New(scrape.Options{})
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	doc, err := c.ExtractDocument(ctx, r, u)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	return e.printDocument(doc)
}

// Scrape is "taskpipe scrape".
func (e *Env) Scrape(ctx context.Context, args []string) error {
	fs := e.newFlagSet(scrapeHelp)
	private := fs.Bool("allow-private-networks", false, "let the crawl reach loopback and private addresses (never metadata endpoints)")
	maxPages := fs.Int("max-pages", 0, "key pages besides the start page (0: the default, 5; -1: none)")
	ua := fs.String("user-agent", "", "User-Agent (default: the scraper's)")
	var allow addrList
	fs.Var(&allow, "allow-addr", "an exact `ip:port` the crawl may reach although it is not public (repeatable)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("scrape: name one URL")
	}
	c, err := scrape.New(scrape.Options{AllowPrivateNetworks: *private, AllowAddrs: allow, MaxPages: *maxPages, UserAgent: *ua})
	if err != nil {
		return usagef("scrape: %v", err)
	}
	doc, err := c.Crawl(ctx, pos[0])
	if err != nil {
		return fmt.Errorf("scrape: %w", err)
	}
	return e.printDocument(doc)
}

func (e *Env) printDocument(doc *site.Document) error {
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("print document: %w", err)
	}
	return nil
}

// addrList is a repeatable ip:port flag.
type addrList []netip.AddrPort

func (a *addrList) String() string {
	s := make([]string, len(*a))
	for i, ap := range *a {
		s[i] = ap.String()
	}
	return strings.Join(s, ",")
}

func (a *addrList) Set(v string) error {
	ap, err := netip.ParseAddrPort(v)
	if err != nil {
		return err
	}
	*a = append(*a, ap)
	return nil
}
