package scrape

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func extract(t *testing.T, pageURL, doc string) Summary {
	t.Helper()
	s, err := Extract(strings.NewReader(doc), mustURL(t, pageURL))
	require.NoError(t, err)
	return s
}

func TestExtractFields(t *testing.T) {
	t.Parallel()
	const at = "https://www.acme.example/about/"
	tests := []struct {
		name  string
		doc   string
		check func(t *testing.T, s Summary)
	}{
		{"title entities and whitespace",
			"<title>\n  Caf&eacute; &amp;   Bar\t&#8211; Home </title>",
			func(t *testing.T, s Summary) { require.Equal(t, "Café & Bar – Home", s.Title) }},
		{"first title wins, svg title ignored",
			"<body><svg><title>icon</title></svg></body><title>Real</title><title>Second</title>",
			func(t *testing.T, s Summary) { require.Equal(t, "Real", s.Title) }},
		{"unterminated title is capped",
			"<title>" + strings.Repeat("Long title ", 10000),
			func(t *testing.T, s Summary) {
				require.True(t, strings.HasPrefix(s.Title, "Long title Long"))
				require.LessOrEqual(t, len(s.Title), maxTitleBytes)
				require.Zero(t, s.TextLength, "title text is not page text")
			}},
		{"og:title fallback",
			`<meta property="og:title" content="From OG">`,
			func(t *testing.T, s Summary) { require.Equal(t, "From OG", s.Title) }},
		{"description case-insensitive name",
			`<META NAME="Description" CONTENT="Widgets &amp; more">`,
			func(t *testing.T, s Summary) { require.Equal(t, "Widgets & more", s.Description) }},
		{"description prefers name over og",
			`<meta property="og:description" content="og"><meta name="description" content="plain">`,
			func(t *testing.T, s Summary) { require.Equal(t, "plain", s.Description) }},
		{"empty description falls back to og",
			`<meta name="description" content="  "><meta property="og:description" content="og text">`,
			func(t *testing.T, s Summary) { require.Equal(t, "og text", s.Description) }},
		{"canonical relative",
			`<link rel="canonical" href="/about">`,
			func(t *testing.T, s Summary) { require.Equal(t, "https://www.acme.example/about", s.Canonical) }},
		{"canonical among rel tokens, fragment dropped",
			`<link rel="stylesheet" href="/a.css"><LINK REL="alternate Canonical" href="https://acme.example/x#y">`,
			func(t *testing.T, s Summary) { require.Equal(t, "https://acme.example/x", s.Canonical) }},
		{"canonical javascript ignored",
			`<link rel="canonical" href="javascript:alert(1)">`,
			func(t *testing.T, s Summary) { require.Empty(t, s.Canonical) }},
		{"canonical against base",
			`<base href="https://cdn.acme.example/de/"><link rel="canonical" href="start">`,
			func(t *testing.T, s Summary) { require.Equal(t, "https://cdn.acme.example/de/start", s.Canonical) }},
		{"lang",
			`<!doctype html><html lang="de-CH" dir="ltr"><p>x`,
			func(t *testing.T, s Summary) { require.Equal(t, "de-CH", s.Lang) }},
		{"lang from content-language meta",
			`<meta http-equiv="content-language" content="fr, en">`,
			func(t *testing.T, s Summary) { require.Equal(t, "fr", s.Lang) }},
		{"garbage lang dropped",
			`<html lang="<script>">`,
			func(t *testing.T, s Summary) { require.Empty(t, s.Lang) }},
		{"h1 with inline markup",
			`<h1 class=hero>Fast <em>and</em><br>safe <!-- c --><script>var x="no"</script>widgets</h1><h1>second</h1>`,
			func(t *testing.T, s Summary) { require.Equal(t, "Fast andsafe widgets", s.H1) }},
		{"unclosed h1 closed by next h1",
			`<h1>One<h1>Two</h1>`,
			func(t *testing.T, s Summary) { require.Equal(t, "One", s.H1) }},
		{"h1 in template ignored",
			`<template><h1>Hidden</h1></template><h1>Shown</h1>`,
			func(t *testing.T, s Summary) { require.Equal(t, "Shown", s.H1) }},
		{"links internal and external",
			`<a href="/a">a</a><a href="b">b</a><a href="https://acme.example/c">c</a>
			 <a href="//shop.acme.example/d">d</a><a href="HTTPS://WWW.ACME.EXAMPLE/e">e</a>
			 <a href="https://other.example/">o</a><a href="//cdn.other.example/x">o2</a>
			 <area href="https://maps.example/"><a href="#top">top</a><a href="">self</a>
			 <a href="javascript:void(0)">js</a><a href="tel:+4930123">tel</a><a>no href</a>`,
			func(t *testing.T, s Summary) {
				require.Equal(t, 5, s.InternalLinks)
				require.Equal(t, 3, s.ExternalLinks)
			}},
		{"backslash network path is external",
			`<a href="\\evil.example\x">x</a><a href="/\evil.example">y</a>`,
			func(t *testing.T, s Summary) {
				require.Equal(t, 0, s.InternalLinks)
				require.Equal(t, 2, s.ExternalLinks)
			}},
		{"base on another site makes relative links external",
			`<base href="https://cdn.other.example/"><a href="/x">x</a>`,
			func(t *testing.T, s Summary) { require.Equal(t, 1, s.ExternalLinks) }},
		{"emails from mailto and text, deduped, lowercased",
			`<a href="mailto:Info@Acme.Example?subject=Hi">Mail</a>
			 <p>Write to info@acme.example or jobs@acme.example.</p>
			 <a href="mailto:a@acme.example,%20b@acme.example">both</a>
			 <p>Not mail: logo@2x.png, user@localhost, @handle, a@b</p>
			 <script>var e = "hidden@acme.example";</script>`,
			func(t *testing.T, s Summary) {
				require.Equal(t, []string{"info@acme.example", "jobs@acme.example", "a@acme.example", "b@acme.example"}, s.Emails)
			}},
		{"emails capped",
			func() string {
				var b strings.Builder
				for i := range 50 {
					b.WriteString("<p>person" + strings.Repeat("x", i) + "@acme.example</p>")
				}
				return b.String()
			}(),
			func(t *testing.T, s Summary) { require.Len(t, s.Emails, maxEmails) }},
		{"socials",
			`<a href="https://twitter.com/acme">t</a><a href="https://x.com/acme/">x</a>
			 <a href="https://www.linkedin.com/company/acme">l</a><a href="https://de.linkedin.com/company/acme?trk=1">l2</a>
			 <a href="https://m.facebook.com/acme">f</a><a href="https://www.facebook.com/acme">f dup</a>
			 <a href="https://www.facebook.com/sharer/sharer.php?u=x">share</a>
			 <a href="https://twitter.com/intent/tweet?text=x">tweet</a>
			 <a href="https://www.youtube.com/@acme">y</a><a href="https://www.youtube.com/watch?v=1">video</a>
			 <a href="https://github.com/acme">g</a><a href="https://www.instagram.com/">bare</a>
			 <a href="https://www.tiktok.com/@acme">tt</a>`,
			func(t *testing.T, s Summary) {
				require.Equal(t, []Social{
					{"x", "https://twitter.com/acme"},
					{"x", "https://x.com/acme"},
					{"linkedin", "https://linkedin.com/company/acme"},
					{"linkedin", "https://de.linkedin.com/company/acme"},
					{"facebook", "https://facebook.com/acme"},
					{"youtube", "https://youtube.com/@acme"},
					{"github", "https://github.com/acme"},
					{"tiktok", "https://tiktok.com/@acme"},
				}, s.Socials)
			}},
		{"social profile paths",
			`<a href="https://github.com/acme/widgets/issues/1">i</a><a href="https://github.com/acme">dup</a>
			 <a href="https://x.com/acme/status/123">post</a><a href="https://www.facebook.com/acme/posts/1">fb post</a>
			 <a href="https://www.facebook.com/groups/acmefans/">group</a><a href="https://www.youtube.com/@acme/videos">yt</a>
			 <a href="https://www.youtube.com/channel/UC123/featured">channel</a><a href="https://www.linkedin.com/in/jane-doe/details">in</a>`,
			func(t *testing.T, s Summary) {
				require.Equal(t, []Social{
					{"github", "https://github.com/acme"},
					{"x", "https://x.com/acme"},
					{"facebook", "https://facebook.com/acme"},
					{"facebook", "https://facebook.com/groups/acmefans"},
					{"youtube", "https://youtube.com/@acme"},
					{"youtube", "https://youtube.com/channel/UC123"},
					{"linkedin", "https://linkedin.com/in/jane-doe"},
				}, s.Socials)
			}},
		{"visible text excludes script style and template",
			"<head><style>p{}</style><script>x()</script></head><body>  Hello,\n\n   world! <noscript>enable js</noscript><template>tpl</template>  Grüße </body>",
			func(t *testing.T, s Summary) { require.Equal(t, len([]rune("Hello, world! Grüße ")), s.TextLength) }},
		{"empty document",
			"",
			func(t *testing.T, s Summary) {
				require.Equal(t, Summary{URL: at}, s)
			}},
		{"control characters stripped",
			"<title>A\x01B\u200bC\u00a0D</title>",
			func(t *testing.T, s Summary) { require.Equal(t, "ABC D", s.Title) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, extract(t, at, tt.doc))
		})
	}
}

func TestMarshalBoundedAdversarial(t *testing.T) {
	t.Parallel()
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	tests := []struct {
		name    string
		s       Summary
		trimmed bool
	}{
		{"small", Summary{URL: "https://a.example/", Title: "A", Emails: []string{"a@a.example"}}, false},
		{"every field at its bound",
			Summary{
				URL: "https://a.example/" + long("p", maxURLBytes-20), Canonical: "https://a.example/" + long("c", maxURLBytes-20),
				Title: long("t", maxTitleBytes), Description: long("d", maxDescriptionBytes), H1: long("h", maxH1Bytes),
				Lang:   long("l", maxLangBytes),
				Emails: repeat(long("e", maxEmailBytes-12)+"@a.example", maxEmails),
				Socials: func() []Social {
					var out []Social
					for range maxSocials {
						out = append(out, Social{"linkedin", "https://linkedin.com/" + long("s", maxSocialURLBytes-21)})
					}
					return out
				}(),
			}, true},
		{"quotes double in json", Summary{URL: "u", Title: long(`"`, 20000), Description: long(`\`, 20000), H1: long("\x01", 20000)}, true},
		{"huge url", Summary{URL: long("x", 100000)}, true},
		{"invalid utf-8", Summary{URL: "u", Title: long("\xff", 30000)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := len(tt.s.Emails)
			b, err := tt.s.MarshalBounded()
			require.NoError(t, err)
			require.LessOrEqual(t, len(b), task.MaxResultBytes)
			require.True(t, json.Valid(b))
			var back Summary
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, tt.trimmed, back.Trimmed)
			require.Len(t, tt.s.Emails, before, "the caller's summary is not modified")
			if !tt.trimmed {
				require.Equal(t, tt.s, back)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		page,
		"<title>a</title><meta name=description content=b><link rel=canonical href=/c><html lang=en><h1>d</h1>",
		"<a href=mailto:x@y.example>x</a><a href=https://twitter.com/x>t</a>",
		"<title>unterminated", "<h1><h1><h1>", "<base href=//evil.example><a href=x>",
		"<svg><title>t</title></svg><template><a href=/x></template>", "\xff\xfe<\x00>",
		"<a href='\\\\x'>", "<meta content=x name=og:title>", "<script>a@b.example</script>",
	} {
		f.Add([]byte(s))
	}
	pageURL := mustURL(f, "https://www.acme.example/start")
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := Extract(strings.NewReader(string(doc)), pageURL)
		require.NoError(t, err, "a reader that never fails must extract")
		require.LessOrEqual(t, len(s.Emails), maxEmails)
		require.LessOrEqual(t, len(s.Socials), maxSocials)
		require.LessOrEqual(t, len(s.Title), maxTitleBytes)
		require.LessOrEqual(t, len(s.H1), maxH1Bytes)
		require.LessOrEqual(t, len(s.Description), maxDescriptionBytes)
		b, err := s.MarshalBounded()
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), task.MaxResultBytes)
		require.True(t, json.Valid(b), "%s", b)
	})
}
