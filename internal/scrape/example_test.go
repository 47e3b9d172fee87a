package scrape_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"

	"github.com/taskpipe/taskpipe/internal/scrape"
	"github.com/taskpipe/taskpipe/internal/task"
)

func ExampleExtract() {
	page := `<html lang="de"><head><title>Bäckerei Müller</title>
<meta name="description" content="Frisches Brot seit 1952."></head>
<body><h1>Willkommen</h1>
<a href="/sortiment">Sortiment</a> <a href="https://www.instagram.com/baeckerei.mueller/">Instagram</a>
<p>Bestellungen: info@baeckerei-mueller.de</p></body></html>`
	u, _ := url.Parse("https://www.baeckerei-mueller.de/")
	s, err := scrape.Extract(strings.NewReader(page), u)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := s.MarshalBounded()
	fmt.Println(string(b))
	// Output:
	// {"url":"https://www.baeckerei-mueller.de/","title":"Bäckerei Müller","description":"Frisches Brot seit 1952.","lang":"de","h1":"Willkommen","internalLinks":1,"externalLinks":1,"emails":["info@baeckerei-mueller.de"],"socials":[{"network":"instagram","url":"https://instagram.com/baeckerei.mueller"}],"textLength":70,"bytes":0,"truncated":false}
}

func ExampleClient_Scrape() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Local fixture</title>`)
	}))
	defer srv.Close()

	// Production: scrape.New(scrape.Options{}) reaches public addresses
	// only. To reach this one test server on 127.0.0.1, allow exactly its
	// ip:port.
	c, err := scrape.New(scrape.Options{
		AllowAddrs: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Scrape(context.Background(), srv.URL)
	fmt.Println(res.Summary.Title, res.Attempts, err)

	// Any other loopback address stays blocked, and the error is fatal.
	_, err = c.Scrape(context.Background(), "http://127.0.0.2:9/")
	fmt.Println(task.KindOf(err))
	// Output:
	// Local fixture 1 <nil>
	// fatal
}
