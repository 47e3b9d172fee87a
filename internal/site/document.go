package site

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the layout version of Document, stored in its
// schemaVersion field. A change that removes or retypes a field, or
// changes a field's meaning, makes a new version with a new schema file;
// adding an optional field does not (docs/site-document.md, "Versioning").
const SchemaVersion = 1

// Schema is the JSON Schema (draft 2020-12) of Document version
// SchemaVersion: the one specification of every field. TestSchemaRoundTrip
// keeps it and the Go types in step.
//
//go:embed schema/site-document-v1.schema.json
var Schema []byte

// Document is what one task learns about one website: the pages fetched,
// their main content, the site's contacts and organisation data, and the
// provenance of every fetch. The field descriptions are in Schema.
type Document struct {
	SchemaVersion int       `json:"schemaVersion"`
	URL           string    `json:"url"`
	FinalURL      string    `json:"finalUrl"`
	FetchedAt     time.Time `json:"fetchedAt"`
	UserAgent     string    `json:"userAgent"`

	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Languages   []string `json:"languages,omitempty"`
	// Text is the main content of the start page as plain text.
	Text string `json:"text"`

	Contacts      Contacts       `json:"contacts"`
	Socials       []Social       `json:"socials,omitempty"`
	Organizations []Organization `json:"organizations,omitempty"`
	Canonical     string         `json:"canonical,omitempty"`
	Alternates    []Alternate    `json:"alternates,omitempty"`

	Pages     []Page          `json:"pages"`
	Robots    []RobotsVerdict `json:"robots,omitempty"`
	Fetches   []Fetch         `json:"fetches"`
	Truncated bool            `json:"truncated"`
}

// Contacts are the ways to reach the site's owner, from every page.
type Contacts struct {
	Emails    []string        `json:"emails,omitempty"`
	Phones    []Phone         `json:"phones,omitempty"`
	Addresses []PostalAddress `json:"addresses,omitempty"`
}

// PhoneSource says where a phone number was found.
type PhoneSource string

// The phone sources.
const (
	PhoneFromTelLink        PhoneSource = "tel-link"
	PhoneFromStructuredData PhoneSource = "structured-data"
	PhoneFromText           PhoneSource = "text"
)

// Phone is a phone number normalised to E.164.
type Phone struct {
	E164   string      `json:"e164"`
	Raw    string      `json:"raw"`
	Source PhoneSource `json:"source"`
	Page   string      `json:"page"`
}

// PostalAddress is a schema.org PostalAddress.
type PostalAddress struct {
	StreetAddress string `json:"streetAddress,omitempty"`
	PostalCode    string `json:"postalCode,omitempty"`
	Locality      string `json:"locality,omitempty"`
	Region        string `json:"region,omitempty"`
	Country       string `json:"country,omitempty"`
}

// Social is one social profile link.
type Social struct {
	Network string `json:"network"`
	URL     string `json:"url"`
}

// DataFormat is the markup a structured-data entity came from.
type DataFormat string

// The structured-data formats.
const (
	FormatJSONLD    DataFormat = "json-ld"
	FormatMicrodata DataFormat = "microdata"
)

// Organization is a schema.org Organization, LocalBusiness or one of
// their subtypes.
type Organization struct {
	Type          string         `json:"type"`
	Name          string         `json:"name,omitempty"`
	LegalName     string         `json:"legalName,omitempty"`
	Description   string         `json:"description,omitempty"`
	URL           string         `json:"url,omitempty"`
	Logo          string         `json:"logo,omitempty"`
	Email         string         `json:"email,omitempty"`
	Telephone     string         `json:"telephone,omitempty"`
	Address       *PostalAddress `json:"address,omitempty"`
	ContactPoints []ContactPoint `json:"contactPoints,omitempty"`
	SameAs        []string       `json:"sameAs,omitempty"`
	Format        DataFormat     `json:"format"`
	Page          string         `json:"page"`
}

// ContactPoint is a schema.org ContactPoint.
type ContactPoint struct {
	ContactType       string   `json:"contactType,omitempty"`
	Telephone         string   `json:"telephone,omitempty"`
	Email             string   `json:"email,omitempty"`
	AreaServed        []string `json:"areaServed,omitempty"`
	AvailableLanguage []string `json:"availableLanguage,omitempty"`
}

// Alternate is a <link rel=alternate hreflang> of the start page.
type Alternate struct {
	Hreflang string `json:"hreflang"`
	URL      string `json:"url"`
}

// PageRole is why a page was fetched: the start page, or the kind of key
// page its link looked like.
type PageRole string

// The page roles. Key pages are chosen from the start page's links by
// ChooseKeyPages, in this order of preference.
const (
	RoleStart    PageRole = "start"
	RoleContact  PageRole = "contact"
	RoleImprint  PageRole = "imprint"
	RoleAbout    PageRole = "about"
	RoleTeam     PageRole = "team"
	RoleCompany  PageRole = "company"
	RoleServices PageRole = "services"
	RoleProducts PageRole = "products"
	RoleCareers  PageRole = "careers"
	RoleLegal    PageRole = "legal"
	RoleRobots   PageRole = "robots"
)

// KeyRoles returns the key-page roles in order of preference.
func KeyRoles() []PageRole {
	return []PageRole{RoleContact, RoleImprint, RoleAbout, RoleTeam, RoleCompany, RoleServices, RoleProducts, RoleCareers, RoleLegal}
}

// Page is one fetched HTML page.
type Page struct {
	URL         string      `json:"url"`
	FinalURL    string      `json:"finalUrl"`
	Role        PageRole    `json:"role"`
	Status      int         `json:"status"`
	ContentType string      `json:"contentType,omitempty"`
	Bytes       int64       `json:"bytes"`
	FetchedAt   time.Time   `json:"fetchedAt"`
	FetchMillis int64       `json:"fetchMillis"`
	Language    string      `json:"language,omitempty"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	H1          string      `json:"h1,omitempty"`
	Canonical   string      `json:"canonical,omitempty"`
	Alternates  []Alternate `json:"alternates,omitempty"`

	Text     string `json:"text"`
	Markdown string `json:"markdown"`
	// ContentError says why Text and Markdown are empty when extraction
	// failed or was skipped; "" otherwise.
	ContentError     string `json:"contentError,omitempty"`
	ContentTruncated bool   `json:"contentTruncated"`

	TextLength    int  `json:"textLength"`
	InternalLinks int  `json:"internalLinks"`
	ExternalLinks int  `json:"externalLinks"`
	Truncated     bool `json:"truncated"`
}

// RobotsOutcome is what a host's robots.txt allows (RFC 9309 §2.3.1).
type RobotsOutcome string

// The robots outcomes.
const (
	// RobotsRules: the file was fetched and its rules apply.
	RobotsRules RobotsOutcome = "rules"
	// RobotsAllowAll: the file is unavailable (a 4xx status): no rules.
	RobotsAllowAll RobotsOutcome = "allow-all"
	// RobotsDisallowAll: the file is unreachable (a 5xx status, a network
	// error, too many redirects): everything is disallowed.
	RobotsDisallowAll RobotsOutcome = "disallow-all"
)

// RobotsVerdict is the robots.txt of one host, fetched once per task.
type RobotsVerdict struct {
	Origin            string        `json:"origin"`
	URL               string        `json:"url"`
	Status            int           `json:"status,omitempty"`
	Outcome           RobotsOutcome `json:"outcome"`
	Error             string        `json:"error,omitempty"`
	CrawlDelaySeconds float64       `json:"crawlDelaySeconds,omitempty"`
	Bytes             int64         `json:"bytes"`
}

// FetchOutcome is how one fetch ended.
type FetchOutcome string

// The fetch outcomes.
const (
	FetchOK FetchOutcome = "ok"
	// FetchFailed: the fetch ended in an error (Fetch.Error).
	FetchFailed FetchOutcome = "failed"
	// FetchDisallowed: robots.txt disallows the URL; nothing was sent.
	FetchDisallowed FetchOutcome = "disallowed"
	// FetchSkipped: the task's budget (time, bytes) ran out first;
	// nothing was sent.
	FetchSkipped FetchOutcome = "skipped"
)

// Fetch is the provenance of one URL the task wanted: robots.txt, the
// start page or a key page.
type Fetch struct {
	URL         string       `json:"url"`
	Role        PageRole     `json:"role"`
	Outcome     FetchOutcome `json:"outcome"`
	Attempts    int          `json:"attempts"`
	Status      int          `json:"status,omitempty"`
	Error       string       `json:"error,omitempty"`
	Bytes       int64        `json:"bytes"`
	FetchMillis int64        `json:"fetchMillis"`
	Truncated   bool         `json:"truncated"`
}

// Summary is the part of a Document that a task row keeps: enough to list
// and filter results without reading the document, and where the document
// is (Object, SHA256: set by the writer that stored it).
type Summary struct {
	Title      string `json:"title,omitempty"`
	Language   string `json:"language,omitempty"`
	Pages      int    `json:"pages"`
	Emails     int    `json:"emails"`
	Phones     int    `json:"phones"`
	Addresses  int    `json:"addresses"`
	Socials    int    `json:"socials"`
	TextLength int    `json:"textLength"`
	// Object is the document's object key, SHA256 the hex digest of the
	// object's bytes.
	Object string `json:"object,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// TitleTrimmed says MarshalBounded shortened Title.
	TitleTrimmed bool `json:"titleTrimmed,omitempty"`
}

// MaxSummaryBytes bounds a Summary's JSON: the row stays small, so every
// later write of it and every index that projects it pays little (DynamoDB
// bills writes per started KB,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/capacity-unit-calculations.html).
const MaxSummaryBytes = 2 << 10

// Bounds of the free-text fields of a Summary.
const (
	maxTitleRunes    = 300
	maxLanguageBytes = 35 // the longest registered BCP 47 tags (RFC 5646 §4.4.1)
)

// MarshalBounded returns the summary as compact JSON of at most
// MaxSummaryBytes: Title (page text, any length) is cut to 300 characters,
// then shortened further while the JSON is too long (escapes can make a
// character cost six bytes); the other fields are counts, a language tag,
// a key and a digest. An object key so long that nothing fits is an error.
func (s Summary) MarshalBounded() ([]byte, error) {
	if len(s.Language) > maxLanguageBytes {
		s.Language = s.Language[:maxLanguageBytes]
	}
	if n := utf8.RuneCountInString(s.Title); n > maxTitleRunes {
		s.Title, s.TitleTrimmed = truncateRunes(s.Title, maxTitleRunes), true
	}
	for {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			return nil, fmt.Errorf("site: marshal summary: %w", err)
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if len(b) <= MaxSummaryBytes {
			return b, nil
		}
		if s.Title == "" {
			return nil, fmt.Errorf("site: marshal summary: %d bytes without a title, over %d (object key of %d bytes)",
				len(b), MaxSummaryBytes, len(s.Object))
		}
		s.Title, s.TitleTrimmed = truncateRunes(s.Title, utf8.RuneCountInString(s.Title)/2), true
	}
}

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Summary returns the row summary of d. TextLength counts the characters
// of the main text of every page; Title is the start page's.
func (d *Document) Summary() Summary {
	s := Summary{
		Pages:     len(d.Pages),
		Emails:    len(d.Contacts.Emails),
		Phones:    len(d.Contacts.Phones),
		Addresses: len(d.Contacts.Addresses),
		Socials:   len(d.Socials),
	}
	if len(d.Pages) > 0 {
		s.Title = d.Pages[0].Title
	}
	if len(d.Languages) > 0 {
		s.Language = d.Languages[0]
	}
	for _, p := range d.Pages {
		s.TextLength += utf8.RuneCountInString(p.Text)
	}
	return s
}

// Marshal encodes d as compact JSON without HTML escaping: the document is
// stored, never embedded in a page, and "<" as \u003c would cost six bytes
// instead of one.
func (d *Document) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("site: marshal document: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Unmarshal decodes a document of version SchemaVersion; any other version
// is an error, since its fields may mean something else.
func Unmarshal(b []byte) (*Document, error) {
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("site: unmarshal document: %w", err)
	}
	if d.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("site: unmarshal document: schemaVersion %d, want %d", d.SchemaVersion, SchemaVersion)
	}
	return &d, nil
}
