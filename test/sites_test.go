package test

import (
	"testing"

	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
)

// notAWebsite is a task URL the scraper must refuse at once (only http and
// https are fetched): a fatal error on any target.
const notAWebsite = "ftp://example.com/catalogue.pdf"

// site is one website handed to a scenario.
type site struct {
	URL string
	// Expect is the fixture web's prediction of the task's end (local
	// target only; nil elsewhere).
	Expect *fixtureweb.Expectation
	// Page is what the site's home page says (local target only).
	Page *fixtureweb.Page

	fixture *fixtureweb.Web
	id      int
}

// requests is how many HTTP requests the fixture web has served for the
// site; ok is false off the fixture web.
func (s site) requests() (n int64, ok bool) {
	if s.fixture == nil {
		return 0, false
	}
	return s.fixture.Requests(s.id), true
}

// websites hands out the websites tasks point at. Every call returns sites
// no other call returned, so scenarios never share a site's state.
type websites interface {
	// Healthy returns n distinct pages that answer 200 with HTML.
	Healthy(t *testing.T, n int) []site
	// Spike returns n distinct URLs for the traffic spike; each ends within
	// one claim.
	Spike(t *testing.T, n int) []site
	// Fatal returns URLs whose task must fail at once, without a retry.
	Fatal(t *testing.T) []site
	// Retryable returns URLs whose first claim fails with a retryable error.
	Retryable(t *testing.T) []site
}

// urlsOf lists the sites' URLs.
func urlsOf(sites []site) []string {
	out := make([]string, len(sites))
	for i, s := range sites {
		out[i] = s.URL
	}
	return out
}
