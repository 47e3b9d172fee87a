package awsmodel

import (
	"sort"
	"strings"
	"testing"
)

func TestTranslateJavaRegexp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want, err string }{
		{in: `[a-zA-Z0-9_.-]+`, want: `[a-zA-Z0-9_.-]+`},
		{in: `a*+b++c?+d{2}+`, want: `a*b+c?d{2}`},
		{in: `(?>ab)+`, want: `(?:ab)+`},
		{in: `\p{Alpha}+[\p{Alnum}_]`, want: `[[:alpha:]]+[[:alnum:]_]`},
		{in: `\P{Punct}`, want: `[[:^punct:]]`},
		{in: `\p{L}\p{IsN}\pL`, want: `\p{L}\p{N}\p{L}`},
		{in: `\u00e9\e`, want: `\x{00e9}\x1B`},
		{in: `[a-z[0-9]]`, want: `[a-z0-9]`},
		{in: `a.b`, want: `a` + javaDot + `b`},
		{in: `[.]\.`, want: `[.]\.`},
		{in: `\s\S[\s]`, want: `[\t\n\x0B\f\r ][^\t\n\x0B\f\r ][\t\n\x0B\f\r ]`},
		{in: `\Qa.b\E`, want: `a\.b`},
		{in: `[]a]`, want: `[\]a]`},
		{in: `x(?=y)`, err: "lookaround"},
		{in: `(?<!a)b`, err: "lookaround"},
		{in: `(a)\1`, err: "backreference"},
		{in: `[a-z&&[^b]]`, err: "intersection"},
		{in: `[a[^b]]`, err: "negated nested"},
		{in: `\p{InGreek}`, err: "unsupported property"},
	} {
		got, err := TranslateJavaRegexp(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %q, %v; want error %q", c.in, got, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.in, err)
		case got != c.want:
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

// TestModelPatterns: every pattern of every served shape is enforced,
// translated to RE2 or by a hand-written matcher; none is skipped.
func TestModelPatterns(t *testing.T) {
	t.Parallel()
	m := MustLoad()
	distinct := map[string]bool{}
	var manual, translated []string
	for _, k := range m.Services() {
		for _, sh := range m.Service(k).shapes {
			p := sh.Pattern
			if p == nil || distinct[p.Source] {
				continue
			}
			distinct[p.Source] = true
			if err := p.Err(); err != nil {
				t.Errorf("%s %s: pattern %q not enforced: %v", k, sh.Name, p.Source, err)
			}
			if _, ok := manualPatterns[p.Source]; ok {
				manual = append(manual, k+" "+sh.Name)
			} else if p.Regexp() == nil {
				t.Errorf("%s %s: no matcher", k, sh.Name)
			} else {
				translated = append(translated, p.Source)
			}
		}
	}
	sort.Strings(manual)
	t.Logf("%d distinct patterns: %d translated to RE2, %d by hand (%s)", len(distinct), len(translated), len(manual), strings.Join(manual, ", "))
	if len(manual) != len(manualPatterns) {
		t.Errorf("%d hand-written matchers in use, %d defined: drop stale ones", len(manual), len(manualPatterns))
	}
}

// TestManualPatterns checks the hand-written matchers against what
// java.util.regex answers for the model patterns.
func TestManualPatterns(t *testing.T) {
	t.Parallel()
	for src, cases := range map[string]map[string]bool{
		`(^(?!(system\x2e)))(^[_a-zA-Z0-9])([^$]*)`:                                {"orders": true, "_x.y": true, "system.users": false, "systemx": true, "a$b": false, "": false, "-a": false},
		`[0-9A-Za-z\.\-_]*(?<!\.)`:                                                 {"my-bucket": true, "": true, "a.b": true, "a.": false, "a b": false},
		`.*(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w/_-]+(\[(\d+|\*)\])*)*).*`: {"taskpipe": true, "aws.s3": true, "$.detail": true, "": false, "!!": false, "a\nb": false, "aws.": true},
		`(?!\s*$).+|(\$(\.[\w/_-]+(\[(\d+|\*)\])*)*)`:                              {"x": true, "  ": false, "": false, "$": true, "$.a.b[0]": true, " a ": true},
		`^(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w_-]+(\[(\d+|\*)\])*)*)$`:    {"taskpipe.app": true, "aws.events": false, "$.detail.x": true, "": false, "!x": false, "awsx": true},
	} {
		p := newPattern(src)
		for in, want := range cases {
			if got := p.Match(in); got != want {
				t.Errorf("%s on %q: %v, want %v", src, in, got, want)
			}
		}
	}
}

func TestPatternSemantics(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		src  string
		in   string
		want bool
	}{
		{`[a-zA-Z0-9_.-]+`, "my table", false}, // whole-value match: AWS rejects this table name
		{`[a-zA-Z0-9_.-]+`, "my-table", true},
		{`[\w+=,.@-]+`, "role/x", false},
		{`.*`, "a\rb", false}, // Java's '.' excludes \r
		{`[\s\S]*`, "a\rb", true},
		{`\s`, "\x0b", true},
		{`^[0-9a-zA-Z-_.]+$`, "a/b", false},
	} {
		if got := newPattern(c.src).Match(c.in); got != c.want {
			t.Errorf("%s on %q: %v, want %v", c.src, c.in, got, c.want)
		}
	}
}
