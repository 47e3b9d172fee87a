package localcloud_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

const trust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// startRegion starts a cloud for one region of account and returns an
// aws.Config signed for that region; IAM is signed for us-east-1 as the
// SDK does for the global endpoint.
func startRegion(t *testing.T, account *localcloud.Account, region string) aws.Config {
	t.Helper()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", Region: region, Account: account, AccountConcurrency: 50})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return aws.Config{
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint:     aws.String(c.URL()),
		RetryMaxAttempts: 1,
	}
}

// TestAccountGlobalNames: two regions of one local account share IAM and
// the CloudWatch dashboards, so a second region's role of the same name
// collides (EntityAlreadyExists, IAM's query-XML error) and its dashboard
// of the same name replaces the first one's; regional names do not
// collide.
func TestAccountGlobalNames(t *testing.T) {
	t.Parallel()
	account := localcloud.NewAccount("111122223333", nil)
	east := startRegion(t, account, "us-east-1")
	west := startRegion(t, account, "eu-west-1")
	ctx := context.Background()

	iamIn := func(cfg aws.Config) *iam.Client {
		return iam.NewFromConfig(cfg, func(o *iam.Options) { o.Region = "us-east-1" })
	}
	role := &iam.CreateRoleInput{RoleName: aws.String("taskpipe-scraper"), AssumeRolePolicyDocument: aws.String(trust)}
	created, err := iamIn(east).CreateRole(ctx, role)
	require.NoError(t, err)
	require.Equal(t, "arn:aws:iam::111122223333:role/taskpipe-scraper", aws.ToString(created.Role.Arn))
	_, err = iamIn(west).CreateRole(ctx, role)
	requireCode(t, err, "EntityAlreadyExists")
	got, err := iamIn(west).GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("taskpipe-scraper")})
	require.NoError(t, err, "the other region sees the role")
	require.Equal(t, aws.ToString(created.Role.RoleId), aws.ToString(got.Role.RoleId))

	_, err = cloudwatch.NewFromConfig(east).PutDashboard(ctx, &cloudwatch.PutDashboardInput{
		DashboardName: aws.String("taskpipe"), DashboardBody: aws.String(`{"widgets":[]}`)})
	require.NoError(t, err)
	const westBody = `{"widgets":[],"start":"-PT3H"}`
	_, err = cloudwatch.NewFromConfig(west).PutDashboard(ctx, &cloudwatch.PutDashboardInput{
		DashboardName: aws.String("taskpipe"), DashboardBody: aws.String(westBody)})
	require.NoError(t, err)
	dash, err := cloudwatch.NewFromConfig(east).GetDashboard(ctx, &cloudwatch.GetDashboardInput{DashboardName: aws.String("taskpipe")})
	require.NoError(t, err)
	require.Equal(t, westBody, aws.ToString(dash.DashboardBody), "the second region silently replaced the first one's dashboard")

	// Bucket names are global: a second region cannot create one the
	// account already holds.
	s3In := func(cfg aws.Config) *s3.Client {
		return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	}
	bucketIn := func(region string) *s3.CreateBucketInput {
		in := &s3.CreateBucketInput{Bucket: aws.String("taskpipe-docs")}
		if region != "us-east-1" {
			in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(region)}
		}
		return in
	}
	_, err = s3In(east).CreateBucket(ctx, bucketIn("us-east-1"))
	require.NoError(t, err)
	_, err = s3In(west).CreateBucket(ctx, bucketIn("eu-west-1"))
	require.Error(t, err, "the bucket name is taken in the account")
	require.Regexp(t, "BucketAlreadyExists|BucketAlreadyOwnedByYou", err.Error())

	for _, cfg := range []aws.Config{east, west} {
		q, err := sqs.NewFromConfig(cfg).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("tasks")})
		require.NoError(t, err, "queue names are regional")
		require.Contains(t, aws.ToString(q.QueueUrl), "111122223333/tasks")
		settings, err := lambda.NewFromConfig(cfg).GetAccountSettings(ctx, &lambda.GetAccountSettingsInput{})
		require.NoError(t, err)
		require.Equal(t, int32(50), settings.AccountLimit.ConcurrentExecutions, "the configured quota")
	}
}

// TestRegionComesFromTheSignature: a regional request signed for another
// region is refused, not served by this region's state; IAM, signed for
// us-east-1 whatever the client's region, is served.
func TestRegionComesFromTheSignature(t *testing.T) {
	t.Parallel()
	east := startRegion(t, localcloud.NewAccount("", nil), "us-east-1")
	ctx := context.Background()
	wrong := east.Copy()
	wrong.Region = "eu-west-1"
	_, err := sqs.NewFromConfig(wrong).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("tasks")})
	requireCode(t, err, "InvalidSignatureException")
	require.ErrorContains(t, err, "Credential should be scoped to a valid region, not 'eu-west-1'")
	_, err = lambda.NewFromConfig(wrong).GetAccountSettings(ctx, &lambda.GetAccountSettingsInput{})
	requireCode(t, err, "InvalidSignatureException")

	_, err = iam.NewFromConfig(wrong, func(o *iam.Options) { o.Region = "us-east-1" }).CreateRole(ctx,
		&iam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String(trust)})
	require.NoError(t, err)
	_, err = sqs.NewFromConfig(east).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("tasks")})
	require.NoError(t, err)
}
