package site

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChooseKeyPagesPerLanguage: navigation fixtures in the seven
// languages, each with the links a real site of that language has, and
// the key pages the scraper picks from them.
func TestChooseKeyPagesPerLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang  string
		links [][2]string // href, text
		want  []string    // role=path
	}{
		{"en", [][2]string{{"/", "Home"}, {"/about-us", "About us"}, {"/services", "Our services"}, {"/contact", "Contact us"},
			{"/careers", "Join us"}, {"/privacy-policy", "Privacy"}, {"/blog", "Blog"}},
			[]string{"contact=/contact", "about=/about-us", "services=/services", "careers=/careers", "legal=/privacy-policy"}},
		{"de", [][2]string{{"/", "Startseite"}, {"/ueber-uns", "Über uns"}, {"/leistungen", "Leistungen"}, {"/kontakt", "Kontakt"},
			{"/impressum", "Impressum"}, {"/datenschutz", "Datenschutz"}, {"/team", "Unser Team"}},
			[]string{"contact=/kontakt", "imprint=/impressum", "about=/ueber-uns", "team=/team", "services=/leistungen"}},
		{"fr", [][2]string{{"/", "Accueil"}, {"/qui-sommes-nous", "Qui sommes-nous ?"}, {"/nos-produits", "Nos produits"},
			{"/nous-contacter", "Nous contacter"}, {"/mentions-legales", "Mentions légales"}, {"/recrutement", "Recrutement"}},
			[]string{"contact=/nous-contacter", "imprint=/mentions-legales", "about=/qui-sommes-nous", "products=/nos-produits", "careers=/recrutement"}},
		{"es", [][2]string{{"/", "Inicio"}, {"/quienes-somos", "Quiénes somos"}, {"/servicios", "Servicios"}, {"/contacto", "Contacto"},
			{"/aviso-legal", "Aviso legal"}, {"/trabaja-con-nosotros", "Trabaja con nosotros"}},
			[]string{"contact=/contacto", "imprint=/aviso-legal", "about=/quienes-somos", "services=/servicios", "careers=/trabaja-con-nosotros"}},
		{"it", [][2]string{{"/", "Home"}, {"/chi-siamo", "Chi siamo"}, {"/prodotti", "Prodotti"}, {"/contatti", "Contatti"},
			{"/note-legali", "Note legali"}, {"/lavora-con-noi", "Lavora con noi"}, {"/azienda", "L'azienda"}},
			[]string{"contact=/contatti", "imprint=/note-legali", "about=/chi-siamo", "company=/azienda", "products=/prodotti"}},
		{"nl", [][2]string{{"/", "Home"}, {"/over-ons", "Over ons"}, {"/diensten", "Diensten"}, {"/contact", "Neem contact op"},
			{"/colofon", "Colofon"}, {"/vacatures", "Vacatures"}},
			[]string{"contact=/contact", "imprint=/colofon", "about=/over-ons", "services=/diensten", "careers=/vacatures"}},
		{"pt", [][2]string{{"/", "Início"}, {"/quem-somos", "Quem somos"}, {"/servicos", "Serviços"}, {"/fale-conosco", "Fale conosco"},
			{"/equipe", "Nossa equipe"}, {"/trabalhe-conosco", "Trabalhe conosco"}},
			[]string{"contact=/fale-conosco", "about=/quem-somos", "team=/equipe", "services=/servicos", "careers=/trabalhe-conosco"}},
	}
	start, err := url.Parse("https://www.firma.example/")
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			var links []Link
			for _, l := range tt.links {
				links = append(links, Link{URL: "https://www.firma.example" + l[0], Text: l[1]})
			}
			links = append(links, Link{URL: "https://other.example/contact", Text: "Contact"}, // another site
				Link{URL: "https://www.firma.example/brochure.pdf", Text: "About us (PDF)"}) // a file
			var got []string
			for _, k := range ChooseKeyPages(start, links, DefaultMaxPages) {
				u, err := url.Parse(k.URL)
				require.NoError(t, err)
				got = append(got, string(k.Role)+"="+u.Path)
			}
			require.Equal(t, tt.want, got)
		})
	}
	require.Empty(t, ChooseKeyPages(start, []Link{{URL: "https://www.firma.example/contact", Text: "Contact"}}, 0))
	require.True(t, SameSite("shop.firma.co.uk", "www.firma.co.uk"))
	require.False(t, SameSite("a.co.uk", "b.co.uk"))
}

// TestPhoneFormats: national formats read with the region hint, the
// international ones anywhere, cue words required for national numbers in
// running text, fax numbers and dates left out.
func TestPhoneFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, region string
		want         []string
	}{
		{"Telefon: 030 1234567", "DE", []string{"+49301234567"}},
		{"Tél. : 01 23 45 67 89", "FR", []string{"+33123456789"}},
		{"Teléfono 912 345 678", "ES", []string{"+34912345678"}},
		{"Tel. 02 1234 5678", "IT", []string{"+390212345678"}},
		{"Telefoon: 020 123 4567", "NL", []string{"+31201234567"}},
		{"Telefone: 21 123 4567", "PT", []string{"+351211234567"}},
		{"Call us on (212) 555-0143", "US", []string{"+12125550143"}},
		{"Phone 020 7946 0018", "GB", []string{"+442079460018"}},
		{"電話 03-1234-5678", "JP", []string{"+81312345678"}},
		{"Our office: +49 30 1234567, +33 1 23 45 67 89", "", []string{"+49301234567", "+33123456789"}},
		{"Fax: 030 1234568 Tel: 030 1234567", "DE", []string{"+49301234567"}},
		{"Founded 2019-03-14, order 030 1234567", "DE", nil},
		{"Telefon: 12", "DE", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range FindPhones(tt.text, tt.region) {
			got = append(got, p.E164)
			require.LessOrEqual(t, len(p.Raw), maxPhoneRaw)
		}
		require.Equal(t, tt.want, got, tt.text)
	}
	for _, tt := range []struct{ host, lang, want string }{
		{"www.firma.de", "", "DE"}, {"shop.example.co.uk", "en", "GB"}, {"example.com", "pt-BR", "BR"},
		{"example.com", "fr", "FR"}, {"example.io", "de-AT", "AT"}, {"127.0.0.1", "", ""}, {"example.com", "xx-invalid-tag-", ""},
	} {
		require.Equal(t, tt.want, RegionHint(tt.host, tt.lang), "%s %s", tt.host, tt.lang)
	}
}

// TestParseJSONLD reads the organisation fixtures in testdata/jsonld: a
// @graph, a nested publisher, a LocalBusiness subtype with a contact
// point, and blocks that hold none or are broken.
func TestParseJSONLD(t *testing.T) {
	t.Parallel()
	page, err := url.Parse("https://www.acme.example/about")
	require.NoError(t, err)
	tests := []struct {
		file string
		want []Organization
	}{
		{"graph.json", []Organization{{Type: "Corporation", Name: "Acme Widgets", LegalName: "Acme Widgets Ltd",
			URL: "https://www.acme.example/", Logo: "https://www.acme.example/logo.png", Telephone: "+441142496000",
			Email: "sales@acme.example", SameAs: []string{"https://www.linkedin.com/company/acme"},
			Address:       &PostalAddress{StreetAddress: "1 Steel Street", PostalCode: "S1 2AB", Locality: "Sheffield", Country: "GB"},
			ContactPoints: []ContactPoint{{ContactType: "customer service", Telephone: "+441142496001", AvailableLanguage: []string{"English", "German"}}},
			Format:        FormatJSONLD, Page: page.String()}}},
		{"publisher.json", []Organization{{Type: "Organization", Name: "Nested Publisher", Format: FormatJSONLD, Page: page.String()}}},
		{"restaurant.json", []Organization{{Type: "Restaurant", Name: "La Marisma", Telephone: "+34954123456",
			Address: &PostalAddress{StreetAddress: "Calle Betis 5, Sevilla"}, Format: FormatJSONLD, Page: page.String()}}},
		{"none.json", nil},
		{"broken.json", nil},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("testdata", "jsonld", tt.file))
		require.NoError(t, err)
		require.Equal(t, tt.want, ParseJSONLD(b, page, "GB"), tt.file)
	}
	require.Nil(t, ParseJSONLD([]byte(strings.Repeat(" ", MaxJSONLDBytes+1)), page, ""))
}
