package function_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

// TestAccountConcurrencyLimitsReservations: reservations must leave 100
// unreserved (PutFunctionConcurrency API reference), so a quota of 150
// allows at most 50 reserved in total, and a small quota allows none.
func TestAccountConcurrencyLimitsReservations(t *testing.T) {
	t.Parallel()
	const msg = "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100]."
	tests := []struct {
		name    string
		quota   int
		reserve []int32 // one function each, in order
		wantErr int     // index of the first reservation refused, -1: none
	}{
		{name: "default quota takes 140 + 1", quota: 0, reserve: []int32{140, 1}, wantErr: -1},
		{name: "quota 150 takes 50 in total", quota: 150, reserve: []int32{49, 1}, wantErr: -1},
		{name: "quota 150 refuses 51", quota: 150, reserve: []int32{50, 1}, wantErr: 1},
		{name: "quota 50 refuses any reservation", quota: 50, reserve: []int32{1}, wantErr: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(o *function.Options) { o.AccountConcurrency = tt.quota })
			for i, n := range tt.reserve {
				name := "fn" + string(rune('a'+i))
				b.create(t, name, nil)
				_, err := b.lambda.PutFunctionConcurrency(b.ctx, &lambda.PutFunctionConcurrencyInput{
					FunctionName: aws.String(name), ReservedConcurrentExecutions: aws.Int32(n),
				})
				if i != tt.wantErr {
					require.NoError(t, err)
					continue
				}
				var bad *lambdatypes.InvalidParameterValueException
				require.ErrorAs(t, err, &bad)
				require.Equal(t, msg, aws.ToString(bad.Message))
				return
			}
			require.Equal(t, -1, tt.wantErr, "every reservation was accepted")
		})
	}
}

// TestAccountConcurrencyThrottlesUnreserved: functions without reserved
// concurrency share the account's unreserved pool; beyond it Lambda
// throttles with Reason ConcurrentInvocationLimitExceeded.
func TestAccountConcurrencyThrottlesUnreserved(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *function.Options) { o.AccountConcurrency = 2 })
	b.create(t, "one", nil)
	b.create(t, "two", nil)

	done := make(chan error, 2)
	for _, name := range []string{"one", "two"} {
		go func() {
			res, err := b.svc.Invoke(b.ctx, name, payload(t, event{Action: "sleep", SleepMS: 1500}), function.InvokeOptions{})
			if err == nil && res.FunctionError != "" {
				err = errors.New(string(res.Payload))
			}
			done <- err
		}()
	}
	eventually(t, func() bool {
		a, errA := b.svc.Stats("one")
		c, errC := b.svc.Stats("two")
		return errA == nil && errC == nil && a.Concurrent+c.Concurrent == 2
	}, "the account's two slots taken")

	_, err := b.svc.Invoke(b.ctx, "one", payload(t, event{}), function.InvokeOptions{})
	require.ErrorIs(t, err, function.ErrThrottled)
	var fe *function.Error
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "ConcurrentInvocationLimitExceeded", fe.Reason)

	settings, err := b.lambda.GetAccountSettings(b.ctx, &lambda.GetAccountSettingsInput{})
	require.NoError(t, err)
	require.Equal(t, int32(2), settings.AccountLimit.ConcurrentExecutions)

	for range 2 {
		require.NoError(t, <-done)
	}
	_, err = b.svc.Invoke(b.ctx, "two", payload(t, event{}), function.InvokeOptions{})
	require.NoError(t, err, "the pool is free again")
}
