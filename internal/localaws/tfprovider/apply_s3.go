package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/zclconf/go-cty/cty"
)

// S3 handlers: aws_s3_bucket and the bucket configuration resources the
// result-bucket module uses. Source: hashicorp/terraform-provider-aws
// internal/service/s3/bucket.go (resourceBucketCreate/Read/Update/Delete:
// CreateBucket with a location constraint outside us-east-1, HeadBucket to
// wait for it, tags with PutBucketTagging, force_destroy emptying the
// bucket first), bucket_public_access_block.go,
// bucket_server_side_encryption_configuration.go, bucket_versioning.go
// (Delete suspends versioning; a bucket cannot go back to unversioned),
// bucket_lifecycle_configuration.go and bucket_policy.go; every resource's
// id is the bucket name.
//
// The configuration resources read back the existence of their setting
// (the Get call answers, or the "not found" error removes the resource
// from the state) and the policy document; the other arguments are kept as
// planned, since the local S3 stores the XML it was sent.

func (c *clients) s3(ctx context.Context, pc *Config, region string) (*s3.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "s3")
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = ep
		o.UsePathStyle = pc.S3UsePathStyle
	}), nil
}

// s3Gone reports the errors that mean the bucket or the setting is absent.
func s3Gone(err error, codes ...string) bool {
	var nb *s3types.NoSuchBucket
	var nf *s3types.NotFound
	return errors.As(err, &nb) || errors.As(err, &nf) || isCode(err, append(codes, "NoSuchBucket", "NotFound")...)
}

// bucketTimeout bounds the waits for a new or deleted bucket
// (bucketCreatedTimeout in bucket.go is 2 minutes).
const bucketTimeout = 2 * time.Minute

// s3HostedZones are S3's website hosted zone ids by region (the provider's
// hostedZoneIDsMap); the local provider knows the common ones.
var s3HostedZones = map[string]string{
	"us-east-1": "Z3AQBSTGFYJSTF", "us-east-2": "Z2O1EMRO9K5GLX", "us-west-1": "Z2F56UZL2M1ACD",
	"us-west-2": "Z3BJ6K6RIION7M", "eu-west-1": "Z1BKCTXD74EZPE", "eu-central-1": "Z21DNDUVLTQW6Q",
}

type bucketHandler struct{ c *clients }

var bucketUnsupported = map[string]string{
	"acceleration_status":                  "use the default (no transfer acceleration)",
	"acl":                                  "ACLs are off (BucketOwnerEnforced)",
	"grant":                                "ACLs are off (BucketOwnerEnforced)",
	"cors_rule":                            "use aws_s3_bucket_cors_configuration",
	"lifecycle_rule":                       "use aws_s3_bucket_lifecycle_configuration",
	"logging":                              "server access logging is not emulated",
	"object_lock_configuration":            "Object Lock is not emulated",
	"object_lock_enabled":                  "Object Lock is not emulated",
	"replication_configuration":            "replication is not emulated",
	"request_payer":                        "Requester Pays is not emulated",
	"server_side_encryption_configuration": "use aws_s3_bucket_server_side_encryption_configuration",
	"versioning":                           "use aws_s3_bucket_versioning",
	"website":                              "website hosting is not emulated",
	"bucket_namespace":                     "account-regional namespaces are not emulated",
}

func (h *bucketHandler) client(ctx context.Context, pc *Config, v cty.Value) (*s3.Client, string, error) {
	region := regionOf(v, pc)
	cl, err := h.c.s3(ctx, pc, region)
	return cl, region, err
}

// Create is resourceBucketCreate.
func (h *bucketHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_s3_bucket", req.Config, bucketUnsupported, sortedKeys(bucketUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, region, err := h.client(ctx, pc, p)
	if err != nil {
		return cty.NilVal, err
	}
	name := generatedName(str(p, "bucket"), str(p, "bucket_prefix"), "")
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if region != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(region)}
	}
	if _, err := cl.CreateBucket(ctx, in); err != nil {
		return cty.NilVal, fmt.Errorf("creating S3 Bucket (%s): %w", name, err)
	}
	if err := waitUntil(ctx, bucketTimeout, "S3 Bucket ("+name+") to exist", func(ctx context.Context) (bool, error) {
		_, err := cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)})
		if s3Gone(err) {
			return false, nil
		}
		return err == nil, err
	}); err != nil {
		return created(req, name, err)
	}
	if tags := tagsIn(p, pc); len(tags) > 0 {
		if err := putBucketTags(ctx, cl, name, tags); err != nil {
			return created(req, name, err)
		}
	}
	st, err := h.read(ctx, cl, region, with(p, map[string]cty.Value{"id": sv(name), "bucket": sv(name)}), pc)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading S3 Bucket (%s): not found after create", name))
	}
	return settle(req.Schema.Block, st, p), nil
}

func putBucketTags(ctx context.Context, cl *s3.Client, name string, tags map[string]string) error {
	if len(tags) == 0 {
		if _, err := cl.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: aws.String(name)}); err != nil {
			return fmt.Errorf("deleting S3 Bucket (%s) tags: %w", name, err)
		}
		return nil
	}
	ts := &s3types.Tagging{}
	for _, k := range sortedKeys(tags) {
		ts.TagSet = append(ts.TagSet, s3types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	if _, err := cl.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String(name), Tagging: ts}); err != nil {
		return fmt.Errorf("tagging S3 Bucket (%s): %w", name, err)
	}
	return nil
}

// Read is resourceBucketRead: HeadBucket, the policy and the tags.
func (h *bucketHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, region, err := h.client(ctx, req.Provider, req.Current)
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, region, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *bucketHandler) read(ctx context.Context, cl *s3.Client, region string, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	_, err := cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)})
	if s3Gone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading S3 Bucket (%s): %w", name, err)
	}
	policy := ""
	pol, err := cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(name)})
	switch {
	case err == nil:
		policy = aws.ToString(pol.Policy)
	case !isCode(err, "NoSuchBucketPolicy"):
		return cty.NilVal, fmt.Errorf("reading S3 Bucket (%s) policy: %w", name, err)
	}
	apiTags := map[string]string{}
	tg, err := cl.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String(name)})
	switch {
	case err == nil:
		for _, t := range tg.TagSet {
			apiTags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	case !isCode(err, "NoSuchTagSet"):
		return cty.NilVal, fmt.Errorf("listing tags for S3 Bucket (%s): %w", name, err)
	}
	vals := map[string]cty.Value{
		"id": sv(name), "bucket": sv(name), "arn": sv("arn:aws:s3:::" + name),
		"bucket_domain_name":          sv(name + ".s3.amazonaws.com"),
		"bucket_regional_domain_name": sv(name + ".s3." + region + ".amazonaws.com"),
		"bucket_region":               sv(region),
		"hosted_zone_id":              sv(s3HostedZones[region]),
		"policy":                      jsonState(policy, getAttr(cur, "policy")),
		"request_payer":               sv("BucketOwner"),
		"acceleration_status":         sv(""),
		"object_lock_enabled":         bv(false),
		"website_domain":              cty.NullVal(cty.String),
		"website_endpoint":            cty.NullVal(cty.String),
		"bucket_prefix":               namePrefixFromName(name, ""),
	}
	if _, ok := cur.Type().AttributeTypes()["region"]; ok {
		vals["region"] = sv(region)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, apiTags)
	return with(cur, vals), nil
}

// Update is resourceBucketUpdate for the arguments the handler manages:
// the tags (force_destroy lives in the state only).
func (h *bucketHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet("aws_s3_bucket", req.Config, bucketUnsupported, sortedKeys(bucketUnsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, region, err := h.client(ctx, pc, p)
	if err != nil {
		return cty.NilVal, err
	}
	name := str(req.Prior, "id")
	if oldT, newT := tagsIn(req.Prior, pc), tagsIn(p, pc); !mapsEqual(oldT, newT) {
		if err := putBucketTags(ctx, cl, name, newT); err != nil {
			return cty.NilVal, err
		}
	}
	st, err := h.read(ctx, cl, region, p, pc)
	if err != nil {
		return cty.NilVal, err
	}
	if st.IsNull() {
		return cty.NilVal, fmt.Errorf("reading S3 Bucket (%s): not found after update", name)
	}
	return settle(req.Schema.Block, st, p), nil
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// Delete is resourceBucketDelete: with force_destroy, empty the bucket
// (every version) first; without, a bucket with objects stays and the
// error says so (BucketNotEmpty).
func (h *bucketHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, _, err := h.client(ctx, req.Provider, req.Prior)
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	if boolAttr(req.Prior, "force_destroy") {
		if err := emptyBucket(ctx, cl, name); err != nil {
			return err
		}
	}
	_, err = cl.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)})
	if s3Gone(err) {
		return nil
	}
	if isCode(err, "BucketNotEmpty") {
		return fmt.Errorf("deleting S3 Bucket (%s): %w (set force_destroy = true to delete its objects too)", name, err)
	}
	if err != nil {
		return fmt.Errorf("deleting S3 Bucket (%s): %w", name, err)
	}
	return nil
}

// emptyBucket deletes every object version and delete marker
// (emptyBucket in bucket.go).
func emptyBucket(ctx context.Context, cl *s3.Client, name string) error {
	p := s3.NewListObjectVersionsPaginator(cl, &s3.ListObjectVersionsInput{Bucket: aws.String(name)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if s3Gone(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("emptying S3 Bucket (%s): %w", name, err)
		}
		var ids []s3types.ObjectIdentifier
		for _, v := range page.Versions {
			ids = append(ids, s3types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		for _, m := range page.DeleteMarkers {
			ids = append(ids, s3types.ObjectIdentifier{Key: m.Key, VersionId: m.VersionId})
		}
		for _, id := range ids {
			in := &s3.DeleteObjectInput{Bucket: aws.String(name), Key: id.Key}
			if v := aws.ToString(id.VersionId); v != "" && v != "null" {
				in.VersionId = id.VersionId
			}
			if _, err := cl.DeleteObject(ctx, in); err != nil && !s3Gone(err, "NoSuchKey", "NoSuchVersion") {
				return fmt.Errorf("emptying S3 Bucket (%s): delete %s: %w", name, aws.ToString(id.Key), err)
			}
		}
	}
	return nil
}

// Import takes the bucket name.
func (h *bucketHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "bucket": sv(req.ID)}), nil
}

// ---- the bucket configuration resources ----

// bucketSetting is one configuration resource of a bucket: put writes the
// planned setting, get reads it (an error with one of the gone codes: the
// setting is absent), del removes it. refresh, when set, updates the state
// from what get returned.
type bucketSetting struct {
	c        *clients
	typeName string
	what     string
	gone     []string
	put      func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error
	get      func(ctx context.Context, cl *s3.Client, name string) (any, error)
	del      func(ctx context.Context, cl *s3.Client, name string) error
	refresh  func(cur cty.Value, got any) cty.Value
	// unsupported lists configuration the handler refuses.
	unsupported map[string]string
}

func (h *bucketSetting) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.apply(ctx, req)
}

func (h *bucketSetting) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	return h.apply(ctx, req)
}

func (h *bucketSetting) apply(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := unsupportedSet(h.typeName, req.Config, h.unsupported, sortedKeys(h.unsupported)...); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.s3(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(p, "bucket")
	if err := h.put(ctx, cl, name, p); err != nil {
		return cty.NilVal, fmt.Errorf("putting S3 Bucket (%s) %s: %w", name, h.what, err)
	}
	vals := map[string]cty.Value{"id": sv(name)}
	if _, ok := p.Type().AttributeTypes()["region"]; ok {
		vals["region"] = sv(regionOf(p, pc))
	}
	st := with(p, vals)
	got, err := h.get(ctx, cl, name)
	if err != nil {
		return created(req, name, fmt.Errorf("reading S3 Bucket (%s) %s after put: %w", name, h.what, err))
	}
	if h.refresh != nil {
		st = h.refresh(st, got)
	}
	return settle(req.Schema.Block, st, p), nil
}

func (h *bucketSetting) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.s3(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(req.Current, "id")
	got, err := h.get(ctx, cl, name)
	if s3Gone(err, h.gone...) {
		return cty.NullVal(req.Current.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading S3 Bucket (%s) %s: %w", name, h.what, err)
	}
	st := with(req.Current, map[string]cty.Value{"bucket": sv(name)})
	if h.refresh != nil {
		st = h.refresh(st, got)
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *bucketSetting) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.s3(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	if err := h.del(ctx, cl, name); err != nil && !s3Gone(err, h.gone...) {
		return fmt.Errorf("deleting S3 Bucket (%s) %s: %w", name, h.what, err)
	}
	return nil
}

// Import takes the bucket name.
func (h *bucketSetting) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "bucket": sv(req.ID)}), nil
}

var ownerUnsupported = map[string]string{"expected_bucket_owner": "the local cloud has one account"}

func publicAccessBlockHandler(c *clients) *bucketSetting {
	return &bucketSetting{c: c, typeName: "aws_s3_bucket_public_access_block", what: "Public Access Block",
		gone:        []string{"NoSuchPublicAccessBlockConfiguration"},
		unsupported: map[string]string{"skip_destroy": "the handler always deletes"},
		put: func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error {
			_, err := cl.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: aws.String(name),
				PublicAccessBlockConfiguration: &s3types.PublicAccessBlockConfiguration{
					BlockPublicAcls: aws.Bool(boolAttr(p, "block_public_acls")), BlockPublicPolicy: aws.Bool(boolAttr(p, "block_public_policy")),
					IgnorePublicAcls: aws.Bool(boolAttr(p, "ignore_public_acls")), RestrictPublicBuckets: aws.Bool(boolAttr(p, "restrict_public_buckets")),
				}})
			return err
		},
		get: func(ctx context.Context, cl *s3.Client, name string) (any, error) {
			return cl.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: aws.String(name)})
		},
		del: func(ctx context.Context, cl *s3.Client, name string) error {
			_, err := cl.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: aws.String(name)})
			return err
		},
		refresh: func(cur cty.Value, got any) cty.Value {
			c := got.(*s3.GetPublicAccessBlockOutput).PublicAccessBlockConfiguration
			if c == nil {
				return cur
			}
			return with(cur, map[string]cty.Value{
				"block_public_acls": bvp(c.BlockPublicAcls), "block_public_policy": bvp(c.BlockPublicPolicy),
				"ignore_public_acls": bvp(c.IgnorePublicAcls), "restrict_public_buckets": bvp(c.RestrictPublicBuckets),
			})
		},
	}
}

func encryptionHandler(c *clients) *bucketSetting {
	return &bucketSetting{c: c, typeName: "aws_s3_bucket_server_side_encryption_configuration", what: "Server-side Encryption Configuration",
		gone:        []string{"ServerSideEncryptionConfigurationNotFoundError"},
		unsupported: map[string]string{"expected_bucket_owner": ownerUnsupported["expected_bucket_owner"], "rule.*.blocked_encryption_types": "blocking encryption types is not emulated"},
		put: func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error {
			conf := &s3types.ServerSideEncryptionConfiguration{}
			for _, r := range blocks(p, "rule") {
				rule := s3types.ServerSideEncryptionRule{BucketKeyEnabled: boolp(r, "bucket_key_enabled")}
				if d := block(r, "apply_server_side_encryption_by_default"); known(d) {
					rule.ApplyServerSideEncryptionByDefault = &s3types.ServerSideEncryptionByDefault{
						SSEAlgorithm: s3types.ServerSideEncryption(str(d, "sse_algorithm")), KMSMasterKeyID: strp(d, "kms_master_key_id")}
				}
				conf.Rules = append(conf.Rules, rule)
			}
			_, err := cl.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: aws.String(name), ServerSideEncryptionConfiguration: conf})
			return err
		},
		get: func(ctx context.Context, cl *s3.Client, name string) (any, error) {
			return cl.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: aws.String(name)})
		},
		del: func(ctx context.Context, cl *s3.Client, name string) error {
			_, err := cl.DeleteBucketEncryption(ctx, &s3.DeleteBucketEncryptionInput{Bucket: aws.String(name)})
			return err
		},
	}
}

func versioningHandler(c *clients) *bucketSetting {
	return &bucketSetting{c: c, typeName: "aws_s3_bucket_versioning", what: "Versioning",
		unsupported: map[string]string{"expected_bucket_owner": ownerUnsupported["expected_bucket_owner"], "mfa": "MFA delete is not emulated"},
		put: func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error {
			status := str(block(p, "versioning_configuration"), "status")
			if status == "Disabled" {
				// "Disabled" is the provider's word for never versioned: on
				// create nothing is sent (bucket_versioning.go).
				return nil
			}
			_, err := cl.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
				VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatus(status)}})
			return err
		},
		get: func(ctx context.Context, cl *s3.Client, name string) (any, error) {
			return cl.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(name)})
		},
		del: func(ctx context.Context, cl *s3.Client, name string) error {
			out, err := cl.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(name)})
			if err != nil || out.Status == "" {
				return err // never versioned: nothing to suspend
			}
			_, err = cl.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
				VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusSuspended}})
			return err
		},
	}
}

func lifecycleHandler(c *clients) *bucketSetting {
	return &bucketSetting{c: c, typeName: "aws_s3_bucket_lifecycle_configuration", what: "Lifecycle Configuration",
		gone: []string{"NoSuchLifecycleConfiguration"},
		unsupported: map[string]string{
			"expected_bucket_owner":                ownerUnsupported["expected_bucket_owner"],
			"rule.*.transition":                    "storage class transitions are not emulated",
			"rule.*.noncurrent_version_transition": "storage class transitions are not emulated",
			"rule.*.filter.*.and":                  "combined filters are not emulated",
			"rule.*.filter.*.tag":                  "tag filters are not emulated",
		},
		put: func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error {
			conf := &s3types.BucketLifecycleConfiguration{}
			for _, r := range blocks(p, "rule") {
				rule := s3types.LifecycleRule{ID: strp(r, "id"), Status: s3types.ExpirationStatus(str(r, "status"))}
				if f := block(r, "filter"); known(f) {
					rule.Filter = &s3types.LifecycleRuleFilter{Prefix: aws.String(str(f, "prefix")),
						ObjectSizeGreaterThan: int64p(f, "object_size_greater_than"), ObjectSizeLessThan: int64p(f, "object_size_less_than")}
				} else if pfx := str(r, "prefix"); pfx != "" {
					rule.Prefix = aws.String(pfx) //nolint:staticcheck // the rule-level prefix the argument names
				}
				if e := block(r, "expiration"); known(e) {
					rule.Expiration = &s3types.LifecycleExpiration{Days: int32p(e, "days"), ExpiredObjectDeleteMarker: boolp(e, "expired_object_delete_marker")}
					if d := str(e, "date"); d != "" {
						t, err := time.Parse(time.RFC3339, d)
						if err != nil {
							return fmt.Errorf("rule %s: expiration date %q: %w", str(r, "id"), d, err)
						}
						rule.Expiration.Date = aws.Time(t)
					}
				}
				if n := block(r, "noncurrent_version_expiration"); known(n) {
					rule.NoncurrentVersionExpiration = &s3types.NoncurrentVersionExpiration{
						NoncurrentDays: int32p(n, "noncurrent_days"), NewerNoncurrentVersions: int32p(n, "newer_noncurrent_versions")}
				}
				if a := block(r, "abort_incomplete_multipart_upload"); known(a) {
					rule.AbortIncompleteMultipartUpload = &s3types.AbortIncompleteMultipartUpload{DaysAfterInitiation: int32p(a, "days_after_initiation")}
				}
				conf.Rules = append(conf.Rules, rule)
			}
			in := &s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String(name), LifecycleConfiguration: conf}
			if s := str(p, "transition_default_minimum_object_size"); s != "" {
				in.TransitionDefaultMinimumObjectSize = s3types.TransitionDefaultMinimumObjectSize(s)
			}
			_, err := cl.PutBucketLifecycleConfiguration(ctx, in)
			return err
		},
		get: func(ctx context.Context, cl *s3.Client, name string) (any, error) {
			return cl.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: aws.String(name)})
		},
		del: func(ctx context.Context, cl *s3.Client, name string) error {
			_, err := cl.DeleteBucketLifecycle(ctx, &s3.DeleteBucketLifecycleInput{Bucket: aws.String(name)})
			return err
		},
	}
}

func bucketPolicyHandler(c *clients) *bucketSetting {
	return &bucketSetting{c: c, typeName: "aws_s3_bucket_policy", what: "Policy",
		gone: []string{"NoSuchBucketPolicy"},
		put: func(ctx context.Context, cl *s3.Client, name string, p cty.Value) error {
			doc, err := normalizeJSON(str(p, "policy"))
			if err != nil {
				return fmt.Errorf("policy (%s) is invalid JSON: %w", str(p, "policy"), err)
			}
			_, err = cl.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(name), Policy: aws.String(doc)})
			return err
		},
		get: func(ctx context.Context, cl *s3.Client, name string) (any, error) {
			return cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(name)})
		},
		del: func(ctx context.Context, cl *s3.Client, name string) error {
			_, err := cl.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(name)})
			return err
		},
		refresh: func(cur cty.Value, got any) cty.Value {
			return with(cur, map[string]cty.Value{"policy": jsonState(aws.ToString(got.(*s3.GetBucketPolicyOutput).Policy), getAttr(cur, "policy"))})
		},
	}
}

// int64p is a number attribute as *int64, nil when null or unknown.
func int64p(v cty.Value, name string) *int64 {
	i, ok := intAttr(v, name)
	if !ok {
		return nil
	}
	return aws.Int64(i)
}
