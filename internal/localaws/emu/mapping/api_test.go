package mapping_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
)

func TestAPILifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "lifecycle", 30)

	created, err := b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
		FunctionName:   aws.String("worker"),
		EventSourceArn: aws.String(queueARN),
	})
	require.NoError(t, err)
	id := aws.ToString(created.UUID)
	require.NotEmpty(t, id)
	// The AWS-recorded response of a default SQS mapping.
	require.Equal(t, int32(10), aws.ToInt32(created.BatchSize))
	require.Equal(t, int32(0), aws.ToInt32(created.MaximumBatchingWindowInSeconds))
	require.Equal(t, queueARN, aws.ToString(created.EventSourceArn))
	require.Equal(t, functionARN("worker"), aws.ToString(created.FunctionArn))
	require.Equal(t, "arn:aws:lambda:us-east-1:000000000000:event-source-mapping:"+id, aws.ToString(created.EventSourceMappingArn))
	require.Empty(t, created.FunctionResponseTypes)
	require.Equal(t, mapping.StateCreating, aws.ToString(created.State))
	require.Equal(t, "USER_INITIATED", aws.ToString(created.StateTransitionReason))
	require.True(t, b.clock.Now().Equal(aws.ToTime(created.LastModified)), "LastModified %v", created.LastModified)
	require.Nil(t, created.ScalingConfig)
	require.Nil(t, created.FilterCriteria)

	got, err := b.client.GetEventSourceMapping(b.ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
	require.NoError(t, err)
	require.Equal(t, mapping.StateEnabled, aws.ToString(got.State))

	updated, err := b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{
		UUID:                           aws.String(id),
		BatchSize:                      aws.Int32(100),
		MaximumBatchingWindowInSeconds: aws.Int32(5),
		FunctionResponseTypes:          []types.FunctionResponseType{types.FunctionResponseTypeReportBatchItemFailures},
		ScalingConfig:                  &types.ScalingConfig{MaximumConcurrency: aws.Int32(140)},
		FilterCriteria:                 &types.FilterCriteria{Filters: []types.Filter{{Pattern: aws.String(`{"body":{"kind":["task"]}}`)}}},
		MetricsConfig:                  &types.EventSourceMappingMetricsConfig{Metrics: []types.EventSourceMappingMetric{types.EventSourceMappingMetricEventCount}},
	})
	require.NoError(t, err)
	require.Equal(t, mapping.StateUpdating, aws.ToString(updated.State))
	require.Equal(t, int32(100), aws.ToInt32(updated.BatchSize))
	require.Equal(t, int32(5), aws.ToInt32(updated.MaximumBatchingWindowInSeconds))
	require.Equal(t, []types.FunctionResponseType{types.FunctionResponseTypeReportBatchItemFailures}, updated.FunctionResponseTypes)
	require.Equal(t, int32(140), aws.ToInt32(updated.ScalingConfig.MaximumConcurrency))
	require.Equal(t, `{"body":{"kind":["task"]}}`, aws.ToString(updated.FilterCriteria.Filters[0].Pattern))
	require.Equal(t, []types.EventSourceMappingMetric{types.EventSourceMappingMetricEventCount}, updated.MetricsConfig.Metrics)

	disabled, err := b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(id), Enabled: aws.Bool(false)})
	require.NoError(t, err)
	require.Equal(t, mapping.StateDisabling, aws.ToString(disabled.State))
	require.Equal(t, int32(100), aws.ToInt32(disabled.BatchSize), "an update keeps what it does not name")
	got, err = b.client.GetEventSourceMapping(b.ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
	require.NoError(t, err)
	require.Equal(t, mapping.StateDisabled, aws.ToString(got.State))

	enabled, err := b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{
		UUID: aws.String(id), Enabled: aws.Bool(true),
		FilterCriteria: &types.FilterCriteria{}, ScalingConfig: &types.ScalingConfig{},
	})
	require.NoError(t, err)
	require.Equal(t, mapping.StateEnabling, aws.ToString(enabled.State))
	require.Nil(t, enabled.FilterCriteria, "an empty FilterCriteria removes the filters")
	require.Nil(t, enabled.ScalingConfig, "an empty ScalingConfig removes the cap")

	deleted, err := b.client.DeleteEventSourceMapping(b.ctx, &lambda.DeleteEventSourceMappingInput{UUID: aws.String(id)})
	require.NoError(t, err)
	require.Equal(t, mapping.StateDeleting, aws.ToString(deleted.State))

	_, err = b.client.GetEventSourceMapping(b.ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
	_, err = b.client.DeleteEventSourceMapping(b.ctx, &lambda.DeleteEventSourceMappingInput{UUID: aws.String(id)})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)
}

func TestAPICreateDisabled(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "disabled", 30)
	out, err := b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
		FunctionName: aws.String(functionARN("worker")), EventSourceArn: aws.String(queueARN), Enabled: aws.Bool(false),
		BatchSize: aws.Int32(1),
	})
	require.NoError(t, err)
	// AWS-recorded: a mapping created disabled answers Disabled at once.
	require.Equal(t, mapping.StateDisabled, aws.ToString(out.State))
	require.Equal(t, int32(1), aws.ToInt32(out.BatchSize))
}

// TestAPIStatusCodes checks the wire status codes the SDK hides: 202 for
// create, update and delete (docs/aws-behaviour.md §4.7), 200 for get and list.
func TestAPIStatusCodes(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "status", 30)
	do := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequestWithContext(b.ctx, method, b.url+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=x")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.Unmarshal(raw, &out), "body %s", raw)
		return resp.StatusCode, out
	}
	status, created := do(http.MethodPost, mapping.PathPrefix+"/", `{"FunctionName":"worker","EventSourceArn":"`+queueARN+`"}`)
	require.Equal(t, http.StatusAccepted, status)
	id := created["UUID"].(string)
	require.IsType(t, float64(0), created["LastModified"], "LastModified is epoch seconds")
	require.Equal(t, []any{}, created["FunctionResponseTypes"])

	status, _ = do(http.MethodGet, mapping.PathPrefix+"/"+id, "")
	require.Equal(t, http.StatusOK, status)
	status, _ = do(http.MethodGet, mapping.PathPrefix, "")
	require.Equal(t, http.StatusOK, status)
	status, _ = do(http.MethodPut, mapping.PathPrefix+"/"+id, `{"BatchSize":2}`)
	require.Equal(t, http.StatusAccepted, status)
	status, _ = do(http.MethodDelete, mapping.PathPrefix+"/"+id, "")
	require.Equal(t, http.StatusAccepted, status)

	status, body := do(http.MethodPost, mapping.PathPrefix, `{"FunctionName":`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "User", body["Type"])
	require.Contains(t, body["message"], "Could not parse request body into json")
	status, body = do(http.MethodGet, mapping.PathPrefix+"/"+id, "")
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "The resource you requested does not exist.", body["Message"], "ResourceNotFoundException uses Message")
}

func TestAPIList(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	var ids []string
	queues := []string{b.queue(t, "list-a", 30), b.queue(t, "list-b", 30), b.queue(t, "list-c", 30)}
	for i, q := range queues {
		fn := "worker"
		if i == 2 {
			fn = "other"
		}
		out, err := b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
			FunctionName: aws.String(fn), EventSourceArn: aws.String(q), Enabled: aws.Bool(false),
		})
		require.NoError(t, err)
		ids = append(ids, aws.ToString(out.UUID))
	}
	list := func(in *lambda.ListEventSourceMappingsInput) ([]string, *string) {
		t.Helper()
		out, err := b.client.ListEventSourceMappings(b.ctx, in)
		require.NoError(t, err)
		got := []string{}
		for _, m := range out.EventSourceMappings {
			got = append(got, aws.ToString(m.UUID))
		}
		return got, out.NextMarker
	}
	tests := []struct {
		name string
		in   lambda.ListEventSourceMappingsInput
		want []string
	}{
		{"All", lambda.ListEventSourceMappingsInput{}, ids},
		{"ByQueue", lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queues[1])}, ids[1:2]},
		{"ByFunctionName", lambda.ListEventSourceMappingsInput{FunctionName: aws.String("worker")}, ids[:2]},
		{"ByFunctionARN", lambda.ListEventSourceMappingsInput{FunctionName: aws.String(functionARN("other"))}, ids[2:]},
		{"UnknownFunction", lambda.ListEventSourceMappingsInput{FunctionName: aws.String("nope")}, []string{}},
		{"QueueAndFunction", lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queues[2]), FunctionName: aws.String("worker")}, []string{}},
	}
	for _, tt := range tests {
		got, next := list(&tt.in)
		require.Equal(t, tt.want, got, tt.name)
		require.Nil(t, next, tt.name)
	}

	page1, next := list(&lambda.ListEventSourceMappingsInput{MaxItems: aws.Int32(2)})
	require.Equal(t, ids[:2], page1)
	require.NotNil(t, next)
	page2, next := list(&lambda.ListEventSourceMappingsInput{MaxItems: aws.Int32(2), Marker: next})
	require.Equal(t, ids[2:], page2)
	require.Nil(t, next)

	var pages []string
	p := lambda.NewListEventSourceMappingsPaginator(b.client, &lambda.ListEventSourceMappingsInput{MaxItems: aws.Int32(1)})
	for p.HasMorePages() {
		out, err := p.NextPage(b.ctx)
		require.NoError(t, err)
		for _, m := range out.EventSourceMappings {
			pages = append(pages, aws.ToString(m.UUID))
		}
	}
	require.Equal(t, ids, pages)

	_, err := b.client.ListEventSourceMappings(b.ctx, &lambda.ListEventSourceMappingsInput{Marker: aws.String("not a marker")})
	requireAPIError(t, err, "InvalidParameterValueException", http.StatusBadRequest)
}

func TestAPIValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "validation", 30)
	b.lambda.timeouts[functionARN("slow")] = 60 * time.Second
	const invalidFilter = "Invalid filter pattern definition."
	pattern := func(p *string) *types.FilterCriteria {
		return &types.FilterCriteria{Filters: []types.Filter{{Pattern: p}}}
	}
	tests := []struct {
		name    string
		in      lambda.CreateEventSourceMappingInput
		code    string
		status  int
		message string
	}{
		{
			name: "BatchOver10WithoutWindow", in: lambda.CreateEventSourceMappingInput{BatchSize: aws.Int32(11)},
			code: "InvalidParameterValueException", status: 400,
			message: "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10",
		},
		{name: "BatchZero", in: lambda.CreateEventSourceMappingInput{BatchSize: aws.Int32(0)}, code: "ValidationException", status: 400, message: "greater than or equal to 1"},
		{name: "BatchTooLarge", in: lambda.CreateEventSourceMappingInput{BatchSize: aws.Int32(10001), MaximumBatchingWindowInSeconds: aws.Int32(1)}, code: "ValidationException", status: 400, message: "less than or equal to 10000"},
		{name: "WindowTooLong", in: lambda.CreateEventSourceMappingInput{MaximumBatchingWindowInSeconds: aws.Int32(301)}, code: "ValidationException", status: 400, message: "maximumBatchingWindowInSeconds"},
		{name: "ConcurrencyOne", in: lambda.CreateEventSourceMappingInput{ScalingConfig: &types.ScalingConfig{MaximumConcurrency: aws.Int32(1)}}, code: "ValidationException", status: 400, message: "greater than or equal to 2"},
		{name: "ConcurrencyTooHigh", in: lambda.CreateEventSourceMappingInput{ScalingConfig: &types.ScalingConfig{MaximumConcurrency: aws.Int32(1001)}}, code: "ValidationException", status: 400, message: "less than or equal to 1000"},
		{name: "ResponseType", in: lambda.CreateEventSourceMappingInput{FunctionResponseTypes: []types.FunctionResponseType{"Bogus"}}, code: "ValidationException", status: 400, message: "ReportBatchItemFailures"},
		{name: "FilterNull", in: lambda.CreateEventSourceMappingInput{FilterCriteria: pattern(nil)}, code: "InvalidParameterValueException", status: 400, message: invalidFilter},
		{name: "FilterPlainString", in: lambda.CreateEventSourceMappingInput{FilterCriteria: pattern(aws.String("simple string"))}, code: "InvalidParameterValueException", status: 400, message: invalidFilter},
		{name: "FilterNonArrayLeaf", in: lambda.CreateEventSourceMappingInput{FilterCriteria: pattern(aws.String(`{"eventSource":"aws:sqs"}`))}, code: "InvalidParameterValueException", status: 400, message: invalidFilter},
		{name: "FilterEmptyArray", in: lambda.CreateEventSourceMappingInput{FilterCriteria: pattern(aws.String(`{"eventSource":[]}`))}, code: "InvalidParameterValueException", status: 400, message: invalidFilter},
		{name: "FilterMalformed", in: lambda.CreateEventSourceMappingInput{FilterCriteria: pattern(aws.String(`{"body":`))}, code: "InvalidParameterValueException", status: 400, message: invalidFilter},
		{
			name: "StartingPosition", in: lambda.CreateEventSourceMappingInput{StartingPosition: types.EventSourcePositionLatest},
			code: "InvalidParameterValueException", status: 400, message: "StartingPosition is not valid for SQS event sources.",
		},
		{name: "StreamOption", in: lambda.CreateEventSourceMappingInput{BisectBatchOnFunctionError: aws.Bool(true)}, code: "InvalidParameterValueException", status: 400, message: "BisectBatchOnFunctionError is not valid for SQS event sources."},
		{
			name: "StreamSource", in: lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2026-03-01T00:00:00.000")},
			code: "InvalidParameterValueException", status: 400, message: "supports only Amazon SQS event sources; dynamodb sources",
		},
		{name: "MissingQueue", in: lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String("arn:aws:sqs:us-east-1:000000000000:nope")}, code: "InvalidParameterValueException", status: 400, message: "does not exist"},
		{name: "UnknownFunction", in: lambda.CreateEventSourceMappingInput{FunctionName: aws.String("nope")}, code: "ResourceNotFoundException", status: 404, message: "Function does not exist"},
		{
			name: "VisibilityBelowFunctionTimeout", in: lambda.CreateEventSourceMappingInput{FunctionName: aws.String("slow")},
			code: "InvalidParameterValueException", status: 400, message: "Queue visibility timeout: 30 seconds is less than Function timeout: 60 seconds",
		},
	}
	// The group returns once its parallel cases have finished.
	t.Run("Cases", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				in := tt.in
				if in.FunctionName == nil {
					in.FunctionName = aws.String("worker")
				}
				if in.EventSourceArn == nil {
					in.EventSourceArn = aws.String(queueARN)
				}
				_, err := b.client.CreateEventSourceMapping(b.ctx, &in)
				requireAPIError(t, err, tt.code, tt.status)
				require.Contains(t, err.Error(), tt.message)
			})
		}
	})
	// Nothing was created by the refused requests.
	out, err := b.client.ListEventSourceMappings(b.ctx, &lambda.ListEventSourceMappingsInput{})
	require.NoError(t, err)
	require.Empty(t, out.EventSourceMappings)
}

func TestAPIConflictAndUpdateValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "conflict", 30)
	first, err := b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
		FunctionName: aws.String("worker"), EventSourceArn: aws.String(queueARN), Enabled: aws.Bool(false),
	})
	require.NoError(t, err)
	id := aws.ToString(first.UUID)

	_, err = b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
		FunctionName: aws.String("worker"), EventSourceArn: aws.String(queueARN),
	})
	var conflict *types.ResourceConflictException
	require.ErrorAs(t, err, &conflict)
	requireAPIError(t, err, "ResourceConflictException", http.StatusConflict)
	// The AWS-recorded message (LocalStack test_duplicate_event_source_mappings).
	require.Equal(t, `An event source mapping with SQS arn (" `+queueARN+` ") and function (" worker ") already exists. Please update or delete the existing mapping with UUID `+id,
		aws.ToString(conflict.Message))

	// Another function on the same queue is fine; moving it onto the first
	// mapping's function is the same conflict.
	second, err := b.client.CreateEventSourceMapping(b.ctx, &lambda.CreateEventSourceMappingInput{
		FunctionName: aws.String("other"), EventSourceArn: aws.String(queueARN), Enabled: aws.Bool(false),
	})
	require.NoError(t, err)
	_, err = b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{UUID: second.UUID, FunctionName: aws.String("worker")})
	requireAPIError(t, err, "ResourceConflictException", http.StatusConflict)

	// The batch-window rule holds for updates too (AWS-recorded).
	_, err = b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(id), BatchSize: aws.Int32(50)})
	requireAPIError(t, err, "InvalidParameterValueException", http.StatusBadRequest)
	require.Contains(t, err.Error(), "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
	_, err = b.client.UpdateEventSourceMapping(b.ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String("no-such-uuid"), BatchSize: aws.Int32(5)})
	requireAPIError(t, err, "ResourceNotFoundException", http.StatusNotFound)

	got, err := b.client.GetEventSourceMapping(b.ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(id)})
	require.NoError(t, err)
	require.Equal(t, int32(10), aws.ToInt32(got.BatchSize), "a refused update changes nothing")
}

func TestTags(t *testing.T) {
	t.Parallel()
	b := setup(t, mapping.Options{})
	queueARN := b.queue(t, "tags", 30)
	cfg := b.create(t, mapping.CreateRequest{EventSourceArn: aws.String(queueARN), Enabled: aws.Bool(false), Tags: map[string]string{"team": "scrape"}})
	tags, err := b.svc.Tags(cfg.EventSourceMappingArn)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"team": "scrape"}, tags)
	require.NoError(t, b.svc.TagResource(cfg.EventSourceMappingArn, map[string]string{"env": "local"}))
	require.NoError(t, b.svc.UntagResource(cfg.EventSourceMappingArn, []string{"team"}))
	tags, err = b.svc.Tags(cfg.EventSourceMappingArn)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"env": "local"}, tags)
	_, err = b.svc.Tags("arn:aws:lambda:us-east-1:000000000000:event-source-mapping:nope")
	require.ErrorIs(t, err, mapping.ErrResourceNotFound)
}
