package pipe_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// The whole control-plane lifecycle through the real SDK client.
func TestControlPlaneLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withInvoker(&echo{}))
	work, dlq := e.queue(t, "work"), e.queue(t, "pipe-dlq")
	ctx := context.Background()
	filters := becomesPending(t)

	in := pipeSpec{name: "dispatch", target: work, filters: filters, enrichment: enrichARN, dlq: dlq,
		bisect: true, retries: aws.Int32(3), maxAge: 3600, template: `{"taskId": <$.dynamodb.Keys.taskId.S>}`}.input(e.streamARN)
	in.Description = aws.String("Managed by Terraform")
	in.Tags = map[string]string{"team": "pipeline"}
	in.EnrichmentParameters = &ptypes.PipeEnrichmentParameters{InputTemplate: aws.String(`{"id": "<$.eventID>"}`)}
	in.LogConfiguration = &ptypes.PipeLogConfigurationParameters{Level: ptypes.LogLevelError,
		IncludeExecutionData: []ptypes.IncludeExecutionDataOption{ptypes.IncludeExecutionDataOptionAll},
		CloudwatchLogsLogDestination: &ptypes.CloudwatchLogsLogDestinationParameters{
			LogGroupArn: aws.String("arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/pipes/dispatch")}}
	created, err := e.api.CreatePipe(ctx, in)
	require.NoError(t, err)
	arn := "arn:aws:pipes:us-east-1:000000000000:pipe/dispatch"
	require.Equal(t, arn, aws.ToString(created.Arn))
	require.Equal(t, ptypes.PipeStateCreating, created.CurrentState)
	require.Equal(t, ptypes.RequestedPipeStateRunning, created.DesiredState)
	require.Equal(t, e.clock.Now(), created.CreationTime.UTC())
	e.waitState(t, "dispatch", ptypes.PipeStateRunning)

	d, err := e.api.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, arn, aws.ToString(d.Arn))
	require.Equal(t, "Managed by Terraform", aws.ToString(d.Description))
	require.Equal(t, ptypes.RequestedPipeStateDescribeResponseRunning, d.DesiredState)
	require.Equal(t, e.streamARN, aws.ToString(d.Source))
	require.Equal(t, work, aws.ToString(d.Target))
	require.Equal(t, enrichARN, aws.ToString(d.Enrichment))
	require.Equal(t, roleARN, aws.ToString(d.RoleArn))
	require.Equal(t, `{"id": "<$.eventID>"}`, aws.ToString(d.EnrichmentParameters.InputTemplate))
	require.Equal(t, `{"taskId": <$.dynamodb.Keys.taskId.S>}`, aws.ToString(d.TargetParameters.InputTemplate))
	require.Equal(t, ptypes.LogLevelError, d.LogConfiguration.Level)
	require.Equal(t, map[string]string{"team": "pipeline"}, d.Tags)
	require.Len(t, d.SourceParameters.FilterCriteria.Filters, 2)
	require.Equal(t, filters[1], aws.ToString(d.SourceParameters.FilterCriteria.Filters[1].Pattern))
	dp := d.SourceParameters.DynamoDBStreamParameters
	require.Equal(t, ptypes.DynamoDBStreamStartPositionLatest, dp.StartingPosition)
	require.Equal(t, int32(10), aws.ToInt32(dp.BatchSize), "default batch size for an SQS target")
	require.Equal(t, int32(0), aws.ToInt32(dp.MaximumBatchingWindowInSeconds))
	require.Equal(t, int32(3600), aws.ToInt32(dp.MaximumRecordAgeInSeconds))
	require.Equal(t, int32(3), aws.ToInt32(dp.MaximumRetryAttempts))
	require.Equal(t, int32(1), aws.ToInt32(dp.ParallelizationFactor))
	require.Equal(t, ptypes.OnPartialBatchItemFailureStreamsAutomaticBisect, dp.OnPartialBatchItemFailure)
	require.Equal(t, dlq, aws.ToString(dp.DeadLetterConfig.Arn))

	// UpdatePipe as the Terraform provider sends it: every stream parameter,
	// an empty DeadLetterConfig and an empty FilterCriteria.
	e.clock.Advance(time.Minute)
	up, err := e.api.UpdatePipe(ctx, &pipes.UpdatePipeInput{
		Name: aws.String("dispatch"), RoleArn: aws.String(roleARN), Description: aws.String("v2"),
		SourceParameters: &ptypes.UpdatePipeSourceParameters{
			FilterCriteria: &ptypes.FilterCriteria{},
			DynamoDBStreamParameters: &ptypes.UpdatePipeSourceDynamoDBStreamParameters{
				BatchSize: aws.Int32(5), MaximumBatchingWindowInSeconds: aws.Int32(2), MaximumRecordAgeInSeconds: aws.Int32(-1),
				ParallelizationFactor: aws.Int32(2), DeadLetterConfig: &ptypes.DeadLetterConfig{}},
		},
		TargetParameters: &ptypes.PipeTargetParameters{InputTemplate: aws.String("")},
		Enrichment:       aws.String(""),
	})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateUpdating, up.CurrentState)
	require.Equal(t, e.clock.Now(), up.LastModifiedTime.UTC())
	e.waitState(t, "dispatch", ptypes.PipeStateRunning)
	d, err = e.api.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, "v2", aws.ToString(d.Description))
	require.Nil(t, d.SourceParameters.FilterCriteria, "an empty FilterCriteria removes the filters")
	require.Nil(t, d.TargetParameters, "an empty InputTemplate removes it")
	require.Empty(t, aws.ToString(d.Enrichment))
	dp = d.SourceParameters.DynamoDBStreamParameters
	require.Equal(t, ptypes.DynamoDBStreamStartPositionLatest, dp.StartingPosition, "StartingPosition survives updates")
	require.Equal(t, int32(5), aws.ToInt32(dp.BatchSize))
	require.Equal(t, int32(2), aws.ToInt32(dp.ParallelizationFactor))
	require.Nil(t, dp.MaximumRetryAttempts, "parameters left out of an update return to their defaults")
	require.Empty(t, dp.OnPartialBatchItemFailure)
	require.Nil(t, dp.DeadLetterConfig)
	require.Equal(t, e.clock.Now(), d.LastModifiedTime.UTC())
	require.Equal(t, e.clock.Now().Add(-time.Minute), d.CreationTime.UTC())

	stopped, err := e.api.StopPipe(ctx, &pipes.StopPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateStopping, stopped.CurrentState)
	e.waitState(t, "dispatch", ptypes.PipeStateStopped)
	again, err := e.api.StopPipe(ctx, &pipes.StopPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateStopped, again.CurrentState)
	started, err := e.api.StartPipe(ctx, &pipes.StartPipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateStarting, started.CurrentState)
	e.waitState(t, "dispatch", ptypes.PipeStateRunning)

	_, err = e.api.TagResource(ctx, &pipes.TagResourceInput{ResourceArn: aws.String(arn), Tags: map[string]string{"env": "local"}})
	require.NoError(t, err)
	_, err = e.api.UntagResource(ctx, &pipes.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team"}})
	require.NoError(t, err)
	tags, err := e.api.ListTagsForResource(ctx, &pipes.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"env": "local"}, tags.Tags)

	del, err := e.api.DeletePipe(ctx, &pipes.DeletePipeInput{Name: aws.String("dispatch")})
	require.NoError(t, err)
	require.Equal(t, ptypes.PipeStateDeleting, del.CurrentState)
	require.Equal(t, ptypes.RequestedPipeStateDescribeResponseDeleted, del.DesiredState)
	_, err = e.api.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String("dispatch")})
	requireAPIError(t, err, 404, "NotFoundException", "Pipe dispatch does not exist.")
	_, err = e.api.DeletePipe(ctx, &pipes.DeletePipeInput{Name: aws.String("dispatch")})
	requireAPIError(t, err, 404, "NotFoundException", "does not exist")
	_, err = e.api.ListTagsForResource(ctx, &pipes.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	requireAPIError(t, err, 404, "NotFoundException", arn)

	// The REST operations are named for the router's request counters.
	ops := map[string]bool{}
	for _, c := range e.router.Counts() {
		if c.Service == emu.ServicePipes {
			ops[c.Operation] = true
		}
	}
	for _, op := range []string{"CreatePipe", "DescribePipe", "UpdatePipe", "StopPipe", "StartPipe", "TagResource",
		"UntagResource", "ListTagsForResource", "DeletePipe"} {
		require.True(t, ops[op], "operation %s not counted: %v", op, ops)
	}
}

func TestListPipes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work, other := e.queue(t, "work"), e.queue(t, "other")
	e.createPipe(t, pipeSpec{name: "a-one", target: work})
	e.createPipe(t, pipeSpec{name: "a-two", target: other, stopped: true})
	e.createPipe(t, pipeSpec{name: "b-three", target: work})
	ctx := context.Background()

	var names []string
	var pages int
	p := pipes.NewListPipesPaginator(e.api, &pipes.ListPipesInput{Limit: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		pages++
		for _, x := range out.Pipes {
			names = append(names, aws.ToString(x.Name))
			require.Equal(t, e.streamARN, aws.ToString(x.Source))
		}
	}
	require.Equal(t, []string{"a-one", "a-two", "b-three"}, names)
	require.Equal(t, 2, pages)

	for _, tc := range []struct {
		name string
		in   pipes.ListPipesInput
		want []string
	}{
		{"prefix", pipes.ListPipesInput{NamePrefix: aws.String("a-")}, []string{"a-one", "a-two"}},
		{"desired", pipes.ListPipesInput{DesiredState: ptypes.RequestedPipeStateStopped}, []string{"a-two"}},
		{"current", pipes.ListPipesInput{CurrentState: ptypes.PipeStateRunning}, []string{"a-one", "b-three"}},
		{"target", pipes.ListPipesInput{TargetPrefix: aws.String(other)}, []string{"a-two"}},
		{"source", pipes.ListPipesInput{SourcePrefix: aws.String("arn:aws:dynamodb:")}, []string{"a-one", "a-two", "b-three"}},
		{"none", pipes.ListPipesInput{SourcePrefix: aws.String("arn:aws:kinesis:")}, nil},
	} {
		out, err := e.api.ListPipes(ctx, &tc.in)
		require.NoError(t, err, tc.name)
		var got []string
		for _, x := range out.Pipes {
			got = append(got, aws.ToString(x.Name))
		}
		require.Equal(t, tc.want, got, tc.name)
		require.Nil(t, out.NextToken, tc.name)
	}
	_, err := e.api.ListPipes(ctx, &pipes.ListPipesInput{Limit: aws.Int32(101)})
	requireAPIError(t, err, 400, "ValidationException", "[numeric instance is greater than the required maximum (maximum: 100, found: 101)]")
}

// Invalid requests fail like AWS: the error type, status and message
// shapes of the Pipes API.
func TestCreatePipeValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	work := e.queue(t, "work")
	e.createPipe(t, pipeSpec{name: "exists", target: work})
	valid := func() pipeSpec { return pipeSpec{name: "p", target: work, filters: becomesPending(t)} }

	for _, tc := range []struct {
		name   string
		mutate func(*pipes.CreatePipeInput)
		status int
		code   string
		msg    string
	}{
		{
			name: "anything-but prefix is not a Pipes operator",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.FilterCriteria.Filters[0].Pattern = aws.String(`{"dynamodb":{"NewImage":{"status":{"S":[{"anything-but":{"prefix":"Pend"}}]}}}}`)
			},
			status: 400, code: "ValidationException",
			msg: "Invalid filter pattern definition in FilterCriteria.Filters[0]: Event pattern is not valid. Reason: the anything-but/prefix operator is not supported by EventBridge Pipes filters",
		},
		{
			name: "pattern that does not compile",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.FilterCriteria.Filters[1].Pattern = aws.String(`{"status":"Pending"}`)
			},
			status: 400, code: "ValidationException", msg: "Invalid filter pattern definition in FilterCriteria.Filters[1]",
		},
		{
			name: "batch size above the SQS limit",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.BatchSize = aws.Int32(11)
			},
			status: 400, code: "ValidationException",
			msg: `{"ValidationErrorFields":[{"Name":"BatchSize","Message":"BatchSize must be less than or equal to 10 when the target is an Amazon SQS queue."}]}`,
		},
		{
			name: "batch size above the model limit",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.BatchSize = aws.Int32(10001)
			},
			status: 400, code: "ValidationException",
			msg: "[numeric instance is greater than the required maximum (maximum: 10000, found: 10001)]",
		},
		{
			name: "record age of 30 seconds",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.MaximumRecordAgeInSeconds = aws.Int32(30)
			},
			status: 400, code: "ValidationException",
			msg: `{"ValidationErrorFields":[{"Name":"MaximumRecordAgeInSeconds","Message":"MaximumRecordAgeInSeconds must be either -1 (forever) or between 60 and 604800 (inclusive)"}]}`,
		},
		{
			name: "batching window not shorter than the record age",
			mutate: func(in *pipes.CreatePipeInput) {
				dp := in.SourceParameters.DynamoDBStreamParameters
				dp.MaximumRecordAgeInSeconds, dp.MaximumBatchingWindowInSeconds = aws.Int32(60), aws.Int32(60)
			},
			status: 400, code: "ValidationException", msg: "MaximumBatchingWindowInSeconds must be less than MaximumRecordAgeInSeconds.",
		},
		{
			name: "retry attempts below -1",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.MaximumRetryAttempts = aws.Int32(-2)
			},
			status: 400, code: "ValidationException", msg: "[numeric instance is lower than the required minimum (minimum: -1, found: -2)]",
		},
		{
			name: "parallelization factor 11",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.ParallelizationFactor = aws.Int32(11)
			},
			status: 400, code: "ValidationException", msg: "[numeric instance is greater than the required maximum (maximum: 10, found: 11)]",
		},
		{
			name: "starting position AT_TIMESTAMP",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.StartingPosition = "AT_TIMESTAMP"
			},
			status: 400, code: "ValidationException", msg: `[instance value ("AT_TIMESTAMP") not found in enum (possible values: ["TRIM_HORIZON","LATEST"])]`,
		},
		{
			name: "six filters",
			mutate: func(in *pipes.CreatePipeInput) {
				f := in.SourceParameters.FilterCriteria.Filters[0]
				in.SourceParameters.FilterCriteria.Filters = []ptypes.Filter{f, f, f, f, f, f}
			},
			status: 400, code: "ValidationException", msg: "[array is too long: must have at most 5 elements but instance has 6 elements]",
		},
		{
			name: "pattern longer than 4096",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.FilterCriteria.Filters[0].Pattern = aws.String(`{"a":["` + strings.Repeat("x", 4100) + `"]}`)
			},
			status: 400, code: "ValidationException", msg: "is too long (length: 4110, maximum allowed: 4096)]",
		},
		{
			name:   "SQS queue as source",
			mutate: func(in *pipes.CreatePipeInput) { in.Source = aws.String(work) },
			status: 400, code: "ValidationException", msg: "is not supported by the taskpipe local cloud: it runs DynamoDB stream sources only",
		},
		{
			name: "stream that does not exist",
			mutate: func(in *pipes.CreatePipeInput) {
				in.Source = aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/nope/stream/2026-03-01T12:00:00.000")
			},
			status: 400, code: "ValidationException", msg: "Cannot access stream arn:aws:dynamodb:us-east-1:000000000000:table/nope/stream/2026-03-01T12:00:00.000",
		},
		{
			name:   "Lambda target",
			mutate: func(in *pipes.CreatePipeInput) { in.Target = aws.String(enrichARN) },
			status: 400, code: "ValidationException", msg: "it runs Amazon SQS queue targets only",
		},
		{
			name:   "queue that does not exist",
			mutate: func(in *pipes.CreatePipeInput) { in.Target = aws.String("arn:aws:sqs:us-east-1:000000000000:nope") },
			status: 400, code: "ValidationException", msg: "the queue does not exist",
		},
		{
			name:   "enrichment without a Lambda service",
			mutate: func(in *pipes.CreatePipeInput) { in.Enrichment = aws.String(enrichARN) },
			status: 400, code: "ValidationException", msg: "started without a Lambda service",
		},
		{
			name: "step functions enrichment",
			mutate: func(in *pipes.CreatePipeInput) {
				in.Enrichment = aws.String("arn:aws:states:us-east-1:000000000000:stateMachine:enrich")
			},
			status: 400, code: "ValidationException", msg: "it runs AWS Lambda function enrichments only",
		},
		{
			name: "SNS dead-letter queue",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig = &ptypes.DeadLetterConfig{
					Arn: aws.String("arn:aws:sns:us-east-1:000000000000:alerts")}
			},
			status: 400, code: "ValidationException", msg: "pipe dead-letter queues must be Amazon SQS queues",
		},
		{
			name: "bad input template path",
			mutate: func(in *pipes.CreatePipeInput) {
				in.TargetParameters = &ptypes.PipeTargetParameters{InputTemplate: aws.String(`{"a": <$.dynamodb..Keys>}`)}
			},
			status: 400, code: "ValidationException", msg: "TargetParameters.InputTemplate is not valid: invalid JSON path <$.dynamodb..Keys>",
		},
		{
			name: "unknown reserved variable",
			mutate: func(in *pipes.CreatePipeInput) {
				in.TargetParameters = &ptypes.PipeTargetParameters{InputTemplate: aws.String(`<aws.pipes.nope>`)}
			},
			status: 400, code: "ValidationException", msg: "unknown variable <aws.pipes.nope>",
		},
		{
			name: "missing stream parameters",
			mutate: func(in *pipes.CreatePipeInput) {
				in.SourceParameters.DynamoDBStreamParameters = nil
			},
			status: 400, code: "ValidationException", msg: "DynamoDBStreamParameters, including StartingPosition, are required",
		},
		{
			name:   "bad role ARN",
			mutate: func(in *pipes.CreatePipeInput) { in.RoleArn = aws.String("pipe-role") },
			status: 400, code: "ValidationException",
			msg: `[ECMA 262 regex "arn:(aws[a-zA-Z-]*)?:iam::\\d{12}:role/?[a-zA-Z0-9+=,.@\\-_/]+" does not match input string "pipe-role"]`,
		},
		{
			name:   "bad name",
			mutate: func(in *pipes.CreatePipeInput) { in.Name = aws.String("no spaces") },
			status: 400, code: "ValidationException", msg: `[ECMA 262 regex "[\\.\\-_A-Za-z0-9]+" does not match input string "no spaces"]`,
		},
		{
			name:   "name too long",
			mutate: func(in *pipes.CreatePipeInput) { in.Name = aws.String(strings.Repeat("n", 65)) },
			status: 400, code: "ValidationException", msg: "is too long (length: 65, maximum allowed: 64)]",
		},
		{
			name:   "existing name",
			mutate: func(in *pipes.CreatePipeInput) { in.Name = aws.String("exists") },
			status: 409, code: "ConflictException", msg: "Pipe exists already exists.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := valid().input(e.streamARN)
			tc.mutate(in)
			_, err := e.api.CreatePipe(context.Background(), in)
			requireAPIError(t, err, tc.status, tc.code, tc.msg)
			if tc.code != "ConflictException" {
				_, err = e.api.DescribePipe(context.Background(), &pipes.DescribePipeInput{Name: aws.String("p")})
				requireAPIError(t, err, 404, "NotFoundException", "")
			}
		})
	}

	// Several model violations are reported together, with a fieldList.
	in := valid().input(e.streamARN)
	in.SourceParameters.DynamoDBStreamParameters.BatchSize = aws.Int32(0)
	in.SourceParameters.DynamoDBStreamParameters.MaximumBatchingWindowInSeconds = aws.Int32(301)
	_, err := e.api.CreatePipe(context.Background(), in)
	var ve *ptypes.ValidationException
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "[numeric instance is lower than the required minimum (minimum: 1, found: 0), "+
		"numeric instance is greater than the required maximum (maximum: 300, found: 301)]", ve.ErrorMessage())
	require.Len(t, ve.FieldList, 2)
	require.Equal(t, "SourceParameters.DynamoDBStreamParameters.BatchSize", aws.ToString(ve.FieldList[0].Name))
	require.Equal(t, "numeric instance is lower than the required minimum (minimum: 1, found: 0)", aws.ToString(ve.FieldList[0].Message))
	require.Equal(t, "SourceParameters.DynamoDBStreamParameters.MaximumBatchingWindowInSeconds", aws.ToString(ve.FieldList[1].Name))

	// An UpdatePipe is validated as a whole against the pipe it changes.
	_, err = e.api.UpdatePipe(context.Background(), &pipes.UpdatePipeInput{Name: aws.String("exists"), RoleArn: aws.String(roleARN),
		SourceParameters: &ptypes.UpdatePipeSourceParameters{DynamoDBStreamParameters: &ptypes.UpdatePipeSourceDynamoDBStreamParameters{
			MaximumRecordAgeInSeconds: aws.Int32(0), MaximumBatchingWindowInSeconds: aws.Int32(0)}}})
	requireAPIError(t, err, 400, "ValidationException",
		`{"ValidationErrorFields":[{"Name":"MaximumRecordAgeInSeconds","Message":"MaximumRecordAgeInSeconds must be either -1 (forever) or between 60 and 604800 (inclusive)"},{"Name":"MaximumBatchingWindowInSeconds","Message":"MaximumBatchingWindowInSeconds must be less than MaximumRecordAgeInSeconds."}]}`)
	_, err = e.api.UpdatePipe(context.Background(), &pipes.UpdatePipeInput{Name: aws.String("nope"), RoleArn: aws.String(roleARN)})
	requireAPIError(t, err, 404, "NotFoundException", "Pipe nope does not exist.")
}

// What only a raw request can get wrong: malformed bodies, missing
// required members, unknown routes.
func TestRawRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, msg                string
	}{
		{"malformed JSON", http.MethodPost, "/v1/pipes/p", `{"RoleArn":`, 400, "SerializationException", "request body is not a valid pipe definition"},
		{"wrong member type", http.MethodPost, "/v1/pipes/p", `{"SourceParameters":{"DynamoDBStreamParameters":{"BatchSize":"ten"}}}`, 400, "ValidationException",
			`instance type (string) does not match any allowed primitive type (allowed: ["integer"])`},
		{"missing members", http.MethodPost, "/v1/pipes/p", `{}`, 400, "ValidationException",
			`[object has missing required properties (["Source","Target","RoleArn"])]`},
		{"unknown route", http.MethodPatch, "/v1/pipes/p", ``, 404, "UnknownOperationException", "PATCH /v1/pipes/p"},
		{"bad NextToken", http.MethodGet, "/v1/pipes?NextToken=%21%21", ``, 400, "ValidationException", "Invalid NextToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tc.method, e.url+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			// The router tells services apart by the SigV4 credential scope.
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/pipes/aws4_request, SignedHeaders=host, Signature=x")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.status, resp.StatusCode, string(b))
			require.Equal(t, tc.code, resp.Header.Get("X-Amzn-ErrorType"))
			var body struct {
				Message string `json:"message"`
			}
			require.NoError(t, json.Unmarshal(b, &body))
			require.Contains(t, body.Message, tc.msg)
		})
	}
}

// requireAPIError checks an SDK error's HTTP status, error code and message.
func requireAPIError(t *testing.T, err error, status int, code, msg string) {
	t.Helper()
	require.Error(t, err)
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	require.Equal(t, status, re.HTTPStatusCode(), err.Error())
	var ae interface {
		ErrorCode() string
		ErrorMessage() string
	}
	require.True(t, errors.As(err, &ae), err.Error())
	require.Equal(t, code, ae.ErrorCode())
	require.Contains(t, ae.ErrorMessage(), msg)
}
