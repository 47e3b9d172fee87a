package function_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

// BenchmarkInvokeWarm measures a synchronous invocation of a warm process
// through the Go API: Runtime API round trip, logging and bookkeeping.
func BenchmarkInvokeWarm(b *testing.B) {
	tb := setup(b, nil)
	tb.create(b, "bench", nil)
	p := payload(b, event{Value: "x"})
	_, err := tb.svc.Invoke(tb.ctx, "bench", p, function.InvokeOptions{})
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		res, err := tb.svc.Invoke(tb.ctx, "bench", p, function.InvokeOptions{})
		if err != nil || res.FunctionError != "" {
			b.Fatalf("invoke: %v %s", err, res.Payload)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/invoke")
}

// BenchmarkColdStart measures starting a new process (exec, Go runtime
// start, aws-lambda-go init, first /next) and running one invocation: each
// iteration changes the configuration, which retires the warm process.
func BenchmarkColdStart(b *testing.B) {
	tb := setup(b, nil)
	tb.create(b, "cold", nil)
	p := payload(b, event{})
	for b.Loop() {
		_, err := tb.lambda.UpdateFunctionConfiguration(tb.ctx, &lambda.UpdateFunctionConfigurationInput{
			FunctionName: aws.String("cold"), Description: aws.String(time.Now().String()),
		})
		require.NoError(b, err)
		res, err := tb.svc.Invoke(tb.ctx, "cold", p, function.InvokeOptions{})
		if err != nil || !res.ColdStart {
			b.Fatalf("invoke: %v cold=%v", err, res.ColdStart)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/coldstart")
}
