package maintext

import (
	"bytes"

	"math"
	"slices"
	"testing"

	"golang.org/x/net/html"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello, World! It's 2024.", []string{"hello", "world", "it", "s", "2024"}},
		{"snake_case and CamelCase", []string{"snake_case", "and", "camelcase"}},
		{"Привет, МИР", []string{"привет", "мир"}},
		{"naïve café", []string{"naïve", "café"}},
		{"cafe\u0301", []string{"café"}},            // NFC joins the combining accent
		{"हिन्दी भाषा", []string{"हिन्दी", "भाषा"}}, // marks stay inside words
		{"東京都に行く", []string{"東", "京", "都", "に", "行", "く"}},
		{"한국어 문장", []string{"한국어", "문장"}},
		{"emoji 👍 split—dash", []string{"emoji", "split", "dash"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := tokenizeText(c.in); !slices.Equal(got, c.want) {
			t.Errorf("tokenizeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShingles(t *testing.T) {
	t.Parallel()
	s := shinglesOfText("a b c d e a b c d")
	if len(s) != 5 || s["a\x00b\x00c\x00d"] != 2 {
		t.Fatalf("got %v", s)
	}
	if s := shinglesOfText("one two"); len(s) != 1 || s["one\x00two"] != 1 {
		t.Fatalf("short text: %v", s)
	}
	if s := shinglesOfText(" ,. "); len(s) != 0 {
		t.Fatalf("empty text: %v", s)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCompareAndScore(t *testing.T) {
	t.Parallel()
	ref := "the quick brown fox jumps over the lazy dog"      // 6 shingles
	pred := "The quick brown fox jumps. Subscribe now please" // 2 correct + 3 wrong
	c := compareTexts(ref, pred)
	if c != (shingleCounts{TP: 2, FP: 3, FN: 4}) {
		t.Fatalf("counts %+v", c)
	}
	s := c.Score()
	if !near(s.P, 0.4) || !near(s.R, 2.0/6) || !near(s.F1, 2*0.4*(2.0/6)/(0.4+2.0/6)) {
		t.Fatalf("score %+v", s)
	}
	if s := compareTexts(ref, ref).Score(); s != (prf{1, 1, 1}) {
		t.Fatalf("identical: %+v", s)
	}
	if s := compareTexts(ref, "").Score(); s != (prf{0, 0, 0}) {
		t.Fatalf("empty prediction: %+v", s)
	}
	if s := compareTexts("", "").Score(); s != (prf{1, 1, 1}) {
		t.Fatalf("both empty: %+v", s)
	}
	// Multiset: a repeated paragraph counts twice.
	if c := compareTexts("w x y z", "w x y z. w x y z"); c.TP != 1 || c.FP != 4 {
		t.Fatalf("multiset: %+v", c)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	pages := []shingleCounts{
		{TP: 90, FP: 10, FN: 0}, // P .9 R 1
		{TP: 0, FP: 0, FN: 10},  // empty prediction: P R F1 0
	}
	s := summarizeScores(pages)
	f1a := 2 * 0.9 / 1.9
	if !near(s.Macro.F1, f1a/2) || !near(s.Macro.P, 0.45) || !near(s.Macro.R, 0.5) {
		t.Errorf("macro %+v", s.Macro)
	}
	if !near(s.Micro.P, 0.9) || !near(s.Micro.R, 0.9) {
		t.Errorf("micro %+v", s.Micro)
	}
	// Zyte style skips the empty prediction for precision.
	if !near(s.Zyte.P, 0.9) || !near(s.Zyte.R, 0.5) {
		t.Errorf("zyte %+v", s.Zyte)
	}
}

func TestSynthetic(t *testing.T) {
	t.Parallel()
	for _, sh := range synthShapes {
		b := synthetic(sh, 1<<20)
		if len(b) < 1<<20-8192 || len(b) > 1<<20+8192 {
			t.Errorf("%s: %d bytes", sh, len(b))
		}
		if _, err := html.Parse(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", sh, err)
		}
	}
}
