package tfprovider

import (
	"regexp"

	"github.com/zclconf/go-cty/cty"
)

// IAM, SNS and EventBridge rules; all SDKv2 resources. Sources in
// hashicorp/terraform-provider-aws internal/service/iam/:
//   - role.go: name 1–64 of [\w+=,.@-] (name_prefix ≤ 38), path Default "/"
//     and ForceNew, force_detach_policies Default false,
//     max_session_duration Default 3600 within 3600–43200, description
//     ≤ 1000, assume_role_policy a JSON policy document; name and
//     name_prefix ForceNew;
//   - role_policy.go: name, name_prefix and role ForceNew, name 1–128 of
//     [\w+=,.@-], policy a JSON policy document;
//   - policy.go: name, name_prefix, path and description ForceNew, path
//     Default "/";
//   - role_policy_attachment.go: role and policy_arn ForceNew.
//
// internal/service/sns/topic.go and topic_subscription.go: name, name_prefix,
// fifo_topic ForceNew; subscription endpoint, protocol, topic_arn ForceNew.
// internal/service/events/rule.go and target.go: rule name, name_prefix,
// event_bus_name ForceNew; target rule, target_id, event_bus_name ForceNew.
func init() {
	nameRE := regexp.MustCompile(`^[\w+=,.@-]*$`)
	resourceRules["aws_iam_role"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"path":                  cty.StringVal("/"),
			"force_detach_policies": cty.False,
			"max_session_duration":  cty.NumberIntVal(3600),
		},
		ForceNew: []string{"name", "name_prefix", "path"},
		Validate: []check{
			{Path: "name", Fn: allOf(stringLenBetween(1, 64), stringMatch(nameRE, `must match [\w+=,.@-]`))},
			{Path: "name_prefix", Fn: allOf(stringLenBetween(1, 64-uniqueIDSuffixLength), stringMatch(nameRE, `must match [\w+=,.@-]`))},
			{Path: "path", Fn: stringLenBetween(0, 512)},
			{Path: "description", Fn: stringLenBetween(0, 1000)},
			{Path: "max_session_duration", Fn: intBetween(3600, 43200)},
			{Path: "assume_role_policy", Fn: iamPolicyJSON},
			{Path: "inline_policy.*.policy", Fn: stringIsJSON},
		},
	}
	resourceRules["aws_iam_role_policy"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"name", "name_prefix", "role"},
		Validate: []check{
			{Path: "name", Fn: allOf(stringLenBetween(1, 128), stringMatch(nameRE, `must match [\w+=,.@-]`))},
			{Path: "name_prefix", Fn: allOf(stringLenBetween(1, 128-uniqueIDSuffixLength), stringMatch(nameRE, `must match [\w+=,.@-]`))},
			{Path: "policy", Fn: iamPolicyJSON},
		},
	}
	resourceRules["aws_iam_policy"] = resourceRule{
		Legacy:   true,
		Defaults: map[string]cty.Value{"path": cty.StringVal("/")},
		ForceNew: []string{"name", "name_prefix", "path", "description"},
		Validate: []check{
			{Path: "name", Fn: allOf(stringLenBetween(1, 128), stringMatch(nameRE, `must match [\w+=,.@-]`))},
			{Path: "policy", Fn: iamPolicyJSON},
		},
	}
	resourceRules["aws_iam_role_policy_attachment"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"role", "policy_arn"},
	}
	resourceRules["aws_sns_topic"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"name", "name_prefix", "fifo_topic"},
		Validate: []check{{Path: "policy", Fn: stringIsJSON}, {Path: "delivery_policy", Fn: stringIsJSON}},
	}
	resourceRules["aws_sns_topic_subscription"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"endpoint", "protocol", "topic_arn"},
		Validate: []check{{Path: "filter_policy", Fn: stringIsJSON}, {Path: "redrive_policy", Fn: stringIsJSON}},
	}
	resourceRules["aws_cloudwatch_event_rule"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"name", "name_prefix", "event_bus_name"},
		Validate: []check{{Path: "event_pattern", Fn: stringIsJSON}},
	}
	resourceRules["aws_cloudwatch_event_target"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"rule", "target_id", "event_bus_name"},
	}
}
