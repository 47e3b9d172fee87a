package site

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/language"
)

// maxPhoneRaw bounds a phone candidate: E.164 has at most 15 digits, and
// the longest formatting seen ("+49 (0) 30 / 1234 - 5678 ext. 123") stays
// far below.
const maxPhoneRaw = 64

// NormalizePhone parses raw as a phone number, with region (an ISO 3166-1
// alpha-2 code, "" for none) for numbers written without a country code,
// and returns it in E.164 when libphonenumber calls it valid.
func NormalizePhone(raw, region string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxPhoneRaw {
		return "", false
	}
	if region == "" {
		region = "ZZ" // unknown: only international numbers parse
	}
	n, err := phonenumbers.Parse(raw, region)
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return "", false
	}
	return phonenumbers.Format(n, phonenumbers.E164), true
}

// ccTLDExceptions are country-code top-level domains whose region code
// differs (.uk is GB) or that name no single region.
var ccTLDExceptions = map[string]string{"uk": "GB", "eu": "", "su": "", "ac": "", "io": "", "tv": "", "me": "", "co": "", "ai": "", "ly": ""}

// langRegions are the usual regions of languages whose tag names none.
var langRegions = map[string]string{
	"de": "DE", "fr": "FR", "es": "ES", "it": "IT", "nl": "NL", "pt": "PT", "en": "US", "ja": "JP",
	"zh": "CN", "ru": "RU", "pl": "PL", "sv": "SE", "da": "DK", "nb": "NO", "no": "NO", "fi": "FI",
	"cs": "CZ", "el": "GR", "tr": "TR", "ko": "KR", "hu": "HU", "ro": "RO", "uk": "UA", "he": "IL",
}

// RegionHint returns the region in which to read phone numbers written
// without a country code: the country of host's top-level domain (.de,
// .co.uk), else the region of the page's language tag (pt-BR), else the
// language's usual region (de → DE), else "".
func RegionHint(host, lang string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if i := strings.LastIndexByte(host, '.'); i >= 0 {
		tld := host[i+1:]
		if r, ok := ccTLDExceptions[tld]; ok {
			if r != "" {
				return r
			}
		} else if len(tld) == 2 && tld[0] >= 'a' && tld[0] <= 'z' && tld[1] >= 'a' && tld[1] <= 'z' {
			return strings.ToUpper(tld)
		}
	}
	if lang == "" {
		return ""
	}
	tag, err := language.Parse(lang)
	if err != nil {
		return ""
	}
	if r, conf := tag.Region(); conf == language.Exact {
		return r.String()
	}
	base, _ := tag.Base()
	return langRegions[base.String()]
}

// phoneCandidate matches what a written phone number looks like: an
// optional + or 00, then digits with the separators people use.
var phoneCandidate = regexp.MustCompile(`(?:\+|\b00)?\(?\d[\d\s().\-/]{5,22}\d`)

// phoneCue matches the words that introduce a phone number, in the
// languages key pages are chosen in. A number in running text counts only
// after one of them (or written in international form), so dates, prices
// and order numbers do not.
var phoneCue = regexp.MustCompile(`(?i)(?:\b(?:tel|tél|telefon|telephone|téléphone|telefone|teléfono|telefono|telefoon|phone|fon|call|mobil|mobile|handy|cell|móvil|cellulare|portable|gsm|whatsapp|hotline)\b\.?|☎|📞|電話|телефон|тел\.?|\bt\b\.?)(?:\s+\pL{1,6}){0,2}\s*[:.]?\s*(?:\([^)]{0,12}\)\s*)?$`)

// faxCue marks a number as a fax number, which is not a way to call.
var faxCue = regexp.MustCompile(`(?i)\bfax\b\.?\s*[:.]?\s*$`)

// FindPhones returns the phone numbers in text, in E.164, with the text
// each was written as: numbers in international form anywhere, and
// numbers in national form after a cue word (Tel., Telefon, Tél., ...).
// region reads the national ones (RegionHint).
func FindPhones(text, region string) []Phone {
	var out []Phone
	seen := map[string]bool{}
	for _, loc := range phoneCandidate.FindAllStringIndex(text, 64) {
		raw := strings.TrimSpace(text[loc[0]:loc[1]])
		before := text[max(0, loc[0]-32):loc[0]]
		if faxCue.MatchString(before) {
			continue
		}
		intl := strings.HasPrefix(raw, "+") || strings.HasPrefix(raw, "00")
		if !intl && !phoneCue.MatchString(before) {
			continue
		}
		if digits(raw) < 6 {
			continue
		}
		e164, ok := NormalizePhone(raw, region)
		if !ok || seen[e164] {
			continue
		}
		seen[e164] = true
		out = append(out, Phone{E164: e164, Raw: raw, Source: PhoneFromText})
	}
	return out
}

func digits(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsDigit(r) {
			n++
		}
	}
	return n
}
