package function_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

// requireAPIError asserts err is an API error with the given code.
func requireAPIError(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	var apiErr interface{ ErrorCode() string }
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, code, apiErr.ErrorCode(), "error: %v", err)
}

func TestCreateFunctionReturnsTheFullConfiguration(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	out := b.create(t, "scraper", func(in *lambda.CreateFunctionInput) {
		in.Environment = &lambdatypes.Environment{Variables: map[string]string{"TABLE_NAME": "tasks"}}
		in.Tags = map[string]string{"app": "taskpipe"}
		in.Architectures = []lambdatypes.Architecture{lambdatypes.Architecture(hostArch())}
	})
	sum := sha256.Sum256(b.zip)
	require.Equal(t, "arn:aws:lambda:us-east-1:000000000000:function:scraper", aws.ToString(out.FunctionArn))
	require.Equal(t, base64.StdEncoding.EncodeToString(sum[:]), aws.ToString(out.CodeSha256))
	require.Equal(t, int64(len(b.zip)), out.CodeSize)
	require.Equal(t, "$LATEST", aws.ToString(out.Version))
	require.Equal(t, lambdatypes.StateActive, out.State)
	require.Equal(t, lambdatypes.LastUpdateStatusSuccessful, out.LastUpdateStatus)
	require.Equal(t, lambdatypes.PackageTypeZip, out.PackageType)
	require.Equal(t, lambdatypes.RuntimeProvidedal2023, out.Runtime)
	require.Equal(t, "bootstrap", aws.ToString(out.Handler))
	require.Equal(t, testRole, aws.ToString(out.Role))
	require.Equal(t, int32(10), aws.ToInt32(out.Timeout))
	require.Equal(t, int32(128), aws.ToInt32(out.MemorySize))
	require.Equal(t, []lambdatypes.Architecture{lambdatypes.Architecture(hostArch())}, out.Architectures)
	require.Equal(t, map[string]string{"TABLE_NAME": "tasks"}, out.Environment.Variables)
	require.Equal(t, lambdatypes.LogFormatText, out.LoggingConfig.LogFormat)
	require.Equal(t, "/aws/lambda/scraper", aws.ToString(out.LoggingConfig.LogGroup))
	require.Equal(t, int32(512), aws.ToInt32(out.EphemeralStorage.Size))
	require.NotEmpty(t, aws.ToString(out.RevisionId))
	_, err := time.Parse("2006-01-02T15:04:05.000-0700", aws.ToString(out.LastModified))
	require.NoError(t, err, "LastModified %q", aws.ToString(out.LastModified))

	got, err := b.lambda.GetFunction(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("scraper")})
	require.NoError(t, err)
	require.Equal(t, aws.ToString(out.RevisionId), aws.ToString(got.Configuration.RevisionId))
	require.Equal(t, map[string]string{"app": "taskpipe"}, got.Tags)
	require.Nil(t, got.Concurrency)

	// The SDK waiter Terraform's provider also relies on.
	w := lambda.NewFunctionActiveV2Waiter(b.lambda)
	require.NoError(t, w.Wait(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("scraper")}, 5*time.Second))
	uw := lambda.NewFunctionUpdatedV2Waiter(b.lambda)
	require.NoError(t, uw.Wait(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("scraper")}, 5*time.Second))

	for _, ref := range []string{"arn:aws:lambda:us-east-1:000000000000:function:scraper", "000000000000:function:scraper", "scraper:$LATEST"} {
		cfg, err := b.lambda.GetFunctionConfiguration(b.ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(ref)})
		require.NoError(t, err, ref)
		require.Equal(t, "scraper", aws.ToString(cfg.FunctionName))
	}
	_, err = b.lambda.GetFunctionConfiguration(b.ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String("scraper"), Qualifier: aws.String("3")})
	requireAPIError(t, err, "ResourceNotFoundException")

	_, err = b.lambda.CreateFunction(b.ctx, b.createInput("scraper"))
	requireAPIError(t, err, "ResourceConflictException")
	require.Contains(t, err.Error(), "Function already exist: scraper")
}

func TestCreateFunctionValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	otherArch := lambdatypes.ArchitectureArm64
	if hostArch() == "arm64" {
		otherArch = lambdatypes.ArchitectureX8664
	}
	tests := []struct {
		name    string
		mutate  func(*lambda.CreateFunctionInput)
		code    string
		message string
	}{
		{"WrongArchitecture", func(in *lambda.CreateFunctionInput) { in.Architectures = []lambdatypes.Architecture{otherArch} }, "InvalidParameterValueException", "cannot run a " + string(otherArch) + " function"},
		{"GoRuntimeRetired", func(in *lambda.CreateFunctionInput) { in.Runtime = lambdatypes.RuntimeGo1x }, "InvalidParameterValueException", "runs only custom-runtime zips"},
		{"Python", func(in *lambda.CreateFunctionInput) { in.Runtime = lambdatypes.RuntimePython312 }, "InvalidParameterValueException", "runs only custom-runtime zips"},
		{"TimeoutZero", func(in *lambda.CreateFunctionInput) { in.Timeout = aws.Int32(0) }, "ValidationException", "timeout"},
		{"TimeoutTooLong", func(in *lambda.CreateFunctionInput) { in.Timeout = aws.Int32(901) }, "InvalidParameterValueException", "timeout"},
		{"MemoryTooSmall", func(in *lambda.CreateFunctionInput) { in.MemorySize = aws.Int32(64) }, "ValidationException", "memorySize"},
		{"MemoryTooBig", func(in *lambda.CreateFunctionInput) { in.MemorySize = aws.Int32(10241) }, "ValidationException", "memorySize"},
		{"BadRole", func(in *lambda.CreateFunctionInput) { in.Role = aws.String("scraper-role") }, "ValidationException", "role"},
		{"ReservedEnv", func(in *lambda.CreateFunctionInput) {
			in.Environment = &lambdatypes.Environment{Variables: map[string]string{"AWS_REGION": "eu-west-1"}}
		}, "InvalidParameterValueException", "Reserved keys used in this request: AWS_REGION"},
		{"NotAZip", func(in *lambda.CreateFunctionInput) {
			in.Code = &lambdatypes.FunctionCode{ZipFile: []byte("not a zip")}
		}, "InvalidParameterValueException", "Could not unzip uploaded file"},
		{"S3Code", func(in *lambda.CreateFunctionInput) {
			in.Code = &lambdatypes.FunctionCode{S3Bucket: aws.String("code-bucket"), S3Key: aws.String("k")}
		}, "InvalidParameterValueException", "no S3"},
		{"Publish", func(in *lambda.CreateFunctionInput) { in.Publish = true }, "InvalidParameterValueException", "published versions"},
		{"JSONLevelsNeedJSON", func(in *lambda.CreateFunctionInput) {
			in.LoggingConfig = &lambdatypes.LoggingConfig{LogFormat: lambdatypes.LogFormatText, ApplicationLogLevel: lambdatypes.ApplicationLogLevelDebug}
		}, "InvalidParameterValueException", "LogFormat is JSON"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := b.createInput(fmt.Sprintf("invalid-%d", i))
			tt.mutate(in)
			_, err := b.lambda.CreateFunction(b.ctx, in)
			requireAPIError(t, err, tt.code)
			require.Contains(t, err.Error(), tt.message)
		})
	}
	require.Empty(t, b.svc.Functions(), "no invalid request created a function")
}

func TestUpdatesStartNewProcesses(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	created := b.create(t, "updated", func(in *lambda.CreateFunctionInput) {
		in.Environment = &lambdatypes.Environment{Variables: map[string]string{"MODE": "one"}}
	})
	first := b.invoke(t, "updated", event{Action: "env", Env: []string{"MODE"}})
	require.Equal(t, "one", decodeReply(t, first.Payload).Env["MODE"])

	_, err := b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("updated"), RevisionId: aws.String("stale"),
		Environment: &lambdatypes.Environment{Variables: map[string]string{"MODE": "two"}},
	})
	requireAPIError(t, err, "PreconditionFailedException")

	upd, err := b.lambda.UpdateFunctionConfiguration(b.ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("updated"), RevisionId: created.RevisionId, Timeout: aws.Int32(20),
		Environment: &lambdatypes.Environment{Variables: map[string]string{"MODE": "two"}},
	})
	require.NoError(t, err)
	require.NotEqual(t, aws.ToString(created.RevisionId), aws.ToString(upd.RevisionId))
	require.Equal(t, int32(20), aws.ToInt32(upd.Timeout))
	second := b.invoke(t, "updated", event{Action: "env", Env: []string{"MODE"}})
	require.Equal(t, "two", decodeReply(t, second.Payload).Env["MODE"])
	require.True(t, second.ColdStart)
	require.NotEqual(t, first.PID, second.PID)
	eventually(t, func() bool { st, _ := b.svc.Stats("updated"); return st.Instances == 1 }, "the old process is drained")

	code, err := b.lambda.UpdateFunctionCode(b.ctx, &lambda.UpdateFunctionCodeInput{
		FunctionName: aws.String("updated"), ZipFile: bootstrapZipWith(t, "VERSION", "2"),
	})
	require.NoError(t, err)
	require.NotEqual(t, aws.ToString(upd.CodeSha256), aws.ToString(code.CodeSha256))
	third := b.invoke(t, "updated", event{})
	require.True(t, third.ColdStart)
	require.Empty(t, third.FunctionError)
}

func TestConcurrencyTagsListAndDelete(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, name := range []string{"fn-a", "fn-b", "fn-c"} {
		b.create(t, name, nil)
	}

	_, err := b.lambda.PutFunctionConcurrency(b.ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String("fn-a"), ReservedConcurrentExecutions: aws.Int32(140)})
	require.NoError(t, err)
	c, err := b.lambda.GetFunctionConcurrency(b.ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String("fn-a")})
	require.NoError(t, err)
	require.Equal(t, int32(140), aws.ToInt32(c.ReservedConcurrentExecutions))
	got, err := b.lambda.GetFunction(b.ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn-a")})
	require.NoError(t, err)
	require.Equal(t, int32(140), aws.ToInt32(got.Concurrency.ReservedConcurrentExecutions))
	_, err = b.lambda.PutFunctionConcurrency(b.ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String("fn-b"), ReservedConcurrentExecutions: aws.Int32(800)})
	requireAPIError(t, err, "InvalidParameterValueException")
	_, err = b.lambda.DeleteFunctionConcurrency(b.ctx, &lambda.DeleteFunctionConcurrencyInput{FunctionName: aws.String("fn-a")})
	require.NoError(t, err)
	c, err = b.lambda.GetFunctionConcurrency(b.ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String("fn-a")})
	require.NoError(t, err)
	require.Nil(t, c.ReservedConcurrentExecutions)

	arn := "arn:aws:lambda:us-east-1:000000000000:function:fn-b"
	_, err = b.lambda.TagResource(b.ctx, &lambda.TagResourceInput{Resource: aws.String(arn), Tags: map[string]string{"a": "1", "b": "2"}})
	require.NoError(t, err)
	_, err = b.lambda.UntagResource(b.ctx, &lambda.UntagResourceInput{Resource: aws.String(arn), TagKeys: []string{"a"}})
	require.NoError(t, err)
	tags, err := b.lambda.ListTags(b.ctx, &lambda.ListTagsInput{Resource: aws.String(arn)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "2"}, tags.Tags)

	var names []string
	p := lambda.NewListFunctionsPaginator(b.lambda, &lambda.ListFunctionsInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(b.ctx)
		require.NoError(t, err)
		for _, f := range page.Functions {
			names = append(names, aws.ToString(f.FunctionName))
		}
	}
	require.Equal(t, []string{"fn-a", "fn-b", "fn-c"}, names)

	b.invoke(t, "fn-c", event{})
	_, err = b.lambda.DeleteFunction(b.ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("fn-c")})
	require.NoError(t, err)
	_, err = b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("fn-c")})
	requireAPIError(t, err, "ResourceNotFoundException")
	require.Contains(t, err.Error(), "Function not found: arn:aws:lambda:us-east-1:000000000000:function:fn-c")
	_, err = b.lambda.DeleteFunction(b.ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("fn-c")})
	requireAPIError(t, err, "ResourceNotFoundException")
}

func TestInvokeTypesOverTheSDK(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "types", nil)

	t.Run("RequestResponse", func(t *testing.T) {
		out, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{
			FunctionName: aws.String("types"), Payload: payload(t, event{Value: "sync"}), LogType: lambdatypes.LogTypeTail,
		})
		require.NoError(t, err)
		require.Equal(t, int32(200), out.StatusCode)
		require.Nil(t, out.FunctionError)
		require.Equal(t, "$LATEST", aws.ToString(out.ExecutedVersion))
		require.Equal(t, "sync", decodeReply(t, out.Payload).Value)
		tail, err := base64.StdEncoding.DecodeString(aws.ToString(out.LogResult))
		require.NoError(t, err)
		require.Contains(t, string(tail), "REPORT RequestId:")
	})
	t.Run("FunctionError", func(t *testing.T) {
		out, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("types"), Payload: payload(t, event{Action: "error", Value: "bad"})})
		require.NoError(t, err)
		require.Equal(t, int32(200), out.StatusCode)
		require.Equal(t, "Unhandled", aws.ToString(out.FunctionError))
		require.Equal(t, "bad", decodeError(t, out.Payload).ErrorMessage)
	})
	t.Run("Event", func(t *testing.T) {
		out, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{
			FunctionName: aws.String("types"), InvocationType: lambdatypes.InvocationTypeEvent, Payload: payload(t, event{Action: "print", Value: "from-event"}),
		})
		require.NoError(t, err)
		require.Equal(t, int32(202), out.StatusCode)
		require.Empty(t, out.Payload)
		eventually(t, func() bool { return strings.Contains(b.console.String(), "[types] from-event") }, "the event ran")
	})
	t.Run("DryRun", func(t *testing.T) {
		out, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("types"), InvocationType: lambdatypes.InvocationTypeDryRun})
		require.NoError(t, err)
		require.Equal(t, int32(204), out.StatusCode)
	})
	t.Run("PayloadTooLarge", func(t *testing.T) {
		big := `"` + strings.Repeat("a", 6*1024*1024) + `"`
		_, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("types"), Payload: []byte(big)})
		requireAPIError(t, err, "RequestTooLargeException")
	})
	t.Run("NotJSON", func(t *testing.T) {
		_, err := b.lambda.Invoke(b.ctx, &lambda.InvokeInput{FunctionName: aws.String("types"), Payload: []byte("{")})
		requireAPIError(t, err, "InvalidRequestContentException")
	})
}

func TestLogsReachCloudWatchLogs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "logged", nil)
	res := b.invoke(t, "logged", event{Action: "print", Value: "scraped https://example.com"})

	streams, err := b.cwl.DescribeLogStreams(b.ctx, &cloudwatchlogs.DescribeLogStreamsInput{LogGroupName: aws.String("/aws/lambda/logged")})
	require.NoError(t, err)
	require.Len(t, streams.LogStreams, 1)
	require.True(t, strings.HasSuffix(aws.ToString(streams.LogStreams[0].LogStreamName), "[$LATEST]"+res.Instance))

	out, err := b.cwl.GetLogEvents(b.ctx, &cloudwatchlogs.GetLogEventsInput{
		LogGroupName: aws.String("/aws/lambda/logged"), LogStreamName: streams.LogStreams[0].LogStreamName, StartFromHead: aws.Bool(true),
	})
	require.NoError(t, err)
	var lines []string
	for _, e := range out.Events {
		lines = append(lines, aws.ToString(e.Message))
	}
	require.Equal(t, "INIT_START Runtime Version: provided.al2023\tRuntime Version ARN: ", lines[0][:len("INIT_START Runtime Version: provided.al2023\tRuntime Version ARN: ")])
	idx := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("no line starting %q in %q", prefix, lines)
		return -1
	}
	start := idx("START RequestId: " + res.RequestID + " Version: $LATEST")
	printed := idx("scraped https://example.com")
	end := idx("END RequestId: " + res.RequestID)
	report := idx("REPORT RequestId: " + res.RequestID)
	require.Less(t, idx("testfn init"), start, "init output precedes START")
	require.Less(t, start, printed)
	require.Less(t, printed, end)
	require.Less(t, end, report)

	re := regexp.MustCompile(`^REPORT RequestId: \S+\tDuration: (\d+\.\d\d) ms\tBilled Duration: (\d+) ms\tMemory Size: 128 MB\tMax Memory Used: (\d+) MB\tInit Duration: (\d+\.\d\d) ms\t$`)
	m := re.FindStringSubmatch(lines[report])
	require.NotNil(t, m, "REPORT line %q", lines[report])
	require.NotEqual(t, "0", m[3], "Max Memory Used is measured from VmHWM")
}

func TestJSONLogFormat(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.create(t, "jsonlogs", func(in *lambda.CreateFunctionInput) {
		in.LoggingConfig = &lambdatypes.LoggingConfig{LogFormat: lambdatypes.LogFormatJson, LogGroup: aws.String("/taskpipe/jsonlogs")}
	})
	res := b.invoke(t, "jsonlogs", event{Action: "env", Env: []string{"AWS_LAMBDA_LOG_FORMAT", "AWS_LAMBDA_LOG_LEVEL"}})
	env := decodeReply(t, res.Payload).Env
	require.Equal(t, "JSON", env["AWS_LAMBDA_LOG_FORMAT"])
	require.Equal(t, "INFO", env["AWS_LAMBDA_LOG_LEVEL"])
	lines := b.logMessages(t, "/taskpipe/jsonlogs")
	require.True(t, containsLine(lines, `"type":"platform.start","record":{"requestId":"`+res.RequestID), "%q", lines)
	require.True(t, containsLine(lines, `"type":"platform.report"`), "%q", lines)
}

func TestMissingOrNonExecutableBootstrap(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	tests := []struct {
		name    string
		zip     []byte
		message string
	}{
		{"NoBootstrap", zipFile(t, "main", []byte("#!/bin/sh\n"), 0o755), "Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]"},
		{"NotExecutable", zipFile(t, "bootstrap", mustRead(t, bootstrap(t)), 0o644), "permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := "bad-" + strings.ToLower(tt.name)
			b.create(t, name, func(in *lambda.CreateFunctionInput) { in.Code = &lambdatypes.FunctionCode{ZipFile: tt.zip} })
			res := b.invoke(t, name, event{})
			require.Equal(t, "Unhandled", res.FunctionError)
			doc := decodeError(t, res.Payload)
			require.Equal(t, "Runtime.InvalidEntrypoint", doc.ErrorType)
			require.Contains(t, doc.ErrorMessage, tt.message)
		})
	}
}

// fakeMappings stands in for the event source mapping service: it serves
// the mapping API paths and implements function.MappingTagger.
type fakeMappings struct {
	tags map[string]map[string]string
}

func (f *fakeMappings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	emu.SetOperation(r, "ListEventSourceMappings")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"EventSourceMappings":[]}`))
}

func (f *fakeMappings) Tags(arn string) (map[string]string, error) {
	t, ok := f.tags[arn]
	if !ok {
		return nil, errors.New("ResourceNotFoundException: The resource you requested does not exist.")
	}
	return t, nil
}

func (f *fakeMappings) TagResource(arn string, tags map[string]string) error {
	if _, ok := f.tags[arn]; !ok {
		return errors.New("ResourceNotFoundException: The resource you requested does not exist.")
	}
	for k, v := range tags {
		f.tags[arn][k] = v
	}
	return nil
}

func (f *fakeMappings) UntagResource(arn string, keys []string) error {
	for _, k := range keys {
		delete(f.tags[arn], k)
	}
	return nil
}

func TestEventSourceMappingRequestsAreDelegated(t *testing.T) {
	t.Parallel()
	esmARN := "arn:aws:lambda:us-east-1:000000000000:event-source-mapping:0f5e2c9a-0000-4000-8000-000000000001"
	fake := &fakeMappings{tags: map[string]map[string]string{esmARN: {}}}
	b := setup(t, func(o *function.Options) { o.EventSourceMappings = fake })

	out, err := b.lambda.ListEventSourceMappings(b.ctx, &lambda.ListEventSourceMappingsInput{})
	require.NoError(t, err)
	require.Empty(t, out.EventSourceMappings)

	_, err = b.lambda.TagResource(b.ctx, &lambda.TagResourceInput{Resource: aws.String(esmARN), Tags: map[string]string{"team": "scrape"}})
	require.NoError(t, err)
	tags, err := b.lambda.ListTags(b.ctx, &lambda.ListTagsInput{Resource: aws.String(esmARN)})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"team": "scrape"}, tags.Tags)
	unknown := "arn:aws:lambda:us-east-1:000000000000:event-source-mapping:0f5e2c9a-0000-4000-8000-000000000002"
	_, err = b.lambda.ListTags(b.ctx, &lambda.ListTagsInput{Resource: aws.String(unknown)})
	requireAPIError(t, err, "ResourceNotFoundException")

	t.Run("WithoutMappingService", func(t *testing.T) {
		t.Parallel()
		nb := setup(t, nil)
		_, err := nb.lambda.ListEventSourceMappings(nb.ctx, &lambda.ListEventSourceMappingsInput{})
		requireAPIError(t, err, "ResourceNotFoundException")
	})
}
