package tfprovider

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/smithy-go"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// This file is the machinery the resource handlers (apply_<service>.go)
// share: AWS clients configured from the provider block the way the real
// provider configures them, reading and building cty values, the
// normalisation that keeps a new state consistent with its plan, waits,
// tags and the "not supported locally" checks.

// WithAWSHandlers registers a handler for every resource type the taskpipe
// Terraform modules use. Each handler calls the real AWS APIs through
// aws-sdk-go-v2 at the endpoints the provider block (or the environment)
// names, so pointing the provider at the local cloud creates the resources
// there; pointed at AWS it would create them in AWS.
func WithAWSHandlers() Option {
	return func(s *Server) {
		c := &clients{srv: s, cache: map[clientKey]aws.Config{}}
		for name, h := range awsHandlers(c) {
			s.handlers[name] = h
		}
	}
}

// awsHandlers lists the handlers by resource type.
func awsHandlers(c *clients) map[string]ResourceHandler {
	return map[string]ResourceHandler{
		"aws_sqs_queue":                                      &queueHandler{c: c},
		"aws_sqs_queue_redrive_policy":                       &queuePolicyHandler{c: c, attr: "redrive_policy", api: "RedrivePolicy"},
		"aws_sqs_queue_redrive_allow_policy":                 &queuePolicyHandler{c: c, attr: "redrive_allow_policy", api: "RedriveAllowPolicy"},
		"aws_iam_role":                                       &roleHandler{c: c},
		"aws_iam_role_policy":                                &rolePolicyHandler{c: c},
		"aws_dynamodb_table":                                 &tableHandler{c: c},
		"aws_cloudwatch_log_group":                           &logGroupHandler{c: c},
		"aws_lambda_function":                                &functionHandler{c: c},
		"aws_lambda_event_source_mapping":                    &mappingHandler{c: c},
		"aws_lambda_function_event_invoke_config":            &invokeConfigHandler{c: c},
		"aws_pipes_pipe":                                     &pipeHandler{c: c},
		"aws_scheduler_schedule":                             &scheduleHandler{c: c},
		"aws_cloudwatch_metric_alarm":                        &alarmHandler{c: c},
		"aws_cloudwatch_dashboard":                           &dashboardHandler{c: c},
		"aws_sns_topic":                                      &topicHandler{c: c},
		"aws_s3_bucket":                                      &bucketHandler{c: c},
		"aws_s3_bucket_public_access_block":                  publicAccessBlockHandler(c),
		"aws_s3_bucket_server_side_encryption_configuration": encryptionHandler(c),
		"aws_s3_bucket_versioning":                           versioningHandler(c),
		"aws_s3_bucket_lifecycle_configuration":              lifecycleHandler(c),
		"aws_s3_bucket_policy":                               bucketPolicyHandler(c),
	}
}

// HandledResourceTypes lists the resource types WithAWSHandlers registers,
// sorted.
func HandledResourceTypes() []string {
	return sortedKeys(awsHandlers(nil))
}

// ---- AWS clients ----

// clients builds SDK configurations from the provider configuration. The
// provider process is configured once, so configurations are cached per
// provider configuration and region.
type clients struct {
	srv   *Server
	mu    sync.Mutex
	cache map[clientKey]aws.Config
}

type clientKey struct {
	pc     *Config
	region string
}

// maxAttempts bounds the SDK's own retries of throttling and transient
// errors (the provider's max_retries defaults to 25 against AWS; the local
// cloud needs few).
const maxAttempts = 5

// awsConfig is the SDK configuration for one region, with the provider's
// credentials: access_key/secret_key/token when set (argument or the
// standard AWS_* variables, which parseConfig folds in), else profile, else
// the SDK's default chain; skip_metadata_api_check turns IMDS off, as
// aws-sdk-go-base does.
func (c *clients) awsConfig(ctx context.Context, pc *Config, region string) (aws.Config, error) {
	if region == "" {
		region = pc.Region
	}
	key := clientKey{pc: pc, region: region}
	c.mu.Lock()
	cfg, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return cfg, nil
	}
	client := c.srv.client
	if bc, ok := client.(*awshttp.BuildableClient); ok && pc.Insecure {
		// insecure = true: skip TLS verification, as aws-sdk-go-base does.
		client = bc.WithTransportOptions(func(tr *http.Transport) {
			if tr.TLSClientConfig == nil {
				tr.TLSClientConfig = &tls.Config{} //nolint:gosec // set below on request
			}
			tr.TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // the provider's insecure argument
		})
	}
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRegion(region),
		awsconfig.WithHTTPClient(client),
		awsconfig.WithRetryMaxAttempts(maxAttempts),
	}
	if pc.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(pc.Profile))
	}
	if pc.AccessKey != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(pc.AccessKey, pc.SecretKey, pc.Token)))
	}
	if pc.SkipMetadataAPICheck {
		opts = append(opts, awsconfig.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load aws config: %w", err)
	}
	c.mu.Lock()
	c.cache[key] = cfg
	c.mu.Unlock()
	return cfg, nil
}

// endpoint is the URL the provider's endpoints block (or
// $AWS_ENDPOINT_URL_<SERVICE> / $AWS_ENDPOINT_URL) names for a service
// package, or nil for the SDK's own resolution.
func (c *clients) endpoint(pc *Config, pkg string) *string {
	if e := pc.Endpoint(pkg, c.srv.getenv); e != "" {
		return aws.String(e)
	}
	return nil
}

// regionOf is the region a resource lives in: its own region argument (v6
// resources have one), else the provider's.
func regionOf(v cty.Value, pc *Config) string {
	if s := str(v, "region"); s != "" {
		return s
	}
	return pc.Region
}

// ---- reading cty values ----

// attr returns v's attribute name, or a null string-typed value when v is
// null or unknown or has no such attribute.
func getAttr(v cty.Value, name string) cty.Value {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute(name) {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return v.GetAttr(name)
}

// known reports whether v is a known, non-null value.
func known(v cty.Value) bool { return v != cty.NilVal && v.IsKnown() && !v.IsNull() }

// str is a string attribute, "" when null or unknown.
func str(v cty.Value, name string) string {
	a := getAttr(v, name)
	if !known(a) || a.Type() != cty.String {
		return ""
	}
	return a.AsString()
}

// strp is a string attribute as the SDK's *string, nil when null, unknown
// or empty (SDKv2 cannot tell an empty string from an absent one).
func strp(v cty.Value, name string) *string {
	if s := str(v, name); s != "" {
		return aws.String(s)
	}
	return nil
}

// intAttr is a number attribute; ok is false when it is null or unknown.
func intAttr(v cty.Value, name string) (int64, bool) {
	a := getAttr(v, name)
	if !known(a) || a.Type() != cty.Number {
		return 0, false
	}
	i, _ := a.AsBigFloat().Int64()
	return i, true
}

// int32p is a number attribute as *int32, nil when null or unknown.
func int32p(v cty.Value, name string) *int32 {
	i, ok := intAttr(v, name)
	if !ok {
		return nil
	}
	return aws.Int32(int32(i)) //nolint:gosec // schema-validated ranges fit int32
}

// boolAttr is a bool attribute, false when null or unknown.
func boolAttr(v cty.Value, name string) bool {
	a := getAttr(v, name)
	return known(a) && a.Type() == cty.Bool && a.True()
}

// boolp is a bool attribute as *bool, nil when null or unknown.
func boolp(v cty.Value, name string) *bool {
	a := getAttr(v, name)
	if !known(a) || a.Type() != cty.Bool {
		return nil
	}
	return aws.Bool(a.True())
}

// strs is a list or set of strings, in order (sets in cty's order).
func strs(v cty.Value, name string) []string {
	a := getAttr(v, name)
	if !known(a) {
		return nil
	}
	var out []string
	for it := a.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if known(e) {
			out = append(out, e.AsString())
		}
	}
	return out
}

// strMap is a map of strings.
func strMap(v cty.Value, name string) map[string]string {
	a := getAttr(v, name)
	if !known(a) {
		return nil
	}
	out := map[string]string{}
	for k, e := range a.AsValueMap() {
		if known(e) {
			out[k] = e.AsString()
		}
	}
	return out
}

// blocks returns the elements of a nested block (list or set).
func blocks(v cty.Value, name string) []cty.Value {
	a := getAttr(v, name)
	if !known(a) {
		return nil
	}
	return a.AsValueSlice()
}

// block returns the first element of a list block with max_items 1, or a
// null value when there is none.
func block(v cty.Value, name string) cty.Value {
	if bs := blocks(v, name); len(bs) > 0 {
		return bs[0]
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

// ---- building cty values ----

func sv(s string) cty.Value { return cty.StringVal(s) }

// svp is a *string as a value; nil is null.
func svp(s *string) cty.Value {
	if s == nil {
		return cty.NullVal(cty.String)
	}
	return cty.StringVal(*s)
}

func iv(i int64) cty.Value { return cty.NumberIntVal(i) }

// ivp32 is a *int32 as a value; nil is null.
func ivp32(i *int32) cty.Value {
	if i == nil {
		return cty.NullVal(cty.Number)
	}
	return cty.NumberIntVal(int64(*i))
}

// ivp64 is a *int64 as a value; nil is null.
func ivp64(i *int64) cty.Value {
	if i == nil {
		return cty.NullVal(cty.Number)
	}
	return cty.NumberIntVal(*i)
}

func bv(b bool) cty.Value { return cty.BoolVal(b) }

// bvp is a *bool as a value; nil is null.
func bvp(b *bool) cty.Value {
	if b == nil {
		return cty.NullVal(cty.Bool)
	}
	return cty.BoolVal(*b)
}

// listOf is a list of strings (empty, not null, when ss is empty).
func listOf(ss []string) cty.Value {
	if len(ss) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

// setOf is a set of strings (empty, not null, when ss is empty).
func setOf(ss []string) cty.Value {
	if len(ss) == 0 {
		return cty.SetValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.SetVal(vals)
}

// with returns obj with the given attributes replaced.
func with(obj cty.Value, vals map[string]cty.Value) cty.Value {
	attrs := obj.AsValueMap()
	for k, v := range vals {
		if _, ok := attrs[k]; !ok {
			// A programming error: the schema has no such attribute.
			panic(fmt.Sprintf("tfprovider: no attribute %q in %s", k, obj.Type().FriendlyName()))
		}
		attrs[k] = v
	}
	return cty.ObjectVal(attrs)
}

// nestedType finds a nested block type by its path of block names.
func nestedType(b *tfjson.SchemaBlock, names ...string) *tfjson.SchemaBlockType {
	var bt *tfjson.SchemaBlockType
	for _, n := range names {
		bt = b.NestedBlocks[n]
		if bt == nil {
			panic("tfprovider: no nested block " + strings.Join(names, "."))
		}
		b = bt.Block
	}
	return bt
}

// objectOf builds one object of block b: the given values, null for the
// other attributes, empty collections (or null single blocks) for the
// other nested blocks. Values are converted to the attribute's type, so a
// list of strings may be given for a set attribute.
func objectOf(b *tfjson.SchemaBlock, vals map[string]cty.Value) cty.Value {
	ty := ImpliedType(b)
	attrs := make(map[string]cty.Value, len(ty.AttributeTypes()))
	for name, at := range ty.AttributeTypes() {
		v, ok := vals[name]
		if !ok {
			if bt, isBlock := b.NestedBlocks[name]; isBlock {
				attrs[name] = emptyBlock(bt, at)
			} else {
				attrs[name] = cty.NullVal(at)
			}
			continue
		}
		attrs[name] = convertTo(v, at)
	}
	for name := range vals {
		if !ty.HasAttribute(name) {
			panic(fmt.Sprintf("tfprovider: block has no attribute %q", name))
		}
	}
	return cty.ObjectVal(attrs)
}

func emptyBlock(bt *tfjson.SchemaBlockType, ty cty.Type) cty.Value {
	switch bt.NestingMode {
	case tfjson.SchemaNestingModeList:
		return cty.ListValEmpty(ty.ElementType())
	case tfjson.SchemaNestingModeSet:
		return cty.SetValEmpty(ty.ElementType())
	case tfjson.SchemaNestingModeMap:
		return cty.MapValEmpty(ty.ElementType())
	}
	return cty.NullVal(ty)
}

// blockOf builds the value of a nested block from its elements.
func blockOf(bt *tfjson.SchemaBlockType, elems ...map[string]cty.Value) cty.Value {
	ety := ImpliedType(bt.Block)
	var out []cty.Value
	for _, e := range elems {
		out = append(out, objectOf(bt.Block, e))
	}
	switch bt.NestingMode {
	case tfjson.SchemaNestingModeList:
		if len(out) == 0 {
			return cty.ListValEmpty(ety)
		}
		return cty.ListVal(out)
	case tfjson.SchemaNestingModeSet:
		if len(out) == 0 {
			return cty.SetValEmpty(ety)
		}
		return cty.SetVal(out)
	}
	if len(out) == 0 {
		return cty.NullVal(ety)
	}
	return out[0]
}

// convertTo converts v to ty where the conversion is structural (list to
// set, empty collections); a value already of type ty is returned as is.
func convertTo(v cty.Value, ty cty.Type) cty.Value {
	if v.Type().Equals(ty) {
		return v
	}
	if v.IsNull() {
		return cty.NullVal(ty)
	}
	if !v.IsKnown() {
		return cty.UnknownVal(ty)
	}
	switch {
	case ty.IsSetType() && (v.Type().IsListType() || v.Type().IsSetType()):
		if v.LengthInt() == 0 {
			return cty.SetValEmpty(ty.ElementType())
		}
		return cty.SetVal(v.AsValueSlice())
	case ty.IsListType() && (v.Type().IsListType() || v.Type().IsSetType()):
		if v.LengthInt() == 0 {
			return cty.ListValEmpty(ty.ElementType())
		}
		return cty.ListVal(v.AsValueSlice())
	case ty.IsMapType() && v.Type().IsMapType():
		if v.LengthInt() == 0 {
			return cty.MapValEmpty(ty.ElementType())
		}
	case ty == cty.DynamicPseudoType:
		return v
	}
	panic(fmt.Sprintf("tfprovider: cannot use %s as %s", v.Type().FriendlyName(), ty.FriendlyName()))
}

// ---- consistency with the plan ----

// settle makes a value the handler built into a state Terraform accepts:
// unknowns left over become null (as SDKv2 does for computed attributes
// the read did not set), and where the new value and the reference (the
// plan after apply, the prior state after read) are both SDKv2 "zero"
// (null, "", 0, false, empty), the reference's form is kept, because SDKv2
// state cannot tell them apart either (its shims normalise nulls the same
// way). Set-block elements are paired with reference elements by their
// non-computed attributes. The timeouts block is configuration only and is
// always the reference's.
func settle(b *tfjson.SchemaBlock, v, ref cty.Value) cty.Value {
	if v.IsNull() {
		return v
	}
	if !v.IsKnown() {
		return cty.NullVal(v.Type())
	}
	refOK := ref != cty.NilVal && ref.IsKnown() && !ref.IsNull()
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.NestedBlocks))
	for name := range b.Attributes {
		nv := v.GetAttr(name)
		rv := cty.NullVal(nv.Type())
		if refOK {
			rv = ref.GetAttr(name)
		}
		attrs[name] = settleAttr(nv, rv)
	}
	for name, bt := range b.NestedBlocks {
		nv := v.GetAttr(name)
		rv := cty.NullVal(nv.Type())
		if refOK {
			rv = ref.GetAttr(name)
		}
		if name == "timeouts" {
			attrs[name] = rv
			continue
		}
		attrs[name] = settleBlock(bt, nv, rv)
	}
	return cty.ObjectVal(attrs)
}

func settleAttr(nv, rv cty.Value) cty.Value {
	if !nv.IsWhollyKnown() {
		nv = nullUnknowns(nv)
	}
	if rv.IsKnown() && sdkZero(nv) && sdkZero(rv) {
		return rv
	}
	return nv
}

// nullUnknowns replaces unknown parts of v with nulls.
func nullUnknowns(v cty.Value) cty.Value {
	out, _ := cty.Transform(v, func(_ cty.Path, x cty.Value) (cty.Value, error) {
		if !x.IsKnown() {
			return cty.NullVal(x.Type()), nil
		}
		return x, nil
	})
	return out
}

func settleBlock(bt *tfjson.SchemaBlockType, nv, rv cty.Value) cty.Value {
	if !nv.IsKnown() || nv.IsNull() {
		// Blocks are never null or unknown in a state (Terraform's
		// NormalizeObjectFromLegacySDK fixes and logs them).
		nv = emptyBlock(bt, nv.Type())
	}
	rOK := rv.IsKnown() && !rv.IsNull()
	switch bt.NestingMode {
	case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
		return settle(bt.Block, nv, rv)
	case tfjson.SchemaNestingModeList:
		var refs []cty.Value
		if rOK {
			refs = rv.AsValueSlice()
		}
		var out []cty.Value
		for i, e := range nv.AsValueSlice() {
			r := cty.NilVal
			if i < len(refs) {
				r = refs[i]
			}
			out = append(out, settle(bt.Block, e, r))
		}
		if len(out) == 0 {
			return cty.ListValEmpty(nv.Type().ElementType())
		}
		return cty.ListVal(out)
	case tfjson.SchemaNestingModeSet:
		var refs []cty.Value
		if rOK {
			refs = rv.AsValueSlice()
		}
		used := make([]bool, len(refs))
		var out []cty.Value
		for _, e := range nv.AsValueSlice() {
			r := cty.NilVal
			key := setKey(bt.Block, nullUnknowns(e))
			for i, re := range refs {
				if !used[i] && re.IsWhollyKnown() && setKeyEqual(bt.Block, key, re) {
					r, used[i] = re, true
					break
				}
			}
			out = append(out, settle(bt.Block, e, r))
		}
		if len(out) == 0 {
			return cty.SetValEmpty(nv.Type().ElementType())
		}
		return cty.SetVal(out)
	}
	return nv
}

// setKeyEqual compares set elements by their non-computed attributes,
// treating SDKv2 zero values as equal to null.
func setKeyEqual(b *tfjson.SchemaBlock, key, other cty.Value) bool {
	ok := setKey(b, other)
	if key.RawEquals(ok) {
		return true
	}
	if !key.Type().IsObjectType() || !ok.Type().IsObjectType() {
		return false
	}
	for name := range key.Type().AttributeTypes() {
		a, o := key.GetAttr(name), ok.GetAttr(name)
		if a.RawEquals(o) || (sdkZero(a) && sdkZero(o)) {
			continue
		}
		return false
	}
	return true
}

// created is what a failed apply leaves in the state once the object
// exists: on create, the plan with the object's id (unknowns null), which
// Terraform records as tainted, so the next apply replaces it and destroy
// deletes it (as SDKv2 does after d.SetId); on update, the prior state.
func created(req *ApplyRequest, id string, err error) (cty.Value, error) {
	if !req.Prior.IsNull() {
		return req.Prior, err
	}
	return settle(req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(id)}), req.Planned), err
}

// ---- JSON documents ----

// normalizeJSON is the SDK's structure.NormalizeJsonString: decoded and
// encoded again, so key order and spacing no longer matter.
func normalizeJSON(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	var doc any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return "", fmt.Errorf("normalize json: %w", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("normalize json: %w", err)
	}
	return string(b), nil
}

// jsonEqual reports whether two JSON documents are equal as values.
func jsonEqual(a, b string) bool {
	if a == b {
		return true
	}
	na, err1 := normalizeJSON(a)
	nb, err2 := normalizeJSON(b)
	return err1 == nil && err2 == nil && na == nb
}

// jsonState is what state records for a JSON document read from AWS: the
// reference string (planned or prior) when it is the same document, so a
// configuration's formatting survives, else the normalised document.
func jsonState(api string, ref cty.Value) cty.Value {
	if known(ref) && ref.Type() == cty.String && jsonEqual(ref.AsString(), api) {
		return ref
	}
	n, err := normalizeJSON(api)
	if err != nil {
		return cty.StringVal(api)
	}
	return cty.StringVal(n)
}

// ---- errors and waits ----

// apiErrorCode is the error code of an AWS API error, or "".
func apiErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// isCode reports whether err is an AWS API error with one of the codes.
func isCode(err error, codes ...string) bool {
	c := apiErrorCode(err)
	for _, want := range codes {
		if c == want {
			return true
		}
	}
	return false
}

// pollInterval is the first pause between the polls of a wait; it doubles
// up to maxPollInterval. The local cloud usually answers on the first poll.
var (
	pollInterval    = 100 * time.Millisecond
	maxPollInterval = 2 * time.Second
)

// waitUntil polls check until it reports done, fails, or timeout passes,
// the way the provider's retry.StateChangeConf waiters do.
func waitUntil(ctx context.Context, timeout time.Duration, what string, check func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := pollInterval
	for {
		done, err := check(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if done {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for %s: timed out after %s", what, timeout)
		case <-t.C:
		}
		if delay *= 2; delay > maxPollInterval {
			delay = maxPollInterval
		}
	}
}

// retryOn retries fn while it fails with one of the codes, for up to
// timeout: the provider's tfresource.RetryWhenAWSErrCodeEquals, used where
// AWS is eventually consistent (a new IAM role is not yet assumable, a
// deleted queue's name is not yet free).
func retryOn[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error), codes ...string) (T, error) {
	return retryWhen(ctx, timeout, fn, func(err error) bool { return isCode(err, codes...) })
}

// retryWhen retries fn while retryable(err) holds, for up to timeout
// (tfresource.RetryWhen).
func retryWhen[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error), retryable func(error) bool) (T, error) {
	var out T
	var last error
	err := waitUntil(ctx, timeout, "a retryable error to clear", func(ctx context.Context) (bool, error) {
		var err error
		out, err = fn(ctx)
		if err != nil && retryable(err) {
			last = err
			return false, nil
		}
		return true, err
	})
	if err != nil && last != nil && !errors.Is(err, last) {
		return out, fmt.Errorf("%w (last error: %w)", err, last)
	}
	return out, err
}

// ---- configuration the local provider does not implement ----

// notSupported is the error for a configuration value the handlers do not
// implement: failing loudly beats creating something other than what the
// configuration says.
func notSupported(typeName, what, why string) error {
	msg := fmt.Sprintf("%s: %s is not supported by the taskpipe local provider", typeName, what)
	if why != "" {
		msg += " (" + why + ")"
	}
	return errors.New(msg)
}

// unsupportedSet returns an error naming the first pattern (see
// walkPattern) at which cfg holds a value other than null, an empty
// collection or an SDKv2 zero value.
func unsupportedSet(typeName string, cfg cty.Value, why map[string]string, patterns ...string) error {
	for _, pat := range patterns {
		var found cty.Path
		walkPattern(cfg, splitPattern(pat), nil, false, func(p cty.Path, v cty.Value) {
			if found != nil || !v.IsKnown() || sdkZero(v) {
				return
			}
			found = p
		})
		if found != nil {
			return notSupported(typeName, pathString(found), why[pat])
		}
	}
	return nil
}

// ---- tags ----

// tagsIn is what the provider sends as a resource's tags: tags_all (the
// default_tags merged with the resource's tags, planned by planTagsAll),
// without ignored keys.
func tagsIn(planned cty.Value, pc *Config) map[string]string {
	all := map[string]string{}
	if ta := getAttr(planned, "tags_all"); known(ta) {
		all = strMap(planned, "tags_all")
	} else {
		for k, v := range pc.DefaultTags {
			all[k] = v
		}
		for k, v := range strMap(planned, "tags") {
			all[k] = v
		}
	}
	for k := range all {
		if pc.ignoredTag(k) {
			delete(all, k)
		}
	}
	return all
}

// tagsOut sets tags and tags_all from the tags AWS reports, as the SDKv2
// tagging interceptor does on read: tags_all is every tag not ignored;
// tags is tags_all without the provider's default tags (where the value is
// the default's).
func tagsOut(pc *Config, api map[string]string) (tags, tagsAll cty.Value) {
	all := map[string]string{}
	own := map[string]string{}
	for k, v := range api {
		if pc.ignoredTag(k) || strings.HasPrefix(k, "aws:") {
			continue
		}
		all[k] = v
		if dv, ok := pc.DefaultTags[k]; !ok || dv != v {
			own[k] = v
		}
	}
	return stringMap(own), stringMap(all)
}

// tagDiff returns the tags to add or change and the keys to remove to go
// from the old tags to the new.
func tagDiff(oldTags, newTags map[string]string) (set map[string]string, remove []string) {
	set = map[string]string{}
	for k, v := range newTags {
		if ov, ok := oldTags[k]; !ok || ov != v {
			set[k] = v
		}
	}
	for k := range oldTags {
		if _, ok := newTags[k]; !ok {
			remove = append(remove, k)
		}
	}
	sort.Strings(remove)
	return set, remove
}

// changed reports whether any of the attributes differ between prior and
// planned (SDKv2's d.HasChanges).
func changed(prior, planned cty.Value, names ...string) bool {
	return anyChanged(names...)(prior, planned)
}
