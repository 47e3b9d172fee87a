package awsmodel

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"net/url"

	"github.com/aws/smithy-go/encoding/cbor"
)

// The Check functions are the one call a service makes after reading a
// request: they decode it for its protocol, validate it against the
// operation's model and return the rejection (nil when the request is
// valid). A body the helper cannot decode is not its to answer: Check
// returns nil and the service answers its own SerializationException, as
// it did before. An operation outside the model returns nil too; the
// served-operations test (TestServedNegatives) catches a service that
// names an operation the model does not have.

// CheckJSON validates an AWS JSON 1.0/1.1 request body (DynamoDB, Streams,
// SQS, Logs, EventBridge, CloudWatch over JSON, KMS, SSM).
func CheckJSON(service, operation string, body []byte) *Error {
	op := served(service, operation)
	if op == nil {
		return nil
	}
	in, err := DecodeJSON(body)
	if err != nil {
		return nil
	}
	return op.Validate(in)
}

// CheckHTTP validates a REST request (Lambda, Pipes, Scheduler: REST-JSON;
// S3: REST-XML): URI labels, query string and headers from r, the payload
// from body (already read by the service; r.Body is not touched).
func CheckHTTP(service, operation string, r *http.Request, body []byte) *Error {
	op := served(service, operation)
	if op == nil {
		return nil
	}
	payload, ok := op.httpPayload(body)
	if !ok {
		return nil
	}
	in, err := op.HTTPInput(r, payload)
	if err != nil {
		return nil
	}
	return op.Validate(in)
}

// CheckRequest is CheckHTTP for a service that reads the body later: it
// reads at most limit bytes of r.Body and puts them back in front of the
// rest, so the handler reads the same body. A body over limit is not
// checked; the handler answers its own size error.
func CheckRequest(service, operation string, r *http.Request, limit int64) *Error {
	if served(service, operation) == nil {
		return nil
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
		if err != nil || int64(len(b)) > limit {
			return nil
		}
		body = b
	}
	return CheckHTTP(service, operation, r, body)
}

// httpPayload decodes a REST body for HTTPInput: the raw bytes (or text)
// of a blob (string) payload member, the XML or JSON document otherwise.
func (op *Operation) httpPayload(body []byte) (any, bool) {
	if op.Input == nil {
		return nil, true
	}
	if p := op.Input.Payload; p != "" {
		switch op.Input.MemberByName(p).Shape.Type {
		case "blob":
			if len(body) == 0 {
				return nil, true
			}
			return body, true
		case "string":
			if len(body) == 0 {
				return nil, true
			}
			return string(body), true
		}
	}
	if op.Service.Protocol == "rest-xml" {
		if op.Input.Payload == "" {
			return nil, true
		}
		v, err := op.XMLPayload(body)
		return v, err == nil
	}
	if len(body) == 0 {
		return nil, true
	}
	v, err := DecodeJSON(body)
	return v, err == nil
}

// CheckQuery validates a query-protocol request's form (IAM, STS).
func CheckQuery(service, operation string, form url.Values) *Error {
	op := served(service, operation)
	if op == nil {
		return nil
	}
	return op.Validate(op.QueryInput(form))
}

// CheckCBOR validates a Smithy RPC v2 CBOR request body (CloudWatch).
func CheckCBOR(service, operation string, body []byte) *Error {
	op := served(service, operation)
	if op == nil {
		return nil
	}
	if len(body) == 0 {
		return op.Validate(nil)
	}
	v, err := cbor.Decode(body)
	if err != nil {
		return nil
	}
	return op.Validate(fromCBOR(v))
}

func served(service, operation string) *Operation {
	m, err := Load()
	if err != nil {
		// The artifact is embedded and decoded by every test run; a broken
		// one is a build defect, not a request problem.
		panic(err)
	}
	return m.Operation(service, operation)
}

// fromCBOR turns a decoded CBOR value into the generic tree Validate
// takes (blobs are byte strings).
func fromCBOR(v cbor.Value) any {
	switch x := v.(type) {
	case cbor.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fromCBOR(e)
		}
		return out
	case cbor.List:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromCBOR(e)
		}
		return out
	case cbor.String:
		return string(x)
	case cbor.Slice:
		return []byte(x)
	case cbor.Uint:
		return jsonNumber(new(big.Int).SetUint64(uint64(x)).String())
	case cbor.NegInt:
		// smithy-go applies CBOR's bias: NegInt(n) is -n, NegInt(0) is -2^64.
		n := new(big.Int).SetUint64(uint64(x))
		if x == 0 {
			n.Lsh(big.NewInt(1), 64)
		}
		return jsonNumber(n.Neg(n).String())
	case cbor.Float32:
		return float64(x)
	case cbor.Float64:
		return float64(x)
	case cbor.Bool:
		return bool(x)
	case *cbor.Tag:
		// Tag 1 (epoch seconds) is a timestamp; Validate takes the number.
		return fromCBOR(x.Value)
	}
	return nil // Nil, Undefined
}
