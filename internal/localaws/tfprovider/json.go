package tfprovider

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// stringIsJSON is validation.StringIsJSON; like the SDK's
// structure.NormalizeJsonString it lets the empty string through.
func stringIsJSON(key string, v cty.Value) error {
	if v.AsString() == "" {
		return nil
	}
	var doc any
	if err := json.Unmarshal([]byte(v.AsString()), &doc); err != nil {
		return fmt.Errorf("%q contains an invalid JSON: %w", key, err)
	}
	return nil
}

// iamPolicyJSON is verify.ValidIAMPolicyJSON: a non-empty JSON object.
func iamPolicyJSON(key string, v cty.Value) error {
	s := v.AsString()
	if s == "" {
		return fmt.Errorf("%q contains an invalid JSON policy: the policy is empty", key)
	}
	var doc any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return fmt.Errorf("%q contains an invalid JSON policy: %w", key, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return fmt.Errorf("%q contains an invalid JSON policy: not a JSON object", key)
	}
	return nil
}
