package function_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error

	zipOnce sync.Once
	zipData []byte
	zipErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir) // best effort: a temp dir
	}
	os.Exit(code)
}

// bootstrap builds testdata/testfn once per test binary, as the real
// Lambdas are built (CGO_ENABLED=0, -tags lambda.norpc, -trimpath), and
// returns its path.
func bootstrap(t testing.TB) string {
	t.Helper()
	path, err := buildBootstrap()
	require.NoError(t, err)
	return path
}

// buildBootstrap builds the test function once per test binary.
func buildBootstrap() (string, error) {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "taskpipe-testfn-")
		if buildErr != nil {
			return
		}
		goBin := "go"
		if root := os.Getenv("GOROOT"); root != "" {
			if p := filepath.Join(root, "bin", "go"); fileExists(p) {
				goBin = p
			}
		}
		cmd := exec.Command(goBin, "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w -buildid=",
			"-o", filepath.Join(buildDir, "bootstrap"), "./testdata/testfn")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build testfn: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		return "", buildErr
	}
	return filepath.Join(buildDir, "bootstrap"), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// zipFile returns a deployment package holding one entry.
func zipFile(t testing.TB, name string, data []byte, mode os.FileMode) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: name, Method: zip.Store}
	hdr.SetMode(mode)
	w, err := zw.CreateHeader(hdr)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// bootstrapZip is the test function's package, bootstrap at the root. It
// is built once per test binary and stored uncompressed: deflating and
// inflating the binary dominated each test's setup (tenfold under -race).
func bootstrapZip(t testing.TB) []byte {
	t.Helper()
	path := bootstrap(t)
	zipOnce.Do(func() {
		var data []byte
		data, zipErr = os.ReadFile(path)
		if zipErr != nil {
			return
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		hdr := &zip.FileHeader{Name: "bootstrap", Method: zip.Store}
		hdr.SetMode(0o755)
		var w io.Writer
		if w, zipErr = zw.CreateHeader(hdr); zipErr != nil {
			return
		}
		if _, zipErr = w.Write(data); zipErr != nil {
			return
		}
		zipErr = zw.Close()
		zipData = buf.Bytes()
	})
	require.NoError(t, zipErr)
	return zipData
}

// bootstrapZipWith is the test package plus one more file, so its
// CodeSha256 differs.
func bootstrapZipWith(t testing.TB, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: "bootstrap", Method: zip.Store}
	hdr.SetMode(0o755)
	w, err := zw.CreateHeader(hdr)
	require.NoError(t, err)
	_, err = w.Write(mustRead(t, bootstrap(t)))
	require.NoError(t, err)
	w, err = zw.Create(name)
	require.NoError(t, err)
	_, err = io.WriteString(w, content)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// syncBuffer is a goroutine-safe console.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// metricSink records datapoints.
type metricSink struct {
	mu sync.Mutex
	ms []emu.Metric
}

func (s *metricSink) PutMetrics(ms ...emu.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ms = append(s.ms, ms...)
}

func (s *metricSink) find(namespace, name string) []emu.Metric {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []emu.Metric
	for _, m := range s.ms {
		if m.Namespace == namespace && m.Name == name {
			out = append(out, m)
		}
	}
	return out
}

// upstreamCall is one AWS API call a function made.
type upstreamCall struct {
	op     string
	caller *emu.Caller
}

// fakeSQS stands in for the SQS service behind the router: it records the
// calling instance and can kill it.
type fakeSQS struct {
	mu         sync.Mutex
	calls      []upstreamCall
	killNext   bool
	freezeNext bool
	froze      bool // what the last freeze reported
}

func (f *fakeSQS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, _ := emu.CallerFrom(r.Context())
	f.mu.Lock()
	f.calls = append(f.calls, upstreamCall{op: r.Header.Get("X-Amz-Target"), caller: c})
	kill, freeze := f.killNext, f.freezeNext
	f.killNext, f.freezeNext = false, false
	f.mu.Unlock()
	if kill && c != nil {
		c.Kill("test fault: kill the caller")
	}
	if freeze && c != nil {
		froze := c.Freeze("test fault: freeze the caller")
		f.mu.Lock()
		f.froze = froze
		f.mu.Unlock()
	}
	emu.WriteJSON(w, "", map[string][]string{"QueueUrls": {"http://local/000000000000/work"}})
}

func (f *fakeSQS) recorded() []upstreamCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]upstreamCall(nil), f.calls...)
}

// testBundle is a local cloud with Lambda, CloudWatch Logs and a fake SQS
// behind one router and real SDK clients pointed at it.
type testBundle struct {
	svc     *function.Service
	logs    *loggroup.Service
	sqs     *fakeSQS
	metrics *metricSink
	console *syncBuffer
	lambda  *lambda.Client
	cwl     *cloudwatchlogs.Client
	ctx     context.Context
	zip     []byte
}

func setup(t testing.TB, mutate func(*function.Options)) *testBundle {
	t.Helper()
	b := &testBundle{
		logs: loggroup.New(loggroup.Options{}), sqs: &fakeSQS{}, metrics: &metricSink{}, console: &syncBuffer{},
		ctx: context.Background(), zip: bootstrapZip(t),
	}
	router := emu.NewRouter()
	opts := function.Options{
		Upstream: router, Logs: b.logs, Metrics: b.metrics, Console: b.console, WorkDir: t.TempDir(),
		AsyncRetryDelays: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond},
	}
	if mutate != nil {
		mutate(&opts)
	}
	b.svc = function.New(opts)
	router.Handle(emu.ServiceLambda, b.svc)
	router.Handle(emu.ServiceLogs, b.logs)
	router.Handle(emu.ServiceSQS, b.sqs)
	srv := httptest.NewServer(router)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, b.svc.Close())
	})
	creds := credentials.NewStaticCredentialsProvider("AKIDLOCAL", "secret", "")
	b.lambda = lambda.New(lambda.Options{
		BaseEndpoint: aws.String(srv.URL), Region: emu.DefaultRegion, Credentials: creds,
		Retryer: aws.NopRetryer{}, HTTPClient: srv.Client(),
	})
	b.cwl = cloudwatchlogs.New(cloudwatchlogs.Options{
		BaseEndpoint: aws.String(srv.URL), Region: emu.DefaultRegion, Credentials: creds,
		Retryer: aws.NopRetryer{}, HTTPClient: srv.Client(),
	})
	return b
}

const testRole = "arn:aws:iam::000000000000:role/taskpipe-test"

// hostArch is the Lambda architecture of this machine.
func hostArch() string {
	if runtime.GOARCH == "arm64" {
		return "arm64"
	}
	return "x86_64"
}

// createInput is a valid CreateFunction request for the test bootstrap.
func (b *testBundle) createInput(name string) *lambda.CreateFunctionInput {
	return &lambda.CreateFunctionInput{
		FunctionName: aws.String(name),
		Runtime:      "provided.al2023",
		Handler:      aws.String("bootstrap"),
		Role:         aws.String(testRole),
		Code:         &lambdatypes.FunctionCode{ZipFile: b.zip},
		Timeout:      aws.Int32(10),
		MemorySize:   aws.Int32(128),
	}
}

func (b *testBundle) create(t testing.TB, name string, mutate func(*lambda.CreateFunctionInput)) *lambda.CreateFunctionOutput {
	t.Helper()
	in := b.createInput(name)
	if mutate != nil {
		mutate(in)
	}
	out, err := b.lambda.CreateFunction(b.ctx, in)
	require.NoError(t, err)
	return out
}

// event is a test function request.
type event struct {
	Action  string   `json:"action,omitempty"`
	Value   string   `json:"value,omitempty"`
	SleepMS int      `json:"sleepMs,omitempty"`
	Env     []string `json:"env,omitempty"`
	Size    int      `json:"size,omitempty"`
}

// reply is a test function response.
type reply struct {
	PID         int               `json:"pid"`
	Value       string            `json:"value"`
	Env         map[string]string `json:"env"`
	RemainingMS int64             `json:"remainingMs"`
	RequestID   string            `json:"requestId"`
	FunctionARN string            `json:"functionArn"`
	QueueCount  int               `json:"queueCount"`
}

func payload(t testing.TB, e event) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	require.NoError(t, err)
	return b
}

// invoke runs the function through the Go API.
func (b *testBundle) invoke(t testing.TB, name string, e event) function.InvokeResult {
	t.Helper()
	res, err := b.svc.Invoke(b.ctx, name, payload(t, e), function.InvokeOptions{})
	require.NoError(t, err)
	return res
}

func decodeReply(t testing.TB, data []byte) reply {
	t.Helper()
	var r reply
	require.NoError(t, json.Unmarshal(data, &r), "payload %s", data)
	return r
}

// errorDocument is Lambda's error payload.
type errorDocument struct {
	ErrorMessage string `json:"errorMessage"`
	ErrorType    string `json:"errorType"`
	StackTrace   []any  `json:"stackTrace"`
}

func decodeError(t testing.TB, data []byte) errorDocument {
	t.Helper()
	var d errorDocument
	require.NoError(t, json.Unmarshal(data, &d), "payload %s", data)
	return d
}

// logMessages returns every log event of a function's log group.
func (b *testBundle) logMessages(t *testing.T, group string) []string {
	t.Helper()
	streams, err := b.logs.Streams(group)
	require.NoError(t, err)
	var out []string
	for _, s := range streams {
		evs, err := b.logs.Events(group, s)
		require.NoError(t, err)
		for _, e := range evs {
			out = append(out, e.Message)
		}
	}
	return out
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 10*time.Millisecond, append([]any{msg}, args...)...)
}

func containsLine(lines []string, substr string) bool {
	for _, l := range lines {
		if strings.Contains(l, substr) {
			return true
		}
	}
	return false
}
