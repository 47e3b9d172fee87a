package queue_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/queue"
)

func TestCreateQueue(t *testing.T) {
	t.Parallel()

	t.Run("URLUsesRequestHostAndAccount", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		url := b.createQueue(t, "work", nil)
		require.Equal(t, b.endpoint+"/"+emu.DefaultAccountID+"/work", url)

		got, err := b.client.GetQueueUrl(b.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("work")})
		require.NoError(t, err)
		require.Equal(t, url, aws.ToString(got.QueueUrl))
	})

	t.Run("IdempotentOnlyForSameGivenAttributes", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		attrs := map[string]string{"ReceiveMessageWaitTimeSeconds": "1", "DelaySeconds": "1"}
		url := b.createQueue(t, "q", attrs)
		// No attributes, a subset, or the same values: the same queue
		// (AWS-validated LocalStack test_create_queue_with_different_attributes_raises_exception).
		require.Equal(t, url, b.createQueue(t, "q", nil))
		require.Equal(t, url, b.createQueue(t, "q", map[string]string{"DelaySeconds": "1"}))
		require.Equal(t, url, b.createQueue(t, "q", attrs))

		_, err := b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"),
			Attributes: map[string]string{"ReceiveMessageWaitTimeSeconds": "1", "DelaySeconds": "2"}})
		var exists *types.QueueNameExists
		requireAPIError(t, err, &exists, "QueueAlreadyExists", http.StatusBadRequest)
		require.Equal(t, "A queue already exists with the same name and a different value for attribute DelaySeconds", exists.ErrorMessage())

		_, err = b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"DelaySeconds": "2"}})
		require.NoError(t, err)
		require.Equal(t, url, b.createQueue(t, "q", map[string]string{"DelaySeconds": "2"}))
	})

	t.Run("Defaults", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		url := b.createQueue(t, "defaults", nil)
		out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		require.NoError(t, err)
		created := strconv.FormatInt(b.clock.Now().Unix(), 10)
		require.Equal(t, map[string]string{
			"QueueArn":                              b.arn("defaults"),
			"ApproximateNumberOfMessages":           "0",
			"ApproximateNumberOfMessagesNotVisible": "0",
			"ApproximateNumberOfMessagesDelayed":    "0",
			"CreatedTimestamp":                      created,
			"LastModifiedTimestamp":                 created,
			"VisibilityTimeout":                     "30",
			"MaximumMessageSize":                    "1048576",
			"MessageRetentionPeriod":                "345600",
			"DelaySeconds":                          "0",
			"ReceiveMessageWaitTimeSeconds":         "0",
			"SqsManagedSseEnabled":                  "true",
		}, out.Attributes)
	})

	t.Run("InvalidNames", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		for _, name := range []string{"has space", "slash/name", string(make([]byte, 81)), "work.fifo"} {
			_, err := b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
			requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
		}
	})

	t.Run("FifoRejectedClearly", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		_, err := b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
			Attributes: map[string]string{"FifoQueue": "true"}})
		var invalid *types.InvalidAttributeValue
		requireAPIError(t, err, &invalid, "InvalidAttributeValue", http.StatusBadRequest)
		require.Contains(t, invalid.ErrorMessage(), "FIFO queues are not supported")
		// FifoQueue=false is a standard queue.
		b.createQueue(t, "jobs", map[string]string{"FifoQueue": "false"})
	})

	t.Run("DeletedRecently", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{})
		url := b.createQueue(t, "gone", nil)
		_, err := b.client.DeleteQueue(b.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
		require.NoError(t, err)
		_, err = b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String("gone")})
		var recently *types.QueueDeletedRecently
		requireAPIError(t, err, &recently, "AWS.SimpleQueueService.QueueDeletedRecently", http.StatusBadRequest)
		b.clock.Advance(61 * time.Second)
		require.Equal(t, url, b.createQueue(t, "gone", nil))
	})

	t.Run("CooldownCanBeDisabled", func(t *testing.T) {
		t.Parallel()
		b := setup(t, queue.Options{RecreateCooldown: -1})
		url := b.createQueue(t, "again", nil)
		_, err := b.client.DeleteQueue(b.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
		require.NoError(t, err)
		b.createQueue(t, "again", nil)
	})
}

func TestQueueDoesNotExist(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := b.createQueue(t, "real", nil)
	missing := b.endpoint + "/" + emu.DefaultAccountID + "/missing"
	otherAccount := b.endpoint + "/123456789012/real"

	calls := map[string]func() error{
		"GetQueueUrl": func() error {
			_, err := b.client.GetQueueUrl(b.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
			return err
		},
		"GetQueueUrlOtherOwner": func() error {
			_, err := b.client.GetQueueUrl(b.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("real"), QueueOwnerAWSAccountId: aws.String("123456789012")})
			return err
		},
		"SendMessage": func() error {
			_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(missing), MessageBody: aws.String("x")})
			return err
		},
		"SendMessageOtherAccount": func() error {
			_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(otherAccount), MessageBody: aws.String("x")})
			return err
		},
		"ReceiveMessage": func() error {
			_, err := b.client.ReceiveMessage(b.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(missing)})
			return err
		},
		"GetQueueAttributes": func() error {
			_, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(missing)})
			return err
		},
		"DeleteQueue": func() error {
			_, err := b.client.DeleteQueue(b.ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(missing)})
			return err
		},
		"PurgeQueue": func() error {
			_, err := b.client.PurgeQueue(b.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(missing)})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var notExist *types.QueueDoesNotExist
			requireAPIError(t, call(), &notExist, "AWS.SimpleQueueService.NonExistentQueue", http.StatusBadRequest)
			require.Equal(t, "The specified queue does not exist.", notExist.ErrorMessage())
		})
	}

	t.Run("AnyHostAndBareNameResolve", func(t *testing.T) {
		t.Parallel()
		for _, ref := range []string{url, "https://sqs.us-east-1.amazonaws.com/" + emu.DefaultAccountID + "/real", "real"} {
			_, err := b.client.SendMessage(b.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(ref), MessageBody: aws.String("x")})
			require.NoError(t, err, ref)
		}
	})
}

func TestQueueAttributes(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	dlqURL := b.createQueue(t, "attrs-dlq", nil)

	valid := []struct {
		name, value, want string
	}{
		{"VisibilityTimeout", "0", "0"},
		{"VisibilityTimeout", "43200", "43200"},
		{"MessageRetentionPeriod", "60", "60"},
		{"MessageRetentionPeriod", "1209600", "1209600"},
		{"DelaySeconds", "900", "900"},
		{"ReceiveMessageWaitTimeSeconds", "20", "20"},
		{"MaximumMessageSize", "1024", "1024"},
		{"MaximumMessageSize", "1048576", "1048576"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + b.arn("attrs-dlq") + `","maxReceiveCount":"5"}`,
			`{"deadLetterTargetArn":"` + b.arn("attrs-dlq") + `","maxReceiveCount":5}`},
		{"Policy", `{"Version":"2012-10-17","Statement":[]}`, `{"Version":"2012-10-17","Statement":[]}`},
		{"KmsMasterKeyId", "alias/aws/sqs", "alias/aws/sqs"},
	}
	for i, tc := range valid {
		t.Run(fmt.Sprintf("Valid/%s=%s", tc.name, tc.value), func(t *testing.T) {
			t.Parallel()
			url := b.createQueue(t, fmt.Sprintf("valid-%d", i), nil)
			_, err := b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
				Attributes: map[string]string{tc.name: tc.value}})
			require.NoError(t, err)
			out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeName(tc.name)}})
			require.NoError(t, err)
			require.Equal(t, map[string]string{tc.name: tc.want}, out.Attributes)
		})
	}

	invalid := []struct {
		name, value, code, contains string
	}{
		{"VisibilityTimeout", "-1", "InvalidAttributeValue", "Invalid value for the parameter VisibilityTimeout."},
		{"VisibilityTimeout", "43201", "InvalidAttributeValue", "VisibilityTimeout"},
		{"MessageRetentionPeriod", "59", "InvalidAttributeValue", "MessageRetentionPeriod"},
		{"MessageRetentionPeriod", "1209601", "InvalidAttributeValue", "MessageRetentionPeriod"},
		{"DelaySeconds", "901", "InvalidAttributeValue", "DelaySeconds"},
		{"ReceiveMessageWaitTimeSeconds", "21", "InvalidAttributeValue", "ReceiveMessageWaitTimeSeconds"},
		{"MaximumMessageSize", "1023", "InvalidAttributeValue", "MaximumMessageSize"},
		{"MaximumMessageSize", "1048577", "InvalidAttributeValue", "MaximumMessageSize"},
		{"VisibilityTimeout", "thirty", "InvalidAttributeValue", "VisibilityTimeout"},
		{"Policy", "{not json", "InvalidAttributeValue", "Policy"},
		{"QueueArn", "arn:aws:sqs:us-east-1:000000000000:x", "InvalidAttributeName", "Unknown Attribute QueueArn."},
		{"FifoQueue", "true", "InvalidAttributeName", "Unknown Attribute FifoQueue."},
		{"ContentBasedDeduplication", "true", "InvalidAttributeName", "Unknown Attribute ContentBasedDeduplication."},
		{"RedrivePolicy", `{"deadLetterTargetArn": "dummy", "maxReceiveCount": 42}`, "InvalidParameterValue",
			`Value {"deadLetterTargetArn": "dummy", "maxReceiveCount": 42} for parameter RedrivePolicy is invalid. Reason: Invalid value for deadLetterTargetArn.`},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + b.arn("nope") + `","maxReceiveCount":3}`, "InvalidParameterValue", "Dead letter target does not exist."},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + b.arn("attrs-dlq") + `","maxReceiveCount":0}`, "InvalidParameterValue", "valid values are from 1 to 1000 both inclusive"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + b.arn("attrs-dlq") + `","maxReceiveCount":1001}`, "InvalidParameterValue", "valid values are from 1 to 1000 both inclusive"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + b.arn("attrs-dlq") + `"}`, "InvalidParameterValue", "mandatory attribute: maxReceiveCount"},
		{"RedriveAllowPolicy", `{"redrivePermission":"sometimes"}`, "InvalidParameterValue", "redrivePermission"},
		{"RedriveAllowPolicy", `{"redrivePermission":"byQueue"}`, "InvalidParameterValue", "sourceQueueArns"},
		{"RedriveAllowPolicy", `{"redrivePermission":"allowAll","sourceQueueArns":["` + b.arn("a") + `"]}`, "InvalidParameterValue", "byQueue"},
		{"RedriveAllowPolicy", `{"redrivePermission":"byQueue","sourceQueueArns":[` + arnList(b, 11) + `]}`, "InvalidParameterValue", "1 to 10"},
		{"SqsManagedSseEnabled", "yes", "InvalidAttributeValue", "SqsManagedSseEnabled"},
	}
	for i, tc := range invalid {
		t.Run(fmt.Sprintf("Invalid/%s=%s", tc.name, tc.value), func(t *testing.T) {
			t.Parallel()
			url := b.createQueue(t, fmt.Sprintf("invalid-%d", i), nil)
			_, err := b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
				Attributes: map[string]string{tc.name: tc.value}})
			requireAPIError(t, err, nil, tc.code, http.StatusBadRequest)
			require.Contains(t, err.Error(), tc.contains)
			// The same value is rejected at creation too, and nothing is created.
			_, err = b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("create-invalid-%d", i)),
				Attributes: map[string]string{tc.name: tc.value}})
			if tc.name != "FifoQueue" { // FifoQueue=true at creation is the "not supported" InvalidAttributeValue
				requireAPIError(t, err, nil, tc.code, http.StatusBadRequest)
			} else {
				require.Error(t, err)
			}
			_, err = b.client.GetQueueUrl(b.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(fmt.Sprintf("create-invalid-%d", i))})
			require.Error(t, err)
		})
	}

	t.Run("UnknownNameOnGet", func(t *testing.T) {
		t.Parallel()
		_, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL),
			AttributeNames: []types.QueueAttributeName{"Foobar"}})
		var invalid *types.InvalidAttributeName
		requireAPIError(t, err, &invalid, "InvalidAttributeName", http.StatusBadRequest)
		require.Equal(t, "Unknown Attribute Foobar.", invalid.ErrorMessage())
	})

	t.Run("NoNamesNoAttributes", func(t *testing.T) {
		t.Parallel()
		out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL)})
		require.NoError(t, err)
		require.Empty(t, out.Attributes)
	})

	t.Run("EmptyPolicyRemovesIt", func(t *testing.T) {
		t.Parallel()
		url := b.createQueue(t, "policy-removed", map[string]string{"Policy": `{"Statement":[]}`})
		_, err := b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"Policy": ""}})
		require.NoError(t, err)
		out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		require.NoError(t, err)
		require.NotContains(t, out.Attributes, "Policy")
	})

	t.Run("KmsAndSqsSseAreExclusive", func(t *testing.T) {
		t.Parallel()
		url := b.createQueue(t, "sse", nil)
		_, err := b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"KmsMasterKeyId": "testKeyId", "SqsManagedSseEnabled": "true"}})
		requireAPIError(t, err, nil, "InvalidAttributeName", http.StatusBadRequest)
		_, err = b.client.SetQueueAttributes(b.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"KmsMasterKeyId": "testKeyId", "KmsDataKeyReusePeriodSeconds": "6000", "SqsManagedSseEnabled": "false"}})
		require.NoError(t, err)
		out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{"KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled"}})
		require.NoError(t, err)
		// AWS-recorded (LocalStack test_sse_queue_attributes snapshot).
		require.Equal(t, map[string]string{"KmsMasterKeyId": "testKeyId", "KmsDataKeyReusePeriodSeconds": "6000", "SqsManagedSseEnabled": "false"}, out.Attributes)
	})

	t.Run("LastModifiedMoves", func(t *testing.T) {
		t.Parallel()
		bb := setup(t, queue.Options{})
		url := bb.createQueue(t, "modified", nil)
		bb.clock.Advance(time.Hour)
		_, err := bb.client.SetQueueAttributes(bb.ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url),
			Attributes: map[string]string{"VisibilityTimeout": "60"}})
		require.NoError(t, err)
		out, err := bb.client.GetQueueAttributes(bb.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{"CreatedTimestamp", "LastModifiedTimestamp"}})
		require.NoError(t, err)
		created, err := strconv.ParseInt(out.Attributes["CreatedTimestamp"], 10, 64)
		require.NoError(t, err)
		modified, err := strconv.ParseInt(out.Attributes["LastModifiedTimestamp"], 10, 64)
		require.NoError(t, err)
		require.Equal(t, int64(3600), modified-created)
	})
}

func arnList(b *testBundle, n int) string {
	arns := make([]string, n)
	for i := range arns {
		arns[i] = b.arn(fmt.Sprintf("src-%d", i))
	}
	raw, err := json.Marshal(arns)
	if err != nil {
		panic(err)
	}
	return string(raw[1 : len(raw)-1])
}

func TestListQueues(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	var want []string
	for i := range 5 {
		want = append(want, b.createQueue(t, fmt.Sprintf("a-queue-%d", i), nil))
	}
	other := b.createQueue(t, "b-queue", nil)

	out, err := b.client.ListQueues(b.ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("a-")})
	require.NoError(t, err)
	require.Equal(t, want, out.QueueUrls)
	require.Nil(t, out.NextToken)

	var paged []string
	p := sqs.NewListQueuesPaginator(b.client, &sqs.ListQueuesInput{MaxResults: aws.Int32(2)})
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(b.ctx)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.QueueUrls), 2)
		paged = append(paged, page.QueueUrls...)
		pages++
	}
	require.Equal(t, append(append([]string{}, want...), other), paged)
	require.Equal(t, 3, pages)

	empty, err := b.client.ListQueues(b.ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("zzz")})
	require.NoError(t, err)
	require.Empty(t, empty.QueueUrls)

	_, err = b.client.ListQueues(b.ctx, &sqs.ListQueuesInput{MaxResults: aws.Int32(1001)})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
}

func TestTags(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	out, err := b.client.CreateQueue(b.ctx, &sqs.CreateQueueInput{QueueName: aws.String("tagged"), Tags: map[string]string{"team": "scrape"}})
	require.NoError(t, err)
	url := out.QueueUrl

	// Behaviour from the AWS-validated LocalStack tag tests: empty values
	// are fine, tagging overwrites, untagging ignores unknown keys, and no
	// tags means no Tags member.
	_, err = b.client.TagQueue(b.ctx, &sqs.TagQueueInput{QueueUrl: url, Tags: map[string]string{"tag1": "value1", "tag2": "", "team": "crawl"}})
	require.NoError(t, err)
	tags, err := b.client.ListQueueTags(b.ctx, &sqs.ListQueueTagsInput{QueueUrl: url})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"tag1": "value1", "tag2": "", "team": "crawl"}, tags.Tags)

	_, err = b.client.UntagQueue(b.ctx, &sqs.UntagQueueInput{QueueUrl: url, TagKeys: []string{"tag1", "tag2", "team", "nope"}})
	require.NoError(t, err)
	tags, err = b.client.ListQueueTags(b.ctx, &sqs.ListQueueTagsInput{QueueUrl: url})
	require.NoError(t, err)
	require.Empty(t, tags.Tags)

	many := map[string]string{}
	for i := range 51 {
		many[fmt.Sprintf("k%d", i)] = "v"
	}
	_, err = b.client.TagQueue(b.ctx, &sqs.TagQueueInput{QueueUrl: url, Tags: many})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	b := setup(t, queue.Options{})
	url := aws.String(b.createQueue(t, "shared", nil))
	_, err := b.client.AddPermission(b.ctx, &sqs.AddPermissionInput{QueueUrl: url, Label: aws.String("crossaccountpermission"),
		AWSAccountIds: []string{emu.DefaultAccountID, "668614515564"}, Actions: []string{"ReceiveMessage"}})
	require.NoError(t, err)
	out, err := b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"Policy"}})
	require.NoError(t, err)
	// The statement shape AWS is recorded to write (LocalStack test_sqs_permission_lifecycle).
	require.JSONEq(t, `{"Version":"2008-10-17","Id":"`+b.arn("shared")+`/SQSDefaultPolicy","Statement":[{"Sid":"crossaccountpermission","Effect":"Allow",
		"Principal":{"AWS":["arn:aws:iam::`+emu.DefaultAccountID+`:root","arn:aws:iam::668614515564:root"]},"Action":"SQS:ReceiveMessage","Resource":"`+b.arn("shared")+`"}]}`,
		out.Attributes["Policy"])

	_, err = b.client.AddPermission(b.ctx, &sqs.AddPermissionInput{QueueUrl: url, Label: aws.String("crossaccountpermission"),
		AWSAccountIds: []string{"668614515564"}, Actions: []string{"ReceiveMessage"}})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "Value crossaccountpermission for parameter Label is invalid. Reason: Already exists.")

	_, err = b.client.RemovePermission(b.ctx, &sqs.RemovePermissionInput{QueueUrl: url, Label: aws.String("crossaccountpermission")})
	require.NoError(t, err)
	out, err = b.client.GetQueueAttributes(b.ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"Policy"}})
	require.NoError(t, err)
	require.Empty(t, out.Attributes)

	_, err = b.client.RemovePermission(b.ctx, &sqs.RemovePermissionInput{QueueUrl: url, Label: aws.String("crossaccountpermission")})
	requireAPIError(t, err, nil, "InvalidParameterValue", http.StatusBadRequest)
	require.Contains(t, err.Error(), "can't find label.")
}
