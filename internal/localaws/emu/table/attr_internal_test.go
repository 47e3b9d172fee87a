package table

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/server"
)

func mustItem(t testing.TB, js string) item {
	t.Helper()
	var it item
	require.NoError(t, json.Unmarshal([]byte(js), &it))
	return it
}

// TestItemSizeMatchesAWSSamples checks the SizeBytes rule against every
// value AWS has published (docs/aws-behaviour.md §2.4).
func TestItemSizeMatchesAWSSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		images []string
		want   int64
	}{
		{"RecordedInsert", []string{`{"id":{"S":"Fred"}}`, `{"id":{"S":"Fred"}}`}, 12},
		{"RecordedKeysOnly", []string{`{"Username":{"S":"Fred"}}`}, 12},
		{"DocsInsert", []string{`{"Id":{"N":"101"}}`, `{"Message":{"S":"New item!"},"Id":{"N":"101"}}`}, 26},
		{"DocsModify", []string{
			`{"Id":{"N":"101"}}`,
			`{"Message":{"S":"This item has changed"},"Id":{"N":"101"}}`,
			`{"Message":{"S":"New item!"},"Id":{"N":"101"}}`,
		}, 59},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got int64
			for _, img := range tt.images {
				got += itemSize(mustItem(t, img))
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNumberSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 1}, {"7", 2}, {"101", 3}, {"1000", 2}, {"-12.50", 3}, {"0.0012", 2}, {"123456", 4}, {"1.5E10", 2},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, numberSize(tt.in), tt.in)
	}
}

func TestEqualItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"Same", `{"a":{"S":"x"}}`, `{"a":{"S":"x"}}`, true},
		{"NumberByValue", `{"a":{"N":"1.50"}}`, `{"a":{"N":"1.5"}}`, true},
		{"DifferentNumber", `{"a":{"N":"1"}}`, `{"a":{"N":"2"}}`, false},
		{"SetOrder", `{"a":{"SS":["x","y"]}}`, `{"a":{"SS":["y","x"]}}`, true},
		{"NumberSetByValue", `{"a":{"NS":["1","2.0"]}}`, `{"a":{"NS":["2","1"]}}`, true},
		{"ListOrderMatters", `{"a":{"L":[{"S":"x"},{"S":"y"}]}}`, `{"a":{"L":[{"S":"y"},{"S":"x"}]}}`, false},
		{"TypeMatters", `{"a":{"S":"1"}}`, `{"a":{"N":"1"}}`, false},
		{"ExtraAttribute", `{"a":{"S":"x"}}`, `{"a":{"S":"x"},"b":{"NULL":true}}`, false},
		{"NestedMap", `{"m":{"M":{"k":{"BOOL":true}}}}`, `{"m":{"M":{"k":{"BOOL":true}}}}`, true},
		{"EmptyListVsEmptyMap", `{"a":{"L":[]}}`, `{"a":{"M":{}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, equalItems(mustItem(t, tt.a), mustItem(t, tt.b)))
		})
	}
}

// TestImageJSONParsesWithLambdaEvents checks that images decode with
// aws-lambda-go, which rejects attribute values without exactly one type.
func TestImageJSONParsesWithLambdaEvents(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/all-types-item.json")
	require.NoError(t, err)
	it := mustItem(t, string(raw))
	js := appendItemJSON(nil, it)

	var parsed map[string]events.DynamoDBAttributeValue
	require.NoError(t, json.Unmarshal(js, &parsed))
	require.Equal(t, events.DataTypeList, parsed["emptyList"].DataType())
	require.Empty(t, parsed["emptyList"].List())
	require.Equal(t, events.DataTypeMap, parsed["emptyMap"].DataType())
	require.Equal(t, "tab\there \"quoted\" <b>", parsed["text"].String())
	require.Equal(t, []byte("hello"), parsed["bin"].Binary())

	back := mustItem(t, string(js))
	require.True(t, equalItems(it, back), "encoding round-trips")
}

func TestCloneIsDeep(t *testing.T) {
	t.Parallel()
	it := mustItem(t, `{"s":{"S":"x"},"ss":{"SS":["a"]},"l":{"L":[{"N":"1"}]},"m":{"M":{"k":{"B":"aGk="}}}}`)
	c := cloneItem(it)
	*it["s"].S = "changed"
	*it["ss"].SS[0] = "changed"
	*it["l"].L[0].N = "9"
	it["m"].M["k"].B[0] = 'X'
	require.Equal(t, "x", *c["s"].S)
	require.Equal(t, "a", *c["ss"].SS[0])
	require.Equal(t, "1", *c["l"].L[0].N)
	require.Equal(t, []byte("hi"), c["m"].M["k"].B)
}

// FuzzItemJSON feeds arbitrary DynamoDB JSON through the image encoder: the
// output must be valid JSON that decodes to an equal item.
func FuzzItemJSON(f *testing.F) {
	seed, err := os.ReadFile("testdata/all-types-item.json")
	require.NoError(f, err)
	f.Add(string(seed))
	f.Add(`{"a":{"S":"\u0000\u2028"}}`)
	f.Add(`{"a":{"L":[{"M":{}},{"NULL":true}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var it map[string]*server.AttributeValue
		if json.Unmarshal([]byte(in), &it) != nil {
			return
		}
		js := appendItemJSON(nil, it)
		require.True(t, json.Valid(js), "invalid JSON %q", js)
		var back map[string]*server.AttributeValue
		require.NoError(t, json.Unmarshal(js, &back))
		if validItem(it) {
			require.True(t, equalItems(it, back), "%s -> %s", in, js)
			itemSize(it)
		}
	})
}

// validItem reports whether every value has exactly one type, the items
// the emulator can ever hold after minidyn's validation.
func validItem(it item) bool {
	for _, v := range it {
		if !validValue(v) {
			return false
		}
	}
	return true
}

func validValue(v *server.AttributeValue) bool {
	if v == nil {
		return false
	}
	n := 0
	for _, set := range []bool{v.S != nil, v.N != nil, v.B != nil, v.BOOL != nil, v.NULL != nil, v.SS != nil, v.NS != nil, v.BS != nil, v.L != nil, v.M != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return false
	}
	for _, e := range v.L {
		if !validValue(e) {
			return false
		}
	}
	if v.M != nil && !validItem(v.M) {
		return false
	}
	for _, p := range append(append([]*string{}, v.SS...), v.NS...) {
		if p == nil {
			return false
		}
	}
	return true
}
