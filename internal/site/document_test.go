package site

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// compileSchema compiles Schema, asserting formats (date-time).
func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource("site-document-v1.schema.json", doc))
	s, err := c.Compile("site-document-v1.schema.json")
	require.NoError(t, err)
	return s
}

// validate checks b against Schema.
func validate(t testing.TB, s *jsonschema.Schema, b []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	require.NoError(t, s.Validate(v), "%s", b)
}

// fullDocument sets every field of every type.
func fullDocument() *Document {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	addr := &PostalAddress{StreetAddress: "Hauptstraße 1", PostalCode: "10115", Locality: "Berlin", Region: "BE", Country: "DE"}
	return &Document{
		SchemaVersion: SchemaVersion,
		URL:           "https://acme.example/", FinalURL: "https://www.acme.example/", FetchedAt: at,
		UserAgent: "taskpipe-scraper/1.0 (+https://example.com/bot)",
		Name:      "Acme GmbH", Description: "Widgets since 1950.", Languages: []string{"de", "en"},
		Text: "Wir bauen Widgets.",
		Contacts: Contacts{
			Emails:    []string{"info@acme.example"},
			Phones:    []Phone{{E164: "+493012345678", Raw: "030 1234 5678", Source: PhoneFromText, Page: "https://www.acme.example/kontakt"}},
			Addresses: []PostalAddress{*addr},
		},
		Socials: []Social{{Network: "linkedin", URL: "https://linkedin.com/company/acme"}},
		Organizations: []Organization{{
			Type: "Corporation", Name: "Acme", LegalName: "Acme GmbH", Description: "d", URL: "https://www.acme.example/",
			Logo: "https://www.acme.example/logo.png", Email: "info@acme.example", Telephone: "+493012345678", Address: addr,
			ContactPoints: []ContactPoint{{ContactType: "sales", Telephone: "+493012345679", Email: "sales@acme.example",
				AreaServed: []string{"DE"}, AvailableLanguage: []string{"German"}}},
			SameAs: []string{"https://x.com/acme"}, Format: FormatJSONLD, Page: "https://www.acme.example/",
		}},
		Canonical:  "https://www.acme.example/",
		Alternates: []Alternate{{Hreflang: "en", URL: "https://www.acme.example/en/"}},
		Pages: []Page{{
			URL: "https://acme.example/", FinalURL: "https://www.acme.example/", Role: RoleStart, Status: 200,
			ContentType: "text/html; charset=utf-8", Bytes: 1234, FetchedAt: at, FetchMillis: 12, Language: "de",
			Title: "Acme", Description: "Widgets", H1: "Willkommen", Canonical: "https://www.acme.example/",
			Alternates: []Alternate{{Hreflang: "x-default", URL: "https://www.acme.example/"}},
			Text:       "Wir bauen Widgets.", Markdown: "# Willkommen\n\nWir bauen Widgets.", ContentError: "",
			ContentTruncated: true, TextLength: 99, InternalLinks: 3, ExternalLinks: 1, Truncated: true,
		}, {
			URL: "https://www.acme.example/kontakt", FinalURL: "https://www.acme.example/kontakt", Role: RoleContact,
			Status: 200, FetchedAt: at, ContentError: "no main content found",
		}},
		Robots: []RobotsVerdict{{Origin: "https://www.acme.example", URL: "https://www.acme.example/robots.txt", Status: 200,
			Outcome: RobotsRules, Error: "", CrawlDelaySeconds: 1.5, Bytes: 120}},
		Fetches: []Fetch{
			{URL: "https://www.acme.example/robots.txt", Role: RoleRobots, Outcome: FetchOK, Attempts: 1, Status: 200, Bytes: 120, FetchMillis: 3},
			{URL: "https://www.acme.example/jobs", Role: RoleCareers, Outcome: FetchDisallowed, Error: "robots.txt: Disallow: /jobs"},
			{URL: "https://www.acme.example/team", Role: RoleTeam, Outcome: FetchFailed, Attempts: 3, Status: 503, Error: "status 503", Truncated: true},
		},
		Truncated: true,
	}
}

// TestSchemaRoundTrip: a document with every field set validates against
// Schema, and decodes to the value it was encoded from; so does the empty
// document the builder starts from.
func TestSchemaRoundTrip(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	for name, d := range map[string]*Document{
		"full":    fullDocument(),
		"minimal": {SchemaVersion: SchemaVersion, URL: "https://a.example/", FinalURL: "https://a.example/", Pages: []Page{}, Fetches: []Fetch{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := d.Marshal()
			require.NoError(t, err)
			validate(t, s, b)
			back, err := Unmarshal(b)
			require.NoError(t, err)
			require.Equal(t, d, back)
		})
	}
}

// TestSchemaRejects: the schema is strict enough to catch a wrong version,
// an unknown field and a malformed E.164 number.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	good, err := fullDocument().Marshal()
	require.NoError(t, err)
	for name, edit := range map[string]func(m map[string]any){
		"version":       func(m map[string]any) { m["schemaVersion"] = 2 },
		"unknown field": func(m map[string]any) { m["extra"] = true },
		"e164": func(m map[string]any) {
			m["contacts"].(map[string]any)["phones"].([]any)[0].(map[string]any)["e164"] = "030 1234"
		},
		"role":    func(m map[string]any) { m["pages"].([]any)[0].(map[string]any)["role"] = "blog" },
		"missing": func(m map[string]any) { delete(m, "fetches") },
	} {
		var m map[string]any
		require.NoError(t, json.Unmarshal(good, &m))
		edit(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		require.Error(t, s.Validate(v), name)
	}
	_, err = Unmarshal([]byte(`{"schemaVersion":2}`))
	require.ErrorContains(t, err, "schemaVersion 2")
}

// TestSchemaCoversType: every JSON field of every document type has a
// schema property and every property a field, with required exactly the
// fields without omitempty.
func TestSchemaCoversType(t *testing.T) {
	t.Parallel()
	var root map[string]any
	require.NoError(t, json.Unmarshal(Schema, &root))
	defs := root["$defs"].(map[string]any)
	check := func(name string, node map[string]any, typ reflect.Type) {
		t.Helper()
		props := node["properties"].(map[string]any)
		var fields, required []string
		for i := range typ.NumField() {
			tag := typ.Field(i).Tag.Get("json")
			n, opts, _ := strings.Cut(tag, ",")
			fields = append(fields, n)
			if opts != "omitempty" {
				required = append(required, n)
			}
		}
		var keys []string
		for k := range props {
			keys = append(keys, k)
		}
		var req []string
		if r, ok := node["required"].([]any); ok {
			for _, x := range r {
				req = append(req, x.(string))
			}
		}
		sort.Strings(fields)
		sort.Strings(keys)
		sort.Strings(required)
		sort.Strings(req)
		require.Equal(t, fields, keys, "%s: properties", name)
		require.Equal(t, required, req, "%s: required", name)
	}
	check("document", root, reflect.TypeFor[Document]())
	check("contacts", root["properties"].(map[string]any)["contacts"].(map[string]any), reflect.TypeFor[Contacts]())
	for def, typ := range map[string]reflect.Type{
		"postalAddress": reflect.TypeFor[PostalAddress](), "phone": reflect.TypeFor[Phone](),
		"social": reflect.TypeFor[Social](), "alternate": reflect.TypeFor[Alternate](),
		"contactPoint": reflect.TypeFor[ContactPoint](), "organization": reflect.TypeFor[Organization](),
		"page": reflect.TypeFor[Page](), "robots": reflect.TypeFor[RobotsVerdict](), "fetch": reflect.TypeFor[Fetch](),
	} {
		check(def, defs[def].(map[string]any), typ)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	d := fullDocument()
	require.Equal(t, Summary{Title: "Acme", Language: "de", Pages: 2, Emails: 1, Phones: 1, Addresses: 1, Socials: 1,
		TextLength: len([]rune("Wir bauen Widgets."))}, d.Summary())
	require.Equal(t, Summary{}, (&Document{}).Summary())
}

// TestDocsExample: the example in docs/site-document.md is a valid
// document.
func TestDocsExample(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "site-document.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(md), "```json\n")
	require.True(t, ok, "no json block")
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	validate(t, compileSchema(t), []byte(example))
	_, err = Unmarshal([]byte(example))
	require.NoError(t, err)
}
