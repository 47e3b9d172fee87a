// Package site is the site document: what one scraper task learns about
// one website (Document, versioned by SchemaVersion and specified by the
// JSON Schema in Schema; docs/site-document.md), and the row Summary of
// it.
package site
