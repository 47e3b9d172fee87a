package maintext

import (
	"bytes"
	"fmt"
)

// synthetic page shapes for the stress benchmarks.
const (
	shapeDense = "dense" // deep, tag-heavy markup with little text per element
	shapePlain = "plain" // mostly text: long paragraphs inside one <article>
	shapeAttrs = "attrs" // one element carrying a flood of distinct attributes
)

// synthShapes lists the synthetic shapes.
var synthShapes = []string{shapeDense, shapePlain, shapeAttrs}

var vocab = []string{
	"river", "stone", "market", "window", "signal", "harbour", "letter", "engine",
	"garden", "silver", "morning", "paper", "bridge", "island", "winter", "memory",
	"the", "of", "and", "a", "to", "in", "is", "was", "for", "on", "with", "as",
}

// lcg is a tiny deterministic generator so pages are identical across runs.
type lcg uint64

func (l *lcg) next() uint64 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return uint64(*l >> 33)
}
func (l *lcg) word() string { return vocab[l.next()%uint64(len(vocab))] }

// synthetic builds a page of the given shape, size bytes long (±1 block).
func synthetic(shape string, size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	r := lcg(42)
	head := "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>synthetic " + shape + " page</title></head><body>"
	b.WriteString(head)
	switch shape {
	case shapeDense:
		// Nested layout blocks: nav-like link lists, cards and table cells,
		// about 6 bytes of text per element.
		b.WriteString(`<main id="content">`)
		for i := 0; b.Len() < size-64; i++ {
			fmt.Fprintf(&b, `<div class="row r%d"><div class="col"><ul class="links"><li><a href="/p/%d">%s</a></li><li><a href="/q/%d">%s</a></li></ul>`+
				`<section class="card"><h3><span>%s</span></h3><p><span class="x">%s</span> <em>%s</em> <b>%s</b></p></section>`+
				`<table><tr><td>%d</td><td><i>%s</i></td></tr></table></div></div>`+"\n",
				i%97, i, r.word(), i, r.word(), r.word(), r.word(), r.word(), r.word(), i, r.word())
		}
		b.WriteString(`</main>`)
	case shapePlain:
		b.WriteString(`<article><h1>A long plain text page</h1>`)
		for b.Len() < size-64 {
			b.WriteString("<p>")
			for n := 0; n < 4000 && b.Len() < size-64; {
				w := r.word()
				b.WriteString(w)
				n += len(w) + 1
				if r.next()%12 == 0 {
					b.WriteString(". ")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString("</p>\n")
		}
		b.WriteString(`</article>`)
	case shapeAttrs:
		// One <div> whose start tag fills the page with distinct attributes,
		// followed by a short article.
		b.WriteString(`<div id="flood"`)
		for i := 0; b.Len() < size-2048; i++ {
			fmt.Fprintf(&b, ` data-a%d="%s"`, i, r.word())
		}
		b.WriteString(`><article><h1>After the flood</h1>`)
		for i := 0; i < 8; i++ {
			b.WriteString("<p>")
			for j := 0; j < 30; j++ {
				b.WriteString(r.word())
				b.WriteByte(' ')
			}
			b.WriteString("</p>")
		}
		b.WriteString(`</article></div>`)
	default:
		panic("unknown shape " + shape)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}
