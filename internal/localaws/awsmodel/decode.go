package awsmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DecodeJSON decodes a JSON request body into the generic tree Validate
// takes, keeping numbers as json.Number (so integers are not rounded
// through float64). An empty body is an empty object.
func DecodeJSON(body []byte) (any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("awsmodel: trailing data after the JSON value")
	}
	return v, nil
}
