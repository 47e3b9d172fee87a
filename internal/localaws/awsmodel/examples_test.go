package awsmodel

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"testing"
)

type modelExample struct {
	Service   string          `json:"service"`
	Operation string          `json:"operation"`
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Input     json.RawMessage `json:"input"`
}

func loadExamples(t testing.TB) []modelExample {
	t.Helper()
	b, err := os.ReadFile("testdata/examples.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var exs []modelExample
	if err := json.Unmarshal(raw, &exs); err != nil {
		t.Fatal(err)
	}
	return exs
}

func decodeJSON(t testing.TB, raw []byte) any {
	t.Helper()
	v, err := DecodeJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// knownInvalidExamples are documented examples that break their own
// model; AWS would reject them too. Each names the violation.
var knownInvalidExamples = map[string]string{}

// sdkValues turns an example's SDK-level values into wire-level ones:
// examples write blobs as raw text ("Payload": "fileb://input.json",
// S3 "Body": "filetoupload") and some integers as strings (S3
// "MaxKeys": "2"); SDKs send the former as bytes and the latter as numbers.
func sdkValues(v any, sh *Shape, depth int) any {
	if sh == nil || depth > 50 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		switch sh.Type {
		case "structure", "union":
			for _, m := range sh.Members {
				if mv, ok := x[m.Name]; ok {
					x[m.Name] = sdkValues(mv, m.Shape, depth+1)
				}
			}
		case "map":
			for k, mv := range x {
				x[k] = sdkValues(mv, sh.Value.Shape, depth+1)
			}
		}
	case []any:
		if sh.Type == "list" {
			for i := range x {
				x[i] = sdkValues(x[i], sh.Member.Shape, depth+1)
			}
		}
	case string:
		switch {
		case sh.Type == "blob":
			return []byte(x)
		case sh.IsNumber():
			return scalarFromString(x, sh)
		}
	}
	return v
}

// TestModelExamples validates every examples-1.json request of a served
// operation: AWS's own documented requests must pass.
func TestModelExamples(t *testing.T) {
	t.Parallel()
	exs := loadExamples(t)
	if len(exs) == 0 {
		t.Fatal("no examples")
	}
	passed := 0
	for _, ex := range exs {
		key := ex.Service + ":" + ex.Operation + ":" + ex.ID
		op := MustLoad().Operation(ex.Service, ex.Operation)
		in := sdkValues(decodeJSON(t, ex.Input), op.Input, 0)
		err := Validate(ex.Service, ex.Operation, in)
		if reason, known := knownInvalidExamples[key]; known {
			if err == nil {
				t.Errorf("%s: listed as invalid (%s) but passes", key, reason)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%s): %v\n%s", key, ex.Title, err, ex.Input)
			continue
		}
		passed++
	}
	t.Logf("%d model examples pass, %d documented as invalid", passed, len(knownInvalidExamples))
}
