package tfprovider

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/zclconf/go-cty/cty"
)

// SQS rules. aws_sqs_queue is an SDKv2 resource; source:
// hashicorp/terraform-provider-aws internal/service/sqs/queue.go (2026
// revision, the one whose schema matches 6.47.0: redrive_policy and
// sqs_managed_sse_enabled Optional+Computed) and consts.go:
//   - Defaults: content_based_deduplication false, delay_seconds 0,
//     fifo_queue false, max_message_size 262144 (the default stayed at
//     256 KiB when the range grew to 1 MiB), message_retention_seconds
//     345600, receive_wait_time_seconds 0, visibility_timeout_seconds 30;
//   - ranges: delay_seconds 0–900, kms_data_key_reuse_period_seconds
//     60–86400, max_message_size 1024–1048576, message_retention_seconds
//     60–1209600, visibility_timeout_seconds 0–43200; policy,
//     redrive_policy and redrive_allow_policy must be JSON;
//   - ForceNew: name, name_prefix, fifo_queue;
//   - CustomizeDiff (resourceQueueCustomizeDiff): queue name pattern on
//     create, content-based deduplication only for FIFO queues, and
//     kms_data_key_reuse_period_seconds planned anew on create when
//     sqs_managed_sse_enabled is true (unknown here, see customizeQueue).
//
// Stricter than the provider, which leaves these to the SQS API at apply
// time (AWS SQS API Reference, SetQueueAttributes / CreateQueue):
// receive_wait_time_seconds 0–20, and the redrive documents' contents
// (maxReceiveCount 1–1000, deadLetterTargetArn required; redrivePermission
// allowAll|denyAll|byQueue with at most 10 sourceQueueArns).
func init() {
	queueRules := []check{
		{Path: "delay_seconds", Fn: intBetween(0, 900)},
		{Path: "kms_data_key_reuse_period_seconds", Fn: intBetween(60, 86_400)},
		{Path: "max_message_size", Fn: intBetween(1024, 1_048_576)},
		{Path: "message_retention_seconds", Fn: intBetween(60, 1_209_600)},
		{Path: "visibility_timeout_seconds", Fn: intBetween(0, 43_200)},
		{Path: "receive_wait_time_seconds", Fn: intBetween(0, 20)},
		{Path: "deduplication_scope", Fn: stringInSlice("messageGroup", "queue")},
		{Path: "fifo_throughput_limit", Fn: stringInSlice("perQueue", "perMessageGroupId")},
		{Path: "policy", Fn: stringIsJSON},
		{Path: "redrive_policy", Fn: redrivePolicy},
		{Path: "redrive_allow_policy", Fn: redriveAllowPolicy},
	}
	resourceRules["aws_sqs_queue"] = resourceRule{
		Legacy: true,
		Defaults: map[string]cty.Value{
			"content_based_deduplication": cty.False,
			"delay_seconds":               cty.NumberIntVal(0),
			"fifo_queue":                  cty.False,
			"max_message_size":            cty.NumberIntVal(262_144),
			"message_retention_seconds":   cty.NumberIntVal(345_600),
			"receive_wait_time_seconds":   cty.NumberIntVal(0),
			"visibility_timeout_seconds":  cty.NumberIntVal(30),
		},
		ForceNew:  []string{"name", "name_prefix", "fifo_queue"},
		Validate:  queueRules,
		Customize: customizeQueue,
	}
	// queue_redrive_policy.go, queue_redrive_allow_policy.go, queue_policy.go:
	// queue_url ForceNew, the document must be JSON.
	resourceRules["aws_sqs_queue_redrive_policy"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"queue_url"},
		Validate: []check{{Path: "redrive_policy", Fn: redrivePolicy}},
	}
	resourceRules["aws_sqs_queue_redrive_allow_policy"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"queue_url"},
		Validate: []check{{Path: "redrive_allow_policy", Fn: redriveAllowPolicy}},
	}
	resourceRules["aws_sqs_queue_policy"] = resourceRule{
		Legacy:   true,
		ForceNew: []string{"queue_url"},
		Validate: []check{{Path: "policy", Fn: iamPolicyJSON}},
	}
}

// uniqueIDSuffixLength is the length of the suffix the provider appends to a
// name_prefix (terraform-plugin-sdk helper/id.UniqueIDSuffixLength).
const uniqueIDSuffixLength = 26

var (
	queueNameRE     = regexp.MustCompile(`^[0-9A-Za-z_-]{1,80}$`)
	fifoQueueNameRE = regexp.MustCompile(`^[0-9A-Za-z_-]{1,75}\.fifo$`)
)

func customizeQueue(req *PlanRequest, planned cty.Value) (cty.Value, []*tfprotov5.Diagnostic) {
	var diags []*tfprotov5.Diagnostic
	fifo := knownTrue(planned.GetAttr("fifo_queue"))
	if req.Prior.IsNull() {
		// The name the provider would generate: name, else prefix + a
		// 26-character unique suffix (+ ".fifo"), else a generated id.
		name, known := "", true
		switch cn, cp := req.Config.GetAttr("name"), req.Config.GetAttr("name_prefix"); {
		case !cn.IsKnown() || !cp.IsKnown():
			known = false
		case !cn.IsNull():
			// create.NameWithSuffix uses a configured name as written, so a
			// FIFO queue's name must already end in ".fifo".
			name = cn.AsString()
		case !cp.IsNull():
			name = cp.AsString() + "20060102150405000000000001"
			if fifo {
				name += ".fifo"
			}
		default:
			name = "terraform-20060102150405000000000001"
			if fifo {
				name += ".fifo"
			}
		}
		re := queueNameRE
		if fifo {
			re = fifoQueueNameRE
		}
		if known && !re.MatchString(name) {
			diags = append(diags, errorDiag(fmt.Sprintf("invalid queue name: %s", name), "", nil))
		}
		if knownTrue(planned.GetAttr("sqs_managed_sse_enabled")) && req.Config.GetAttr("kms_data_key_reuse_period_seconds").IsNull() {
			// The provider's SetNew(nil) plans no value, yet its Read then
			// records 300 (queue.go, issue #19786): an inconsistency
			// Terraform tolerates only from legacy SDKs. Planning the
			// value unknown keeps the plan and the applied state
			// consistent.
			planned = setAttr(planned, "kms_data_key_reuse_period_seconds", cty.UnknownVal(cty.Number))
		}
	}
	if !fifo && knownTrue(planned.GetAttr("content_based_deduplication")) && planned.GetAttr("fifo_queue").IsKnown() {
		diags = append(diags, errorDiag("content-based deduplication can only be set for FIFO queue", "", nil))
	}
	return planned, diags
}

func knownTrue(v cty.Value) bool { return v.IsKnown() && !v.IsNull() && v.True() }

// redrivePolicy validates an SQS RedrivePolicy document (SQS API
// Reference, SetQueueAttributes: deadLetterTargetArn, maxReceiveCount).
func redrivePolicy(key string, v cty.Value) error {
	if err := stringIsJSON(key, v); err != nil {
		return err
	}
	if v.AsString() == "" {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(v.AsString()), &doc); err != nil {
		return fmt.Errorf("%s: a redrive policy must be a JSON object: %w", key, err)
	}
	if arn, _ := doc["deadLetterTargetArn"].(string); arn == "" {
		return fmt.Errorf("%s: deadLetterTargetArn is required in a redrive policy", key)
	}
	n, ok := jsonInt(doc["maxReceiveCount"])
	if !ok {
		return fmt.Errorf("%s: maxReceiveCount must be an integer", key)
	}
	if n < 1 || n > 1000 {
		return fmt.Errorf("%s: maxReceiveCount must be between 1 and 1000, got %d", key, n)
	}
	return nil
}

// redriveAllowPolicy validates an SQS RedriveAllowPolicy document (SQS API
// Reference, SetQueueAttributes: redrivePermission, sourceQueueArns).
func redriveAllowPolicy(key string, v cty.Value) error {
	if err := stringIsJSON(key, v); err != nil {
		return err
	}
	if v.AsString() == "" {
		return nil
	}
	var doc struct {
		RedrivePermission string   `json:"redrivePermission"`
		SourceQueueArns   []string `json:"sourceQueueArns"`
	}
	if err := json.Unmarshal([]byte(v.AsString()), &doc); err != nil {
		return fmt.Errorf("%s: a redrive allow policy must be a JSON object: %w", key, err)
	}
	switch doc.RedrivePermission {
	case "allowAll", "denyAll":
		if len(doc.SourceQueueArns) > 0 {
			return fmt.Errorf("%s: sourceQueueArns is only valid with redrivePermission byQueue", key)
		}
	case "byQueue":
		if len(doc.SourceQueueArns) < 1 || len(doc.SourceQueueArns) > 10 {
			return fmt.Errorf("%s: redrivePermission byQueue needs 1 to 10 sourceQueueArns, got %d", key, len(doc.SourceQueueArns))
		}
	default:
		return fmt.Errorf("%s: redrivePermission must be allowAll, denyAll or byQueue, got %q", key, doc.RedrivePermission)
	}
	return nil
}

// jsonInt accepts an integer given as a JSON number or a numeric string, as
// SQS does for maxReceiveCount.
func jsonInt(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		if x != float64(int64(x)) {
			return 0, false
		}
		return int64(x), true
	case string:
		f, ok := new(big.Float).SetString(x)
		if !ok || !f.IsInt() {
			return 0, false
		}
		i, _ := f.Int64()
		return i, true
	}
	return 0, false
}
