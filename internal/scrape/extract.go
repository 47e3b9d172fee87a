package scrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/weburl"
)

// Bounds of the fields of a Summary. Together with MarshalBounded they keep
// a result far below task.MaxResultBytes in the common case and never above
// it.
const (
	maxTitleBytes       = 300
	maxDescriptionBytes = 1000
	maxH1Bytes          = 300
	maxLangBytes        = 35 // the longest BCP 47 tag in common use
	maxURLBytes         = weburl.MaxLen
	maxEmails           = 20
	maxEmailBytes       = 254 // RFC 5321 §4.5.3.1.3
	maxSocials          = 20
	maxSocialURLBytes   = 300
)

// Bounds of the streaming pass.
const (
	// maxTokenBytes bounds the tokenizer's buffer (html.Tokenizer
	// SetMaxBuf), and with it the memory of one tag's attributes: a token
	// longer than this ends the page as a truncation. Real pages stay far
	// below it; the longest tokens are inline scripts and data URIs.
	maxTokenBytes = 1 << 20
	// maxTitleRaw and maxMetaValue bound the raw text kept for the title
	// and a meta value, a few times the stored field.
	maxTitleRaw  = 4 << 10
	maxMetaValue = 4 << 10
	// maxH1Fragment bounds the rebuilt markup of the first heading, and
	// maxH1Depth the elements nested in it: deeper start tags are dropped
	// with their end tags (their text is kept), so the fragment never
	// meets the HTML parser's limit of 512 open elements.
	maxH1Fragment  = 16 << 10
	maxH1Depth     = 32
	maxMetaTags    = 100
	maxCanonicals  = 8
	maxDomainCache = 512
)

// Summary is what the scraper stores about a page. Every string and list is
// bounded; MarshalBounded guarantees the JSON fits task.MaxResultBytes.
type Summary struct {
	// URL is the final URL, after redirects.
	URL string `json:"url"`
	// Status is the HTTP status of the final response (0 when the summary
	// was extracted from a reader, not fetched).
	Status int `json:"status,omitempty"`
	// Title is the document's <title> (og:title when there is none).
	Title string `json:"title,omitempty"`
	// Description is <meta name=description> (og:description or
	// twitter:description when there is none).
	Description string `json:"description,omitempty"`
	// Canonical is <link rel=canonical>, resolved to an absolute http(s)
	// URL.
	Canonical string `json:"canonical,omitempty"`
	// Lang is <html lang> (or the Content-Language meta).
	Lang string `json:"lang,omitempty"`
	// H1 is the text of the first <h1>.
	H1 string `json:"h1,omitempty"`
	// InternalLinks and ExternalLinks count <a href> and <area href> to
	// http(s) URLs by whether their registrable domain is the page's.
	InternalLinks int `json:"internalLinks"`
	ExternalLinks int `json:"externalLinks"`
	// Emails are the addresses in mailto: links and in the visible text,
	// lowercased, deduplicated, in order of appearance, at most 20.
	Emails []string `json:"emails,omitempty"`
	// Socials are links to social profiles, deduplicated, at most 20.
	Socials []Social `json:"socials,omitempty"`
	// TextLength is the number of characters of visible text, with runs of
	// whitespace counted as one.
	TextLength int `json:"textLength"`
	// Bytes is the size of the body read, after decompression and before
	// charset conversion.
	Bytes int64 `json:"bytes"`
	// Truncated says the summary describes only a prefix of the body: it
	// was longer than the client's MaxBodyBytes (before or after charset
	// conversion to UTF-8), or one of its tokens was longer than the
	// tokenizer's 1 MiB buffer.
	Truncated bool `json:"truncated"`
	// Trimmed says MarshalBounded dropped list entries or shortened strings
	// to fit task.MaxResultBytes.
	Trimmed bool `json:"trimmed,omitempty"`
}

// Social is one social profile link.
type Social struct {
	// Network is a short name: "x", "linkedin", "facebook", ...
	Network string `json:"network"`
	URL     string `json:"url"`
}

// Bounds of what a Page collects for the site document.
const (
	maxLinks        = 500
	maxQueryLinks   = 50
	maxLinkText     = 120
	maxAlternates   = 32
	maxTelLinks     = 20
	maxJSONLDBlocks = 8
	maxJSONLDTotal  = 512 << 10
	maxVisibleText  = 256 << 10
)

// Page is what one streaming pass over a page yields: its Summary, and
// what the site document takes from it (links for the key-page choice,
// hreflang alternates, tel: links, JSON-LD blocks, og:site_name, the
// visible text for phone numbers), each bounded.
type Page struct {
	Summary
	// Links are the page's links to its own registrable domain, resolved,
	// with their text, in page order.
	Links []site.Link
	// Alternates are its <link rel=alternate hreflang>.
	Alternates []site.Alternate
	// TelLinks are the numbers of its tel: links, as written.
	TelLinks []string
	// JSONLD are the contents of its <script type="application/ld+json">.
	JSONLD [][]byte
	// SiteName is og:site_name.
	SiteName string
	// VisibleText is the visible text, space-separated, at most 256 KiB.
	VisibleText string
	// Content is the UTF-8 prefix of the page (at most
	// maintext.MaxContentInput) for main-content extraction; set by ReadPage.
	Content []byte
}

// Extract reads an HTML document (UTF-8; the Client converts other
// charsets first) and summarizes it. pageURL is the document's address: it
// resolves relative links and decides which links are internal. Extract
// reads r to the end, or to the first token longer than 1 MiB (then the
// summary says Truncated); it fails only when r does.
func Extract(r io.Reader, pageURL *url.URL) (Summary, error) {
	p, err := Parse(r, pageURL)
	return p.Summary, err
}

// Parse is Extract with everything the site document takes from a page.
func Parse(r io.Reader, pageURL *url.URL) (Page, error) {
	e := newExtractor(pageURL)
	z := html.NewTokenizer(r)
	z.SetMaxBuf(maxTokenBytes)
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			switch err := z.Err(); {
			case errors.Is(err, html.ErrBufferExceeded):
				e.sum.Truncated = true
			case err != io.EOF:
				return Page{}, fmt.Errorf("scrape: extract: %w", err)
			}
			return e.finish(), nil
		case html.StartTagToken, html.SelfClosingTagToken:
			e.startTag(z, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			e.endTag(z)
		case html.TextToken:
			e.text(z)
		}
	}
}

// extractor is the streaming pass. It counts and collects from every token,
// reads the head fields (lang, title, meta, canonical) from their tokens,
// and rebuilds the first h1 into a small fragment that goquery parses at
// the end. See the package documentation for why.
type extractor struct {
	sum        Summary
	page       *url.URL
	pageDomain string
	base       *url.URL // page, or the first <base href>
	baseSeen   bool
	baseIntern bool // relative links are internal

	domains map[string]string // host → registrable domain

	rawTag        string // the raw-text element the tokenizer is inside
	templateDepth int
	svgDepth      int
	lastSpace     bool

	htmlSeen   bool
	htmlLang   string
	title      []byte            // text of the first <title>, unescaped
	titleState int               // -1 before the first title, 1 inside it, 0 after
	metas      map[string]string // first content per meta key (lowercase)
	metaCount  int
	canonicals []string // hrefs of <link rel=canonical>, in order

	h1        []byte // the first h1, rebuilt: tag names and raw text
	h1State   int    // -1 before the first h1, 1 inside it, 0 after
	h1Depth   int    // elements open inside the h1 in the fragment
	h1Dropped int    // start tags dropped beyond maxH1Depth, still open

	emails  map[string]bool
	socials map[string]bool

	out        Page   // the collections beyond the summary
	linkText   []byte // text of the <a> being read, when it is a candidate
	inLink     bool   // inside a candidate <a>
	linkHref   string // its resolved URL
	linkLabel  string // its aria-label or title
	seenLinks  map[string]bool
	queryLinks int    // links with a query kept
	inJSONLD   bool   // inside <script type=application/ld+json>
	jsonldNew  bool   // no text of that script kept yet
	jsonldSize int    // bytes of JSON-LD kept
	visible    []byte // visible text for phone numbers
}

func newExtractor(page *url.URL) *extractor {
	e := &extractor{
		page:       page,
		base:       page,
		domains:    make(map[string]string),
		lastSpace:  true,
		titleState: -1,
		h1State:    -1,
		metas:      make(map[string]string),
		emails:     make(map[string]bool),
		seenLinks:  make(map[string]bool),
		socials:    make(map[string]bool),
	}
	shown := *page
	shown.Fragment, shown.RawFragment = "", ""
	e.sum.URL = task.Truncate(shown.String(), maxURLBytes)
	e.pageDomain = e.domain(page.Hostname())
	e.baseIntern = true
	return e
}

// rawTextTags are the elements whose content the tokenizer returns as one
// raw text token (html.Tokenizer readStartTag) and which a reader does not
// see as page text. <plaintext> is raw too, but its content is visible.
var rawTextTags = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true,
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
}

func (e *extractor) startTag(z *html.Tokenizer, selfClosing bool) {
	raw := z.Raw()
	name := tagName(raw)
	if rawTextTags[name] {
		e.rawTag = name
		if name == "script" {
			e.inJSONLD = isJSONLD(z)
			e.jsonldNew = e.inJSONLD
		}
	}
	if e.h1State == 1 {
		switch {
		case name == "h1":
			// A nested <h1> closes the first one in the HTML parser.
			e.h1State = 0
		case e.rawTag == "":
			// Script and style content would pollute the heading's text.
			e.h1StartTag(z, selfClosing)
		}
	}
	switch name {
	case "html":
		if !e.htmlSeen {
			e.htmlSeen = true
			if v, ok := attr(z, "lang"); ok {
				e.htmlLang = task.Truncate(v, 4*maxLangBytes)
			}
		}
	case "title":
		if e.titleState == -1 && e.svgDepth == 0 {
			e.titleState = 1
		}
	case "meta":
		if e.metaCount < maxMetaTags {
			e.meta(z)
		}
	case "link":
		e.canonicalLink(z)
	case "h1":
		if e.h1State == -1 && e.templateDepth == 0 && e.svgDepth == 0 {
			e.h1State = 1
			e.h1 = append(e.h1, "<h1>"...)
		}
	case "template":
		if !selfClosing {
			e.templateDepth++
		}
	case "svg":
		if !selfClosing {
			e.svgDepth++
		}
	case "base":
		if !e.baseSeen {
			e.baseTag(z)
		}
	case "a", "area":
		if e.templateDepth == 0 {
			href, label := linkAttrs(z)
			if href != "" {
				e.link(href)
				if name == "a" && !selfClosing {
					e.startLinkText(href, label)
				}
			}
		}
	}
}

// isJSONLD reports whether the current <script> is JSON-LD.
func isJSONLD(z *html.Tokenizer) bool {
	v, ok := attr(z, "type")
	return ok && strings.EqualFold(strings.TrimSpace(strings.Split(v, ";")[0]), "application/ld+json")
}

// linkAttrs returns an <a>'s href and its aria-label (or title).
func linkAttrs(z *html.Tokenizer) (href, label string) {
	hasHref := false
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "href":
			if !hasHref {
				hasHref, href = true, string(v)
			}
		case "aria-label", "title":
			if label == "" && len(v) <= maxLinkText {
				label = string(v)
			}
		}
	}
	return href, label
}

// startLinkText begins reading the text of an <a> that may be a key page:
// a link to the page's own registrable domain.
func (e *extractor) startLinkText(href, label string) {
	e.endLinkText()
	if len(e.out.Links) >= maxLinks {
		return
	}
	hasQuery := strings.ContainsRune(href, '?')
	if hasQuery && e.queryLinks >= maxQueryLinks {
		return // views of one page ("?item=7") must not crowd out the footer's links
	}
	u, err := e.base.Parse(strings.ReplaceAll(strings.TrimSpace(href), `\`, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || e.domain(u.Hostname()) != e.pageDomain {
		return
	}
	u.Fragment, u.RawFragment = "", ""
	s := u.String()
	if len(s) > maxURLBytes || e.seenLinks[s] {
		return
	}
	if hasQuery {
		e.queryLinks++
	}
	e.inLink, e.linkHref, e.linkLabel, e.linkText = true, s, label, e.linkText[:0]
}

// endLinkText records the link being read.
func (e *extractor) endLinkText() {
	if !e.inLink {
		return
	}
	e.inLink = false
	text := site.CleanText(string(e.linkText), maxLinkText)
	if text == "" {
		text = site.CleanText(e.linkLabel, maxLinkText)
	}
	e.seenLinks[e.linkHref] = true
	e.out.Links = append(e.out.Links, site.Link{URL: e.linkHref, Text: text})
}

// voidElements have no end tag (HTML §13.1.2): they open nothing.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// h1StartTag adds a start tag inside the first h1 to the fragment, by name
// only: the parser needs the element to apply its rules (a <p> or <h2>
// closes the heading), never the attributes, which could be megabytes.
func (e *extractor) h1StartTag(z *html.Tokenizer, selfClosing bool) {
	n, _ := z.TagName()
	void := selfClosing || voidElements[string(n)]
	if !void && e.h1Depth >= maxH1Depth {
		e.h1Dropped++
		return
	}
	if !validTagName(n) || len(e.h1)+len(n)+2 > maxH1Fragment {
		if !void {
			e.h1Dropped++
		}
		return
	}
	e.h1 = append(e.h1, '<')
	e.h1 = append(e.h1, n...)
	e.h1 = append(e.h1, '>')
	if !void {
		e.h1Depth++
	}
}

// h1EndTag adds the end tag of an element opened in the fragment.
func (e *extractor) h1EndTag(z *html.Tokenizer) {
	if e.h1Dropped > 0 {
		e.h1Dropped--
		return
	}
	n, _ := z.TagName()
	if e.h1Depth == 0 || !validTagName(n) || len(e.h1)+len(n)+3 > maxH1Fragment {
		return // a stray end tag: the parser would ignore or misplace it
	}
	e.h1 = append(e.h1, "</"...)
	e.h1 = append(e.h1, n...)
	e.h1 = append(e.h1, '>')
	e.h1Depth--
}

// validTagName accepts the names the fragment may repeat: ASCII letters,
// digits and hyphens, starting with a letter.
func validTagName(n []byte) bool {
	if len(n) == 0 || len(n) > 32 || n[0] < 'a' || n[0] > 'z' {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func (e *extractor) endTag(z *html.Tokenizer) {
	raw := z.Raw()
	name := tagName(raw)
	wasRaw := e.rawTag != ""
	e.rawTag = ""
	e.inJSONLD = false
	if name == "a" {
		e.endLinkText()
	}
	switch name {
	case "title":
		if e.titleState == 1 {
			e.titleState = 0
		}
	case "h1":
		if e.h1State == 1 {
			e.h1State = 0
		}
	case "template":
		if e.templateDepth > 0 {
			e.templateDepth--
		}
	case "svg":
		if e.svgDepth > 0 {
			e.svgDepth--
		}
	default:
		if e.h1State == 1 && !wasRaw {
			e.h1EndTag(z)
		}
	}
}

func (e *extractor) text(z *html.Tokenizer) {
	switch {
	case e.rawTag == "title" && e.titleState == 1:
		// Title is RCDATA: Text unescapes its character references.
		e.title = appendCapped(e.title, z.Text(), maxTitleRaw)
		return
	case e.rawTag == "script" && e.inJSONLD:
		e.keepJSONLD(z.Raw())
		return
	case e.rawTag != "":
		return
	case e.h1State == 1:
		// The raw text, whose references the fragment parser decodes.
		// (Text unescapes in place, so the copy comes first.) Cutting it
		// at the cap leaves at worst a partial reference, never a tag.
		e.h1 = appendCapped(e.h1, z.Raw(), maxH1Fragment)
	}
	if e.templateDepth > 0 {
		return
	}
	t := z.Text()
	e.countText(t)
	if e.inLink && len(e.linkText) < maxLinkText {
		e.linkText = appendCapped(append(e.linkText, ' '), t, maxLinkText)
	}
	if len(e.visible) < maxVisibleText {
		e.visible = appendCapped(append(e.visible, ' '), t, maxVisibleText)
	}
	if len(e.sum.Emails) < maxEmails && bytes.IndexByte(t, '@') >= 0 {
		for _, m := range emailInText.FindAll(t, maxEmails) {
			e.addEmail(string(m))
		}
	}
}

// countText adds the characters of t to TextLength, counting each run of
// whitespace (also across tokens) as one.
func (e *extractor) countText(t []byte) {
	n, last := 0, e.lastSpace
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			i++
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
				if !last {
					n++
					last = true
				}
				continue
			}
			n++
			last = false
			continue
		}
		r, size := utf8.DecodeRune(t[i:])
		i += size
		if unicode.IsSpace(r) {
			if !last {
				n++
				last = true
			}
			continue
		}
		n++
		last = false
	}
	e.sum.TextLength += n
	e.lastSpace = last
}

// metaKeys are the meta names (name, property or http-equiv) whose content
// the summary uses.
var metaKeys = map[string]bool{
	"description": true, "og:description": true, "twitter:description": true,
	"og:title": true, "content-language": true, "og:site_name": true,
}

// meta records the content of a <meta> that carries a field the summary
// uses, the first one per key.
func (e *extractor) meta(z *html.Tokenizer) {
	var key, content string
	hasContent := false
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "name", "property", "http-equiv":
			if key == "" && len(v) <= 64 {
				if kk := strings.ToLower(strings.TrimSpace(string(v))); metaKeys[kk] {
					key = kk
				}
			}
		case "content":
			if !hasContent {
				hasContent = true
				content = strings.TrimSpace(string(v[:min(len(v), maxMetaValue)]))
			}
		}
	}
	if key == "" || content == "" {
		return
	}
	e.metaCount++
	if _, seen := e.metas[key]; !seen {
		e.metas[key] = content
	}
}

// canonicalLink records the href of a <link rel=canonical>.
func (e *extractor) canonicalLink(z *html.Tokenizer) {
	var rel, href, hreflang string
	hasRel, hasHref := false, false
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "rel":
			if !hasRel {
				hasRel, rel = true, string(v[:min(len(v), 256)])
			}
		case "href":
			if !hasHref {
				hasHref = true
				if len(v) <= maxURLBytes {
					href = string(v)
				}
			}
		case "hreflang":
			if len(v) <= maxLangBytes {
				hreflang = strings.TrimSpace(string(v))
			}
		}
	}
	if href == "" {
		return
	}
	for _, f := range strings.Fields(rel) {
		switch {
		case strings.EqualFold(f, "canonical") && len(e.canonicals) < maxCanonicals:
			e.canonicals = append(e.canonicals, href)
			return
		case strings.EqualFold(f, "alternate") && hreflang != "" && len(e.out.Alternates) < maxAlternates:
			if u, err := e.base.Parse(strings.TrimSpace(href)); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				e.out.Alternates = append(e.out.Alternates, site.Alternate{Hreflang: hreflang, URL: u.String()})
			}
			return
		}
	}
}

// keepJSONLD appends a JSON-LD text token to the current block, or starts
// a block, within the bounds; a block over site.MaxJSONLDBytes is dropped
// whole (its JSON would not parse).
func (e *extractor) keepJSONLD(raw []byte) {
	if e.jsonldNew {
		e.jsonldNew = false
		if len(e.out.JSONLD) >= maxJSONLDBlocks {
			e.inJSONLD = false
			return
		}
		e.out.JSONLD = append(e.out.JSONLD, nil)
	}
	i := len(e.out.JSONLD) - 1
	if len(e.out.JSONLD[i])+len(raw) > site.MaxJSONLDBytes || e.jsonldSize+len(raw) > maxJSONLDTotal {
		e.jsonldSize -= len(e.out.JSONLD[i])
		e.out.JSONLD = e.out.JSONLD[:i]
		e.inJSONLD = false
		return
	}
	e.out.JSONLD[i] = append(e.out.JSONLD[i], raw...)
	e.jsonldSize += len(raw)
}

// baseTag applies the first <base href>: later relative links resolve
// against it (HTML §4.2.3). Links before it were already resolved against
// the page URL; pages put <base> first in <head>, as the standard asks.
func (e *extractor) baseTag(z *html.Tokenizer) {
	href, ok := attr(z, "href")
	if !ok {
		return
	}
	e.baseSeen = true
	b, err := e.page.Parse(strings.TrimSpace(href))
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" {
		return
	}
	e.base = b
	e.baseIntern = e.domain(b.Hostname()) == e.pageDomain
}

// link classifies one href.
func (e *extractor) link(href string) {
	href = strings.TrimSpace(href)
	if href == "" || href[0] == '#' {
		return // the page itself
	}
	if scheme, rest, ok := cutScheme(href); ok {
		switch scheme {
		case "http", "https":
		case "mailto":
			e.mailto(rest)
			return
		case "tel":
			if len(e.out.TelLinks) < maxTelLinks {
				if un, err := url.PathUnescape(rest); err == nil && len(un) <= 64 {
					e.out.TelLinks = append(e.out.TelLinks, strings.TrimSpace(un))
				}
			}
			return
		default:
			return // tel:, javascript:, data:, ...
		}
	} else if !isNetworkPath(href) {
		// A path relative to the base: same host as the base.
		if e.baseIntern {
			e.sum.InternalLinks++
		} else {
			e.sum.ExternalLinks++
		}
		return
	}
	u, err := e.base.Parse(strings.ReplaceAll(href, `\`, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	host := u.Hostname()
	d := e.domain(host)
	if d == e.pageDomain {
		e.sum.InternalLinks++
		return
	}
	e.sum.ExternalLinks++
	e.social(u, host, d)
}

// cutScheme splits "scheme:rest" when href starts with a URL scheme
// (RFC 3986 §3.1); the scheme is lowercased.
func cutScheme(href string) (scheme, rest string, ok bool) {
	for i := 0; i < len(href); i++ {
		c := href[i]
		switch {
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(href[:i]), href[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// isNetworkPath reports whether href is scheme-relative ("//host/path").
// Browsers treat backslashes like slashes there (WHATWG URL), so an href of
// "\\evil.example" leaves the site.
func isNetworkPath(href string) bool {
	return len(href) >= 2 && (href[0] == '/' || href[0] == '\\') && (href[1] == '/' || href[1] == '\\')
}

func (e *extractor) mailto(rest string) {
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i]
	}
	if un, err := url.PathUnescape(rest); err == nil {
		rest = un
	}
	for _, addr := range strings.Split(rest, ",") {
		addr = strings.TrimSpace(addr)
		if emailExact.MatchString(addr) {
			e.addEmail(addr)
		}
	}
}

var (
	emailPattern = `[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}`
	emailInText  = regexp.MustCompile(emailPattern)
	emailExact   = regexp.MustCompile(`^` + emailPattern + `$`)
)

// notMailTLDs are "top-level domains" that are really file extensions:
// "logo@2x.png" in a text is an image name, not an address.
var notMailTLDs = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true,
	"avif": true, "ico": true, "css": true, "js": true, "json": true, "html": true,
}

func (e *extractor) addEmail(addr string) {
	if len(e.sum.Emails) >= maxEmails || len(addr) > maxEmailBytes {
		return
	}
	addr = strings.Trim(strings.ToLower(addr), ".")
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 || strings.HasSuffix(addr[:at], ".") {
		return
	}
	if notMailTLDs[addr[strings.LastIndexByte(addr, '.')+1:]] {
		return
	}
	if e.emails[addr] {
		return
	}
	e.emails[addr] = true
	e.sum.Emails = append(e.sum.Emails, addr)
}

// socialNetworks maps the registrable domain of a profile link to the
// network's short name.
var socialNetworks = map[string]string{
	"bsky.app":        "bluesky",
	"facebook.com":    "facebook",
	"fb.com":          "facebook",
	"github.com":      "github",
	"instagram.com":   "instagram",
	"linkedin.com":    "linkedin",
	"mastodon.social": "mastodon",
	"pinterest.com":   "pinterest",
	"t.me":            "telegram",
	"threads.com":     "threads",
	"threads.net":     "threads",
	"tiktok.com":      "tiktok",
	"twitter.com":     "x",
	"vimeo.com":       "vimeo",
	"x.com":           "x",
	"xing.com":        "xing",
	"youtube.com":     "youtube",
}

// notProfilePaths are first path segments of share buttons, embeds and
// videos on the social sites: links there are not the company's profile.
var notProfilePaths = map[string]bool{
	"dialog": true, "embed": true, "hashtag": true, "home": true, "intent": true,
	"login": true, "pin": true, "plugins": true, "search": true, "share": true,
	"sharearticle": true, "sharer": true, "sharer.php": true, "sharing": true,
	"shorts": true, "tr": true, "watch": true, "cws": true,
}

// profileSegments is how many path segments name a profile on each
// network: "x.com/acme/status/1" is a post by the profile "x.com/acme",
// "github.com/acme/repo/issues" a page of "github.com/acme", while
// "linkedin.com/company/acme" needs two. Networks not listed keep two.
var profileSegments = map[string]int{
	"github": 1, "instagram": 1, "mastodon": 1, "pinterest": 1, "telegram": 1,
	"threads": 1, "tiktok": 1, "vimeo": 1, "x": 1,
}

func (e *extractor) social(u *url.URL, host, domain string) {
	network, ok := socialNetworks[domain]
	if !ok || len(e.sum.Socials) >= maxSocials {
		return
	}
	segs := strings.FieldsFunc(u.EscapedPath(), func(r rune) bool { return r == '/' })
	if len(segs) == 0 || notProfilePaths[strings.ToLower(segs[0])] {
		return
	}
	keep := profileSegments[network]
	switch {
	case network == "youtube" && strings.HasPrefix(segs[0], "@"):
		keep = 1 // youtube.com/@handle, but youtube.com/channel/ID
	case network == "facebook":
		keep = 1 // facebook.com/name, but facebook.com/groups/name
		if s := strings.ToLower(segs[0]); s == "groups" || s == "pages" || s == "people" {
			keep = 2
		}
	case keep == 0:
		keep = 2
	}
	segs = segs[:min(keep, len(segs))]
	host = strings.ToLower(host)
	for _, p := range []string{"www.", "m.", "mobile."} {
		host = strings.TrimPrefix(host, p)
	}
	link := "https://" + host + "/" + strings.Join(segs, "/")
	key := strings.ToLower(link)
	if len(link) > maxSocialURLBytes || e.socials[key] {
		return
	}
	e.socials[key] = true
	e.sum.Socials = append(e.sum.Socials, Social{Network: network, URL: link})
}

// domain returns the registrable domain of host, cached: publicsuffix
// lookups dominate the cost of a link otherwise.
func (e *extractor) domain(host string) string {
	if d, ok := e.domains[host]; ok {
		return d
	}
	d := weburl.HostDomain(host)
	if len(e.domains) < maxDomainCache {
		e.domains[host] = d
	}
	return d
}

// selH1 is compiled once: compiling it per page cost more allocations than
// parsing the fragment.
var selH1 = cascadia.MustCompile("h1")

// finish fills in the structured fields. Only the heading needs an HTML
// parser (an inline element, an implied end tag); if its fragment fails to
// parse, the heading alone is lost.
func (e *extractor) finish() Page {
	e.endLinkText()
	s := e.sum
	s.Title = site.CleanText(string(e.title), maxTitleBytes)
	if s.Title == "" {
		s.Title = site.CleanText(e.metas["og:title"], maxTitleBytes)
	}
	for _, k := range []string{"description", "og:description", "twitter:description"} {
		if v := e.metas[k]; v != "" {
			s.Description = site.CleanText(v, maxDescriptionBytes)
			break
		}
	}
	s.Lang = cleanLang(e.htmlLang)
	if s.Lang == "" {
		s.Lang = cleanLang(e.metas["content-language"])
	}
	for _, href := range e.canonicals {
		u, err := e.base.Parse(strings.TrimSpace(href))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		if c := u.String(); len(c) <= maxURLBytes && utf8.ValidString(c) {
			s.Canonical = c
			break
		}
	}
	if len(e.h1) > 0 {
		frag := make([]byte, 0, len(e.h1)+32)
		frag = append(frag, "<html><body>"...)
		frag = append(frag, e.h1...)
		frag = append(frag, "</h1></body></html>"...)
		// A parse error costs the heading and nothing else (issue 15 item
		// 2): the fragment is rebuilt within maxH1Depth, so the parser's
		// nesting limit, its one failure on a bytes.Reader, cannot be hit.
		if doc, err := goquery.NewDocumentFromReader(bytes.NewReader(frag)); err == nil {
			s.H1 = site.CleanText(doc.FindMatcher(selH1).First().Text(), maxH1Bytes)
		}
	}
	p := e.out
	p.Summary = s
	p.SiteName = site.CleanText(e.metas["og:site_name"], maxTitleBytes)
	p.VisibleText = strings.ToValidUTF8(string(e.visible), "")
	return p
}

// cleanLang keeps a language tag's first token when it looks like BCP 47.
func cleanLang(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(f) == 0 || len(f[0]) > maxLangBytes {
		return ""
	}
	for _, c := range []byte(f[0]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return ""
		}
	}
	return f[0]
}

// knownTags are the tag names the extractor acts on. Looking a []byte up
// in a map with a string(b) key does not allocate, and the result is a
// constant string that the switches compare cheaply.
var knownTags = map[string]string{}

func init() {
	for _, t := range []string{"a", "area", "base", "h1", "html", "link", "meta", "svg", "template"} {
		knownTags[t] = t
	}
	for t := range rawTextTags {
		knownTags[t] = t
	}
}

// tagName returns the name of the tag whose raw markup is raw ("<A HREF=x>",
// "</h1 >") if the extractor acts on it, else "". It reads the name from
// the raw bytes because Tokenizer.TagName allocates a copy for every tag.
func tagName(raw []byte) string {
	i := 1
	if len(raw) > 1 && raw[1] == '/' {
		i = 2
	}
	var buf [10]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return knownTags[string(buf[:n])]
}

// attr returns the value of the named attribute of the current tag.
func attr(z *html.Tokenizer, name string) (string, bool) {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == name {
			return string(v), true
		}
		if k == nil {
			break
		}
	}
	return "", false
}

// appendCapped appends src to dst while dst stays within limit bytes.
func appendCapped(dst, src []byte, limit int) []byte {
	if room := limit - len(dst); room < len(src) {
		if room <= 0 {
			return dst
		}
		src = src[:room]
	}
	return append(dst, src...)
}
