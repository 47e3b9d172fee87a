package eventpattern_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
)

// employees is the array example of the Ruler README ("JSON Array Matching").
const employees = `{"employees":[
  {"firstName":"John","lastName":"Doe","ids":[1234,1000,9999]},
  {"firstName":"Anna","lastName":"Smith"},
  {"firstName":"Peter","lastName":"Jones","ids":[]}]}`

// TestMatch covers semantics beyond the AWS-validated corpus; each case says
// where its expectation comes from.
func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pattern string
		event   string
		want    bool
	}{
		// Arrays (Ruler README "JSON Array Matching"; docs/aws-behaviour.md §5.2).
		{"ArrayOfObjectsCrushed", `{"employees":{"firstName":["Anna"]}}`, employees, true},
		{"ArrayConsistencyRejectsMixedElements", `{"employees":{"firstName":["Anna"],"lastName":["Jones"]}}`, employees, false},
		{"ArrayConsistencySameElement", `{"employees":{"firstName":["Anna"],"lastName":["Smith"]}}`, employees, true},
		{"NestedArraysCrushed", `{"employees":{"firstName":["Anna"]}}`, `{"employees":[[{"firstName":"John"},{"firstName":"Anna"}],[{"firstName":"Peter"}]]}`, true},
		{"NestedArraysConsistent", `{"employees":{"firstName":["Anna"],"lastName":["Jones"]}}`, `{"employees":[[{"firstName":"Anna","lastName":"Smith"}],[{"firstName":"Peter","lastName":"Jones"}]]}`, false},
		{"ExistsFalseSeesChosenElement", `{"employees":{"firstName":["Anna"],"ids":[{"exists":false}]}}`, employees, true},
		{"ExistsTrueSeesChosenElement", `{"employees":{"firstName":["Anna"],"ids":[{"exists":true}]}}`, employees, false},
		{"ExistsFalseWithIds", `{"employees":{"firstName":["John"],"ids":[{"exists":false}]}}`, employees, false},
		{"ExistsFalseEmptyArray", `{"employees":{"firstName":["Peter"],"ids":[{"exists":false}]}}`, employees, true},
		{"ScalarArrayIntersection", `{"resources":["b","c"]}`, `{"resources":["a","b"]}`, true},
		{"ScalarArrayNoIntersection", `{"resources":["c"]}`, `{"resources":["a","b"]}`, false},
		{"AnythingButAnyElement", `{"a":[{"anything-but":"x"}]}`, `{"a":["x","y"]}`, true},
		{"AnythingButAllExcluded", `{"a":[{"anything-but":"x"}]}`, `{"a":["x"]}`, false},
		{"ExistsTrueEmptyArray", `{"a":[{"exists":true}]}`, `{"a":[]}`, false},
		{"ExistsFalseEmptyArray", `{"a":[{"exists":false}]}`, `{"a":[]}`, true},
		{"NullDoesNotMatchEmptyArray", `{"a":[null]}`, `{"a":[]}`, false},
		{"ManyArrayElements", `{"a":{"b":["x"],"c":["y"]}}`, manyElements(2000), true},

		// Leaves only (docs/aws-behaviour.md §5.1, §5.7).
		{"ObjectValueIsNotALeaf", `{"a":["x"]}`, `{"a":{"b":"x"}}`, false},
		{"ExistsFalseOnObject", `{"a":[{"exists":false}]}`, `{"a":{"b":"x"}}`, true},
		{"ExistsTrueOnNull", `{"a":[{"exists":true}]}`, `{"a":null}`, true},
		{"MixedCandidatesAbsent", `{"a":[{"exists":false},"x"]}`, `{}`, true},
		{"MixedCandidatesValue", `{"a":[{"exists":false},"x"]}`, `{"a":"x"}`, true},
		{"MixedCandidatesOther", `{"a":[{"exists":false},"x"]}`, `{"a":"y"}`, false},

		// Dot-joining (Ruler README "Caveat: Compiled rules and JSON keys with dots").
		{"DotsBothSides", `{"a.b":{"c":["x"]}}`, `{"a":{"b.c":"x"}}`, true},
		{"DotsDoNotSplitWrongly", `{"a":{"bc":["x"]}}`, `{"a.b":{"c":"x"}}`, false},

		// Duplicate keys: the last wins per path (Ruler overriding; S3/S5).
		{"PatternDuplicateLastWins", `{"a":["x"],"a":["y"]}`, `{"a":"x"}`, false},
		{"PatternDuplicateLastWinsMatch", `{"a":["x"],"a":["y"]}`, `{"a":"y"}`, true},
		{"PatternDuplicateObjectsMerge", `{"a":{"x":["1"]},"a":{"y":["2"]}}`, `{"a":{"y":"2"}}`, false},
		{"EventDuplicateLastWins", `{"a":["x"]}`, `{"a":"x","a":"y"}`, false},

		// Numbers (docs/aws-behaviour.md §5.3, §5.6).
		{"NumberExponent", `{"n":[300]}`, `{"n":3e2}`, true},
		{"NumberVsString", `{"n":[300]}`, `{"n":"300"}`, false},
		{"StringVsNumber", `{"n":["300"]}`, `{"n":300}`, false},
		{"BigIntegerByText", `{"n":[12345678901234567890]}`, `{"n":12345678901234567890}`, true},
		{"BigIntegerOtherText", `{"n":[12345678901234567890]}`, `{"n":12345678901234567891}`, false},
		{"NumericEquals", `{"n":[{"numeric":["=",0.1]}]}`, `{"n":0.1}`, true},
		{"NumericOpenLowerBound", `{"n":[{"numeric":[">",0,"<=",5]}]}`, `{"n":0}`, false},
		{"NumericClosedUpperBound", `{"n":[{"numeric":[">",0,"<=",5]}]}`, `{"n":5}`, true},
		{"NumericAboveUpperBound", `{"n":[{"numeric":[">",0,"<=",5]}]}`, `{"n":5.0000001}`, false},
		{"NumericUpperOnly", `{"n":[{"numeric":["<",0]}]}`, `{"n":-1e300}`, true},
		{"NumericOnDynamoDBNString", `{"N":[{"numeric":[">",100]}]}`, `{"N":"101"}`, false},
		{"AnythingButNumberVsString", `{"n":[{"anything-but":[100]}]}`, `{"n":"100"}`, true},
		{"AnythingButNumberNumerically", `{"n":[{"anything-but":[100]}]}`, `{"n":100.0}`, false},
		{"BooleanVsString", `{"b":[true]}`, `{"b":"true"}`, false},

		// Strings and operators (docs/aws-behaviour.md §5.4).
		{"PrefixFoldUnicode", `{"s":[{"prefix":{"equals-ignore-case":"ÉTÉ"}}]}`, `{"s":"été-2026"}`, true},
		{"SuffixFold", `{"s":[{"suffix":{"equals-ignore-case":".PNG"}}]}`, `{"s":"a.png"}`, true},
		{"SuffixOnNumber", `{"s":[{"suffix":"0"}]}`, `{"s":10}`, false},
		{"EqualsIgnoreCase", `{"s":[{"equals-ignore-case":"alice"}]}`, `{"s":"ALICE"}`, true},
		{"EqualsIgnoreCaseNotNumber", `{"s":[{"equals-ignore-case":"1"}]}`, `{"s":1}`, false},
		{"AnythingButFold", `{"s":[{"anything-but":{"equals-ignore-case":["A","b"]}}]}`, `{"s":"B"}`, false},
		{"AnythingButPrefixNull", `{"s":[{"anything-but":{"prefix":"x"}}]}`, `{"s":null}`, true},
		{"WildcardEscapedStar", `{"s":[{"wildcard":"a\\*b"}]}`, `{"s":"a*b"}`, true},
		{"WildcardEscapedStarLiteral", `{"s":[{"wildcard":"a\\*b"}]}`, `{"s":"axb"}`, false},
		{"WildcardStarMatchesEmpty", `{"s":[{"wildcard":"a*"}]}`, `{"s":"a"}`, true},
		{"WildcardEmpty", `{"s":[{"wildcard":""}]}`, `{"s":""}`, true},
		{"WildcardEmptyNotOther", `{"s":[{"wildcard":""}]}`, `{"s":"x"}`, false},
		{"WildcardMiddle", `{"s":[{"wildcard":"a*b*c"}]}`, `{"s":"a-bb-b-c"}`, true},
		{"WildcardOverlap", `{"s":[{"wildcard":"ab*ba"}]}`, `{"s":"aba"}`, false},
		{"AnythingButWildcardEmpty", `{"s":[{"anything-but":{"wildcard":""}}]}`, `{"s":""}`, false},

		// IP addresses (Ruler CIDR.java).
		{"IPExactOtherSpelling", `{"ip":["2001:db8::1"]}`, `{"ip":"2001:0db8:0:0:0:0:0:1"}`, true},
		{"IPExactSame", `{"ip":["10.0.0.1"]}`, `{"ip":"10.0.0.1"}`, true},
		{"IPExactOther", `{"ip":["10.0.0.1"]}`, `{"ip":"10.0.0.2"}`, false},
		{"CIDRv4", `{"ip":[{"cidr":"10.0.0.0/8"}]}`, `{"ip":"10.255.1.1"}`, true},
		{"CIDRv4Outside", `{"ip":[{"cidr":"10.0.0.0/8"}]}`, `{"ip":"11.0.0.1"}`, false},
		{"CIDRv6VsV4", `{"ip":[{"cidr":"::/0"}]}`, `{"ip":"10.0.0.1"}`, false},

		// $or (Ruler README "The $or Primitive"; docs/aws-behaviour.md §5.8).
		{"OrNested", `{"source":["a"],"$or":[{"x":[1]},{"y":[2],"$or":[{"z":[3]},{"w":[4]}]}]}`, `{"source":"a","y":2,"w":4}`, true},
		{"OrNestedMissing", `{"source":["a"],"$or":[{"x":[1]},{"y":[2],"$or":[{"z":[3]},{"w":[4]}]}]}`, `{"source":"a","y":2}`, false},
		{"OrFieldAfter", `{"$or":[{"x":[1]},{"y":[2]}],"z":[3]}`, `{"y":2}`, false},
		{"OrInsideObject", `{"d":{"$or":[{"x":[1]},{"y":[2]}]}}`, `{"d":{"y":2}}`, true},
		{"OrLegacyObjectIsAField", `{"$or":{"a":["x"]}}`, `{"$or":{"a":"x"}}`, true},
		{"OrLegacyEscapedKey", `{"\u0024or":{"a":["x"]}}`, `{"$or":{"a":"x"}}`, true},
		{"OrLegacyOperatorIsAField", `{"$or":[{"cidr":"10.0.0.0/24"}]}`, `{"$or":"10.0.0.7"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := eventpattern.Compile([]byte(tt.pattern))
			require.NoError(t, err)
			got, err := p.Match([]byte(tt.event))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// manyElements builds {"a":[{"b":"nope","c":"y"} × n-1, {"b":"x","c":"y"}]}.
func manyElements(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"a":[`)
	for i := 0; i < n-1; i++ {
		sb.WriteString(`{"b":"nope","c":"y"},`)
	}
	sb.WriteString(`{"b":"x","c":"y"}]}`)
	return sb.String()
}

// TestMatchIndependentArrays makes sure fields in different arrays that can
// never match do not make the search explode (memoised failures).
func TestMatchIndependentArrays(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString(`{"a":[`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"x":%d}`, i)
	}
	sb.WriteString(`],"b":[`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"y":%d}`, i)
	}
	sb.WriteString(`],"c":"no"}`)
	p := eventpattern.MustCompile(`{"a":{"x":[{"exists":true}]},"b":{"y":[{"exists":true}]},"c":["yes"]}`)
	got, err := p.Match([]byte(sb.String()))
	require.NoError(t, err)
	require.False(t, got)
}

// TestCompileInvalid checks Ruler's reasons for patterns outside the
// AWS-validated corpus (aws/event-ruler JsonRuleCompiler.java, CIDR.java).
func TestCompileInvalid(t *testing.T) {
	t.Parallel()
	orCombos := func(n int) string { // three nested $or levels of n branches each
		branch := func(k string) string {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf(`{"%s%d":[1]}`, k, i)
			}
			return `[` + strings.Join(parts, ",") + `]`
		}
		return `{"$or":` + branch("a") + `,"b":{"$or":` + branch("b") + `},"c":{"$or":` + branch("c") + `}}`
	}
	tests := []struct {
		name    string
		pattern string
		reason  string
	}{
		{"NotAnObject", `["a"]`, "Filter is not an object"},
		{"NotJSON", `{"a":`, "Filter is not valid JSON"},
		{"TrailingData", `{"a":["x"]} x`, "Filter is not valid JSON"},
		{"EmptyPattern", `{}`, "Empty objects are not allowed"},
		{"EmptyNested", `{"a":{}}`, "Empty objects are not allowed"},
		{"NestedArray", `{"a":[["x"]]}`, "Match value must be String, number, true, false, or null"},
		{"EmptyExpression", `{"a":[{}]}`, "Match expression name not found"},
		{"TwoOperators", `{"a":[{"prefix":"x","suffix":"y"}]}`, "Only one key allowed in match expression"},
		{"NumericTwoLowerBounds", `{"a":[{"numeric":[">",0,">",1]}]}`, "Bad numeric range operator: >"},
		{"NumericUpperThenLower", `{"a":[{"numeric":["<",1,">",0]}]}`, "Too many elements in numeric expression"},
		{"NumericEmptyRange", `{"a":[{"numeric":[">",5,"<",5]}]}`, "Bottom must be less than top"},
		{"NumericEmpty", `{"a":[{"numeric":[]}]}`, "Invalid member in numeric match: ]"},
		{"NumericUnknownOperator", `{"a":[{"numeric":["!=",1]}]}`, "Unrecognized numeric range operator: !="},
		{"NumericNotDouble", `{"a":[{"numeric":["=",0.30000000000000001]}]}`, "Cannot compare number"},
		{"NumericTooManyTerms", `{"a":[{"numeric":[">",0,"<",10,"<",11]}]}`, "Too many terms in numeric range expression"},
		{"NumericStringValue", `{"a":[{"numeric":["=","5"]}]}`, "Value of equals must be numeric"},
		{"ExistsNotBool", `{"a":[{"exists":"yes"}]}`, "exists match pattern must be either true or false."},
		{"CIDRFullMask", `{"a":[{"cidr":"10.0.0.0/32"}]}`, "IPv4 mask bits must be < 32"},
		{"CIDRNegativeMask", `{"a":[{"cidr":"10.0.0.0/-1"}]}`, "Malformed CIDR, mask bits must not be negative"},
		{"CIDRBadAddress", `{"a":[{"cidr":"999.0.0.0/8"}]}`, "Invalid IP address: 999.0.0.0"},
		{"WildcardBadEscape", `{"a":[{"wildcard":"a\\b"}]}`, "Invalid escape character at pos 2"},
		{"WildcardTooComplexList", `{"a":[{"anything-but":{"wildcard":["*a*a*","*b*b*","*c*c*"]}}]}`, "Rule is too complex"},
		{"AnythingButEmptyList", `{"a":[{"anything-but":[]}]}`, "mixed type is not supported"},
		{"AnythingButMixedList", `{"a":[{"anything-but":["a",1]}]}`, "mixed type is not supported"},
		{"AnythingButBoolean", `{"a":[{"anything-but":true}]}`, "Value of anything-but must be an array or single string/number value."},
		{"AnythingButUnknownForm", `{"a":[{"anything-but":{"regex":"x"}}]}`, "Unsupported anything-but pattern: regex"},
		{"AnythingButExtraKey", `{"a":[{"anything-but":{"prefix":"a"},"x":1}]}`, "Too many elements in numeric expression"},
		{"AnythingButNumberNotDouble", `{"a":[{"anything-but":[0.30000000000000001]}]}`, "Cannot compare number"},
		{"PrefixUnknownForm", `{"a":[{"prefix":{"foo":"x"}}]}`, "Unsupported prefix pattern: foo"},
		{"SuffixFoldNotString", `{"a":[{"suffix":{"equals-ignore-case":1}}]}`, "equals-ignore-case match pattern must be a string"},
		{"OrReservedName", `{"$or":[{"a":["x"]},{"prefix":["y"]}]}`, "prefix is Ruler reserved fieldName which cannot be used inside $or."},
		{"OrOneBranch", `{"$or":[{"a":["x"]}]}`, "There must have at least 2 Objects in $or relationship."},
		{"OrNotArray", `{"$or":"x"}`, "It must be an Array followed with $or."},
		{"OrNonObjectBranch", `{"$or":[{"a":["x"]},["b"]]}`, "Only JSON object is allowed in array of $or relationship."},
		{"OrTooManyCombinations", orCombos(11), "$or combinations exceed 1000"},
		{"NestedTooDeeply", strings.Repeat(`{"a":`, 300) + `["x"]` + strings.Repeat(`}`, 300), "nested too deeply"},
		{"OrEscapedKey", `{"\u0024or":[{"a":["x"]}]}`, "There must have at least 2 Objects in $or relationship."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := eventpattern.Compile([]byte(tt.pattern))
			require.Nil(t, p)
			require.Error(t, err)
			var ip *eventpattern.InvalidPatternError
			require.True(t, errors.As(err, &ip), "want *InvalidPatternError, got %T", err)
			require.Contains(t, ip.Reason, tt.reason)
			require.True(t, strings.HasPrefix(err.Error(), "Event pattern is not valid. Reason: "), err.Error())
		})
	}

	t.Run("OrAtTheLimit", func(t *testing.T) {
		t.Parallel()
		_, err := eventpattern.Compile([]byte(orCombos(10))) // exactly 1000 combinations
		require.NoError(t, err)
	})
}

// TestMatchErrors: only a JSON object is an event.
func TestMatchErrors(t *testing.T) {
	t.Parallel()
	p := eventpattern.MustCompile(`{"a":["x"]}`)
	for _, ev := range []string{``, `[]`, `"a"`, `{"a":`, `{"a":"x"} {}`} {
		_, err := p.Match([]byte(ev))
		require.Error(t, err, "event %q", ev)
	}
	_, err := p.MatchValue([]any{"a"})
	require.Error(t, err)

	got, err := p.MatchValue(map[string]any{"a": "x"})
	require.NoError(t, err)
	require.True(t, got)
}

// TestMatchDeepArrays: arrays nested beyond the bound are refused, not
// matched slowly.
func TestMatchDeepArrays(t *testing.T) {
	t.Parallel()
	p := eventpattern.MustCompile(`{"a":["x"]}`)
	ok, err := p.Match([]byte(`{"a":` + strings.Repeat("[", 10) + `"x"` + strings.Repeat("]", 10) + `}`))
	require.NoError(t, err)
	require.True(t, ok)
	_, err = p.Match([]byte(`{"a":` + strings.Repeat("[", 5000) + `"x"` + strings.Repeat("]", 5000) + `}`))
	require.ErrorIs(t, err, eventpattern.ErrEventTooComplex)
}

// TestMatchValueNumbers: events decoded without UseNumber still compare.
func TestMatchValueNumbers(t *testing.T) {
	t.Parallel()
	p := eventpattern.MustCompile(`{"n":[300],"m":[{"numeric":[">",1]}],"i":[7]}`)
	got, err := p.MatchValue(map[string]any{"n": 300.0, "m": 2.5, "i": 7})
	require.NoError(t, err)
	require.True(t, got)
}

// TestValidateForPipes follows the "Pipe support" column (docs/aws-behaviour.md §5.4).
func TestValidateForPipes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern     string
		unsupported string
	}{
		{`{"a":["x",1,true,null]}`, ""},
		{`{"a":[{"prefix":"x"},{"prefix":{"equals-ignore-case":"x"}}]}`, ""},
		{`{"a":[{"suffix":"x"},{"suffix":{"equals-ignore-case":"x"}},{"equals-ignore-case":"x"}]}`, ""},
		{`{"a":[{"anything-but":"x"},{"anything-but":[1,2]}]}`, ""},
		{`{"a":[{"numeric":[">",1]},{"exists":true},{"cidr":"10.0.0.0/8"}]}`, ""},
		{`{"$or":[{"a":["x"]},{"b":["y"]}]}`, ""},
		{`{"a":[{"anything-but":{"prefix":"x"}}]}`, "anything-but/prefix"},
		{`{"a":[{"anything-but":{"suffix":["x"]}}]}`, "anything-but/suffix"},
		{`{"a":[{"anything-but":{"equals-ignore-case":"x"}}]}`, "anything-but/equals-ignore-case"},
		{`{"a":[{"anything-but":{"wildcard":"x*"}}]}`, "anything-but/wildcard"},
		{`{"a":[{"wildcard":"x*"}]}`, "wildcard"},
		{`{"a":[{"exactly":"x"}]}`, "exactly"},
	}
	for _, tt := range tests {
		p, err := eventpattern.Compile([]byte(tt.pattern))
		require.NoError(t, err, tt.pattern)
		err = eventpattern.ValidateForPipes(p)
		if tt.unsupported == "" {
			require.NoError(t, err, tt.pattern)
			continue
		}
		var ue *eventpattern.UnsupportedForPipesError
		require.True(t, errors.As(err, &ue), "pattern %s: want *UnsupportedForPipesError, got %v", tt.pattern, err)
		require.Equal(t, tt.unsupported, ue.Operator)
	}
}

// readTestdata reads testdata/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// TestBecomesPending runs the pipeline's filter pair (docs/aws-behaviour.md §1.3,
// docs/design.md §4) against stream records of every kind.
//
// exists:false on an absent parent: an INSERT has no OldImage at all, so
// dynamodb.OldImage.status.S has no leaf and {"exists": false} holds. This is
// what the AWS-validated case content_exists_false shows (its parent
// "level2:" is missing and the pattern matches), so filter (a) passes INSERTs.
// anything-but on a missing field never matches
// (content_anything_but_string_missing_NEG), so filter (b) needs an OldImage.
func TestBecomesPending(t *testing.T) {
	t.Parallel()
	filterNew, err := eventpattern.Compile(readTestdata(t, "filter-becomes-pending-new.json"))
	require.NoError(t, err)
	filterChanged, err := eventpattern.Compile(readTestdata(t, "filter-becomes-pending-changed.json"))
	require.NoError(t, err)
	require.NoError(t, eventpattern.ValidateForPipes(filterNew))
	require.NoError(t, eventpattern.ValidateForPipes(filterChanged))

	tests := []struct {
		record              string
		wantNew, wantChange bool
	}{
		{"ddb-insert-pending.json", true, false},
		{"ddb-modify-running-to-pending.json", false, true},
		{"ddb-modify-finished-to-pending.json", false, true},
		{"ddb-modify-no-old-status.json", true, false},
		{"ddb-modify-pending-to-pending.json", false, false},
		{"ddb-modify-pending-to-running.json", false, false},
		{"ddb-remove-pending.json", false, false},
		{"ddb-insert-running.json", false, false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.record, ".json"), func(t *testing.T) {
			t.Parallel()
			rec := readTestdata(t, tt.record)
			gotNew, err := filterNew.Match(rec)
			require.NoError(t, err)
			gotChanged, err := filterChanged.Match(rec)
			require.NoError(t, err)
			require.Equal(t, tt.wantNew, gotNew, "filter (a): new item or no old status")
			require.Equal(t, tt.wantChange, gotChanged, "filter (b): status changed to Pending")
		})
	}
}
