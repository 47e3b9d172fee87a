package tfprovider

import (
	"errors"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// providerRules validate the provider block, from
// internal/provider/sdkv2/provider.go (commit 18fc80b6…).
var providerRules = []check{
	// retry_mode: aws.ParseRetryMode accepts "standard" and "adaptive".
	{Path: "retry_mode", Fn: stringInSlice("standard", "adaptive")},
	// skip_metadata_api_check: nullable.ValidateTypeStringNullableBool.
	{Path: "skip_metadata_api_check", Fn: func(key string, v cty.Value) error {
		if _, err := parseNullableBool(v.AsString()); err != nil {
			return errors.New(key + ": cannot parse '" + v.AsString() + "' as boolean")
		}
		return nil
	}},
	// tag_policy_compliance: validateTagPolicySeverity.
	{Path: "tag_policy_compliance", Fn: stringInSlice("error", "warning", "disabled")},
	// assume_role duration: validAssumeRoleDuration, 15 minutes to 12 hours.
	{Path: "assume_role.*.duration", Fn: assumeRoleDuration},
	{Path: "assume_role_with_web_identity.*.duration", Fn: assumeRoleDuration},
	{Path: "assume_role.*.policy", Fn: stringIsJSON},
	{Path: "assume_role.*.external_id", Fn: stringLenBetween(2, 1224)},
}

func assumeRoleDuration(key string, v cty.Value) error {
	d, err := time.ParseDuration(v.AsString())
	if err != nil {
		return errors.New(key + ": " + err.Error())
	}
	if d < 15*time.Minute || d > 12*time.Hour {
		return errors.New("duration " + key + " must be between 15 minutes (15m) and 12 hours (12h), inclusive")
	}
	return nil
}
