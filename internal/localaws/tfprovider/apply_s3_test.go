package tfprovider_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"
)

// TestApplyS3 applies the result bucket's resources into the local cloud:
// the bucket with its tags, public access block, encryption, lifecycle rule
// and TLS-only policy; then a clean second plan, an in-place update of the
// rule and the tags, drift after the policy is deleted out of band, and a
// destroy that empties the bucket (force_destroy).
func TestApplyS3(t *testing.T) {
	t.Parallel()
	e := newApplyEnv(t, "s3")
	ctx := context.Background()
	cl := s3.NewFromConfig(e.cfg, func(o *s3.Options) { o.UsePathStyle = true })
	name := aws.String("results-apply")

	e.apply()
	st := e.state()
	b := attrs(t, st, "aws_s3_bucket.this")
	require.Equal(t, "results-apply", b["id"])
	require.Equal(t, "arn:aws:s3:::results-apply", b["arn"])
	require.Equal(t, "results-apply.s3.us-east-1.amazonaws.com", b["bucket_regional_domain_name"])
	require.Equal(t, map[string]any{"team": "a", "suite": "apply"}, b["tags_all"])
	require.Equal(t, "results-apply", attrs(t, st, "aws_s3_bucket_policy.this")["id"])

	pab, err := cl.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: name})
	require.NoError(t, err)
	require.True(t, aws.ToBool(pab.PublicAccessBlockConfiguration.BlockPublicPolicy))
	pol, err := cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: name})
	require.NoError(t, err)
	require.Contains(t, aws.ToString(pol.Policy), "aws:SecureTransport")
	lc, err := cl.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: name})
	require.NoError(t, err)
	require.Equal(t, int32(30), aws.ToInt32(lc.Rules[0].Expiration.Days))
	tags, err := cl.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: name})
	require.NoError(t, err)
	require.Len(t, tags.TagSet, 2)

	e.requireNoChanges()

	e.apply("expiration_days=7", "team=b")
	lc, err = cl.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: name})
	require.NoError(t, err)
	require.Equal(t, int32(7), aws.ToInt32(lc.Rules[0].Expiration.Days))
	require.Equal(t, map[string]any{"team": "b"}, attrs(t, e.state(), "aws_s3_bucket.this")["tags"])
	e.requireNoChanges("expiration_days=7", "team=b")

	// Drift: the policy deleted out of band is planned again.
	_, err = cl.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: name})
	require.NoError(t, err)
	p := e.plan("expiration_days=7", "team=b")
	require.Contains(t, changes(p), "aws_s3_bucket_policy.this")

	_, err = cl.PutObject(ctx, &s3.PutObjectInput{Bucket: name, Key: aws.String("runs/r/1.json.gz"), Body: strings.NewReader("x")})
	require.NoError(t, err)
	e.destroy("expiration_days=7", "team=b")
	_, err = cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: name})
	require.Error(t, err, "destroy deletes the bucket with its objects")
}
