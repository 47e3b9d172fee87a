// Package scrape fetches the web pages that users name and summarizes them:
// title, description, canonical URL, language, first heading, link counts,
// e-mail addresses and social profiles. It knows nothing about tasks or AWS;
// it classifies its errors with task.Fatal and task.Retryable so that the
// scraper's decision table can read task.KindOf(err).
//
// # Safety (docs/design.md §7)
//
// The URLs come from users and the fetches run inside AWS, so the Client
//
//   - normalizes the URL first (internal/weburl): http and https only, no
//     credentials, no odd numeric hosts;
//   - checks every connection at dial time, after DNS resolution, in
//     net.Dialer.Control: loopback, private (RFC 1918), CGNAT, link-local,
//     unique-local, unspecified, multicast, reserved, the cloud metadata
//     endpoints, and the IPv4-mapped, NAT64 and 6to4 IPv6 forms of all of
//     them are refused. Because the check runs on the address actually
//     dialled, a redirect to such an address and DNS rebinding are refused
//     the same way. The environment's HTTP proxy is ignored for the same
//     reason;
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
//   - it also copies the raw markup of the few elements that carry the
//     structured fields into a small fragment: the <html> start tag, the
//     first <title>, the relevant <meta> tags, <link rel=canonical> and the
//     first <h1> with its content, each capped (256 KiB in all);
//   - goquery parses that fragment and extracts title, description,
//     canonical URL, language and heading with selectors, so entity
//     decoding, broken markup and inline elements in the heading follow the
//     HTML parsing rules.
//
// Measured peak heap for 5 MiB pages (BenchmarkExtractPeakHeap against
// BenchmarkGoqueryDOMPeakHeap, the full-DOM design): a real-shaped shop
// page 4-5 MiB against 38 MiB; a page of nothing but links 17 MiB against
// 64 MiB, the whole budget; one 5 MiB text node 28 MiB against 33 MiB. The
// last is the streaming design's worst case, because the tokenizer buffers
// a whole token (its buffer doubles up to 8 MiB); MaxBodyBytes bounds it.
package scrape
