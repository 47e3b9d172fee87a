package site

import (
	"strings"
	"time"
)

// Bounds of the site-level lists.
const (
	maxEmails        = 20
	maxPhones        = 20
	maxAddresses     = 8
	maxSocials       = 20
	maxOrgsPerSite   = 16
	maxAlternates    = 32
	maxDocumentFetch = 64
)

// Found is what one page contributes to the site-level fields.
type Found struct {
	Emails        []string
	Phones        []Phone
	Socials       []Social
	Organizations []Organization
	// SiteName is the page's og:site_name.
	SiteName string
}

// Builder assembles a Document from the pages of one crawl, in the order
// they were fetched (the start page first). It deduplicates and bounds the
// site-level lists. The zero value is not usable; call NewBuilder.
type Builder struct {
	doc      Document
	siteName string
	emails   map[string]bool
	phones   map[string]bool
	socials  map[string]bool
	addrs    map[PostalAddress]bool
	langs    map[string]bool
}

// NewBuilder starts the document of a crawl of startURL.
func NewBuilder(startURL string, fetchedAt time.Time, userAgent string) *Builder {
	return &Builder{
		doc: Document{
			SchemaVersion: SchemaVersion, URL: startURL, FetchedAt: fetchedAt.UTC(), UserAgent: userAgent,
			Pages: []Page{}, Fetches: []Fetch{},
		},
		emails: map[string]bool{}, phones: map[string]bool{}, socials: map[string]bool{},
		addrs: map[PostalAddress]bool{}, langs: map[string]bool{},
	}
}

// AddFetch records the provenance of one URL the crawl wanted.
func (b *Builder) AddFetch(f Fetch) {
	if len(b.doc.Fetches) < maxDocumentFetch {
		b.doc.Fetches = append(b.doc.Fetches, f)
	}
	if f.Outcome == FetchSkipped || f.Truncated {
		b.doc.Truncated = true
	}
}

// AddRobots records the robots.txt verdict of one origin.
func (b *Builder) AddRobots(v RobotsVerdict) { b.doc.Robots = append(b.doc.Robots, v) }

// AddPage adds a fetched page and what it contributes.
func (b *Builder) AddPage(p Page, f Found) {
	if p.Truncated {
		b.doc.Truncated = true
	}
	if len(b.doc.Pages) == 0 {
		b.doc.FinalURL = p.FinalURL
		b.doc.Text = p.Text
		b.doc.Canonical = p.Canonical
		b.doc.Alternates = p.Alternates
		b.siteName = f.SiteName
	}
	b.doc.Pages = append(b.doc.Pages, p)
	if l := p.Language; l != "" && !b.langs[strings.ToLower(l)] {
		b.langs[strings.ToLower(l)] = true
		b.doc.Languages = append(b.doc.Languages, l)
	}
	for _, e := range f.Emails {
		b.addEmail(e)
	}
	for _, ph := range f.Phones {
		b.addPhone(ph)
	}
	for _, s := range f.Socials {
		if key := strings.ToLower(s.URL); !b.socials[key] && len(b.doc.Socials) < maxSocials {
			b.socials[key] = true
			b.doc.Socials = append(b.doc.Socials, s)
		}
	}
	for _, o := range f.Organizations {
		if len(b.doc.Organizations) >= maxOrgsPerSite {
			break
		}
		b.doc.Organizations = append(b.doc.Organizations, o)
		b.addEmail(o.Email)
		if o.Telephone != "" && strings.HasPrefix(o.Telephone, "+") {
			b.addPhone(Phone{E164: o.Telephone, Raw: o.Telephone, Source: PhoneFromStructuredData, Page: o.Page})
		}
		for _, cp := range o.ContactPoints {
			b.addEmail(cp.Email)
			if strings.HasPrefix(cp.Telephone, "+") {
				b.addPhone(Phone{E164: cp.Telephone, Raw: cp.Telephone, Source: PhoneFromStructuredData, Page: o.Page})
			}
		}
		if o.Address != nil && !b.addrs[*o.Address] && len(b.doc.Contacts.Addresses) < maxAddresses {
			b.addrs[*o.Address] = true
			b.doc.Contacts.Addresses = append(b.doc.Contacts.Addresses, *o.Address)
		}
	}
}

func (b *Builder) addEmail(e string) {
	e = strings.ToLower(strings.TrimSpace(e))
	if e == "" || b.emails[e] || len(b.doc.Contacts.Emails) >= maxEmails {
		return
	}
	b.emails[e] = true
	b.doc.Contacts.Emails = append(b.doc.Contacts.Emails, e)
}

func (b *Builder) addPhone(p Phone) {
	if p.E164 == "" || b.phones[p.E164] || len(b.doc.Contacts.Phones) >= maxPhones {
		return
	}
	b.phones[p.E164] = true
	b.doc.Contacts.Phones = append(b.doc.Contacts.Phones, p)
}

// Document returns the assembled document: the organisation's name and
// description from the first Organization that has them, else the start
// page's og:site_name, title and description.
func (b *Builder) Document() *Document {
	d := b.doc
	for _, o := range d.Organizations {
		if d.Name == "" {
			d.Name = o.Name
		}
		if d.Description == "" {
			d.Description = o.Description
		}
	}
	if len(d.Pages) > 0 {
		start := d.Pages[0]
		if d.Name == "" {
			d.Name = CleanText(b.siteName, 300)
		}
		if d.Name == "" {
			d.Name = start.Title
		}
		if d.Description == "" {
			d.Description = start.Description
		}
	}
	return &d
}
