package fixtureweb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// Page is what a site's home page says, for checking a scrape against it.
type Page struct {
	Lang        string
	Title       string
	Description string
	H1          string
	// Canonical is the path of the canonical URL; the page links it on
	// the host the request came to.
	Canonical string
	// Emails are the addresses the page shows, in order; the first one is
	// at the top of the page, the others in the footer.
	Emails []string
	// Socials are the social profile links in the footer, as linked.
	Socials []string
	// Charset is "utf-8" or "windows-1252".
	Charset string
	// Gzip says the site compresses its pages for clients that accept it.
	Gzip bool
}

// pageKind selects one of a site's pages.
type pageKind int

const (
	pageHome pageKind = iota
	pageAbout
	pageContact
	pageImprint
)

// content is what a site's pages say, drawn from (seed, id) alone.
type content struct {
	id        int
	seed      int64
	lang      *language
	company   string
	trade     string
	page      Page
	externals []string
	size      int // target size of the home page
	// homeJSONLD says the home page carries the company's schema.org
	// Organization (the imprint page always does).
	homeJSONLD bool
}

var socialProfiles = []string{
	"https://www.linkedin.com/company/%s/",
	"https://x.com/%s",
	"https://www.facebook.com/%s",
	"https://www.instagram.com/%s/",
	"https://www.youtube.com/@%s",
	"https://github.com/%s",
	"https://www.xing.com/pages/%s",
}

var languageTotal = func() int {
	n := 0
	for _, l := range languages {
		n += l.weight
	}
	return n
}()

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// newContent draws the content of site id.
func newContent(seed int64, id int) *content {
	r := siteRand(seed, id, streamPage)
	c := &content{id: id, seed: seed}
	k := r.IntN(languageTotal)
	for i := range languages {
		if k < languages[i].weight {
			c.lang = &languages[i]
			break
		}
		k -= languages[i].weight
	}
	l := c.lang
	brand, trade, legal := pick(r, l.brands), pick(r, l.trades), pick(r, l.legal)
	c.trade = trade[0]
	parts := []string{brand[0], trade[0], legal}
	if l.prefixLegal {
		parts = []string{legal, brand[0], trade[0]}
	}
	c.company = strings.Join(parts, l.sep)
	// The id keeps the slugs (and so the e-mail domains) unique per site.
	slug := brand[1] + "-" + trade[1] + "-" + strconv.Itoa(id)
	domain := slug + ".example" // RFC 2606: never a real domain

	p := &c.page
	p.Lang = l.code
	p.Title = c.company + " – " + pick(r, l.taglines)
	p.Description = fmt.Sprintf(l.description, c.company, c.trade)
	p.H1 = fmt.Sprintf(l.welcome, c.company)
	p.Canonical = sitePath(id)
	p.Charset = "utf-8"
	if l.latin && r.IntN(10) < 3 {
		p.Charset = "windows-1252"
	}
	p.Gzip = r.IntN(10) < 3

	mailboxes := append([]string(nil), l.mailboxes...)
	r.Shuffle(len(mailboxes), func(i, j int) { mailboxes[i], mailboxes[j] = mailboxes[j], mailboxes[i] })
	for _, m := range mailboxes[:1+r.IntN(len(mailboxes))] {
		p.Emails = append(p.Emails, m+"@"+domain)
	}
	handle := strings.ReplaceAll(slug, "-", "")
	for _, i := range r.Perm(len(socialProfiles))[:r.IntN(6)] {
		p.Socials = append(p.Socials, fmt.Sprintf(socialProfiles[i], handle))
	}
	externals := []string{
		"https://www.example.org/directory/" + slug,
		"https://www.example.com/reviews?company=" + slug,
		"https://partner-" + strconv.Itoa(r.IntN(50)) + ".example/",
		"https://www.example.net/news/" + strconv.Itoa(r.IntN(1000)),
		"https://chamber.example/members/" + strconv.Itoa(id),
		"https://maps.example/?q=" + slug,
	}
	c.externals = externals[:1+r.IntN(len(externals))]

	// Page sizes as on the real web: mostly small, a long tail of big ones.
	switch f := r.Float64(); {
	case f < 0.70:
		c.size = 4<<10 + r.IntN(26<<10)
	case f < 0.95:
		c.size = 30<<10 + r.IntN(90<<10)
	default:
		c.size = 120<<10 + r.IntN(280<<10)
	}
	c.homeJSONLD = r.IntN(2) == 0
	return c
}

// link is one link of a page's navigation.
type link struct{ href, text string }

// links are the links of a site's navigation and, last, its footer, on
// every page, in page order: what the scraper chooses key pages from
// (Expect applies the scraper's choice to them).
func (c *content) links() []link {
	l, base := c.lang, sitePath(c.id)
	return []link{
		{base, c.company}, {base, l.home}, {base + "about", l.about}, {base + "contact", l.contact},
		{"#products", l.products}, {base + "imprint", l.imprint},
	}
}

// jsonLD is the site's schema.org Organization (LocalBusiness for some),
// with its address, phone number and profiles.
func (c *content) jsonLD(origin string) string {
	l, p := c.lang, &c.page
	typ := "Organization"
	if c.id%3 == 0 {
		typ = "LocalBusiness"
	}
	m := map[string]any{
		"@context": "https://schema.org", "@type": typ, "name": c.company, "url": origin + sitePath(c.id),
		"telephone": l.phone, "email": p.Emails[0],
		"address": map[string]string{"@type": "PostalAddress", "streetAddress": l.address[0], "postalCode": l.address[1],
			"addressLocality": l.address[2], "addressCountry": l.address[3]},
		"contactPoint": map[string]string{"@type": "ContactPoint", "contactType": "customer service", "telephone": l.phone},
	}
	if len(p.Socials) > 0 {
		m["sameAs"] = p.Socials
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	// Inside <script>, "</" would end the element early.
	return "<script type=\"application/ld+json\">" + strings.ReplaceAll(string(b), "</", "<\\/") + "</script>\n"
}

// sitePath is the path of site id's home page.
func sitePath(id int) string { return "/site/" + strconv.Itoa(id) + "/" }

// render writes one page of the site for a request to origin
// ("http://127.0.0.1:8099"). The home page grows to about size bytes;
// with exact, to at most size bytes (unless its frame alone is larger).
func (c *content) render(b *bytes.Buffer, origin string, kind pageKind, size int, exact bool) {
	l, p, base := c.lang, &c.page, sitePath(c.id)
	esc := html.EscapeString
	title, h1 := p.Title, p.H1
	switch kind {
	case pageAbout:
		title, h1 = l.about+" – "+c.company, l.about
	case pageContact:
		title, h1 = l.contact+" – "+c.company, l.contact
	case pageImprint:
		title, h1 = l.imprint+" – "+c.company, l.imprint
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"" + l.code + "\">\n<head>\n")
	b.WriteString("<meta charset=\"" + p.Charset + "\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + esc(title) + "</title>\n")
	b.WriteString("<meta name=\"description\" content=\"" + esc(p.Description) + "\">\n")
	b.WriteString("<link rel=\"canonical\" href=\"" + esc(origin+base+pageSuffix(kind)) + "\">\n")
	b.WriteString("<meta property=\"og:title\" content=\"" + esc(title) + "\">\n")
	b.WriteString("<meta property=\"og:site_name\" content=\"" + esc(c.company) + "\">\n")
	if kind == pageImprint || (kind == pageHome && c.homeJSONLD) {
		b.WriteString(c.jsonLD(origin))
	}
	b.WriteString("</head>\n<body>\n")
	if kind == pageHome {
		// Real-shaped boilerplate the main-content extractor must drop.
		b.WriteString("<div id=\"cookie-banner\" class=\"cookie-consent\" role=\"dialog\"><p>" + esc(l.cookies) +
			"</p><button>OK</button></div>\n")
	}
	b.WriteString("<div class=\"top\">" + esc(l.emailLabel) + ": <a href=\"mailto:" + p.Emails[0] + "\">" +
		p.Emails[0] + "</a> · " + esc(l.phoneLabel) + ": " + esc(l.phone) + "</div>\n")
	nav := c.links()
	b.WriteString("<header><a class=\"logo\" href=\"" + nav[0].href + "\">" + esc(nav[0].text) + "</a>\n<nav>")
	for _, n := range nav[1 : len(nav)-1] {
		b.WriteString("<a href=\"" + n.href + "\">" + esc(n.text) + "</a> ")
	}
	b.WriteString("</nav></header>\n")
	b.WriteString("<main>\n<h1>" + esc(h1) + "</h1>\n")

	footer := c.footer(origin, kind)
	r := siteRand(c.seed, c.id, streamPage+uint64(kind+1)<<8)
	switch kind {
	case pageHome:
		b.WriteString("<section id=\"products\"><h2>" + esc(l.products) + "</h2>\n")
		for n := 1; b.Len()+len(footer)+len("</section>\n") < size; n++ {
			mark := b.Len()
			c.block(b, r, n)
			if exact && b.Len()+len(footer)+len("</section>\n") > size {
				b.Truncate(mark)
				break
			}
		}
		b.WriteString("</section>\n")
	case pageAbout:
		for range 3 + r.IntN(3) {
			c.paragraph(b, r)
		}
	case pageContact:
		b.WriteString("<address>\n")
		for _, e := range p.Emails {
			b.WriteString(esc(l.emailLabel) + ": <a href=\"mailto:" + e + "\">" + e + "</a><br>\n")
		}
		b.WriteString(esc(l.phoneLabel) + ": <a href=\"tel:" + strings.ReplaceAll(l.phone, " ", "") + "\">" +
			esc(l.nationalPhone) + "</a>\n</address>\n")
		c.paragraph(b, r)
	case pageImprint:
		b.WriteString("<p>" + esc(c.company) + "<br>\n" + esc(l.address[0]) + "<br>\n" + esc(l.address[1]) + " " +
			esc(l.address[2]) + "</p>\n<p>" + esc(l.phoneLabel) + ": " + esc(l.nationalPhone) + "</p>\n")
		c.paragraph(b, r)
	}
	b.WriteString(footer)
}

func pageSuffix(kind pageKind) string {
	switch kind {
	case pageAbout:
		return "about"
	case pageContact:
		return "contact"
	case pageImprint:
		return "imprint"
	}
	return ""
}

// escaped holds the HTML-escaped text that the main section repeats, per
// language (indexed like languages): escaping once instead of per block
// halves the cost of a page.
var escaped = func() []struct {
	sentences     []string
	item, contact string
} {
	out := make([]struct {
		sentences     []string
		item, contact string
	}, len(languages))
	for i, l := range languages {
		for _, s := range l.sentences {
			out[i].sentences = append(out[i].sentences, html.EscapeString(s))
		}
		out[i].item, out[i].contact = html.EscapeString(l.item), html.EscapeString(l.contact)
	}
	return out
}()

// langIndex returns the index of c's language in languages.
func (c *content) langIndex() int {
	for i := range languages {
		if &languages[i] == c.lang {
			return i
		}
	}
	return 0
}

// block writes one entry of the home page's main section.
func (c *content) block(b *bytes.Buffer, r *rand.Rand, n int) {
	if n%3 == 0 {
		c.paragraph(b, r)
		return
	}
	e := &escaped[c.langIndex()]
	num := strconv.Itoa(n)
	b.WriteString(`<article class="item"><h3>`)
	b.WriteString(e.item)
	b.WriteByte(' ')
	b.WriteString(num)
	b.WriteString("</h3><p>")
	b.WriteString(pick(r, e.sentences))
	b.WriteString(`</p><a href="`)
	b.WriteString(sitePath(c.id))
	b.WriteString("contact?item=")
	b.WriteString(num)
	b.WriteString(`">`)
	b.WriteString(e.contact)
	b.WriteString("</a></article>\n")
}

func (c *content) paragraph(b *bytes.Buffer, r *rand.Rand) {
	sentences := escaped[c.langIndex()].sentences
	b.WriteString("<p>")
	for i := range 2 + r.IntN(4) {
		if i > 0 && c.lang.sep != "" {
			b.WriteByte(' ')
		}
		b.WriteString(pick(r, sentences))
	}
	b.WriteString("</p>\n")
}

// footer is the end of every page: the e-mail addresses, the social
// profiles with a share button (a link to a social site that is not a
// profile), the external links and the copyright.
func (c *content) footer(origin string, kind pageKind) string {
	var b strings.Builder
	p := &c.page
	b.WriteString("</main>\n<aside class=\"sidebar\"><h4>" + html.EscapeString(c.lang.products) + "</h4><ul>")
	for _, e := range c.externals {
		b.WriteString("<li><a href=\"" + html.EscapeString(e) + "\">" + html.EscapeString(c.lang.item) + "</a></li>")
	}
	nav := c.links()
	imprint := nav[len(nav)-1]
	b.WriteString("</ul></aside>\n<footer>\n<p><a href=\"" + imprint.href + "\">" + html.EscapeString(imprint.text) + "</a></p>\n<p>")
	for i, e := range p.Emails[1:] {
		if i > 0 {
			b.WriteString(" · ")
		}
		b.WriteString("<a href=\"mailto:" + e + "\">" + e + "</a>")
	}
	b.WriteString("</p>\n<p class=\"social\">")
	for _, s := range p.Socials {
		b.WriteString("<a href=\"" + s + "\" rel=\"me\">" + socialName(s) + "</a> ")
	}
	share := "https://www.facebook.com/sharer/sharer.php?u=" + origin + sitePath(c.id) + pageSuffix(kind)
	b.WriteString("<a href=\"" + html.EscapeString(share) + "\">Share</a></p>\n<p class=\"links\">")
	for _, e := range c.externals {
		b.WriteString("<a href=\"" + html.EscapeString(e) + "\">" + html.EscapeString(e) + "</a> ")
	}
	b.WriteString("</p>\n<p>© 2026 " + html.EscapeString(c.company) + "</p>\n</footer>\n</body>\n</html>\n")
	return b.String()
}

func socialName(u string) string {
	host := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "www.")
	name, _, _ := strings.Cut(host, ".")
	return name
}

var win1252 encoding.Encoding = charmap.Windows1252

// encode converts a rendered page to the site's charset.
func (c *content) encode(b []byte) ([]byte, error) {
	if c.page.Charset == "utf-8" {
		return b, nil
	}
	// Replacing what the charset cannot hold keeps a request's odd Host
	// header (it appears in the canonical link) from failing the page.
	out, err := encoding.ReplaceUnsupported(win1252.NewEncoder()).Bytes(b)
	if err != nil {
		return nil, fmt.Errorf("encode page as %s: %w", c.page.Charset, err)
	}
	return out, nil
}
