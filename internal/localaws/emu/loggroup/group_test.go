package loggroup_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/stretchr/testify/require"
)

func TestLogGroupLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, err := b.client.CreateLogGroup(b.ctx, &cloudwatchlogs.CreateLogGroupInput{
		LogGroupName: aws.String("/aws/lambda/scraper"),
		Tags:         map[string]string{"app": "taskpipe"},
	})
	require.NoError(t, err)

	_, err = b.client.CreateLogGroup(b.ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("/aws/lambda/scraper")})
	var exists *types.ResourceAlreadyExistsException
	require.ErrorAs(t, err, &exists)

	out, err := b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePrefix: aws.String("/aws/lambda/")})
	require.NoError(t, err)
	require.Len(t, out.LogGroups, 1)
	g := out.LogGroups[0]
	require.Equal(t, "/aws/lambda/scraper", aws.ToString(g.LogGroupName))
	require.Equal(t, "arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/scraper:*", aws.ToString(g.Arn))
	require.Equal(t, "arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/scraper", aws.ToString(g.LogGroupArn))
	require.Equal(t, b.clock.Now().UnixMilli(), aws.ToInt64(g.CreationTime))
	require.Nil(t, g.RetentionInDays, "a new group never expires its events")
	require.Equal(t, types.LogGroupClassStandard, g.LogGroupClass)

	_, err = b.client.PutRetentionPolicy(b.ctx, &cloudwatchlogs.PutRetentionPolicyInput{
		LogGroupName: aws.String("/aws/lambda/scraper"), RetentionInDays: aws.Int32(14),
	})
	require.NoError(t, err)
	out, err = b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{})
	require.NoError(t, err)
	require.Equal(t, int32(14), aws.ToInt32(out.LogGroups[0].RetentionInDays))

	_, err = b.client.DeleteRetentionPolicy(b.ctx, &cloudwatchlogs.DeleteRetentionPolicyInput{LogGroupName: aws.String("/aws/lambda/scraper")})
	require.NoError(t, err)
	out, err = b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{})
	require.NoError(t, err)
	require.Nil(t, out.LogGroups[0].RetentionInDays)

	_, err = b.client.DeleteLogGroup(b.ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String("/aws/lambda/scraper")})
	require.NoError(t, err)
	_, err = b.client.DeleteLogGroup(b.ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String("/aws/lambda/scraper")})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
	require.Contains(t, err.Error(), "The specified log group does not exist.")
}

func TestCreateLogGroupValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name  string
		input *cloudwatchlogs.CreateLogGroupInput
		code  string
	}{
		{"BadCharacters", &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("has space")}, "InvalidParameterException"},
		{"ReservedPrefix", &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("AWS/mine")}, "InvalidParameterException"},
		{"BadClass", &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("ok"), LogGroupClass: "COLD"}, "InvalidParameterException"},
		{"ReservedTag", &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("ok2"), Tags: map[string]string{"aws:x": "1"}}, "InvalidParameterException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := b.client.CreateLogGroup(b.ctx, tt.input)
			requireAPIError(t, err, tt.code)
		})
	}
}

func TestPutRetentionPolicyRejectsValuesOutsideTheEnum(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "g")
	for _, days := range []int32{2, 0, -1, 4000} {
		_, err := b.client.PutRetentionPolicy(b.ctx, &cloudwatchlogs.PutRetentionPolicyInput{
			LogGroupName: aws.String("g"), RetentionInDays: aws.Int32(days),
		})
		requireAPIError(t, err, "InvalidParameterException")
		require.Contains(t, err.Error(), "Member must satisfy enum value set: [1, 3, 5, 7, 14, 30")
	}
	for _, days := range []int32{1, 400, 3653} {
		_, err := b.client.PutRetentionPolicy(b.ctx, &cloudwatchlogs.PutRetentionPolicyInput{
			LogGroupName: aws.String("g"), RetentionInDays: aws.Int32(days),
		})
		require.NoError(t, err, "days %d", days)
	}
	_, err := b.client.PutRetentionPolicy(b.ctx, &cloudwatchlogs.PutRetentionPolicyInput{
		LogGroupName: aws.String("missing"), RetentionInDays: aws.Int32(7),
	})
	requireAPIError(t, err, "ResourceNotFoundException")
}

func TestDescribeLogGroupsFiltersAndPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 7 {
		b.createGroup(t, fmt.Sprintf("/aws/lambda/fn-%d", i))
	}
	b.createGroup(t, "/taskpipe/Pipe-A")

	var names []string
	p := cloudwatchlogs.NewDescribeLogGroupsPaginator(b.client, &cloudwatchlogs.DescribeLogGroupsInput{
		LogGroupNamePrefix: aws.String("/aws/lambda/"), Limit: aws.Int32(3),
	})
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(b.ctx)
		require.NoError(t, err)
		pages++
		for _, g := range out.LogGroups {
			names = append(names, aws.ToString(g.LogGroupName))
		}
	}
	require.Equal(t, 3, pages)
	require.Len(t, names, 7)
	require.IsIncreasing(t, names)

	out, err := b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePattern: aws.String("pipe-a")})
	require.NoError(t, err)
	require.Len(t, out.LogGroups, 1, "the pattern matches case-insensitively")

	_, err = b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{
		LogGroupNamePattern: aws.String("a"), LogGroupNamePrefix: aws.String("/"),
	})
	requireAPIError(t, err, "InvalidParameterException")

	_, err = b.client.DescribeLogGroups(b.ctx, &cloudwatchlogs.DescribeLogGroupsInput{NextToken: aws.String("garbage!")})
	requireAPIError(t, err, "InvalidParameterException")
}

func TestTagging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "/aws/lambda/enrich")
	arn := "arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/enrich"

	_, err := b.client.TagResource(b.ctx, &cloudwatchlogs.TagResourceInput{
		ResourceArn: aws.String(arn), Tags: map[string]string{"a": "1", "b": "2"},
	})
	require.NoError(t, err)
	// The Arn DescribeLogGroups returns ends in ":*", which the model's
	// AmazonResourceName pattern does not allow: tag calls take LogGroupArn.
	_, err = b.client.UntagResource(b.ctx, &cloudwatchlogs.UntagResourceInput{ResourceArn: aws.String(arn + ":*"), TagKeys: []string{"a"}})
	requireAPIError(t, err, "InvalidParameterException")
	_, err = b.client.UntagResource(b.ctx, &cloudwatchlogs.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"a"}})
	require.NoError(t, err)
	tags, err := b.client.ListTagsForResource(b.ctx, &cloudwatchlogs.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "2"}, tags.Tags)

	// The older TagLogGroup API is deprecated but still used by tools.
	_, err = b.client.TagLogGroup(b.ctx, &cloudwatchlogs.TagLogGroupInput{
		LogGroupName: aws.String("/aws/lambda/enrich"), Tags: map[string]string{"c": "3"},
	})
	require.NoError(t, err)
	old, err := b.client.ListTagsLogGroup(b.ctx, &cloudwatchlogs.ListTagsLogGroupInput{LogGroupName: aws.String("/aws/lambda/enrich")})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "2", "c": "3"}, old.Tags)

	_, err = b.client.ListTagsForResource(b.ctx, &cloudwatchlogs.ListTagsForResourceInput{
		ResourceArn: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:nope"),
	})
	requireAPIError(t, err, "ResourceNotFoundException")

	// 51 tags in one request break the model's TagMap (max 50); 50 new
	// ones on a group that has one already break the service's limit.
	many := map[string]string{}
	for i := range 51 {
		many[fmt.Sprintf("k%d", i)] = "v"
	}
	_, err = b.client.TagResource(b.ctx, &cloudwatchlogs.TagResourceInput{ResourceArn: aws.String(arn), Tags: many})
	requireAPIError(t, err, "InvalidParameterException")
	delete(many, "k50")
	_, err = b.client.TagResource(b.ctx, &cloudwatchlogs.TagResourceInput{ResourceArn: aws.String(arn), Tags: many})
	requireAPIError(t, err, "TooManyTagsException")
}

func TestLogStreams(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createGroup(t, "g")
	for _, s := range []string{"2026/03/01/[$LATEST]bbb", "2026/03/01/[$LATEST]aaa", "other"} {
		b.createStream(t, "g", s)
	}
	_, err := b.client.CreateLogStream(b.ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String("g"), LogStreamName: aws.String("other")})
	requireAPIError(t, err, "ResourceAlreadyExistsException")
	_, err = b.client.CreateLogStream(b.ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String("g"), LogStreamName: aws.String("a:b")})
	requireAPIError(t, err, "InvalidParameterException")
	_, err = b.client.CreateLogStream(b.ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String("nope"), LogStreamName: aws.String("x")})
	requireAPIError(t, err, "ResourceNotFoundException")

	out, err := b.client.DescribeLogStreams(b.ctx, &cloudwatchlogs.DescribeLogStreamsInput{
		LogGroupName: aws.String("g"), LogStreamNamePrefix: aws.String("2026/"),
	})
	require.NoError(t, err)
	require.Len(t, out.LogStreams, 2)
	require.Equal(t, "2026/03/01/[$LATEST]aaa", aws.ToString(out.LogStreams[0].LogStreamName))
	require.Equal(t, "arn:aws:logs:us-east-1:000000000000:log-group:g:log-stream:2026/03/01/[$LATEST]aaa", aws.ToString(out.LogStreams[0].Arn))

	_, err = b.client.DescribeLogStreams(b.ctx, &cloudwatchlogs.DescribeLogStreamsInput{
		LogGroupName: aws.String("g"), LogStreamNamePrefix: aws.String("2026/"), OrderBy: types.OrderByLastEventTime,
	})
	requireAPIError(t, err, "InvalidParameterException")

	var all []string
	p := cloudwatchlogs.NewDescribeLogStreamsPaginator(b.client, &cloudwatchlogs.DescribeLogStreamsInput{
		LogGroupName: aws.String("g"), Limit: aws.Int32(2), Descending: aws.Bool(true),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(b.ctx)
		require.NoError(t, err)
		for _, s := range page.LogStreams {
			all = append(all, aws.ToString(s.LogStreamName))
		}
	}
	require.Equal(t, []string{"other", "2026/03/01/[$LATEST]bbb", "2026/03/01/[$LATEST]aaa"}, all)

	_, err = b.client.DeleteLogStream(b.ctx, &cloudwatchlogs.DeleteLogStreamInput{LogGroupName: aws.String("g"), LogStreamName: aws.String("other")})
	require.NoError(t, err)
	_, err = b.client.DeleteLogStream(b.ctx, &cloudwatchlogs.DeleteLogStreamInput{LogGroupName: aws.String("g"), LogStreamName: aws.String("other")})
	requireAPIError(t, err, "ResourceNotFoundException")
}
