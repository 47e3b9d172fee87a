package eventpattern

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// rawTokens is a wildcard without the JSON quotes Ruler adds, matching how
// Ruler's own MachineComplexityEvaluatorTest builds its patterns.
func rawTokens(t *testing.T, s string) []wildcardToken {
	t.Helper()
	w, err := parseWildcard(s)
	require.NoError(t, err)
	toks := w.tokens()
	return toks[1 : len(toks)-1]
}

// TestWildcardComplexityRulerPoints checks the measure against the numbers in
// aws/event-ruler MachineComplexityEvaluatorTest.java (337e8d9).
func TestWildcardComplexityRulerPoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		patterns []string
		want     int
	}{
		{[]string{"*"}, 1},
		{[]string{"abc"}, 1},
		{[]string{"*ab"}, 2},
		{[]string{"*aa"}, 3},
		{[]string{"a*b"}, 2},
		{[]string{"aa*"}, 2},
		{[]string{"a*bc"}, 2},
		{[]string{"a*bb"}, 3},
		{[]string{"a*bcb"}, 3},
		{[]string{"a*bbb"}, 4},
		{[]string{"*ab*ad"}, 4},
		{[]string{"*ab*d"}, 3},
		{[]string{"*aba*"}, 4},
		{[]string{"a*b*bb"}, 5},
		{[]string{"a*b*cb"}, 4},
		{[]string{"a*b*cd"}, 3},
		{[]string{"a*b*b"}, 4},
		{[]string{"a*bb*"}, 4},
		{[]string{"ab*b*"}, 3},
		{[]string{"*ab*b*b*"}, 7},
		{[]string{"*a*a*a*a*a*a*a*a*"}, 17},
		{[]string{"*", "ab*c"}, 3},
		{[]string{"ab*c", "x*xx"}, 3},
		{[]string{"*abc", "*abcde"}, 4},
		{[]string{"a*aaa", "aa*aa"}, 7},
		{[]string{"a*aaa", "aaa*a"}, 6},
		{[]string{"ab*cd", "ab*wx", "ab*yz"}, 6},
	}
	for _, tt := range tests {
		var toks [][]wildcardToken
		for _, p := range tt.patterns {
			toks = append(toks, rawTokens(t, p))
		}
		require.Equal(t, tt.want, wildcardComplexity(toks, 100), "patterns %q", tt.patterns)
	}
}

// TestWildcardComplexityValidatedCases pins where the AWS-validated wildcard
// cases fall relative to maxWildcardComplexity (JSON quotes included).
func TestWildcardComplexityValidatedCases(t *testing.T) {
	t.Parallel()
	score := func(s string) int {
		w, err := parseWildcard(s)
		require.NoError(t, err)
		return wildcardComplexity([][]wildcardToken{w.tokens()}, 100)
	}
	require.Equal(t, 7, score("/Users/*/dir/dir/dir/dir/dir/doc.txt"))                             // content_wildcard_repeating: valid
	require.LessOrEqual(t, score("arn:aws:events:us-east-1:*:event-bus/*"), maxWildcardComplexity) // content_wildcard_simplified
	require.Equal(t, 11, score("*:*:*:*:*:event-bus/*"))                                           // content_wildcard_complex_EXC
}
