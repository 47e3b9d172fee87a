package scrape

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
)

// SummaryOf is the row summary of a crawl: the start page's fields, with
// the e-mail addresses and social profiles of every page.
func SummaryOf(d *site.Document) Summary {
	if len(d.Pages) == 0 {
		return Summary{URL: d.URL}
	}
	p := d.Pages[0]
	s := Summary{
		URL: p.FinalURL, Status: p.Status, Title: p.Title, Description: p.Description, Canonical: p.Canonical,
		Lang: p.Language, H1: p.H1, InternalLinks: p.InternalLinks, ExternalLinks: p.ExternalLinks,
		Emails: d.Contacts.Emails, TextLength: p.TextLength, Bytes: p.Bytes, Truncated: p.Truncated,
	}
	for _, so := range d.Socials {
		s.Socials = append(s.Socials, Social{Network: so.Network, URL: so.URL})
	}
	return s
}

// MarshalBounded returns the summary as JSON of at most task.MaxResultBytes.
// When the full summary is larger (long URLs, many long e-mail addresses,
// text that JSON must escape), it drops socials and e-mails from the end,
// then halves the longest string, until it fits, and sets "trimmed": true.
// It always terminates: with no lists and empty strings the JSON is a few
// hundred bytes.
func (s Summary) MarshalBounded() ([]byte, error) {
	s.Emails = append([]string(nil), s.Emails...) // never trim the caller's slices
	s.Socials = append([]Social(nil), s.Socials...)
	for {
		b, err := marshalCompact(s)
		if err != nil {
			return nil, fmt.Errorf("scrape: marshal summary: %w", err)
		}
		if len(b) <= task.MaxResultBytes {
			return b, nil
		}
		s.Trimmed = true
		s.shrink(len(b) - task.MaxResultBytes)
	}
}

// shrink removes at least some of the excess bytes.
func (s *Summary) shrink(excess int) {
	for excess > 0 && len(s.Socials) > 0 {
		last := s.Socials[len(s.Socials)-1]
		excess -= len(last.URL) + len(last.Network)
		s.Socials = s.Socials[:len(s.Socials)-1]
	}
	if excess <= 0 {
		return
	}
	for excess > 0 && len(s.Emails) > 0 {
		excess -= len(s.Emails[len(s.Emails)-1])
		s.Emails = s.Emails[:len(s.Emails)-1]
	}
	if excess <= 0 {
		return
	}
	// Halve the longest string. Escaping can make a string's JSON up to six
	// times its length, so the byte estimates above may fall short; the loop
	// in MarshalBounded measures again.
	fields := []*string{&s.Description, &s.H1, &s.Title, &s.Canonical, &s.URL, &s.Lang}
	longest := fields[0]
	for _, f := range fields[1:] {
		if len(*f) > len(*longest) {
			longest = f
		}
	}
	*longest = task.Truncate(*longest, len(*longest)/2)
}

// marshalCompact encodes without HTML escaping: the result is stored, never
// embedded in a page, and "<" as \u003c would cost six bytes instead of one.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
