// Package htmldate stands in for github.com/markusmobius/go-htmldate
// v1.9.1 in taskpipe's build (a replace directive in the root go.mod).
//
// go-trafilatura imports go-htmldate for publication dates, and through it
// go-dateparser, whose package initialisation builds its language tables in
// every process that links it: about 0.5 s of CPU and 78 MB of allocation
// before main runs (docs/extraction.md). taskpipe runs go-trafilatura with
// HtmlDateMode Disabled, so FromDocument is never called with options and
// no date is ever searched; this module keeps the API go-trafilatura
// compiles against (Options, Result, FromDocument) and finds no date.
//
// It holds no code of the original: the declarations mirror the public API
// of v1.9.1 (https://pkg.go.dev/github.com/markusmobius/go-htmldate@v1.9.1),
// minus DateParserConfig, which go-trafilatura does not set.
package htmldate

import (
	"time"

	"golang.org/x/net/html"
)

// Options mirrors go-htmldate's Options; every field is ignored.
type Options struct {
	ExtractTime         bool
	UseOriginalDate     bool
	URL                 string
	MinDate             time.Time
	MaxDate             time.Time
	EnableLog           bool
	SkipExtensiveSearch bool
	DeferUrlExtractor   bool
}

// Result mirrors go-htmldate's Result.
type Result struct {
	DateTime    time.Time
	HasTime     bool
	HasTimezone bool
	SrcString   string
}

// IsZero reports whether no date was found.
func (r Result) IsZero() bool { return r.DateTime.IsZero() }

// Format formats the date with layout, "" when there is none.
func (r Result) Format(layout string) string {
	if r.IsZero() {
		return ""
	}
	return r.DateTime.Format(layout)
}

// FromDocument finds no date: date search is off in taskpipe.
func FromDocument(doc *html.Node, opts Options) (Result, error) { return Result{}, nil }
