package mapping

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var batchIDs = map[string]bool{"id-1": true, "id-2": true, "id-3": true}

func TestParseItemFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		keep    []string
		wantErr string
	}{
		{name: "Empty", payload: ""},
		{name: "Whitespace", payload: " \n"},
		{name: "Null", payload: "null"},
		{name: "EmptyObject", payload: "{}"},
		{name: "NullList", payload: `{"batchItemFailures":null}`},
		{name: "EmptyList", payload: `{"batchItemFailures":[]}`},
		{name: "MisspeltTopKeyIsIgnored", payload: `{"BatchItemFailures":[{"itemIdentifier":"id-1"}]}`},
		{name: "OtherKeysIgnored", payload: `{"batchItemFailures":[{"itemIdentifier":"id-2","reason":"x"}],"note":1}`, keep: []string{"id-2"}},
		{name: "Two", payload: `{"batchItemFailures":[{"itemIdentifier":"id-1"},{"itemIdentifier":"id-3"}]}`, keep: []string{"id-1", "id-3"}},
		{name: "Repeated", payload: `{"batchItemFailures":[{"itemIdentifier":"id-1"},{"itemIdentifier":"id-1"}]}`, keep: []string{"id-1"}},
		{name: "InvalidJSON", payload: `{"batchItemFailures":[`, wantErr: "not a JSON object"},
		{name: "NotAnObject", payload: `["id-1"]`, wantErr: "not a JSON object"},
		{name: "String", payload: `"ok"`, wantErr: "not a JSON object"},
		{name: "ListNotArray", payload: `{"batchItemFailures":{"itemIdentifier":"id-1"}}`, wantErr: "not a list"},
		{name: "EntryNotObject", payload: `{"batchItemFailures":["id-1"]}`, wantErr: "not an object"},
		{name: "EntryNull", payload: `{"batchItemFailures":[null]}`, wantErr: "not an object"},
		{name: "WrongKey", payload: `{"batchItemFailures":[{"foo":"notvalid"}]}`, wantErr: "no itemIdentifier key"},
		{name: "KeyCase", payload: `{"batchItemFailures":[{"ItemIdentifier":"id-1"}]}`, wantErr: "no itemIdentifier key"},
		{name: "NullIdentifier", payload: `{"batchItemFailures":[{"itemIdentifier":null}]}`, wantErr: "null or empty"},
		{name: "EmptyIdentifier", payload: `{"batchItemFailures":[{"itemIdentifier":""}]}`, wantErr: "null or empty"},
		{name: "NumberIdentifier", payload: `{"batchItemFailures":[{"itemIdentifier":7}]}`, wantErr: "not a string"},
		{name: "UnknownIdentifier", payload: `{"batchItemFailures":[{"itemIdentifier":"id-9"}]}`, wantErr: "not a message of the batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			keep, err := parseItemFailures([]byte(tt.payload), batchIDs)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for id := range keep {
				got = append(got, id)
			}
			require.ElementsMatch(t, tt.keep, got)
		})
	}
}

func TestFilters(t *testing.T) {
	t.Parallel()
	rec := func(body string) record {
		return record{
			MessageID: "m-1", Body: body, EventSource: "aws:sqs", AWSRegion: "us-east-1",
			Attributes: map[string]string{"ApproximateReceiveCount": "1"},
		}
	}
	tests := []struct {
		name    string
		pattern string
		body    string
		want    bool
	}{
		// The SQS body format table (docs/aws-behaviour.md §5.9).
		{name: "JSONPatternJSONBody", pattern: `{"body":{"kind":["task"]}}`, body: `{"kind":"task"}`, want: true},
		{name: "JSONPatternOtherJSONBody", pattern: `{"body":{"kind":["task"]}}`, body: `{"kind":"x"}`},
		{name: "JSONPatternPlainBody", pattern: `{"body":{"kind":["task"]}}`, body: `kind=task`},
		{name: "JSONExistsFalsePlainBody", pattern: `{"body":{"kind":[{"exists":false}]}}`, body: `plain`},
		{name: "JSONExistsFalseJSONBody", pattern: `{"body":{"kind":[{"exists":false}]}}`, body: `{"other":1}`, want: true},
		{name: "DottedPathPlainBody", pattern: `{"body.kind":[{"exists":false}]}`, body: `plain`},
		{name: "PlainPatternPlainBody", pattern: `{"body":["hello"]}`, body: `hello`, want: true},
		{name: "PlainPatternJSONBody", pattern: `{"body":["hello"]}`, body: `{"hello":1}`},
		{name: "PrefixPlainBody", pattern: `{"body":[{"prefix":"task-"}]}`, body: `task-42`, want: true},
		{name: "NumericInJSONBody", pattern: `{"body":{"n":[{"numeric":[">",100]}]}}`, body: `{"n":105}`, want: true},
		{name: "MetadataOnly", pattern: `{"attributes":{"ApproximateReceiveCount":["1"]}}`, body: `anything`, want: true},
		{name: "MetadataMismatch", pattern: `{"eventSource":["aws:kinesis"]}`, body: `{"a":1}`},
		{name: "ScalarJSONBodyIsPlain", pattern: `{"body":["42"]}`, body: `42`, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs, err := compileFilters(&FilterCriteria{Filters: []Filter{{Pattern: &tt.pattern}}})
			require.NoError(t, err)
			got, err := matches(fs, rec(tt.body))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}

	t.Run("AnyFilterMatches", func(t *testing.T) {
		t.Parallel()
		a, b := `{"body":{"kind":["a"]}}`, `{"body":{"kind":["b"]}}`
		fs, err := compileFilters(&FilterCriteria{Filters: []Filter{{Pattern: &a}, {Pattern: &b}}})
		require.NoError(t, err)
		ok, err := matches(fs, rec(`{"kind":"b"}`))
		require.NoError(t, err)
		require.True(t, ok)
	})
	t.Run("TooManyFilters", func(t *testing.T) {
		t.Parallel()
		p := `{"body":["x"]}`
		fc := &FilterCriteria{}
		for range maxFilters + 1 {
			fc.Filters = append(fc.Filters, Filter{Pattern: &p})
		}
		_, err := compileFilters(fc)
		require.ErrorIs(t, err, ErrInvalidParameterValue)
	})
}

// seeds reads the fuzz seed files of testdata/<dir>.
func seeds(f *testing.F, dir string) []string {
	f.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", dir))
	require.NoError(f, err)
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
		require.NoError(f, err)
		out = append(out, string(b))
	}
	return out
}

// FuzzParseItemFailures: any function response is either a whole-batch
// failure or a set of ids that all belong to the batch.
func FuzzParseItemFailures(f *testing.F) {
	for _, s := range seeds(f, "responses") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		keep, err := parseItemFailures(payload, batchIDs)
		if err != nil {
			require.Nil(t, keep)
			return
		}
		for id := range keep {
			require.True(t, batchIDs[id], "kept id %q is not in the batch", id)
		}
		if len(keep) > 0 {
			require.True(t, json.Valid(payload), "ids came out of invalid JSON")
		}
	})
}

// FuzzFilter: any pattern and any body either fail to compile with the
// AWS error or match without error.
func FuzzFilter(f *testing.F) {
	for _, s := range seeds(f, "patterns") {
		f.Add(s, `{"kind":"task","n":[1,2,{"x":null}]}`)
		f.Add(s, "plain text")
	}
	f.Fuzz(func(t *testing.T, pattern, body string) {
		fs, err := compileFilters(&FilterCriteria{Filters: []Filter{{Pattern: &pattern}}})
		if err != nil {
			if !errors.Is(err, ErrInvalidParameterValue) {
				require.ErrorIs(t, err, ErrValidation)
			}
			return
		}
		_, err = matches(fs, record{MessageID: "m", Body: body, Attributes: map[string]string{}})
		if err != nil {
			require.ErrorContains(t, err, "too complex")
		}
	})
}
