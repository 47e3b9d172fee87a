// Package fixtureweb is a deterministic local web of thousands of synthetic
// websites that stands in for the internet in local runs of the pipeline
// (docs/design.md §6): healthy sites with realistic pages, and sites that are
// slow, flaky, broken, huge, redirecting or rate-limited. The same seed
// always gives the same sites, pages, input lines and expectations, so a
// demo or chaos run can reconcile its counts exactly.
//
// # Serving
//
//	web, err := fixtureweb.New(fixtureweb.Config{Seed: 7})
//	err = web.Start("127.0.0.1:0")   // or serve web (an http.Handler) yourself and set Config.BaseURL
//	defer web.Close()
//	lines := web.URLs(3575)         // or web.Input(3575) for a file
//	exp := web.Expect(lines[0])     // Finished / Failed(kind) / Rejected
//
// A command that serves the web needs only New, Start, BaseURL and Close;
// ParseMix turns a flag ("demo", "chaos", "healthy=90,flaky=10") into a
// Mix. The scraper reaches the web only with
// scrape.Options.AllowPrivateNetworks (or AllowAddrs naming the
// listener), because it listens on loopback.
//
// # Addressing
//
// Site id is served at http://127.0.0.1:<port>/site/<id>/, with /about and
// /contact linked from its home page. Sites are told apart by path, not by
// host name: a name such as site-42.localhost does not resolve in Go's
// resolver (checked with Go 1.26 on Linux: net.Resolver with PreferGo true
// and false both asked the DNS server and got "no such host"; only some
// system resolvers special-case *.localhost), and the scraper treats a
// name that does not exist as fatal. The cost of paths is that all sites
// share one registrable domain (127.0.0.1), so links between fixture sites
// count as internal; the pages link outside only to reserved example
// domains (RFC 2606) and social networks.
//
// # Behaviours
//
// Each site's behaviour is drawn from a hash of the seed and its id,
// weighted by Config.Mix (DemoMix by default, ChaosMix for chaos runs),
// so it does not depend on the number of sites. Its parameters come from
// a separate seeded stream:
//
//	behaviour       home page                                    with the default scraper
//	healthy         200, HTML of 4 KB–400 KB in ten languages,   Finished
//	                some gzipped, some windows-1252
//	slow            200 after 300–800 ms (Config.SlowDelay)      Finished
//	flaky           503 for the first 1–2 requests, then 200     Finished in the first claim
//	server-error    500/502/503/504, always                      Failed, exhausted
//	not-found       404 (every path)                             Failed, fatal
//	redirect-chain  2–4 redirects to a healthy page              Finished
//	redirect-loop   home ⇄ /loop                                 Failed, fatal (more than 5 redirects)
//	huge            6 MiB of HTML (Config.HugeBytes)             Finished, truncated at 5 MiB
//	not-html        200 application/pdf                          Failed, fatal
//	slow-drip       body trickled over 1–2 s (DripDuration)      Finished
//	rate-limited    429 Retry-After: 1 for the first request     Finished in the first claim
//
// Flaky and rate-limited sites count their home-page requests with an
// atomic counter per site, so they heal after exactly k requests whatever
// the concurrency. They heal by count, not by time, because time would
// make the outcome depend on the machine's load.
//
// The slow-drip default is within the timeout: it proves that a slow body
// is read to the end, not cut. A DripDuration beyond the timeout (at least
// 3/2 of Limits.FetchTimeout) turns every attempt into a timeout, and
// Expect says exhausted. New refuses slow and drip spans between 3/4 and
// 3/2 of the timeout, where the outcome would depend on load.
//
// # Input and expectations
//
// URLs and Input return the lines of a run, including a few invalid ones
// (Config.InvalidRate: bad schemes, prose, javascript:, blank lines,
// credentials, an over-long URL, ...). Expect derives each line's outcome
// from the rules the pipeline follows, never from a list: weburl.Normalize
// decides Rejected; the site's behaviour and Config.Limits (the scraper's
// fetch attempts, claims, timeout, body cap, redirect cap, longest
// Retry-After) decide Finished, Failed fatal or Failed exhausted, the
// claims used and the requests the web receives. Tally adds them up.
//
// # Observability
//
// Stats (also GET /_fixtureweb/stats as JSON) counts requests per
// behaviour, per site, per home page and per status. Against
// Expectation.Requests it shows the extra fetches that duplicate
// deliveries and retries cost.
package fixtureweb
