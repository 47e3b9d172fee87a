package maintext

// The scoring of the extraction evaluation (docs/extraction.md): token
// 4-gram shingle precision, recall and F1 per page, averaged over the
// corpus in testdata/extraction-corpus. Test code only.

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// shingleSize is the n of the token n-gram shingles used for scoring.
const shingleSize = 4

// tokenizeText splits text into lowercased, Unicode-aware word tokens.
//
// The rule:
//  1. the text is put in Unicode NFC form;
//  2. a token is a maximal run of runes that are letters (L*), combining
//     marks (M*), numbers (N*) or connector punctuation (Pc, e.g. '_');
//     every other rune (spaces, punctuation, symbols, emoji) separates tokens;
//  3. runes of the Han, Hiragana and Katakana scripts, which are written
//     without spaces between words, are each a token of their own, so that a
//     Chinese or Japanese sentence does not collapse into a single token;
//  4. each token is lowercased with Unicode simple case mapping
//     (unicode.ToLower, no language-specific rules).
//
// It differs from the upstream benchmark's Python `\w+` rule in three ways:
// lowercasing, keeping combining marks inside words (Python's \w splits
// Devanagari or Thai words at vowel signs), and rule 3. For the Latin and
// Cyrillic scripts that make up most of the corpus only lowercasing matters.
func tokenizeText(text string) []string {
	text = norm.NFC.String(text)
	var toks []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			toks = append(toks, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case isIdeographic(r):
			flush()
			toks = append(toks, string(unicode.ToLower(r)))
		case isWordRune(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return toks
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r)
}

func isIdeographic(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// shinglesOfText returns the multiset of token n-grams of text (n = shingleSize),
// keyed by the tokens joined with U+0000. A text with at least one but fewer
// than n tokens yields one shingle made of all its tokens; an empty text
// yields an empty multiset.
func shinglesOfText(text string) map[string]int {
	return shinglesOf(tokenizeText(text), shingleSize)
}

func shinglesOf(toks []string, n int) map[string]int {
	m := make(map[string]int)
	if len(toks) == 0 {
		return m
	}
	if len(toks) < n {
		m[strings.Join(toks, "\x00")]++
		return m
	}
	for i := 0; i+n <= len(toks); i++ {
		m[strings.Join(toks[i:i+n], "\x00")]++
	}
	return m
}

// shingleCounts are multiset shingle matches between a prediction and a reference.
type shingleCounts struct {
	TP, FP, FN int
}

// compareTexts counts true positives (shingles in both, by multiplicity), false
// positives (predicted, not in the reference) and false negatives (in the
// reference, not predicted).
func compareTexts(reference, prediction string) shingleCounts {
	ref, pred := shinglesOfText(reference), shinglesOfText(prediction)
	var c shingleCounts
	for k, p := range pred {
		t := ref[k]
		c.TP += min(p, t)
		c.FP += max(0, p-t)
	}
	for k, t := range ref {
		c.FN += max(0, t-pred[k])
	}
	return c
}

// prf is precision, recall and F1.
type prf struct {
	P, R, F1 float64
}

// Score turns counts into precision, recall and F1 for one page.
// Conventions: an empty prediction for an empty reference scores 1/1/1;
// otherwise an empty prediction (or reference) gives 0 for the ratio whose
// denominator is empty, so a page where the extractor returned nothing
// scores P=R=F1=0 rather than being skipped.
func (c shingleCounts) Score() prf {
	if c.TP+c.FP+c.FN == 0 {
		return prf{1, 1, 1}
	}
	p := ratio(c.TP, c.TP+c.FP)
	r := ratio(c.TP, c.TP+c.FN)
	return prf{p, r, f1(p, r)}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// evalSummary aggregates page counts over a corpus.
type evalSummary struct {
	Pages int
	// Macro: mean over pages of the per-page P, R and F1 (each page weighs
	// the same; the F1 is the mean of per-page F1, not the F1 of the means).
	Macro prf
	// Micro: P, R, F1 of the shingle counts pooled over all pages (long
	// pages weigh more).
	Micro prf
	// Zyte: the convention of the upstream benchmark's evaluate.py: per-page
	// counts normalised to sum to 1, precision averaged over pages with a
	// non-empty prediction, recall over pages with a non-empty reference,
	// and F1 the harmonic mean of those two averages. Only for comparison
	// with published tables: pages with no output do not lower precision.
	Zyte prf
	// MedianF1 is the median of per-page F1.
	MedianF1 float64
}

// summarizeScores aggregates per-page counts.
func summarizeScores(pages []shingleCounts) evalSummary {
	s := evalSummary{Pages: len(pages)}
	if len(pages) == 0 {
		return s
	}
	var sum prf
	var tp, fp, fn int
	var zp, zr float64
	var nzp, nzr int
	f1s := make([]float64, 0, len(pages))
	for _, c := range pages {
		sc := c.Score()
		sum.P += sc.P
		sum.R += sc.R
		sum.F1 += sc.F1
		f1s = append(f1s, sc.F1)
		tp += c.TP
		fp += c.FP
		fn += c.FN
		// Zyte convention.
		tot := float64(c.TP + c.FP + c.FN)
		ntp, nfp, nfn := 0.0, 0.0, 0.0
		if tot > 0 {
			ntp, nfp, nfn = float64(c.TP)/tot, float64(c.FP)/tot, float64(c.FN)/tot
		}
		if ntp+nfp > 0 || (nfp == 0 && nfn == 0) {
			zp += zyteRatio(ntp, nfp, nfn, nfp)
			nzp++
		}
		if ntp+nfn > 0 || (nfp == 0 && nfn == 0) {
			zr += zyteRatio(ntp, nfp, nfn, nfn)
			nzr++
		}
	}
	n := float64(len(pages))
	s.Macro = prf{sum.P / n, sum.R / n, sum.F1 / n}
	mp, mr := ratio(tp, tp+fp), ratio(tp, tp+fn)
	s.Micro = prf{mp, mr, f1(mp, mr)}
	if nzp > 0 && nzr > 0 {
		p, r := zp/float64(nzp), zr/float64(nzr)
		s.Zyte = prf{p, r, f1(p, r)}
	}
	s.MedianF1 = median(f1s)
	return s
}

// zyteRatio is tp/(tp+other) with the upstream special cases: 1 when there
// is neither a false positive nor a false negative, 0 when tp and other are 0.
func zyteRatio(tp, fp, fn, other float64) float64 {
	if fp == 0 && fn == 0 {
		return 1
	}
	if tp+other == 0 {
		return 0
	}
	return tp / (tp + other)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
