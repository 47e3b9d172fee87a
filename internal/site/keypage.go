package site

import (
	"net/url"
	"path"
	"strings"
	"unicode"

	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/unicode/norm"
)

// DefaultMaxPages is how many key pages a task fetches besides the start
// page unless configured otherwise.
const DefaultMaxPages = 5

// Link is one link of a page: its absolute URL and its text (or
// aria-label/title when it has no text).
type Link struct {
	URL  string
	Text string
}

// KeyPage is a link chosen for fetching.
type KeyPage struct {
	URL  string
	Role PageRole
}

// keyWords are, per role, the words of link texts and URL paths that name
// such a page, in English, German, French, Spanish, Italian, Dutch and
// Portuguese. They are folded (lowercase, accents removed) like the text
// they are matched against; a phrase matches a whole run of words.
var keyWords = map[PageRole][]string{
	RoleContact: {"contact", "contact us", "contacts", "get in touch", "kontakt", "kontaktieren", "kontaktformular",
		"nous contacter", "contactez nous", "contacto", "contactar", "contactenos", "contatti", "contatto",
		"contattaci", "neem contact op", "contato", "fale conosco", "entre em contato"},
	RoleImprint: {"imprint", "legal notice", "site notice", "impressum", "mentions legales", "aviso legal",
		"note legali", "colophon", "colofon", "informacoes legais"},
	RoleAbout: {"about", "about us", "who we are", "our story", "ueber uns", "uber uns", "wir uber uns",
		"wer wir sind", "a propos", "qui sommes nous", "sobre nosotros", "quienes somos", "acerca de",
		"chi siamo", "over ons", "wie zijn wij", "wie we zijn", "sobre", "sobre nos", "quem somos"},
	RoleTeam: {"team", "our team", "people", "leadership", "management", "unser team", "mitarbeiter",
		"equipe", "notre equipe", "equipo", "nuestro equipo", "il nostro team", "squadra", "ons team",
		"medewerkers", "equipa", "nossa equipe", "nossa equipa"},
	RoleCompany: {"company", "corporate", "history", "our company", "unternehmen", "firma", "geschichte",
		"entreprise", "societe", "histoire", "empresa", "compania", "historia", "azienda", "societa",
		"storia", "bedrijf", "organisatie", "geschiedenis", "a empresa"},
	RoleServices: {"services", "our services", "what we do", "solutions", "leistungen", "dienstleistungen",
		"unsere leistungen", "prestations", "nos services", "servicios", "servizi", "diensten", "servicos"},
	RoleProducts: {"products", "our products", "produkte", "sortiment", "produits", "nos produits",
		"productos", "prodotti", "producten", "produtos"},
	RoleCareers: {"careers", "career", "jobs", "work with us", "join us", "vacancies", "karriere",
		"stellenangebote", "stellen", "carrieres", "emplois", "recrutement", "empleo", "trabaja con nosotros",
		"carreras", "lavora con noi", "carriere", "lavoro", "vacatures", "werken bij", "carriere",
		"carreiras", "trabalhe conosco", "vagas"},
	RoleLegal: {"legal", "privacy", "privacy policy", "terms", "terms and conditions", "datenschutz",
		"datenschutzerklarung", "agb", "rechtliches", "confidentialite", "politique de confidentialite",
		"cgv", "cgu", "privacidad", "politica de privacidad", "terminos", "termini", "privacybeleid",
		"voorwaarden", "juridisch", "privacidade", "termos", "politica de privacidade"},
}

// notPages are path extensions of files, not pages.
var notPages = map[string]bool{
	".pdf": true, ".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".svg": true, ".webp": true,
	".zip": true, ".doc": true, ".docx": true, ".xls": true, ".xlsx": true, ".ppt": true, ".mp4": true,
	".mp3": true, ".css": true, ".js": true, ".xml": true, ".json": true, ".ics": true, ".vcf": true,
}

// fold lowercases s, removes accents and turns every run of other
// characters into one space: "Über uns" → "uber uns", "contact-us" →
// "contact us".
func fold(s string) string {
	var b strings.Builder
	space := true
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			space = false
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "ß", "ss"))
}

// phraseIn reports whether phrase is a whole run of words of text (both
// folded).
func phraseIn(phrase, text string) bool {
	return text == phrase || strings.HasPrefix(text, phrase+" ") || strings.HasSuffix(text, " "+phrase) ||
		strings.Contains(text, " "+phrase+" ")
}

// score rates how well a link's folded text and path name role.
func score(role PageRole, text, lastSeg, pathText string) int {
	best := 0
	for _, w := range keyWords[role] {
		s := 0
		switch {
		case text == w:
			s += 4
		case phraseIn(w, text) && len(text) <= 4*len(w):
			s += 2
		}
		switch {
		case lastSeg == w:
			s += 3
		case phraseIn(w, pathText):
			s++
		}
		best = max(best, s)
	}
	return best
}

// SameSite reports whether two hosts share a registrable domain
// (publicsuffix "eTLD+1"); IP addresses and single-label hosts must be
// equal.
func SameSite(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return true
	}
	da, err1 := publicsuffix.EffectiveTLDPlusOne(a)
	db, err2 := publicsuffix.EffectiveTLDPlusOne(b)
	return err1 == nil && err2 == nil && da == db
}

// ChooseKeyPages picks up to maxPages links of the start page to fetch:
// for each role of KeyRoles, in that order, the link of the same
// registrable domain whose text and path best name it (in any of the
// languages of keyWords), never the start page itself, never a file, and
// each URL once. Links are taken in page order, so ties go to the first.
func ChooseKeyPages(start *url.URL, links []Link, maxPages int) []KeyPage {
	if maxPages <= 0 {
		return nil
	}
	type cand struct {
		url             string
		text, last, all string
		depth           int
		query           bool
	}
	var cands []cand
	seen := map[string]bool{}
	self := strings.TrimSuffix(start.Path, "/")
	for _, l := range links {
		u, err := url.Parse(l.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !SameSite(u.Hostname(), start.Hostname()) {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		if strings.TrimSuffix(u.Path, "/") == self && u.RawQuery == start.RawQuery {
			continue
		}
		if notPages[strings.ToLower(path.Ext(u.Path))] {
			continue
		}
		key := u.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		p := strings.Trim(u.Path, "/")
		segs := strings.Split(p, "/")
		last := strings.TrimSuffix(segs[len(segs)-1], path.Ext(segs[len(segs)-1]))
		cands = append(cands, cand{url: key, text: fold(l.Text), last: fold(last), all: fold(p), depth: len(segs), query: u.RawQuery != ""})
	}
	var out []KeyPage
	taken := map[string]bool{}
	for _, role := range KeyRoles() {
		if len(out) >= maxPages {
			break
		}
		best, bestScore := -1, 1 // a match needs at least 2 points
		for i, c := range cands {
			if taken[c.url] {
				continue
			}
			s := score(role, c.text, c.last, c.all)
			if c.query {
				s-- // a page with a query is a view of another page, rarely the key page itself
			}
			if s > bestScore || (s == bestScore && best >= 0 && c.depth < cands[best].depth) {
				best, bestScore = i, s
			}
		}
		if best >= 0 {
			taken[cands[best].url] = true
			out = append(out, KeyPage{URL: cands[best].url, Role: role})
		}
	}
	return out
}
