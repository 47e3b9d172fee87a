// Package site is the site document: what one scraper task learns about
// one website (Document, versioned by SchemaVersion and specified by the
// JSON Schema in Schema; docs/site-document.md), the row Summary of it,
// and the page-level extraction the scraper builds it with (main content
// comes from package maintext): schema.org organisations from JSON-LD and
// microdata, phone numbers in E.164 (FindPhones,
// NormalizePhone, RegionHint), the choice of key pages (ChooseKeyPages)
// and the Builder that merges pages into a Document. It does no I/O.
package site
