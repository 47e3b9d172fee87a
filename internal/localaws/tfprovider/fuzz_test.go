package tfprovider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// FuzzDocumentValidators feeds arbitrary strings to the validators that
// parse user-written documents and expressions: they must return an error
// or nil, never panic, and accept the documents the modules write.
func FuzzDocumentValidators(f *testing.F) {
	for _, s := range []string{
		`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`,
		`{"deadLetterTargetArn":"a","maxReceiveCount":"1000"}`,
		`{"redrivePermission":"byQueue","sourceQueueArns":["a"]}`,
		`{"Version":"2012-10-17","Statement":[]}`,
		`rate(5 minutes)`, `cron(0/5 * * * ? *)`, `at(2030-01-01T00:00:00)`,
		``, `{`, `[]`, `null`, `{"maxReceiveCount":1e400}`, `cron()`, `rate(99999999999999999999 days)`,
	} {
		f.Add(s)
	}
	valid := map[string]bool{
		`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`: true,
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := cty.StringVal(s)
		for _, fn := range []func(string, cty.Value) error{redrivePolicy, redriveAllowPolicy, iamPolicyJSON, stringIsJSON, scheduleExpression} {
			_ = fn("k", v)
		}
		if valid[s] && redrivePolicy("k", v) != nil {
			t.Fatalf("rejected a valid redrive policy %q", s)
		}
	})
}

// FuzzDecodeStateJSON feeds arbitrary state documents to the state
// upgrader: errors are fine, panics are not.
func FuzzDecodeStateJSON(f *testing.F) {
	ty := cty.Object(map[string]cty.Type{
		"name": cty.String,
		"n":    cty.Number,
		"tags": cty.Map(cty.String),
		"blk":  cty.List(cty.Object(map[string]cty.Type{"a": cty.String})),
	})
	for _, s := range []string{`{"name":"q","n":1,"tags":{"a":"b"},"blk":[{"a":"x","gone":1}],"gone":true}`, `{}`, `null`, `[`, `{"blk":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeStateJSON(b, ty)
		if err == nil && !v.Type().Equals(ty) {
			t.Fatalf("decoded %#v with the wrong type", v)
		}
	})
}
