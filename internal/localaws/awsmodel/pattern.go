package awsmodel

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Pattern is a model pattern trait. Models write java.util.regex syntax
// and AWS matches the whole value (a TableName of "my table" fails
// "[a-zA-Z0-9_.-]+"), so the pattern is translated to RE2 and anchored as
// ^(?:…)$. It is compiled on first use; patterns that RE2 cannot express
// (lookarounds, backreferences, class intersections) are not enforced and
// report the reason from Err.
type Pattern struct {
	// Source is the pattern as the model writes it.
	Source string

	once   sync.Once
	re     *regexp.Regexp
	manual func(string) bool
	err    error
}

var patternCache sync.Map // Java source → *compiledPattern

type compiledPattern struct {
	re     *regexp.Regexp
	manual func(string) bool
	err    error
}

func newPattern(src string) *Pattern { return &Pattern{Source: src} }

func (p *Pattern) compile() {
	p.once.Do(func() {
		if c, ok := patternCache.Load(p.Source); ok {
			cp := c.(*compiledPattern)
			p.re, p.manual, p.err = cp.re, cp.manual, cp.err
			return
		}
		cp := &compiledPattern{}
		if m, ok := manualPatterns[p.Source]; ok {
			cp.manual = m
			c, _ := patternCache.LoadOrStore(p.Source, cp)
			cp = c.(*compiledPattern)
			p.re, p.manual = cp.re, cp.manual
			return
		}
		tr, err := TranslateJavaRegexp(p.Source)
		if err == nil {
			cp.re, err = regexp.Compile(`^(?:` + tr + `)$`)
			if err != nil {
				err = fmt.Errorf("RE2 rejects the translation %q: %w", tr, err)
			}
		}
		cp.err = err
		c, _ := patternCache.LoadOrStore(p.Source, cp)
		cp = c.(*compiledPattern)
		p.re, p.manual, p.err = cp.re, cp.manual, cp.err
	})
}

// Err reports why the pattern is not enforced, or nil.
func (p *Pattern) Err() error {
	p.compile()
	return p.err
}

// Regexp returns the compiled, anchored RE2 form, or nil when the pattern
// is not enforced or enforced by a hand-written matcher (see manualPatterns).
func (p *Pattern) Regexp() *regexp.Regexp {
	p.compile()
	return p.re
}

// Match reports whether s satisfies the pattern; unenforceable patterns match everything.
func (p *Pattern) Match(s string) bool {
	p.compile()
	switch {
	case p.manual != nil:
		return p.manual(s)
	case p.re == nil:
		return true
	}
	return p.re.MatchString(s)
}

// display is the pattern as AWS prints it in validation messages: the
// model's text, without the ^…$ anchors newer models add (Scheduler's
// Name is "^[0-9a-zA-Z-_.]+$" in the model and "[0-9a-zA-Z-_.]+" in the
// message AWS returns).
func (p *Pattern) display() string {
	s := p.Source
	if len(s) >= 2 && s[0] == '^' && s[len(s)-1] == '$' && (len(s) < 3 || s[len(s)-2] != '\\') {
		return s[1 : len(s)-1]
	}
	return s
}

// posixNames maps java.util.regex POSIX classes (ASCII-only by default) to RE2's.
var posixNames = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha", "Digit": "digit",
	"Alnum": "alnum", "Punct": "punct", "Graph": "graph", "Print": "print", "Blank": "blank",
	"Cntrl": "cntrl", "XDigit": "xdigit", "Space": "space",
}

// unicodeNames are \p{…} names RE2 accepts as they are (categories and
// scripts); "Is"/"general_category=" prefixes are stripped first.
var unicodeNames = map[string]bool{
	"L": true, "Lu": true, "Ll": true, "Lt": true, "Lm": true, "Lo": true,
	"M": true, "Mn": true, "Mc": true, "Me": true,
	"N": true, "Nd": true, "Nl": true, "No": true,
	"P": true, "Pc": true, "Pd": true, "Ps": true, "Pe": true, "Pi": true, "Pf": true, "Po": true,
	"S": true, "Sm": true, "Sc": true, "Sk": true, "So": true,
	"Z": true, "Zs": true, "Zl": true, "Zp": true,
	"C": true, "Cc": true, "Cf": true, "Co": true, "Cs": true,
	"Latin": true, "Greek": true, "Cyrillic": true, "Han": true, "Arabic": true, "Hebrew": true,
}

// TranslateJavaRegexp rewrites a java.util.regex pattern into RE2 syntax:
// possessive quantifiers (x*+, x++, x?+, x{n}+) become greedy ones, atomic
// groups (?>…) plain groups, \uXXXX escapes \x{XXXX}, \e \x1B, POSIX
// \p{Alpha}-style classes RE2's [[:alpha:]], \p{IsL} \p{L}, \Z \z and
// nested union classes [a-z[0-9]] are flattened. Lookarounds,
// backreferences, class intersection (&&) and negated nested classes have
// no RE2 equivalent and are reported as errors.
//
// Possessive quantifiers and atomic groups can make Java reject a string
// a greedy RE2 match accepts; no model pattern relies on that (they only
// use them to bound backtracking), so the translation is treated as exact.
func TranslateJavaRegexp(src string) (string, error) {
	var b strings.Builder
	inClass := 0 // nesting depth of [...]
	classStart := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("trailing backslash")
			}
			n := src[i+1]
			switch {
			case n == 'p' || n == 'P':
				name, end, err := braceName(src, i+2)
				if err != nil {
					return "", err
				}
				tr, err := translateProperty(name, n == 'P', inClass > 0)
				if err != nil {
					return "", err
				}
				b.WriteString(tr)
				i = end
			case n == 'u':
				if i+6 > len(src) {
					return "", fmt.Errorf("short \\u escape")
				}
				fmt.Fprintf(&b, `\x{%s}`, src[i+2:i+6])
				i += 6
			case n == 'e':
				b.WriteString(`\x1B`)
				i += 2
			case n == 'Z':
				b.WriteString(`\z`)
				i += 2
			case n == 's' && inClass == 0:
				b.WriteString(`[\t\n\x0B\f\r ]`) // Java's \s includes \x0B, RE2's does not
				i += 2
			case n == 's':
				b.WriteString(`\t\n\x0B\f\r `)
				i += 2
			case n == 'S' && inClass == 0:
				b.WriteString(`[^\t\n\x0B\f\r ]`)
				i += 2
			case n == 'h':
				if inClass > 0 {
					b.WriteString(` \t\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`)
				} else {
					b.WriteString(`[ \t\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]`)
				}
				i += 2
			case n >= '1' && n <= '9' && inClass == 0:
				return "", fmt.Errorf("backreference \\%c", n)
			case n == 'k' && inClass == 0:
				return "", fmt.Errorf("named backreference")
			case n == 'G' || n == 'R' || n == 'X':
				return "", fmt.Errorf("\\%c has no RE2 equivalent", n)
			case n == 'Q':
				end := strings.Index(src[i+2:], `\E`)
				lit := src[i+2:]
				if end >= 0 {
					lit = src[i+2 : i+2+end]
					i = i + 2 + end + 2
				} else {
					i = len(src)
				}
				b.WriteString(regexp.QuoteMeta(lit))
			default:
				_, size := utf8.DecodeRuneInString(src[i+1:])
				b.WriteString(src[i : i+1+size])
				i += 1 + size
			}
			classStart = false
			continue
		case inClass > 0 && c == '[':
			if strings.HasPrefix(src[i:], "[:") {
				b.WriteString(`\[`)
				i++
				continue
			}
			// A nested class: Java's union. Flatten it unless negated.
			if i+1 < len(src) && src[i+1] == '^' {
				return "", fmt.Errorf("negated nested character class")
			}
			inClass++
			i++
			continue
		case inClass > 0 && c == ']' && !classStart:
			inClass--
			if inClass == 0 {
				b.WriteByte(']')
			}
			i++
			continue
		case inClass > 0 && c == '&' && i+1 < len(src) && src[i+1] == '&':
			return "", fmt.Errorf("character class intersection (&&)")
		case inClass == 0 && c == '[':
			inClass = 1
			b.WriteByte('[')
			i++
			classStart = true
			if i < len(src) && src[i] == '^' {
				b.WriteByte('^')
				i++
			}
			continue
		case inClass == 0 && c == '(' && strings.HasPrefix(src[i:], "(?"):
			switch {
			case strings.HasPrefix(src[i:], "(?>"):
				b.WriteString("(?:")
				i += 3
				continue
			case strings.HasPrefix(src[i:], "(?="), strings.HasPrefix(src[i:], "(?!"),
				strings.HasPrefix(src[i:], "(?<="), strings.HasPrefix(src[i:], "(?<!"):
				return "", fmt.Errorf("lookaround %s…)", src[i:min(len(src), i+4)])
			}
		case inClass == 0 && c == '.':
			// Java's '.' excludes every line terminator, RE2's only \n.
			b.WriteString(javaDot)
			i++
			continue
		case inClass == 0 && (c == '*' || c == '+' || c == '?' || c == '}'):
			b.WriteByte(c)
			i++
			if i < len(src) && src[i] == '+' {
				i++ // possessive → greedy
			}
			classStart = false
			continue
		}
		if inClass > 0 && classStart && c == ']' {
			// "[]…]": a leading ']' is a literal in Java too.
			b.WriteString(`\]`)
			i++
			classStart = false
			continue
		}
		_, size := utf8.DecodeRuneInString(src[i:])
		b.WriteString(src[i : i+size])
		i += size
		classStart = false
	}
	if inClass > 0 {
		return "", fmt.Errorf("unterminated character class")
	}
	return b.String(), nil
}

const javaDot = `[^\n\r\x{85}\x{2028}\x{2029}]`

func braceName(src string, i int) (string, int, error) {
	if i < len(src) && src[i] != '{' {
		return src[i : i+1], i + 1, nil // \pL
	}
	end := strings.IndexByte(src[i:], '}')
	if end < 0 {
		return "", 0, fmt.Errorf("unterminated \\p{")
	}
	return src[i+1 : i+end], i + end + 1, nil
}

func translateProperty(name string, negated, inClass bool) (string, error) {
	if posix, ok := posixNames[name]; ok {
		neg := ""
		if negated {
			neg = "^"
		}
		if inClass {
			return "[:" + neg + posix + ":]", nil
		}
		return "[[:" + neg + posix + ":]]", nil
	}
	n := strings.TrimPrefix(strings.TrimPrefix(name, "Is"), "general_category=")
	if n == "Alphabetic" || n == "Letter" {
		n = "L"
	}
	if !unicodeNames[n] {
		return "", fmt.Errorf("unsupported property \\p{%s}", name)
	}
	if negated {
		return `\P{` + n + `}`, nil
	}
	return `\p{` + n + `}`, nil
}
