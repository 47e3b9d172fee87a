package localcloud_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	pipestypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

const acct = emu.DefaultAccountID

// iamCloud starts a cloud with IAM enforced.
func iamCloud(t *testing.T) (*localcloud.Cloud, aws.Config) {
	t.Helper()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", IAM: localcloud.IAMEnforce, LambdaTransition: -1})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c, aws.Config{
		Region:           emu.DefaultRegion,
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint:     aws.String(c.URL()),
		RetryMaxAttempts: 1,
	}
}

// asFunction makes an SDK config whose requests arrive as a function
// instance's forwarded calls do: tagged with the caller.
func asFunction(c *localcloud.Cloud, cfg aws.Config, fn string) aws.Config {
	cfg.HTTPClient = callerClient{h: c.Router(), fn: fn}
	return cfg
}

type callerClient struct {
	h  http.Handler
	fn string
}

func (c callerClient) Do(r *http.Request) (*http.Response, error) {
	r = r.WithContext(emu.WithCaller(r.Context(), &emu.Caller{Function: c.fn, Instance: "i-1"}))
	r.Host = r.URL.Host
	if r.ContentLength > 0 && r.Header.Get("Content-Length") == "" {
		// A transport would write it from ContentLength; S3 requires it.
		r.Header.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

func createRole(t *testing.T, cfg aws.Config, name, trust, policy string) string {
	t.Helper()
	ctx := context.Background()
	client := iam.NewFromConfig(cfg)
	out, err := client.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)})
	require.NoError(t, err)
	if policy != "" {
		_, err = client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(name), PolicyDocument: aws.String(policy)})
		require.NoError(t, err)
	}
	return *out.Role.Arn
}

// stubZip is a deployment package whose bootstrap never runs: these tests
// only need the function's configuration.
func stubZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Store}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	require.NoError(t, err)
	_, err = w.Write([]byte("#!/bin/sh\nexit 1\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func createStubFunction(t *testing.T, cfg aws.Config, name, role string) {
	t.Helper()
	_, err := lambda.NewFromConfig(cfg).CreateFunction(context.Background(), &lambda.CreateFunctionInput{
		FunctionName: aws.String(name), Runtime: lambdatypes.RuntimeProvidedal2023, Handler: aws.String("bootstrap"),
		Role: aws.String(role), Code: &lambdatypes.FunctionCode{ZipFile: stubZip(t)},
	})
	require.NoError(t, err)
}

func apiError(t *testing.T, err error) smithy.APIError {
	t.Helper()
	var ae smithy.APIError
	require.True(t, errors.As(err, &ae), "want an API error, got %v", err)
	return ae
}

const lambdaTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// TestIAMFunctionCallsAsItsRole: a function's calls are authorized as its
// execution role, and a denial has the service's error code and AWS's
// message (the SDK parses both).
func TestIAMFunctionCallsAsItsRole(t *testing.T) {
	t.Parallel()
	c, admin := iamCloud(t)
	ctx := context.Background()
	allowed := "arn:aws:sqs:us-east-1:" + acct + ":allowed"
	role := createRole(t, admin, "worker", lambdaTrust, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"`+allowed+`"},
		{"Effect":"Allow","Action":["dynamodb:GetItem"],"Resource":"arn:aws:dynamodb:us-east-1:`+acct+`:table/tasks"}]}`)
	createStubFunction(t, admin, "worker", role)

	// The developer's own credentials are the account's admin.
	q := sqs.NewFromConfig(admin)
	var urls []string
	for _, name := range []string{"allowed", "other"} {
		out, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		require.NoError(t, err)
		urls = append(urls, *out.QueueUrl)
	}
	fq := sqs.NewFromConfig(asFunction(c, admin, "worker"))
	_, err := fq.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(urls[0]), MessageBody: aws.String("x")})
	require.NoError(t, err)
	_, err = fq.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(urls[1]), MessageBody: aws.String("x")})
	ae := apiError(t, err)
	require.Equal(t, "AccessDenied", ae.ErrorCode())
	require.Equal(t, "User: arn:aws:sts::"+acct+":assumed-role/worker/worker is not authorized to perform: sqs:SendMessage on resource: arn:aws:sqs:us-east-1:"+acct+":other because no identity-based policy allows the sqs:SendMessage action", ae.ErrorMessage())
	_, err = fq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(urls[0])})
	require.Equal(t, "AccessDenied", apiError(t, err).ErrorCode())

	fd := dynamodb.NewFromConfig(asFunction(c, admin, "worker"))
	key := map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "a"}}
	_, err = fd.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tasks"), Key: key})
	require.Equal(t, "ResourceNotFoundException", apiError(t, err).ErrorCode(), "allowed: the table's absence is what fails")
	_, err = fd.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tasks"), Key: key})
	ae = apiError(t, err)
	require.Equal(t, "AccessDeniedException", ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), "is not authorized to perform: dynamodb:UpdateItem on resource: arn:aws:dynamodb:us-east-1:"+acct+":table/tasks because")
	_, err = fd.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.Equal(t, "AccessDeniedException", apiError(t, err).ErrorCode())
	require.Contains(t, apiError(t, err).ErrorMessage(), "dynamodb:ListTables on resource: *")

	// Object writes are checked against the object's ARN (the scraper's
	// s3:PutObject is scoped to its bucket's prefix).
	s3Of := func(cfg aws.Config) *s3.Client {
		return s3.NewFromConfig(cfg, func(o *s3.Options) {
			o.UsePathStyle = true
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		})
	}
	_, err = s3Of(admin).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("docs")})
	require.NoError(t, err)
	_, err = s3Of(asFunction(c, admin, "worker")).PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("docs"), Key: aws.String("runs/r/1.json.gz"), Body: strings.NewReader("x"), ContentLength: aws.Int64(1)})
	ae = apiError(t, err)
	require.Equal(t, "AccessDenied", ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), "is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::docs/runs/r/1.json.gz because")
}

func TestIAMFunctionWritesItsPrefix(t *testing.T) {
	t.Parallel()
	c, admin := iamCloud(t)
	ctx := context.Background()
	role := createRole(t, admin, "writer", lambdaTrust, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::docs/runs/*"}]}`)
	createStubFunction(t, admin, "writer", role)
	s3Of := func(cfg aws.Config) *s3.Client {
		return s3.NewFromConfig(cfg, func(o *s3.Options) {
			o.UsePathStyle = true
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		})
	}
	_, err := s3Of(admin).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("docs")})
	require.NoError(t, err)
	fs := s3Of(asFunction(c, admin, "writer"))
	_, err = fs.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("docs"), Key: aws.String("runs/r/1.json.gz"), Body: strings.NewReader("x"), ContentLength: aws.Int64(1)})
	require.NoError(t, err)
	_, err = fs.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("docs"), Key: aws.String("other/1.json.gz"), Body: strings.NewReader("x"), ContentLength: aws.Int64(1)})
	require.Equal(t, "AccessDenied", apiError(t, err).ErrorCode(), "outside the granted prefix")
}

func TestIAMOffAllowsEverything(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", IAM: localcloud.IAMOff, LambdaTransition: -1})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	admin := aws.Config{Region: emu.DefaultRegion, Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(c.URL()), RetryMaxAttempts: 1}
	createStubFunction(t, admin, "free", "arn:aws:iam::"+acct+":role/missing")
	_, err := sqs.NewFromConfig(asFunction(c, admin, "free")).ListQueues(context.Background(), &sqs.ListQueuesInput{})
	require.NoError(t, err)
}

// streamAndQueues creates a table with a stream and two queues (target,
// DLQ) and returns their ARNs.
func streamAndQueues(t *testing.T, cfg aws.Config, prefix string) (stream, target, dlq string) {
	t.Helper()
	ctx := context.Background()
	out, err := dynamodb.NewFromConfig(cfg).CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(prefix + "-tasks"),
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(t, err)
	q := sqs.NewFromConfig(cfg)
	arns := make([]string, 2)
	for i, name := range []string{prefix + "-target", prefix + "-dlq"} {
		_, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		require.NoError(t, err)
		arns[i] = "arn:aws:sqs:us-east-1:" + acct + ":" + name
	}
	return *out.TableDescription.LatestStreamArn, arns[0], arns[1]
}

// TestIAMPipeCreateFailed: a pipe whose role cannot read its stream, or
// does not trust this pipe, is CREATE_FAILED with the reason; one scoped
// ListStreams grant (no resource-level permissions) is enough to fail.
func TestIAMPipeCreateFailed(t *testing.T) {
	t.Parallel()
	_, admin := iamCloud(t)
	ctx := context.Background()
	client := pipes.NewFromConfig(admin)
	trust := func(pipe string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole",
			"Condition":{"StringEquals":{"aws:SourceAccount":"` + acct + `"},"ArnEquals":{"aws:SourceArn":"arn:aws:pipes:us-east-1:` + acct + `:pipe/` + pipe + `"}}}]}`
	}
	for _, tc := range []struct {
		name, trustFor, listStreams, wantReason string
	}{
		{"scoped", "scoped", "TABLE/stream/*", "is not authorized to perform: dynamodb:ListStreams on resource: * because no identity-based policy allows the dynamodb:ListStreams action"},
		{"untrusted", "someone-else", "*", "pipes.amazonaws.com is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::" + acct + ":role/untrusted-pipe"},
		{"good", "good", "*", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream, target, dlq := streamAndQueues(t, admin, tc.name)
			table := "arn:aws:dynamodb:us-east-1:" + acct + ":table/" + tc.name + "-tasks"
			ls := tc.listStreams
			if ls != "*" {
				ls = table + "/stream/*"
			}
			role := createRole(t, admin, tc.name+"-pipe", trust(tc.trustFor), `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Action":["dynamodb:DescribeStream","dynamodb:GetRecords","dynamodb:GetShardIterator"],"Resource":"`+stream+`"},
				{"Effect":"Allow","Action":"dynamodb:ListStreams","Resource":"`+ls+`"},
				{"Effect":"Allow","Action":"sqs:SendMessage","Resource":["`+target+`","`+dlq+`"]}]}`)
			_, err := client.CreatePipe(ctx, &pipes.CreatePipeInput{Name: aws.String(tc.name), RoleArn: aws.String(role),
				Source: aws.String(stream), Target: aws.String(target),
				SourceParameters: &pipestypes.PipeSourceParameters{DynamoDBStreamParameters: &pipestypes.PipeSourceDynamoDBStreamParameters{
					StartingPosition: pipestypes.DynamoDBStreamStartPositionLatest}}})
			require.NoError(t, err)
			out, err := client.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(tc.name)})
			require.NoError(t, err)
			if tc.wantReason == "" {
				require.NotEqual(t, "CREATE_FAILED", string(out.CurrentState))
				return
			}
			require.Equal(t, "CREATE_FAILED", string(out.CurrentState))
			require.Contains(t, aws.ToString(out.StateReason), tc.wantReason)
			_, err = client.DeletePipe(ctx, &pipes.DeletePipeInput{Name: aws.String(tc.name)})
			require.NoError(t, err)
		})
	}
}

// TestIAMMappingNeedsReceive: CreateEventSourceMapping refuses a function
// whose role cannot consume the queue, with Lambda's message.
func TestIAMMappingNeedsReceive(t *testing.T) {
	t.Parallel()
	_, admin := iamCloud(t)
	ctx := context.Background()
	q := "arn:aws:sqs:us-east-1:" + acct + ":work"
	_, err := sqs.NewFromConfig(admin).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("work"),
		Attributes: map[string]string{"VisibilityTimeout": "60"}})
	require.NoError(t, err)
	lam := lambda.NewFromConfig(admin)
	for _, tc := range []struct {
		name, actions, want string
	}{
		{"no-receive", `["sqs:DeleteMessage","sqs:GetQueueAttributes"]`, "The provided execution role does not have permissions to call ReceiveMessage on SQS"},
		{"no-delete", `["sqs:ReceiveMessage","sqs:GetQueueAttributes"]`, "The provided execution role does not have permissions to call DeleteMessage on SQS"},
		{"consumer", `["sqs:ReceiveMessage","sqs:DeleteMessage","sqs:GetQueueAttributes"]`, ""},
	} {
		role := createRole(t, admin, tc.name, lambdaTrust, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":`+tc.actions+`,"Resource":"`+q+`"}]}`)
		createStubFunction(t, admin, tc.name, role)
		_, err := lam.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{
			FunctionName: aws.String(tc.name), EventSourceArn: aws.String(q), Enabled: aws.Bool(false)})
		if tc.want == "" {
			require.NoError(t, err, tc.name)
			continue
		}
		ae := apiError(t, err)
		require.Equal(t, "InvalidParameterValueException", ae.ErrorCode(), tc.name)
		require.Equal(t, tc.want, ae.ErrorMessage(), tc.name)
	}
}

// TestIAMSchedulerInvokesAsItsRole: a schedule's Lambda invoke needs the
// target role to trust Scheduler (aws:SourceAccount) and to allow
// lambda:InvokeFunction on the function; the demo covers the granted case.
func TestIAMSchedulerInvokesAsItsRole(t *testing.T) {
	t.Parallel()
	c, admin := iamCloud(t)
	ctx := context.Background()
	createStubFunction(t, admin, "tick", createRole(t, admin, "tick-fn", lambdaTrust, ""))
	fn := "arn:aws:lambda:us-east-1:" + acct + ":function:tick"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"scheduler.amazonaws.com"},"Action":"sts:AssumeRole","Condition":{"StringEquals":{"aws:SourceAccount":"` + acct + `"}}}]}`
	for _, tc := range []struct {
		name, trust, policy, want string
	}{
		{"no-grant", trust, "", "is not authorized to perform: lambda:InvokeFunction on resource: " + fn},
		{"other-account", strings.ReplaceAll(trust, acct, "111122223333"), `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"lambda:InvokeFunction","Resource":"` + fn + `"}]}`,
			"scheduler.amazonaws.com is not authorized to perform: sts:AssumeRole"},
	} {
		role := createRole(t, admin, tc.name, tc.trust, tc.policy)
		_, err := scheduler.NewFromConfig(admin).CreateSchedule(ctx, &scheduler.CreateScheduleInput{
			Name: aws.String(tc.name), ScheduleExpression: aws.String("rate(1 hour)"),
			FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff},
			Target:             &schedtypes.Target{Arn: aws.String(fn), RoleArn: aws.String(role)},
		})
		require.NoError(t, err, tc.name)
		// A denied invoke never reaches the function (a granted one would
		// start the stub's process, which these tests avoid).
		_, err = c.Schedules().Fire(ctx, "", tc.name)
		require.ErrorIs(t, err, schedule.ErrInvokeRefused, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

// TestIAMFunctionLogsNeedTheirRole: Lambda delivers a function's logs as
// its execution role; without logs:CreateLogStream and logs:PutLogEvents
// on its group the function still runs and its log group gets no stream.
func TestIAMFunctionLogsNeedTheirRole(t *testing.T) {
	t.Parallel()
	c, admin := iamCloud(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, policy string
		streams      int
	}{
		{"mute", "", 0},
		{"stream-only", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"logs:CreateLogStream","Resource":"arn:aws:logs:us-east-1:` + acct + `:log-group:/aws/lambda/stream-only:log-stream:*"}]}`, 0},
		{"other-group", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["logs:CreateLogStream","logs:PutLogEvents"],"Resource":"arn:aws:logs:us-east-1:` + acct + `:log-group:/aws/lambda/other:log-stream:*"}]}`, 0},
		{"logger", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["logs:CreateLogStream","logs:PutLogEvents"],"Resource":"arn:aws:logs:us-east-1:` + acct + `:log-group:/aws/lambda/logger:log-stream:*"}]}`, 1},
	} {
		createStubFunction(t, admin, tc.name, createRole(t, admin, tc.name, lambdaTrust, tc.policy))
		// The stub's bootstrap exits at once: the invoke fails and the
		// platform logs INIT_START and the runtime's exit.
		_, err := lambda.NewFromConfig(admin).Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(tc.name)})
		require.NoError(t, err, tc.name)
		streams, err := c.Logs().Streams("/aws/lambda/" + tc.name)
		if tc.streams == 0 && err != nil {
			continue // no group: nothing was delivered
		}
		require.NoError(t, err, tc.name)
		require.Len(t, streams, tc.streams, tc.name)
	}
}

// TestIAMFunctionDescribesItsPipe: a function's Pipes calls are authorized
// as its role (the reconciler's pipes:DescribePipe on its pipe).
func TestIAMFunctionDescribesItsPipe(t *testing.T) {
	t.Parallel()
	c, admin := iamCloud(t)
	ctx := context.Background()
	role := createRole(t, admin, "reader", lambdaTrust, `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"pipes:DescribePipe","Resource":"arn:aws:pipes:us-east-1:`+acct+`:pipe/mine"}]}`)
	createStubFunction(t, admin, "reader", role)
	fp := pipes.NewFromConfig(asFunction(c, admin, "reader"))
	_, err := fp.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("mine")})
	require.Equal(t, "NotFoundException", apiError(t, err).ErrorCode(), "allowed: the pipe's absence is what fails")
	_, err = fp.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("theirs")})
	ae := apiError(t, err)
	require.Equal(t, "AccessDeniedException", ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), "is not authorized to perform: pipes:DescribePipe on resource: arn:aws:pipes:us-east-1:"+acct+":pipe/theirs because")
	_, err = fp.ListPipes(ctx, &pipes.ListPipesInput{})
	require.Contains(t, apiError(t, err).ErrorMessage(), "pipes:ListPipes on resource: *")
}

// TestIAMPipeLogsNeedTheirRole: a pipe's execution records reach its log
// group only if its role may write them (logs:CreateLogStream,
// logs:PutLogEvents); the executions themselves run either way.
func TestIAMPipeLogsNeedTheirRole(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", IAM: localcloud.IAMEnforce, LambdaTransition: -1,
		PipeRetryBackoff: time.Millisecond})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	admin := aws.Config{Region: emu.DefaultRegion, Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(c.URL()), RetryMaxAttempts: 1}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		logs    bool
		records bool
	}{{"mute", false, false}, {"logging", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			stream, target, dlq := streamAndQueues(t, admin, tc.name)
			group := "/aws/vendedlogs/pipes/" + tc.name
			require.NoError(t, c.Logs().CreateGroup(loggroup.CreateGroupInput{Name: group}))
			logs := ""
			if tc.logs {
				logs = `,{"Effect":"Allow","Action":["logs:CreateLogStream","logs:PutLogEvents"],"Resource":"arn:aws:logs:us-east-1:` + acct + `:log-group:` + group + `:log-stream:*"}`
			}
			// No sqs:SendMessage on the target: every execution fails, is
			// logged (level ERROR) and ends in the DLQ.
			role := createRole(t, admin, tc.name+"-pipe", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pipes.amazonaws.com"},"Action":"sts:AssumeRole"}]}`,
				`{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Action":["dynamodb:DescribeStream","dynamodb:GetRecords","dynamodb:GetShardIterator","dynamodb:ListStreams"],"Resource":"*"},
				{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"`+dlq+`"}`+logs+`]}`)
			_, err := pipes.NewFromConfig(admin).CreatePipe(ctx, &pipes.CreatePipeInput{Name: aws.String(tc.name), RoleArn: aws.String(role),
				Source: aws.String(stream), Target: aws.String(target),
				SourceParameters: &pipestypes.PipeSourceParameters{DynamoDBStreamParameters: &pipestypes.PipeSourceDynamoDBStreamParameters{
					StartingPosition: pipestypes.DynamoDBStreamStartPositionTrimHorizon, MaximumRetryAttempts: aws.Int32(1),
					DeadLetterConfig: &pipestypes.DeadLetterConfig{Arn: aws.String(dlq)}}},
				LogConfiguration: &pipestypes.PipeLogConfigurationParameters{Level: pipestypes.LogLevelError,
					CloudwatchLogsLogDestination: &pipestypes.CloudwatchLogsLogDestinationParameters{
						LogGroupArn: aws.String("arn:aws:logs:us-east-1:" + acct + ":log-group:" + group)}}})
			require.NoError(t, err)
			_, err = dynamodb.NewFromConfig(admin).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tc.name + "-tasks"),
				Item: map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "a"}}})
			require.NoError(t, err)
			dlqURL := "http://" + strings.TrimPrefix(c.URL(), "http://") + "/" + acct + "/" + tc.name + "-dlq"
			require.Eventually(t, func() bool {
				out, err := sqs.NewFromConfig(admin).GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL),
					AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
				return err == nil && out.Attributes["ApproximateNumberOfMessages"] == "1"
			}, 30*time.Second, 20*time.Millisecond, "the failed batch reaches the DLQ")
			streams, err := c.Logs().Streams(group)
			require.NoError(t, err)
			if !tc.records {
				require.Empty(t, streams)
				return
			}
			require.Equal(t, []string{tc.name}, streams)
			evs, err := c.Logs().Events(group, tc.name)
			require.NoError(t, err)
			require.NotEmpty(t, evs)
			require.Contains(t, evs[0].Message, `"messageType":"ExecutionFailed"`)
			require.Contains(t, evs[0].Message, `"resourceArn":"arn:aws:pipes:us-east-1:`+acct+`:pipe/`+tc.name+`"`)
			require.Contains(t, evs[0].Message, "is not authorized to perform: sqs:SendMessage on resource: "+target)
		})
	}
}
