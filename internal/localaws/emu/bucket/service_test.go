package bucket_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/bucket"
)

func client(url string, pathStyle bool) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		UsePathStyle: pathStyle,
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
	})
}

func start(t *testing.T) (*s3.Client, *bucket.Service, *emu.Router, string) {
	t.Helper()
	svc := bucket.New(bucket.Options{})
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceS3, svc)
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	return client(srv.URL, true), svc, rt, srv.URL
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// TestObjectCalls: the calls the scraper, the CLI and the provider make,
// through the SDK, counted by operation.
func TestObjectCalls(t *testing.T) {
	t.Parallel()
	cl, svc, rt, _ := start(t)
	ctx := t.Context()
	_, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("results")})
	require.NoError(t, err)
	_, err = cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("results")})
	require.NoError(t, err)
	for _, k := range []string{"runs/r1/1.json.gz", "runs/r1/2.json.gz", "runs/r2/1.json.gz"} {
		_, err = cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("results"), Key: aws.String(k),
			Body: bytes.NewReader([]byte("doc " + k)), ContentType: aws.String("application/json")})
		require.NoError(t, err)
	}
	list, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("results"), Prefix: aws.String("runs/r1/")})
	require.NoError(t, err)
	require.Len(t, list.Contents, 2)
	got, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("results"), Key: aws.String("runs/r1/2.json.gz")})
	require.NoError(t, err)
	b, err := io.ReadAll(got.Body)
	require.NoError(t, err)
	require.Equal(t, "doc runs/r1/2.json.gz", string(b))
	require.Equal(t, "application/json", aws.ToString(got.ContentType))

	_, err = cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("results"), Key: aws.String("absent")})
	require.Equal(t, "NoSuchKey", code(err))
	_, err = cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("absent"), Key: aws.String("k"), Body: strings.NewReader("x")})
	require.Equal(t, "NoSuchBucket", code(err))

	u, err := svc.Usage("results", "runs/r1/")
	require.NoError(t, err)
	require.Equal(t, bucket.Usage{Objects: 2, Bytes: int64(2 * len("doc runs/r1/1.json.gz"))}, u)

	counts := map[string]int64{}
	for _, c := range rt.Counts() {
		counts[c.Service+":"+c.Operation] = c.Count
	}
	require.Equal(t, int64(4), counts["s3:PutObject"])
	require.Equal(t, int64(1), counts["s3:ListObjectsV2"])
	require.Equal(t, int64(2), counts["s3:GetObject"])
	require.Equal(t, int64(1), counts["s3:CreateBucket"])

	// Middleware sees the operation before the service runs (the caller
	// counters and fault rules match on it).
	var seen []string
	rt.Use(func(_ http.ResponseWriter, _ *http.Request, op emu.Op) bool {
		seen = append(seen, op.String())
		return false
	})
	_, err = cl.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("results"), Key: aws.String("runs/r1/1.json.gz")})
	require.NoError(t, err)
	require.Equal(t, []string{"s3:HeadObject"}, seen)
}

// TestConfigurationSubresources: the bucket settings the Terraform module
// writes are kept and read back; unset ones answer S3's errors, and
// encryption defaults to SSE-S3.
func TestConfigurationSubresources(t *testing.T) {
	t.Parallel()
	cl, _, _, _ := start(t)
	ctx := t.Context()
	name := aws.String("results")
	_, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: name})
	require.NoError(t, err)

	enc, err := cl.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: name})
	require.NoError(t, err)
	require.Equal(t, s3types.ServerSideEncryptionAes256, enc.ServerSideEncryptionConfiguration.Rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm)
	_, err = cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: name})
	require.Equal(t, "NoSuchBucketPolicy", code(err))
	_, err = cl.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: name})
	require.Equal(t, "NoSuchPublicAccessBlockConfiguration", code(err))
	_, err = cl.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: name})
	require.Equal(t, "NoSuchLifecycleConfiguration", code(err))

	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::results/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`
	_, err = cl.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: name, Policy: aws.String(policy)})
	require.NoError(t, err)
	gp, err := cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: name})
	require.NoError(t, err)
	require.JSONEq(t, policy, aws.ToString(gp.Policy))

	_, err = cl.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: name, PublicAccessBlockConfiguration: &s3types.PublicAccessBlockConfiguration{
		BlockPublicAcls: aws.Bool(true), BlockPublicPolicy: aws.Bool(true), IgnorePublicAcls: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true)}})
	require.NoError(t, err)
	pab, err := cl.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: name})
	require.NoError(t, err)
	require.True(t, aws.ToBool(pab.PublicAccessBlockConfiguration.RestrictPublicBuckets))

	_, err = cl.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: name,
		LifecycleConfiguration: &s3types.BucketLifecycleConfiguration{Rules: []s3types.LifecycleRule{{
			ID: aws.String("expire"), Status: s3types.ExpirationStatusEnabled,
			Filter:     &s3types.LifecycleRuleFilter{Prefix: aws.String("runs/")},
			Expiration: &s3types.LifecycleExpiration{Days: aws.Int32(30)}}}}})
	require.NoError(t, err)
	lc, err := cl.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: name})
	require.NoError(t, err)
	require.Equal(t, int32(30), aws.ToInt32(lc.Rules[0].Expiration.Days))

	_, err = cl.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: name})
	require.NoError(t, err)
	_, err = cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: name})
	require.Equal(t, "NoSuchBucketPolicy", code(err))

	_, err = cl.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("absent")})
	require.Equal(t, "NoSuchBucket", code(err))

	v, err := cl.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: name})
	require.NoError(t, err)
	require.Empty(t, v.Status, "versioning off by default")
}

// TestVirtualHostedRequests: <bucket>.localhost reaches the same bucket
// as the path-style URL.
func TestVirtualHostedRequests(t *testing.T) {
	t.Parallel()
	cl, _, _, url := start(t)
	_, err := cl.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("results")})
	require.NoError(t, err)
	_, err = cl.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("results"), Key: aws.String("a/b.txt"), Body: strings.NewReader("hi")})
	require.NoError(t, err)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/a/b.txt", nil)
	require.NoError(t, err)
	req.Host = "results.s3.localhost"
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=x")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	require.Equal(t, "hi", string(b))
}
