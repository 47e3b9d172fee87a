// Package scrape fetches the websites that users name. Client.Crawl builds
// a site document (package site) politely: the robots.txt of each origin
// first (RFC 9309, once per crawl), then the start page, then up to
// Options.MaxPages key pages of the same registrable domain, with
// Crawl-delay, byte and time budgets, and an opt-out list; each page is
// summarized in one streaming pass (title, description, canonical URL,
// language, first heading, link counts, e-mail addresses, social profiles,
// links, tel: links, JSON-LD, hreflang) and its main content extracted
// (maintext.Extract). Client.Scrape fetches one page only. It knows
// nothing about tasks or AWS; it classifies its errors with task.Fatal,
// task.Retryable, task.Robots and task.OptedOut so that the scraper's
// decision table can read task.KindOf(err).
//
// # Safety (docs/design.md §7)
//
// The URLs come from users and the fetches run inside AWS, so the Client
//
//   - normalizes the URL first (internal/weburl): http and https only, no
//     credentials, no odd numeric hosts;
//   - checks every connection at dial time, after DNS resolution, in
//     net.Dialer.Control, against an allow-list: only addresses that the
//     IANA special-purpose registries call globally reachable (for IPv6,
//     inside 2000::/3) may be dialled, judged through the IPv4-mapped,
//     -translated, -compatible, NAT64, 6to4 and Teredo forms that embed an
//     IPv4 address. The cloud metadata and credential endpoints are refused
//     in every form, even with AllowPrivateNetworks. Because the check runs
//     on the address actually dialled, a redirect to such an address and
//     DNS rebinding are refused the same way. The environment's HTTP proxy
//     is ignored for the same reason;
//   - follows at most 5 redirects, each to http or https only;
//   - bounds each attempt with Options.FetchTimeout and all attempts with
//     the caller's context;
//   - reads at most Options.MaxBodyBytes (5 MiB) of body, counted after
//     decompression, so a gzip bomb costs no more than a plain page.
//
// A body longer than the cap is not an error: the page is summarized from
// its first MaxBodyBytes and Summary.Truncated is true. Big pages are
// normal (shops, catalogues), and their head and first screen, where the
// fields live, come first.
//
// Local runs reach the fixture web on 127.0.0.1 through
// Options.AllowPrivateNetworks (everything except the metadata endpoints) or
// Options.AllowAddrs (exact ip:port exceptions, what the tests use to reach
// their httptest server while proving that any other loopback port stays
// blocked). The zero Options allow neither.
//
// # Errors
//
// Fatal, not retried: an invalid URL, a blocked address, too many
// redirects or a redirect to a non-website, a 4xx other than 408 and 429, a
// response that is not HTML (by Content-Type, or sniffed when there is
// none), a name that does not exist (NXDOMAIN), a TLS certificate that does
// not verify, a Content-Encoding the client did not offer. Retryable, up to
// Options.MaxAttempts fetches with exponential backoff and full jitter:
// timeouts, connection errors and resets, 408, 429 and 5xx. A Retry-After
// on 429 or 503 replaces the backoff when it is at most
// Options.MaxRetryAfter; a longer one ends the fetch with a retryable
// *StatusError that carries it.
//
// # Extraction design
//
// goquery builds a full DOM, and the DOM of a 5 MiB page can take several
// times the page in memory (every element, attribute and text node is a
// heap object). So extraction runs in one streaming pass of the
// golang.org/x/net/html tokenizer, which holds one token at a time:
//
//   - the tokenizer pass counts visible text, classifies every <a href> as
//     internal or external by registrable domain, and collects e-mail
//     addresses (mailto: links and the visible text) and social profile
//     links;
//   - it reads the head fields from their tokens: <html lang>, the first
//     <title>, the relevant <meta> tags and <link rel=canonical>, each
//     value capped;
//   - it rebuilds the first <h1> into a small fragment (tag names and text,
//     never attributes; at most 32 elements deep and 16 KiB), which goquery
//     parses so that inline elements and implied end tags follow the HTML
//     parsing rules. If that parse fails, only the heading is lost.
//
// Nothing is copied raw, so a huge or deeply nested tag costs nothing in
// the fragment. The tokenizer's buffer is capped at 1 MiB (SetMaxBuf),
// which bounds one tag's attributes; a longer token ends the page as a
// truncation. Charset conversion runs before a second cap of MaxBodyBytes
// on the UTF-8 stream, because x-user-defined turns each high byte into
// three bytes.
//
// Measured peak heap for 5 MiB pages (TestExtractPeakHeap,
// TestHostilePagesPeakHeap; BenchmarkGoqueryDOMPeakHeap is the full-DOM
// design for comparison): a real-shaped shop page 4 MiB against 38 MiB; a
// page of nothing but links 13 MiB against 64 MiB; one 5 MiB text node
// 2 MiB (cut at the token cap); a start tag with a million distinct
// attribute names 21-31 MiB (it was 181-418 MiB before the token cap).
package scrape
