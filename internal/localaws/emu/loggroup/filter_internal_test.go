package loggroup

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
		wantErr bool
	}{
		{pattern: "", match: []string{"", "anything"}},
		{pattern: "ERROR", match: []string{"ERROR x", "[ERROR]"}, noMatch: []string{"error", "WARN"}},
		{pattern: "ERROR fetch", match: []string{"fetch ERROR"}, noMatch: []string{"ERROR only"}},
		{pattern: `"task failed"`, match: []string{"the task failed."}, noMatch: []string{"task  failed"}},
		{pattern: `"say \"hi\""`, match: []string{`they say "hi"`}},
		{pattern: "?A ?B", match: []string{"A", "B", "AB"}, noMatch: []string{"C"}},
		{pattern: "ERROR -Exiting", match: []string{"ERROR x"}, noMatch: []string{"ERROR Exiting"}},
		{pattern: `-"no such"`, match: []string{"fine"}, noMatch: []string{"no such file"}},
		{pattern: `"unterminated`, wantErr: true},
		{pattern: `{ $.a = 1 }`, wantErr: true},
		{pattern: `[ip, user]`, wantErr: true},
		{pattern: `%ERR.*%`, wantErr: true},
		{pattern: `? x`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			p, err := parsePattern(tt.pattern)
			if tt.wantErr {
				require.NotNil(t, err)
				require.Equal(t, ErrInvalidParameter.Type, err.Type)
				return
			}
			require.Nil(t, err)
			for _, m := range tt.match {
				require.True(t, p.match(m), "%q should match %q", tt.pattern, m)
			}
			for _, m := range tt.noMatch {
				require.False(t, p.match(m), "%q should not match %q", tt.pattern, m)
			}
		})
	}
}

func TestPageTokenRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tok := range []pageToken{{forward: true, at: minKey}, {forward: false, at: key{ts: 1700000000000, seq: 42}}} {
		got, err := parsePageToken(tok.String())
		require.Nil(t, err)
		require.Equal(t, tok, got)
	}
	for _, bad := range []string{"", "x/1/2", "f/1", "f/a/2", "f/1/-2"} {
		_, err := parsePageToken(bad)
		require.NotNil(t, err, bad)
	}
	require.Equal(t, minKey, minKey.prev())
	k := key{ts: 5, seq: 0}
	require.True(t, k.prev().less(k))
	require.True(t, k.less(k.next()))
}
