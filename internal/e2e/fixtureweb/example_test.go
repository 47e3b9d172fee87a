package fixtureweb_test

import (
	"fmt"
	"net/http"

	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
)

// A demo run: serve the web, write its input, and predict each line's end.
func Example() {
	web, err := fixtureweb.New(fixtureweb.Config{Seed: 7, Sites: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := web.Start("127.0.0.1:0"); err != nil {
		fmt.Println(err)
		return
	}
	defer web.Close()

	lines := web.URLs(200) // write these to a file and submit them
	fmt.Println(web.Tally(lines))

	resp, err := http.Get(web.BaseURL() + fixtureweb.StatsPath)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("stats:", resp.Status)
	// Output:
	// 200 lines: 4 rejected, 196 tasks (168 finished of which 1 truncated, 10 failed fatal, 12 failed robots, 6 failed exhausted), 765 requests (496 key pages), 216 robots.txt requests
	// stats: 200 OK
}

// Expect derives each line's outcome from the site's behaviour and the
// scraper's limits. Here a scraper with one fetch per claim and two
// claims: the flaky and rate-limited sites heal only in their second
// claim, and a server error costs two requests before the task is
// exhausted.
func ExampleWeb_Expect() {
	web, err := fixtureweb.New(fixtureweb.Config{
		Seed:    7,
		Sites:   200,
		BaseURL: "http://127.0.0.1:8099", // served elsewhere; Expect needs only the address
		Limits:  fixtureweb.Limits{FetchAttempts: 1, Claims: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	shown := map[fixtureweb.Behavior]bool{}
	for _, s := range web.Sites() {
		if shown[s.Behavior] || s.Behavior == fixtureweb.Healthy {
			continue
		}
		shown[s.Behavior] = true
		e := web.Expect(web.SiteURL(s.ID))
		fmt.Printf("%-45s %-8s %-9s claims=%d requests=%d\n", s, e.Outcome, e.Kind, e.Claims, e.Requests)
	}
	e := web.Expect("javascript:alert(1)")
	fmt.Println(e.Outcome, e.Reason)
	// Output:
	// site 1 (not-found)                            Failed   fatal     claims=1 requests=1
	// site 4 (slow, delay 692ms)                    Finished           claims=1 requests=4
	// site 6 (huge)                                 Finished           claims=1 requests=3
	// site 8 (flaky, failures 1)                    Finished           claims=2 requests=5
	// site 10 (redirect-loop)                       Failed   fatal     claims=1 requests=6
	// site 12 (server-error, status 500)            Failed   exhausted claims=2 requests=2
	// site 20 (rate-limited, failures 1)            Finished           claims=2 requests=5
	// site 24 (redirect-chain, hops 2)              Finished           claims=1 requests=6
	// site 42 (slow-drip, drip 1.233s)              Finished           claims=1 requests=4
	// site 57 (not-html)                            Failed   fatal     claims=1 requests=1
	// Rejected weburl: normalize "javascript:alert(1)": invalid website url: scheme "javascript" is not http or https
}
