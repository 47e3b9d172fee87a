package scrape

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/task"
)

// FuzzReadPage: any page and Content-Type, through the same path as a fetched body, yields a
// summary (never an error from an in-memory reader), whose strings are
// valid UTF-8 and within their bounds, and whose JSON fits a row.
func FuzzReadPage(f *testing.F) {
	f.Add([]byte(page), "text/html; charset=utf-8")
	f.Add([]byte(`<html lang=x><title a=b>t</title><h1><b><i>x</h1><meta name=description content=d>`), "text/html")
	f.Add([]byte("<h1>"+strings.Repeat("<span>", 600)+"x"), "text/html")
	f.Add([]byte{0xff, 0xfe, '<', 0, 'p', 0}, "text/html; charset=x-user-defined")
	f.Add([]byte(`<base href="//other.example/"><a href="x">x</a><link rel="alternate canonical" href="/c">`), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		s, err := ReadPage(bytes.NewReader(body), contentType, mustURL(t, "https://fuzz.example/dir/page"), 64<<10)
		if err != nil {
			require.Equal(t, task.KindFatal, task.KindOf(err), "only the not-HTML check may fail: %v", err)
			return
		}
		for _, v := range []string{s.Title, s.Description, s.H1, s.Lang, s.Canonical, s.URL} {
			require.True(t, utf8.ValidString(v), "%q", v)
		}
		require.LessOrEqual(t, len(s.Title), maxTitleBytes)
		require.LessOrEqual(t, len(s.Description), maxDescriptionBytes)
		require.LessOrEqual(t, len(s.H1), maxH1Bytes)
		require.LessOrEqual(t, len(s.Emails), maxEmails)
		require.LessOrEqual(t, len(s.Socials), maxSocials)
		require.LessOrEqual(t, s.Bytes, int64(64<<10))
		b, err := s.MarshalBounded()
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), task.MaxResultBytes)
	})
}
