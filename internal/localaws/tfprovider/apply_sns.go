package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/zclconf/go-cty/cty"
)

// aws_sns_topic. Source: hashicorp/terraform-provider-aws
// internal/service/sns/topic.go (resourceTopicCreate/Read/Update/Delete,
// topicAttributeMap; id = topic ARN).
//
// The taskpipe local cloud has no SNS: the handler calls the SNS API like
// the provider does, so against the local cloud it fails with the cloud's
// "service sns is not emulated" error instead of pretending to create a
// topic. The local example keeps enable_alarm_topic off.

func (c *clients) sns(ctx context.Context, pc *Config, region string) (*sns.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "sns")
	return sns.NewFromConfig(cfg, func(o *sns.Options) { o.BaseEndpoint = ep }), nil
}

// topicAttrs maps arguments to topic attribute names (topicAttributeMap),
// for the arguments the handler manages; kind as in queueAttrNames.
var topicAttrs = []struct {
	arg, name string
	kind      byte
}{
	{"content_based_deduplication", "ContentBasedDeduplication", 'b'},
	{"delivery_policy", "DeliveryPolicy", 'j'},
	{"display_name", "DisplayName", 's'},
	{"fifo_topic", "FifoTopic", 'b'},
	{"kms_master_key_id", "KmsMasterKeyId", 's'},
	{"policy", "Policy", 'j'},
	{"signature_version", "SignatureVersion", 'i'},
	{"tracing_config", "TracingConfig", 's'},
}

type topicHandler struct{ c *clients }

var topicUnsupported = map[string]string{}

func init() {
	for _, p := range []string{"application", "firehose", "http", "lambda", "sqs"} {
		for _, s := range []string{"_failure_feedback_role_arn", "_success_feedback_role_arn", "_success_feedback_sample_rate"} {
			topicUnsupported[p+s] = "delivery status logging is not implemented by the taskpipe local provider"
		}
	}
	topicUnsupported["archive_policy"] = "message archiving is not implemented by the taskpipe local provider"
	topicUnsupported["fifo_throughput_scope"] = "FIFO throughput scopes are not implemented by the taskpipe local provider"
}

func snsGone(err error) bool {
	var nf *snstypes.NotFoundException
	return errors.As(err, &nf) || isCode(err, "NotFound", "NotFoundException")
}

// Create is resourceTopicCreate: CreateTopic with the attributes and tags.
func (h *topicHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_sns_topic", req.Config, topicUnsupported, sortedKeys(topicUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.sns(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	suffix := ""
	if boolAttr(p, "fifo_topic") {
		suffix = ".fifo"
	}
	name := generatedName(str(p, "name"), str(p, "name_prefix"), suffix)
	in := &sns.CreateTopicInput{Name: aws.String(name), Attributes: map[string]string{}}
	for _, a := range topicAttrs {
		if s, ok := attrString(p, a.arg, a.kind); ok && s != "" && s != "false" && s != "0" {
			in.Attributes[a.name] = s
		}
	}
	for _, k := range sortedKeys(tagsIn(p, pc)) {
		in.Tags = append(in.Tags, snstypes.Tag{Key: aws.String(k), Value: aws.String(tagsIn(p, pc)[k])})
	}
	out, err := cl.CreateTopic(ctx, in)
	if err != nil {
		if ep := h.c.endpoint(pc, "sns"); ep != nil && apiErrorCode(err) == "" {
			// The local cloud answers SNS's query protocol with its JSON
			// "not emulated" error, which the SDK cannot decode.
			return cty.NilVal, fmt.Errorf("creating SNS Topic (%s): the endpoint %s did not answer as SNS: the taskpipe local cloud "+
				"does not emulate SNS, so aws_sns_topic cannot be created there (the local example keeps enable_alarm_topic off): %w", name, *ep, err)
		}
		return cty.NilVal, fmt.Errorf("creating SNS Topic (%s): %w", name, err)
	}
	arnStr := aws.ToString(out.TopicArn)
	st, err := h.read(ctx, cl, with(p, map[string]cty.Value{"id": sv(arnStr)}), pc)
	if err != nil {
		return created(req, arnStr, err)
	}
	if st.IsNull() {
		return created(req, arnStr, fmt.Errorf("reading SNS Topic (%s): not found after create", arnStr))
	}
	return settle(req.Schema.Block, st, p), nil
}

// Read is resourceTopicRead: GetTopicAttributes and ListTagsForResource.
func (h *topicHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.sns(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *topicHandler) read(ctx context.Context, cl *sns.Client, cur cty.Value, pc *Config) (cty.Value, error) {
	id := str(cur, "id")
	out, err := cl.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(id)})
	if snsGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading SNS Topic (%s): %w", id, err)
	}
	got := out.Attributes
	name := id[strings.LastIndex(id, ":")+1:]
	suffix := ""
	if got["FifoTopic"] == "true" {
		suffix = ".fifo"
	}
	vals := map[string]cty.Value{
		"id": sv(id), "arn": sv(id), "name": sv(name), "name_prefix": namePrefixFromName(name, suffix),
		"owner": sv(got["Owner"]), "beginning_archive_time": sv(got["BeginningArchiveTime"]),
	}
	for _, a := range topicAttrs {
		s := got[a.name]
		switch a.kind {
		case 'b':
			vals[a.arg] = bv(s == "true")
		case 'i':
			i, _ := strconv.ParseInt(s, 10, 64)
			vals[a.arg] = iv(i)
		case 'j':
			vals[a.arg] = jsonState(s, getAttr(cur, a.arg))
		default:
			vals[a.arg] = sv(s)
		}
	}
	tags, err := cl.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: aws.String(id)})
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for SNS Topic (%s): %w", id, err)
	}
	apiTags := map[string]string{}
	for _, t := range tags.Tags {
		apiTags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, apiTags)
	return with(cur, vals), nil
}

// Update is resourceTopicUpdate: SetTopicAttributes per changed attribute,
// then tags.
func (h *topicHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_sns_topic", req.Config, topicUnsupported, sortedKeys(topicUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.sns(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	id := str(req.Prior, "id")
	for _, a := range topicAttrs {
		if a.arg == "fifo_topic" || !changed(req.Prior, p, a.arg) {
			continue
		}
		s, _ := attrString(p, a.arg, a.kind)
		if _, err := cl.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(id), AttributeName: aws.String(a.name), AttributeValue: aws.String(s)}); err != nil {
			return cty.NilVal, fmt.Errorf("setting SNS Topic (%s) attribute (%s): %w", id, a.name, err)
		}
	}
	set, remove := tagDiff(tagsIn(req.Prior, pc), tagsIn(p, pc))
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &sns.UntagResourceInput{ResourceArn: aws.String(id), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging SNS Topic (%s): %w", id, err)
		}
	}
	if len(set) > 0 {
		tin := &sns.TagResourceInput{ResourceArn: aws.String(id)}
		for _, k := range sortedKeys(set) {
			tin.Tags = append(tin.Tags, snstypes.Tag{Key: aws.String(k), Value: aws.String(set[k])})
		}
		if _, err := cl.TagResource(ctx, tin); err != nil {
			return cty.NilVal, fmt.Errorf("tagging SNS Topic (%s): %w", id, err)
		}
	}
	st, err := h.read(ctx, cl, p, pc)
	if err != nil {
		return cty.NilVal, err
	}
	if st.IsNull() {
		return cty.NilVal, fmt.Errorf("reading SNS Topic (%s): not found after update", id)
	}
	return settle(req.Schema.Block, st, p), nil
}

// Delete is resourceTopicDelete: DeleteTopic.
func (h *topicHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.sns(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	id := str(req.Prior, "id")
	if _, err := cl.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(id)}); err != nil && !snsGone(err) {
		return fmt.Errorf("deleting SNS Topic (%s): %w", id, err)
	}
	return nil
}

// Import takes the topic ARN.
func (h *topicHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID)}), nil
}
