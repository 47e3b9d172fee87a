package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/zclconf/go-cty/cty"
)

// SQS handlers. Source: hashicorp/terraform-provider-aws
// internal/service/sqs/queue.go (resourceQueueCreate/Read/Update/Delete,
// queueAttributeMap, waitQueueAttributesPropagated, waitQueueDeleted) and
// attribute_funcs.go (queueAttributeHandler, shared by
// aws_sqs_queue_redrive_policy and aws_sqs_queue_redrive_allow_policy).

func (c *clients) sqs(ctx context.Context, pc *Config, region string) (*sqs.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "sqs")
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = ep }), nil
}

// queueAttrNames maps arguments to queue attribute names (queueAttributeMap).
var queueAttrNames = []struct {
	arg  string
	name sqstypes.QueueAttributeName
	kind byte // 's'tring, 'i'nt, 'b'ool, 'j'son
}{
	{"content_based_deduplication", sqstypes.QueueAttributeNameContentBasedDeduplication, 'b'},
	{"deduplication_scope", sqstypes.QueueAttributeNameDeduplicationScope, 's'},
	{"delay_seconds", sqstypes.QueueAttributeNameDelaySeconds, 'i'},
	{"fifo_queue", sqstypes.QueueAttributeNameFifoQueue, 'b'},
	{"fifo_throughput_limit", sqstypes.QueueAttributeNameFifoThroughputLimit, 's'},
	{"kms_data_key_reuse_period_seconds", sqstypes.QueueAttributeNameKmsDataKeyReusePeriodSeconds, 'i'},
	{"kms_master_key_id", sqstypes.QueueAttributeNameKmsMasterKeyId, 's'},
	{"max_message_size", sqstypes.QueueAttributeNameMaximumMessageSize, 'i'},
	{"message_retention_seconds", sqstypes.QueueAttributeNameMessageRetentionPeriod, 'i'},
	{"policy", sqstypes.QueueAttributeNamePolicy, 'j'},
	{"receive_wait_time_seconds", sqstypes.QueueAttributeNameReceiveMessageWaitTimeSeconds, 'i'},
	{"redrive_allow_policy", sqstypes.QueueAttributeNameRedriveAllowPolicy, 'j'},
	{"redrive_policy", sqstypes.QueueAttributeNameRedrivePolicy, 'j'},
	{"sqs_managed_sse_enabled", sqstypes.QueueAttributeNameSqsManagedSseEnabled, 'b'},
	{"visibility_timeout_seconds", sqstypes.QueueAttributeNameVisibilityTimeout, 'i'},
}

// defaultKMSDataKeyReusePeriod is what Read reports when SQS returns no
// reuse period (queue.go, issue #19786 backwards compatibility).
const defaultKMSDataKeyReusePeriod = 300

// attrString renders an argument as an SQS attribute value; ok is false
// when there is nothing to send.
func attrString(v cty.Value, arg string, kind byte) (string, bool) {
	a := getAttr(v, arg)
	if !known(a) {
		return "", false
	}
	switch kind {
	case 'i':
		i, _ := intAttr(v, arg)
		return strconv.FormatInt(i, 10), true
	case 'b':
		return strconv.FormatBool(a.True()), true
	}
	return a.AsString(), true
}

type queueHandler struct{ c *clients }

func (h *queueHandler) check(cfg cty.Value) error {
	if boolAttr(cfg, "fifo_queue") {
		return notSupported("aws_sqs_queue", "fifo_queue = true", "the local cloud's SQS serves standard queues only")
	}
	return unsupportedSet("aws_sqs_queue", cfg, map[string]string{
		"kms_master_key_id": "the local cloud has no KMS; use sqs_managed_sse_enabled",
	}, "kms_master_key_id", "content_based_deduplication", "deduplication_scope", "fifo_throughput_limit")
}

// Create is resourceQueueCreate: CreateQueue with every attribute that has
// a value (ResourceDataToAPIAttributesCreate skips zero values except a
// configured sqs_managed_sse_enabled) and tags, then a wait until the
// attributes read back as sent.
func (h *queueHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc := req.Provider
	cl, err := h.c.sqs(ctx, pc, regionOf(req.Planned, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := generatedName(str(req.Planned, "name"), str(req.Planned, "name_prefix"), "")
	attrs := map[string]string{}
	for _, a := range queueAttrNames {
		s, ok := attrString(req.Planned, a.arg, a.kind)
		if !ok {
			continue
		}
		if a.arg == "sqs_managed_sse_enabled" {
			if !known(getAttr(req.Config, a.arg)) {
				continue
			}
		} else if s == "" || s == "0" || s == "false" {
			continue
		}
		attrs[string(a.name)] = s
	}
	in := &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs}
	if tags := tagsIn(req.Planned, pc); len(tags) > 0 {
		in.Tags = tags
	}
	// A queue deleted less than 60 s ago blocks its name (CreateQueue API
	// reference); the provider retries for half the create timeout.
	out, err := retryOn(ctx, 90*time.Second, func(ctx context.Context) (*sqs.CreateQueueOutput, error) {
		return cl.CreateQueue(ctx, in)
	}, "AWS.SimpleQueueService.QueueDeletedRecently", "QueueDeletedRecently")
	if err != nil {
		return cty.NilVal, fmt.Errorf("creating SQS Queue (%s): %w", name, err)
	}
	id := aws.ToString(out.QueueUrl)
	if err := waitQueueAttributes(ctx, cl, id, attrs); err != nil {
		return created(req, id, fmt.Errorf("waiting for SQS Queue (%s) attributes create: %w", id, err))
	}
	st, err := h.read(ctx, cl, with(req.Planned, map[string]cty.Value{"id": sv(id)}), pc)
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading SQS Queue (%s): not found after create", id))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Read is resourceQueueRead: GetQueueAttributes(All) and ListQueueTags.
func (h *queueHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.sqs(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *queueHandler) read(ctx context.Context, cl *sqs.Client, cur cty.Value, pc *Config) (cty.Value, error) {
	id := str(cur, "id")
	out, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if queueGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading SQS Queue (%s): %w", id, err)
	}
	name, err := queueNameFromURL(id)
	if err != nil {
		return cty.NilVal, err
	}
	got := out.Attributes
	vals := map[string]cty.Value{
		"id":   sv(id),
		"url":  sv(id),
		"arn":  sv(got[string(sqstypes.QueueAttributeNameQueueArn)]),
		"name": sv(name),
	}
	for _, a := range queueAttrNames {
		s, ok := got[string(a.name)]
		switch a.kind {
		case 'i':
			i, _ := strconv.ParseInt(s, 10, 64)
			vals[a.arg] = iv(i)
		case 'b':
			vals[a.arg] = bv(s == "true")
		case 'j':
			vals[a.arg] = jsonState(s, getAttr(cur, a.arg))
		default:
			if ok && s != "" {
				vals[a.arg] = sv(s)
			} else {
				vals[a.arg] = cty.NullVal(cty.String)
			}
		}
	}
	if s := got[string(sqstypes.QueueAttributeNameKmsDataKeyReusePeriodSeconds)]; s == "" || s == "0" {
		vals["kms_data_key_reuse_period_seconds"] = iv(defaultKMSDataKeyReusePeriod)
	}
	vals["name_prefix"] = namePrefixFromName(name, "")
	tags, err := cl.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(id)})
	if queueGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for SQS Queue (%s): %w", id, err)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, tags.Tags)
	return with(cur, vals), nil
}

// Update is resourceQueueUpdate: SetQueueAttributes with the changed
// attributes, then tags.
func (h *queueHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc := req.Provider
	cl, err := h.c.sqs(ctx, pc, regionOf(req.Planned, pc))
	if err != nil {
		return cty.NilVal, err
	}
	id := str(req.Prior, "id")
	attrs := map[string]string{}
	for _, a := range queueAttrNames {
		if !changed(req.Prior, req.Planned, a.arg) {
			continue
		}
		s, ok := attrString(req.Planned, a.arg, a.kind)
		if !ok {
			s = ""
			if a.kind == 'i' {
				s = "0"
			}
		}
		attrs[string(a.name)] = s
	}
	if len(attrs) > 0 {
		if _, err := cl.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(id), Attributes: attrs}); err != nil {
			return cty.NilVal, fmt.Errorf("updating SQS Queue (%s) attributes: %w", id, err)
		}
		if err := waitQueueAttributes(ctx, cl, id, attrs); err != nil {
			return cty.NilVal, fmt.Errorf("waiting for SQS Queue (%s) attributes update: %w", id, err)
		}
	}
	set, remove := tagDiff(tagsIn(req.Prior, pc), tagsIn(req.Planned, pc))
	if len(remove) > 0 {
		if _, err := cl.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(id), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging SQS Queue (%s): %w", id, err)
		}
	}
	if len(set) > 0 {
		if _, err := cl.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(id), Tags: set}); err != nil {
			return cty.NilVal, fmt.Errorf("tagging SQS Queue (%s): %w", id, err)
		}
	}
	st, err := h.read(ctx, cl, req.Planned, pc)
	if err != nil {
		return cty.NilVal, err
	}
	if st.IsNull() {
		return cty.NilVal, fmt.Errorf("reading SQS Queue (%s): not found after update", id)
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Delete is resourceQueueDelete: DeleteQueue, then a wait until the queue
// is gone.
func (h *queueHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.sqs(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	_, err = cl.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(id)})
	if queueGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting SQS Queue (%s): %w", id, err)
	}
	return waitUntil(ctx, 3*time.Minute, "SQS Queue ("+id+") delete", func(ctx context.Context) (bool, error) {
		_, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
		if queueGone(err) {
			return true, nil
		}
		return false, err
	})
}

// Import takes a queue URL, as the provider's passthrough importer does.
func (h *queueHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}

// queueGone reports an error that says the queue does not exist (the JSON
// protocol code and its query-compatible form).
func queueGone(err error) bool {
	if err == nil {
		return false
	}
	var ne *sqstypes.QueueDoesNotExist
	return errors.As(err, &ne) || isCode(err, "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
}

// waitQueueAttributes is waitQueueAttributesPropagated: every attribute sent
// reads back equal (JSON documents as values; a missing attribute equals
// an empty one).
func waitQueueAttributes(ctx context.Context, cl *sqs.Client, id string, want map[string]string) error {
	if len(want) == 0 {
		return nil
	}
	return waitUntil(ctx, 3*time.Minute, "SQS Queue attributes", func(ctx context.Context) (bool, error) {
		out, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
		})
		if queueGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		for k, v := range want {
			g := out.Attributes[k]
			switch {
			case k == string(sqstypes.QueueAttributeNameKmsDataKeyReusePeriodSeconds) && g == "":
				// Not reported for unencrypted queues.
			case k == string(sqstypes.QueueAttributeNamePolicy) || k == string(sqstypes.QueueAttributeNameRedrivePolicy) ||
				k == string(sqstypes.QueueAttributeNameRedriveAllowPolicy):
				if !jsonEqual(g, v) {
					return false, nil
				}
			case g != v:
				return false, nil
			}
		}
		return true, nil
	})
}

// queueNameFromURL is the last path segment of
// https://sqs.<region>.amazonaws.com/<account>/<name> (queue.go).
func queueNameFromURL(u string) (string, error) {
	v, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("sqs queue url %q: %w", u, err)
	}
	parts := strings.Split(v.Path, "/")
	if len(parts) != 3 {
		return "", fmt.Errorf("SQS Queue URL (%s) is in the incorrect format", u)
	}
	return parts[2], nil
}

// queuePolicyHandler is queueAttributeHandler: one queue attribute as its
// own resource, id = queue URL.
type queuePolicyHandler struct {
	c    *clients
	attr string // redrive_policy or redrive_allow_policy
	api  string // RedrivePolicy or RedriveAllowPolicy
}

func (h *queuePolicyHandler) upsert(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	pc := req.Provider
	cl, err := h.c.sqs(ctx, pc, regionOf(req.Planned, pc))
	if err != nil {
		return cty.NilVal, err
	}
	id := str(req.Planned, "queue_url")
	doc, err := normalizeJSON(str(req.Planned, h.attr))
	if err != nil {
		return cty.NilVal, err
	}
	attrs := map[string]string{h.api: doc}
	if _, err := cl.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(id), Attributes: attrs}); err != nil {
		return cty.NilVal, fmt.Errorf("setting SQS Queue (%s) attribute (%s): %w", id, h.api, err)
	}
	if err := waitQueueAttributes(ctx, cl, id, attrs); err != nil {
		return created(req, id, fmt.Errorf("waiting for SQS Queue (%s) attribute (%s): %w", id, h.api, err))
	}
	st, err := h.read(ctx, cl, with(req.Planned, map[string]cty.Value{"id": sv(id)}))
	if err != nil {
		return created(req, id, err)
	}
	if st.IsNull() {
		return created(req, id, fmt.Errorf("reading SQS Queue (%s) attribute (%s): not found after set", id, h.api))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// Create sets the attribute.
func (h *queuePolicyHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.upsert(ctx, req)
}

// Update sets the attribute again.
func (h *queuePolicyHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.upsert(ctx, req)
}

// Read reads the attribute; an empty attribute means the resource is gone.
func (h *queuePolicyHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.sqs(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *queuePolicyHandler) read(ctx context.Context, cl *sqs.Client, cur cty.Value) (cty.Value, error) {
	id := str(cur, "id")
	out, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeName(h.api)},
	})
	if queueGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading SQS Queue (%s) attribute (%s): %w", id, h.api, err)
	}
	doc := out.Attributes[h.api]
	if doc == "" {
		return cty.NullVal(cur.Type()), nil
	}
	return with(cur, map[string]cty.Value{
		"id":        sv(id),
		"queue_url": sv(id),
		h.attr:      jsonState(doc, getAttr(cur, h.attr)),
	}), nil
}

// Delete clears the attribute and waits until it reads back empty.
func (h *queuePolicyHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.sqs(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	attrs := map[string]string{h.api: ""}
	_, err = cl.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(id), Attributes: attrs})
	if queueGone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting SQS Queue (%s) attribute (%s): %w", id, h.api, err)
	}
	return waitQueueAttributes(ctx, cl, id, attrs)
}

// Import takes the queue URL.
func (h *queuePolicyHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "queue_url": sv(req.ID)}), nil
}

// ---- names ----

// idCounter makes generated names unique within the process, like the
// SDK's helper/id counter.
var idCounter atomic.Uint32

// uniqueID is the SDK's id.PrefixedUniqueId: prefix, a UTC timestamp to
// 1/10000 s and an 8-digit hex counter (26 characters after the prefix).
func uniqueID(prefix string) string {
	ts := strings.Replace(time.Now().UTC().Format("20060102150405.0000"), ".", "", 1)
	return fmt.Sprintf("%s%s%08x", prefix, ts, idCounter.Add(1))
}

// generatedName is create.NewNameGenerator: the configured name, else the
// prefix plus a unique suffix, else "terraform-" plus one; suffix (".fifo")
// follows a generated part.
func generatedName(name, prefix, suffix string) string {
	switch {
	case name != "":
		return name
	case prefix != "":
		return uniqueID(prefix) + suffix
	}
	return uniqueID("terraform-") + suffix
}

var uniqueSuffixRE = regexp.MustCompile(`\d{18}[[:xdigit:]]{8}$`)

// namePrefixFromName is create.NamePrefixFromNameWithSuffix: the prefix of
// a generated name, or null for a name that was given.
func namePrefixFromName(name, suffix string) cty.Value {
	base, ok := strings.CutSuffix(name, suffix)
	if !ok || !uniqueSuffixRE.MatchString(base) || len(base) <= uniqueIDSuffixLength {
		return cty.NullVal(cty.String)
	}
	return sv(base[:len(base)-uniqueIDSuffixLength])
}

// importByID is the state a passthrough importer starts from: the given
// attributes, every other one null; Terraform then reads the object.
func importByID(req *ImportRequest, vals map[string]cty.Value) cty.Value {
	if _, ok := req.Schema.Block.Attributes["region"]; ok && req.Provider != nil && req.Provider.Region != "" {
		vals["region"] = sv(req.Provider.Region)
	}
	return objectOf(req.Schema.Block, vals)
}
