package site

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanText makes page text fit for storage: valid UTF-8, no control
// characters, whitespace runs collapsed to one space, at most max bytes.
func CleanText(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), max+4))
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == utf8.RuneError, unicode.Is(unicode.Cf, r) && r != '\u200d':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
