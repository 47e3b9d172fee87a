// Package maintext finds the main content of a web page, as plain text and
// Markdown, with navigation, headers, footers, cookie banners and sidebars
// removed, through go-trafilatura (chosen in docs/extraction.md). It is a
// package of its own because go-trafilatura's dependencies initialise
// their language data at process start: only the scraper links it, not the
// reconciler or the enrichment function.
package maintext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strings"
	"time"
	"unicode"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/taskpipe/taskpipe/internal/site"
)

// Bounds of main-content extraction. The extractor (go-trafilatura,
// chosen in docs/extraction.md) builds and scores the
// page's DOM and cannot be cancelled, so its input is bounded instead: a
// cleaned copy of the page's first MaxContentInput bytes with at most
// maxContentElements elements, which real pages stay below
// (docs/extraction.md, peak heap).
const (
	// MaxContentInput is the prefix of a page (UTF-8) the extractor reads.
	MaxContentInput = 2 << 20
	// maxContentElements and maxCleanBytes bound the cleaned copy (and so
	// the DOM: a few hundred bytes of heap per element and per text byte).
	maxContentElements = 12000
	maxCleanBytes      = 512 << 10
	// maxContentDepth bounds the nesting of the cleaned copy, well below
	// x/net/html's limit of 512 open elements (the parser adds implied
	// elements of its own).
	maxContentDepth = 200
	// maxContentAttrs and maxAttrValue bound what an element keeps.
	maxContentAttrs = 10
	maxAttrValue    = 512
	maxHrefValue    = 2048
	// maxContentToken bounds one token of the page (the tokenizer's buffer).
	maxContentToken = 1 << 20
	// maxTextBytes and maxMarkdownBytes bound the document's fields.
	maxTextBytes     = 256 << 10
	maxMarkdownBytes = 384 << 10
)

// Errors of Extract; test with errors.Is.
var (
	// ErrNoContent means the extractor found no main content on the page.
	ErrNoContent = errors.New("no main content found")
	// ErrContentTimeout means the extraction ran out of its time.
	ErrContentTimeout = errors.New("extraction timed out")
)

// Content is the main content of one page.
type Content struct {
	// Text is the main content as plain text, one block per line.
	Text string
	// Markdown is the main content as Markdown.
	Markdown string
	// Truncated says the content was extracted from a prefix of the page:
	// it had more bytes, elements or nesting than the input bounds.
	Truncated bool
	// Organizations are the schema.org organisations marked up with
	// microdata in the page's prefix.
	Organizations []site.Organization
}

// contentSlots bound the extractions that run at once to the CPUs (one in
// a Lambda invocation, which scrapes one task): a run that outlives its
// time bound (the extractor takes no context) keeps its slot until it
// ends, so abandoned runs cannot pile up DOMs.
var contentSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// Extract finds the main content of page (UTF-8 HTML; only its first
// MaxContentInput bytes are read) with go-trafilatura: navigation,
// headers, footers, cookie banners and sidebars removed. It waits for a
// free extractor slot while ctx lasts, then gives the extraction at most
// timeout. It returns ErrNoContent when there is none, and a timeout or
// ctx's error when time runs out; either way Content may still carry
// microdata organisations.
func Extract(ctx context.Context, page []byte, pageURL *url.URL, timeout time.Duration) (Content, error) {
	select {
	case contentSlots <- struct{}{}:
	case <-ctx.Done():
		return Content{}, fmt.Errorf("maintext: extract: waiting for the extractor: %w", ctx.Err())
	}
	type result struct {
		c   Content
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-contentSlots }()
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("maintext: extract: extractor panicked: %v", r)}
			}
		}()
		c, err := extractContent(page, pageURL)
		done <- result{c, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.c, r.err
	case <-timer.C:
		return Content{}, fmt.Errorf("maintext: extract: %w after %v", ErrContentTimeout, timeout)
	case <-ctx.Done():
		return Content{}, fmt.Errorf("maintext: extract: %w", ctx.Err())
	}
}

func extractContent(page []byte, pageURL *url.URL) (Content, error) {
	var c Content
	clean, truncated := cleanHTML(page)
	c.Truncated = truncated
	doc, err := html.Parse(bytes.NewReader(clean))
	if err != nil {
		// cleanHTML keeps the nesting below the parser's limit, and the
		// reader cannot fail; this is a bug, reported as such.
		return c, fmt.Errorf("maintext: extract: parse cleaned page: %w", err)
	}
	c.Organizations = site.Microdata(doc, pageURL)
	res, err := trafilatura.ExtractDocument(doc, extractOptions(pageURL))
	if err != nil || res == nil || res.ContentNode == nil {
		return c, fmt.Errorf("maintext: extract: %w", ErrNoContent)
	}
	body := res.ContentNode
	c.Text = truncateUTF8(stripHeadline(body, res.ContentText), maxTextBytes)
	if strings.TrimSpace(c.Text) == "" {
		return Content{Truncated: truncated, Organizations: c.Organizations}, fmt.Errorf("maintext: extract: %w", ErrNoContent)
	}
	dropHeadline(body)
	md, err := htmltomarkdown.ConvertNode(body)
	if err != nil {
		return c, fmt.Errorf("maintext: extract: markdown: %w", err)
	}
	c.Markdown = truncateUTF8(string(md), maxMarkdownBytes)
	return c, nil
}

// extractOptions are go-trafilatura's settings the evaluation chose
// (docs/extraction.md): recall first (the references keep whole bodies and
// trafilatura's default drops borderline paragraphs), no comment sections,
// links kept for the Markdown, no fallback extractors (they halved the
// speed and gained nothing on the corpus) and no date search (the document
// has no date field, and it is the slowest step).
func extractOptions(pageURL *url.URL) trafilatura.Options {
	return trafilatura.Options{
		OriginalURL:     pageURL,
		Focus:           trafilatura.FavorRecall,
		ExcludeComments: true,
		IncludeLinks:    true,
		HtmlDateMode:    trafilatura.Disabled,
	}
}

// headlineNodes finds the content's first heading when it comes before
// any text, and its figure captions.
func headlineNodes(body *html.Node) (heads, captions []*html.Node) {
	seenText := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			switch {
			case ch.Type == html.ElementNode && ch.DataAtom == atom.Figcaption:
				captions = append(captions, ch)
			case ch.Type == html.ElementNode && ch.DataAtom == atom.H1 && !seenText:
				heads = append(heads, ch)
				seenText = true
			case ch.Type == html.TextNode && strings.TrimSpace(ch.Data) != "":
				seenText = true
			default:
				walk(ch)
			}
		}
	}
	walk(body)
	return heads, captions
}

// dropHeadline removes the content's leading headline and its figure
// captions (headlineNodes): the document keeps the page's title and h1 in
// fields of their own, so the main text is the body after them. (Article
// benchmarks follow the same convention: docs/extraction.md.)
func dropHeadline(body *html.Node) {
	heads, captions := headlineNodes(body)
	for _, n := range append(heads, captions...) {
		n.Parent.RemoveChild(n)
	}
}

// stripHeadline removes from text, the extractor's rendering of body, the
// text of the content's leading headline and its figure captions. The text
// is edited rather than re-rendered, so that the library's own rendering
// (go-trafilatura's ContentText is computed before its last clean-up of
// the node) is what remains.
func stripHeadline(body *html.Node, text string) string {
	hn, cn := headlineNodes(body)
	var heads, captions []string
	for _, n := range hn {
		heads = append(heads, strings.TrimSpace(renderText(n)))
	}
	for _, n := range cn {
		captions = append(captions, strings.TrimSpace(renderText(n)))
	}
	text = strings.TrimSpace(text)
	for _, h := range heads {
		if h != "" {
			text = strings.TrimSpace(strings.TrimPrefix(text, h))
		}
	}
	for _, c := range captions {
		if c != "" {
			text = strings.Replace(text, c, "", 1)
		}
	}
	return text
}

// blockElements start a new line in the plain text.
var blockElements = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Details: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Figure: true,
	atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true,
	atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true,
	atom.Table: true, atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true,
}

// renderText is the plain text of n: each block element on its own line,
// whitespace runs collapsed, blank lines dropped.
func renderText(n *html.Node) string {
	var b strings.Builder
	space := false
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		space = false
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			for _, r := range n.Data {
				if unicode.IsSpace(r) {
					space = true
					continue
				}
				if space && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
					b.WriteByte(' ')
				}
				space = false
				b.WriteRune(r)
			}
			return
		case html.ElementNode:
			if blockElements[n.DataAtom] {
				newline()
				defer newline()
			} else if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
				space = true
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// skipSubtree are elements whose content is never main text (scripts,
// styles, embedded documents and graphics, form widgets).
var skipSubtree = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Select: true, atom.Textarea: true, atom.Audio: true, atom.Video: true,
	atom.Noframes: true, atom.Noembed: true,
}

// keptAttrs are the attributes the extractor and the microdata reader
// look at: structure hints (id, class, role, hidden) for boilerplate
// detection, links, language, and microdata.
var keptAttrs = map[string]bool{
	"id": true, "class": true, "role": true, "hidden": true, "aria-hidden": true, "href": true,
	"lang": true, "itemscope": true, "itemtype": true, "itemprop": true, "itemid": true,
	"content": true, "datetime": true, "src": true, "alt": true, "colspan": true, "rowspan": true,
}

// voidElements have no end tag (HTML §13.1.2).
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// autoClose are elements whose start tag closes an open element of the
// same group (HTML §13.2.6.4.7, "in body"): a <p> in a <p>, an <li> in an
// <li>. Tracking them keeps the depth count near the parser's.
var autoClose = map[string]string{
	"p": "p", "li": "li", "dt": "d", "dd": "d", "option": "option", "tr": "tr", "td": "t", "th": "t",
}

// cleanHTML rewrites the first MaxContentInput bytes of page into a copy
// the extractor can afford: no comments, scripts, styles or embedded
// documents, only the attributes in keptAttrs (each value capped), at
// most maxContentElements elements nested at most maxContentDepth deep,
// and at most maxCleanBytes (plus one token).
// It reports whether anything was cut for a bound.
func cleanHTML(page []byte) ([]byte, bool) {
	truncated := len(page) > MaxContentInput
	if truncated {
		page = page[:MaxContentInput]
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	z.SetMaxBuf(maxContentToken)
	out := bytes.NewBuffer(make([]byte, 0, min(len(page), 512<<10)))
	var stack []string
	dropped := map[string]int{} // start tags dropped for depth, by name
	skip, elements := 0, 0
	dropName, dropDepth := "", 0 // a consent banner being dropped
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if !errors.Is(z.Err(), io.EOF) {
				truncated = true // a token over the buffer
			}
			return out.Bytes(), truncated
		case html.TextToken:
			if skip == 0 && dropName == "" {
				out.Write(z.Raw())
			}
			if out.Len() > maxCleanBytes {
				return out.Bytes(), true
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			n := string(name)
			if skipSubtree[a] {
				if tt == html.StartTagToken && !voidElements[n] {
					skip++
				}
				continue
			}
			if skip > 0 {
				continue
			}
			if dropName != "" {
				if n == dropName && tt == html.StartTagToken {
					dropDepth++
				}
				continue
			}
			if tt == html.StartTagToken && bannerElements[n] && hasAttr && isConsentBanner(z) {
				dropName, dropDepth = n, 1
				continue
			}
			if elements >= maxContentElements {
				return out.Bytes(), true
			}
			void := tt == html.SelfClosingTagToken || voidElements[n]
			if g, ok := autoClose[n]; ok && len(stack) > 0 && autoClose[stack[len(stack)-1]] == g {
				stack = stack[:len(stack)-1]
			}
			if !void && len(stack) >= maxContentDepth {
				dropped[n]++
				truncated = true
				continue
			}
			elements++
			writeStartTag(out, n, z, hasAttr)
			if out.Len() > maxCleanBytes {
				return out.Bytes(), true
			}
			if !void {
				stack = append(stack, n)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			n := string(name)
			if skipSubtree[atom.Lookup(name)] {
				if skip > 0 {
					skip--
				}
				continue
			}
			if skip > 0 {
				continue
			}
			if dropName != "" {
				if n == dropName {
					if dropDepth--; dropDepth == 0 {
						dropName = ""
					}
				}
				continue
			}
			if dropped[n] > 0 {
				dropped[n]--
				continue
			}
			for i := len(stack) - 1; i >= 0 && i >= len(stack)-32; i-- {
				if stack[i] == n {
					stack = stack[:i]
					out.WriteString("</" + n + ">")
					break
				}
			}
		}
	}
}

// bannerElements are the elements a consent banner is built of; a page
// that marks its <body> or <main> with such a class is not a banner.
var bannerElements = map[string]bool{"div": true, "section": true, "aside": true, "dialog": true, "form": true, "p": true}

// isConsentBanner reports whether the current start tag is a cookie or
// consent banner, by its id or class ("cookie-banner", "cc-consent"):
// text no page means as content, and readability keeps it on short pages.
// It leaves z's attributes unread.
func isConsentBanner(z *html.Tokenizer) bool {
	raw := z.Raw()
	// A cheap test first: almost no tag mentions either word.
	if !bytes.Contains(raw, []byte("ookie")) && !bytes.Contains(raw, []byte("onsent")) &&
		!bytes.Contains(raw, []byte("OOKIE")) && !bytes.Contains(raw, []byte("ONSENT")) {
		return false
	}
	for _, a := range parseAttrs(bytes.ToLower(raw)) {
		if a[0] == "id" || a[0] == "class" {
			if strings.Contains(a[1], "cookie") || strings.Contains(a[1], "consent") {
				return true
			}
		}
	}
	return false
}

// parseAttrs reads the attributes of one raw start tag with a tokenizer of
// its own, leaving the caller's tokenizer untouched.
func parseAttrs(raw []byte) [][2]string {
	t := html.NewTokenizer(bytes.NewReader(raw))
	t.Next()
	var out [][2]string
	for more := true; more && len(out) < 64; {
		var k, v []byte
		k, v, more = t.TagAttr()
		if k == nil {
			break
		}
		out = append(out, [2]string{string(k), string(v)})
	}
	return out
}

// writeStartTag writes <name attr="value"...> with the kept attributes.
func writeStartTag(out *bytes.Buffer, name string, z *html.Tokenizer, hasAttr bool) {
	out.WriteByte('<')
	out.WriteString(name)
	kept := 0
	for hasAttr && kept < maxContentAttrs {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		if !keptAttrs[string(k)] {
			continue
		}
		limit := maxAttrValue
		if string(k) == "href" || string(k) == "src" {
			limit = maxHrefValue
		}
		if len(v) > limit {
			continue
		}
		kept++
		out.WriteByte(' ')
		out.Write(k)
		out.WriteString(`="`)
		out.WriteString(html.EscapeString(string(v)))
		out.WriteByte('"')
	}
	out.WriteByte('>')
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
