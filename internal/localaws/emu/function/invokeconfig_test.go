package function_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

func TestEventInvokeConfigAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "cfg", nil)

	_, err := b.lambda.GetFunctionEventInvokeConfig(b.ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: aws.String("cfg")})
	var nf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &nf, "no configuration yet")

	put, err := b.lambda.PutFunctionEventInvokeConfig(b.ctx, &lambda.PutFunctionEventInvokeConfigInput{
		FunctionName: aws.String("cfg"), MaximumRetryAttempts: aws.Int32(1), MaximumEventAgeInSeconds: aws.Int32(120),
	})
	require.NoError(t, err)
	require.Equal(t, int32(1), aws.ToInt32(put.MaximumRetryAttempts))
	require.Equal(t, int32(120), aws.ToInt32(put.MaximumEventAgeInSeconds))
	require.Contains(t, aws.ToString(put.FunctionArn), ":function:cfg:$LATEST")
	require.NotNil(t, put.LastModified)

	// Update merges; Put replaces (unset settings fall back to defaults).
	upd, err := b.lambda.UpdateFunctionEventInvokeConfig(b.ctx, &lambda.UpdateFunctionEventInvokeConfigInput{
		FunctionName: aws.String("cfg"), MaximumRetryAttempts: aws.Int32(2),
	})
	require.NoError(t, err)
	require.Equal(t, int32(2), aws.ToInt32(upd.MaximumRetryAttempts))
	require.Equal(t, int32(120), aws.ToInt32(upd.MaximumEventAgeInSeconds))
	rep, err := b.lambda.PutFunctionEventInvokeConfig(b.ctx, &lambda.PutFunctionEventInvokeConfigInput{
		FunctionName: aws.String("cfg"), MaximumRetryAttempts: aws.Int32(0),
	})
	require.NoError(t, err)
	require.Nil(t, rep.MaximumEventAgeInSeconds)

	got, err := b.lambda.GetFunctionEventInvokeConfig(b.ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: aws.String("cfg")})
	require.NoError(t, err)
	require.Equal(t, int32(0), aws.ToInt32(got.MaximumRetryAttempts))
	list, err := b.lambda.ListFunctionEventInvokeConfigs(b.ctx, &lambda.ListFunctionEventInvokeConfigsInput{FunctionName: aws.String("cfg")})
	require.NoError(t, err)
	require.Len(t, list.FunctionEventInvokeConfigs, 1)

	_, err = b.lambda.DeleteFunctionEventInvokeConfig(b.ctx, &lambda.DeleteFunctionEventInvokeConfigInput{FunctionName: aws.String("cfg")})
	require.NoError(t, err)
	_, err = b.lambda.DeleteFunctionEventInvokeConfig(b.ctx, &lambda.DeleteFunctionEventInvokeConfigInput{FunctionName: aws.String("cfg")})
	require.ErrorAs(t, err, &nf)
	list, err = b.lambda.ListFunctionEventInvokeConfigs(b.ctx, &lambda.ListFunctionEventInvokeConfigsInput{FunctionName: aws.String("cfg")})
	require.NoError(t, err)
	require.Empty(t, list.FunctionEventInvokeConfigs)
}

func TestEventInvokeConfigRejects(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "cfg", nil)
	tests := []struct {
		name string
		in   *lambda.PutFunctionEventInvokeConfigInput
		code string
	}{
		{"retries above 2", &lambda.PutFunctionEventInvokeConfigInput{MaximumRetryAttempts: aws.Int32(3)}, "ValidationException"},
		{"event age below 60", &lambda.PutFunctionEventInvokeConfigInput{MaximumEventAgeInSeconds: aws.Int32(59)}, "ValidationException"},
		{"event age above 6 h", &lambda.PutFunctionEventInvokeConfigInput{MaximumEventAgeInSeconds: aws.Int32(21601)}, "ValidationException"},
		{"destination", &lambda.PutFunctionEventInvokeConfigInput{DestinationConfig: &types.DestinationConfig{
			OnFailure: &types.OnFailure{Destination: aws.String("arn:aws:sqs:us-east-1:000000000000:dlq")}}}, "InvalidParameterValueException"},
		{"unknown function", &lambda.PutFunctionEventInvokeConfigInput{FunctionName: aws.String("nope")}, "ResourceNotFoundException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.FunctionName == nil {
				tt.in.FunctionName = aws.String("cfg")
			}
			_, err := b.lambda.PutFunctionEventInvokeConfig(b.ctx, tt.in)
			var api interface{ ErrorCode() string }
			require.True(t, errors.As(err, &api), "%v", err)
			require.Equal(t, tt.code, api.ErrorCode())
		})
	}
}

// A failing asynchronous event gets MaximumRetryAttempts retries, not
// Lambda's default two.
func TestEventInvokeConfigLimitsAsyncRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "noretry", nil)
	_, err := b.lambda.PutFunctionEventInvokeConfig(b.ctx, &lambda.PutFunctionEventInvokeConfigInput{
		FunctionName: aws.String("noretry"), MaximumRetryAttempts: aws.Int32(0),
	})
	require.NoError(t, err)
	_, err = b.svc.Invoke(b.ctx, "noretry", payload(t, event{Action: "error", Value: "always"}), function.InvokeOptions{Type: function.Async})
	require.NoError(t, err)
	eventually(t, func() bool {
		st, _ := b.svc.Stats("noretry")
		return st.AsyncDropped == 1
	}, "the failing event is dropped")
	st, err := b.svc.Stats("noretry")
	require.NoError(t, err)
	require.Equal(t, int64(1), st.Invocations, "no retry")
	require.Equal(t, int64(1), st.Errors)
}
