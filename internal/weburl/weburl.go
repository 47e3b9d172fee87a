// Package weburl normalizes the website URLs that users submit, so that every
// component stores, compares and fetches one canonical form, and it names the
// registrable domain of a URL for grouping and for telling internal links
// from external ones.
//
// Normalization is strict about what can never be a website (other schemes,
// credentials, control characters, malformed hosts) and lenient about what
// people type ("Example.com/about", "münchen.de"). It does not decide whether
// an address is safe to fetch: that needs DNS and happens at dial time in the
// scraper.
package weburl

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxLen is the longest input Normalize accepts, in bytes. Browsers and CDNs
// commonly stop at about 2 KB; anything longer is not a homepage.
const MaxLen = 2048

// Limits of a DNS name (RFC 1035 §2.3.4).
const (
	maxHostLen  = 253
	maxLabelLen = 63
)

// ErrInvalid is wrapped by every error Normalize returns, so callers can
// test errors.Is(err, weburl.ErrInvalid).
var ErrInvalid = errors.New("invalid website url")

// profile maps hostnames the way a browser's address bar does (UTS #46,
// nontransitional: "ß" stays "ß"), but does not enforce the STD3 letter-digit-
// hyphen rule or the hyphen positions, because real hosts use underscores and
// "--" (the label check below still limits them to [a-z0-9_-]).
var profile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// Normalize parses a user-supplied website URL and returns its canonical
// form: scheme http or https (https is assumed when missing), lowercase
// punycode host without a trailing dot, no default port, no fragment, path at
// least "/", and spaces and non-ASCII bytes in the query percent-encoded. It
// rejects other schemes, credentials in the URL, empty or malformed hosts,
// control characters and URLs longer than MaxLen, before or after
// normalization.
//
// Normalize is idempotent: Normalize(u.String()) returns the same URL.
func Normalize(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return nil, invalid(raw, "empty")
	case len(s) > MaxLen:
		return nil, invalid(raw, fmt.Sprintf("longer than %d bytes", MaxLen))
	}
	if !utf8.ValidString(s) {
		return nil, invalid(raw, "not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return nil, invalid(raw, "contains a control character")
		}
	}
	if !hasScheme(s) {
		s = "https://" + strings.TrimPrefix(s, "//")
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error repeats the whole input
		}
		return nil, invalid(raw, err.Error())
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, invalid(raw, fmt.Sprintf("scheme %q is not http or https", u.Scheme))
	}
	if u.Opaque != "" {
		return nil, invalid(raw, "missing // after the scheme")
	}
	if u.User != nil {
		return nil, invalid(raw, "credentials in the url are not allowed")
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return nil, invalid(raw, err.Error())
	}
	port, err := normalizePort(u.Scheme, u.Port())
	if err != nil {
		return nil, invalid(raw, err.Error())
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	u.RawQuery = escapeQuery(u.RawQuery)
	// Escaping can lengthen the URL; bounding the result as well keeps
	// Normalize idempotent and every stored URL within MaxLen.
	if len(u.String()) > MaxLen {
		return nil, invalid(raw, fmt.Sprintf("longer than %d bytes once normalized", MaxLen))
	}
	return u, nil
}

func invalid(raw, why string) error {
	if len(raw) > 200 {
		raw = raw[:200] + "…"
	}
	return fmt.Errorf("weburl: normalize %q: %w: %s", raw, ErrInvalid, why)
}

// hasScheme reports whether s starts with "scheme:" rather than being a bare
// host. "example.com:8080/x" is a host with a port, while "mailto:x" and
// "javascript:x" carry a scheme that Normalize must see, and reject.
func hasScheme(s string) bool {
	if strings.HasPrefix(s, "//") {
		return false
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		isAlpha := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !isAlpha && (j == 0 || (c < '0' || c > '9') && c != '+' && c != '-' && c != '.') {
			return false
		}
	}
	rest := s[i+1:]
	if strings.HasPrefix(rest, "//") {
		return true
	}
	// A port is digits up to the end, "/", "?" or "#".
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return true
	}
	for _, c := range rest[:end] {
		if c < '0' || c > '9' {
			return true
		}
	}
	return false
}

// normalizeHost returns the lowercase ASCII form of a hostname or the
// canonical text of an IP literal.
func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if strings.Contains(h, ":") { // only IPv6 literals contain a colon here
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", fmt.Errorf("invalid IPv6 address %q", h)
		}
		if a.Zone() != "" {
			return "", errors.New("IPv6 zones are not allowed")
		}
		return a.String(), nil
	}
	h = strings.TrimSuffix(h, ".")
	ascii, err := profile.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("invalid host %q: %w", h, err)
	}
	ascii = strings.ToLower(ascii)
	// The result must be a fixed point, or Normalize would not be
	// idempotent (a label can map to punycode that does not decode back).
	if again, err := profile.ToASCII(ascii); err != nil || again != ascii {
		return "", fmt.Errorf("invalid host %q: unstable IDNA mapping", h)
	}
	if ascii == "" || len(ascii) > maxHostLen {
		return "", fmt.Errorf("invalid host %q: length", h)
	}
	labels := strings.Split(ascii, ".")
	for _, l := range labels {
		if l == "" || len(l) > maxLabelLen {
			return "", fmt.Errorf("invalid host %q: empty or over-long label", h)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return "", fmt.Errorf("invalid host %q: character %q", h, c)
			}
		}
	}
	// WHATWG URL §3.3 ("ends in a number"): a host whose last label is
	// numeric is an IPv4 address. Only the dotted-decimal form is accepted,
	// because resolvers disagree on "0x7f.1" and "2130706433" and such forms
	// are a classic way to smuggle a blocked address past a string check.
	if last := labels[len(labels)-1]; isNumericLabel(last) {
		a, err := netip.ParseAddr(ascii)
		if err != nil || !a.Is4() {
			return "", fmt.Errorf("invalid host %q: numeric host is not a dotted-decimal IPv4 address", h)
		}
		return a.String(), nil
	}
	return ascii, nil
}

func isNumericLabel(l string) bool {
	if strings.HasPrefix(l, "0x") {
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// normalizePort returns "" for the scheme's default port and the decimal
// port otherwise.
func normalizePort(scheme, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return "", fmt.Errorf("invalid port %q", p)
	}
	if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return "", nil
	}
	return strconv.FormatUint(n, 10), nil
}

// escapeQuery percent-encodes the bytes url.Parse lets through in a query
// but that are not valid there (RFC 3986 §3.4): spaces, quotes, angle
// brackets and non-ASCII. Encoding them keeps the query byte-for-byte stable
// across Normalize(u.String()) and matches what browsers send.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c > ' ' && c < 0x7f && c != '"' && c != '<' && c != '>' && c != '`' {
			if b.Len() > 0 {
				b.WriteByte(c)
			}
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(q) + 8)
			b.WriteString(q[:i])
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// Domain returns the registrable domain of u's host (eTLD+1 by the public
// suffix list, so "shop.example.co.uk" → "example.co.uk" and
// "alice.github.io" → "alice.github.io"). IP addresses and hosts that have
// no registrable domain ("localhost", a bare public suffix) are returned
// whole, without a leading "www.".
func Domain(u *url.URL) string {
	return HostDomain(u.Hostname())
}

// HostDomain is Domain for a bare hostname.
func HostDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	if rest, ok := strings.CutPrefix(host, "www."); ok && rest != "" {
		return rest
	}
	return host
}
