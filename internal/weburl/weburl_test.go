package weburl

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"bare host", "example.com", "https://example.com/"},
		{"bare host with path", "example.com/about?x=1", "https://example.com/about?x=1"},
		{"bare host with port", "example.com:8080/shop", "https://example.com:8080/shop"},
		{"localhost with port", "localhost:3000", "https://localhost:3000/"},
		{"protocol relative", "//example.com/a", "https://example.com/a"},
		{"spaces trimmed", "  \thttp://example.com/ \n", "http://example.com/"},
		{"uppercase scheme and host", "HTTPS://WWW.Example.COM/Path", "https://www.example.com/Path"},
		{"default https port", "https://example.com:443/", "https://example.com/"},
		{"default http port", "http://example.com:80", "http://example.com/"},
		{"non-default port kept", "http://example.com:443/", "http://example.com:443/"},
		{"port leading zeros", "https://example.com:0443/", "https://example.com/"},
		{"empty port", "https://example.com:/x", "https://example.com/x"},
		{"fragment dropped", "https://example.com/a#top", "https://example.com/a"},
		{"empty path", "https://example.com", "https://example.com/"},
		{"query kept", "https://example.com?b=2&a=1", "https://example.com/?b=2&a=1"},
		{"query space escaped", "https://example.com/?q=a b", "https://example.com/?q=a%20b"},
		{"query unicode escaped", "https://example.com/?q=ü", "https://example.com/?q=%C3%BC"},
		{"path unicode escaped", "https://example.com/über uns", "https://example.com/%C3%BCber%20uns"},
		{"idna", "https://münchen.de/", "https://xn--mnchen-3ya.de/"},
		{"idna uppercase", "BÜCHER.example", "https://xn--bcher-kva.example/"},
		{"idna nontransitional sharp s", "faß.de", "https://xn--fa-hia.de/"},
		{"punycode kept", "https://xn--mnchen-3ya.de", "https://xn--mnchen-3ya.de/"},
		{"fullwidth dot mapped", "example。com", "https://example.com/"},
		{"trailing dot dropped", "https://example.com./", "https://example.com/"},
		{"underscore label", "https://my_shop.example.com/", "https://my_shop.example.com/"},
		{"ipv4", "http://93.184.216.34/", "http://93.184.216.34/"},
		{"ipv6", "http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080/"},
		{"ipv6 bare", "[2001:db8::1]", "https://[2001:db8::1]/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, err := Normalize(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, u.String())
			again, err := Normalize(u.String())
			require.NoError(t, err)
			require.Equal(t, u.String(), again.String())
		})
	}
}

func TestNormalizeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		why  string
	}{
		{"empty", "   ", "empty"},
		{"ftp", "ftp://example.com/", `scheme "ftp"`},
		{"file", "file:///etc/passwd", `scheme "file"`},
		{"javascript", "javascript:alert(1)", `scheme "javascript"`},
		{"mailto", "mailto:info@example.com", `scheme "mailto"`},
		{"data", "data:text/html,hi", `scheme "data"`},
		{"opaque http", "http:example.com", "missing //"},
		{"userinfo", "https://user:pass@example.com/", "credentials"},
		{"user only", "https://user@example.com/", "credentials"},
		{"bare userinfo", "admin@example.com", "credentials"},
		{"no host", "https:///path", "empty host"},
		{"control char", "https://example.com/\x00", "control character"},
		{"newline inside", "https://exa\nmple.com/", "control character"},
		{"del", "https://example.com/\x7f", "control character"},
		{"too long", "https://example.com/" + strings.Repeat("a", MaxLen), "longer than"},
		{"too long once escaped", "https://example.com/" + strings.Repeat("ü", MaxLen/2-20), "once normalized"},
		{"space in host", "https://exa mple.com/", "invalid"},
		{"empty label", "https://example..com/", "label"},
		{"long label", "https://" + strings.Repeat("a", 64) + ".com/", "label"},
		{"long host", "https://" + strings.Repeat("abcdefghi.", 26) + "com/", "length"},
		{"bad char", "https://exa!mple.com/", "invalid"},
		{"port zero", "https://example.com:0/", "port"},
		{"port too big", "https://example.com:65536/", "port"},
		{"decimal ip", "http://2130706433/", "dotted-decimal"},
		{"hex ip", "http://0x7f.0.0.1/", "dotted-decimal"},
		{"short ip", "http://127.1/", "dotted-decimal"},
		{"octal ip", "http://0177.0.0.1/", "dotted-decimal"},
		{"ipv6 zone", "http://[fe80::1%25eth0]/", "zone"},
		{"bad ipv6", "http://[zz::1]/", "invalid"},
		{"invalid utf-8", "https://ex\x81.com/", "UTF-8"},
		{"percent-escaped host", "https://ex%61mple.com/", "escape"},
		{"bidi violation", "https://a\u05d0b.com/", "invalid host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, err := Normalize(tt.in)
			require.Error(t, err, "got %v", u)
			require.True(t, errors.Is(err, ErrInvalid))
			require.Contains(t, err.Error(), tt.why)
			require.True(t, strings.HasPrefix(err.Error(), "weburl: normalize "), err.Error())
		})
	}
}

func TestDomain(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://example.com/", "example.com"},
		{"https://www.example.com/", "example.com"},
		{"https://shop.eu.example.com/", "example.com"},
		{"https://www.example.co.uk/", "example.co.uk"},
		{"https://alice.github.io/", "alice.github.io"},
		{"https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
		{"http://localhost:8080/", "localhost"},
		{"http://www.localhost/", "www.localhost"},
		{"http://93.184.216.34/", "93.184.216.34"},
		{"http://[2001:db8::1]/", "2001:db8::1"},
		{"https://co.uk/", "co.uk"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, Domain(u))
		})
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"example.com", "https://Example.COM:443/a?b=c#d", "münchen.de/über?q=ü",
		"http://[::1]:80/", "//x.y/z", "mailto:a@b.c", "a:1/b", "https://a.b/%zz",
		"https://a.b/?q=a #f", "http://0x7f.1/", "https://xn--bcher-kva.example./",
		"http://a.b/\u3000", "https://a.b/?\u00a0", "https://a_b.c:0065535/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		u, err := Normalize(in)
		if err != nil {
			require.Nil(t, u)
			require.ErrorIs(t, err, ErrInvalid)
			return
		}
		s := u.String()
		require.LessOrEqual(t, len(s), MaxLen)
		require.Contains(t, []string{"http", "https"}, u.Scheme)
		require.Nil(t, u.User)
		require.Empty(t, u.Fragment)
		require.NotEmpty(t, u.Hostname())
		again, err := Normalize(s)
		require.NoError(t, err, "normalized %q from %q", s, in)
		require.Equal(t, s, again.String(), "not idempotent for input %q", in)
		_ = Domain(u)
	})
}
