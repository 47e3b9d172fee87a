package localcloud_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// roleARN is any well-formed role: the local cloud validates role ARNs but
// never assumes them.
const roleARN = "arn:aws:iam::000000000000:role/e2e"

// settle bounds every wait for asynchronous work in these tests. It is a
// hang detector, not a speed requirement: the work it waits for takes a
// few seconds at most.
const settle = 45 * time.Second

// poll is how often the waits look.
const poll = 20 * time.Millisecond

var (
	buildOnce sync.Once
	buildDir  string
	buildZip  []byte
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir) // best effort: a temporary directory
	}
	os.Exit(code)
}

// bootstrapZip builds testdata/e2efn once per test binary exactly as the
// real Lambdas are built (CGO_ENABLED=0, -tags lambda.norpc, -trimpath, for
// the host's OS and architecture, which is what the local cloud can run)
// and returns its deployment package. The zip stores the binary
// uncompressed: deflating 10 MB per test binary costs more than it saves
// on loopback.
func bootstrapZip(tb testing.TB) []byte {
	tb.Helper()
	if testing.Short() {
		tb.Skip("end to end (real bootstrap processes): not in the -short tier")
	}
	buildOnce.Do(func() { buildZip, buildErr = buildBootstrap() })
	require.NoError(tb, buildErr)
	return buildZip
}

func buildBootstrap() ([]byte, error) {
	dir, err := os.MkdirTemp("", "taskpipe-e2efn-")
	if err != nil {
		return nil, fmt.Errorf("build e2efn: %w", err)
	}
	buildDir = dir
	goBin := "go"
	if root := runtime.GOROOT(); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			goBin = p
		}
	}
	bin := filepath.Join(dir, "bootstrap")
	cmd := exec.Command(goBin, "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w -buildid=",
		"-o", bin, "./testdata/e2efn")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build e2efn: %w\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("build e2efn: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: "bootstrap", Method: zip.Store}
	hdr.SetMode(0o755)
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return nil, fmt.Errorf("zip e2efn: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("zip e2efn: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip e2efn: %w", err)
	}
	return buf.Bytes(), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// hostArch is the Lambda architecture name of this machine.
func hostArch() lambdatypes.Architecture {
	if runtime.GOARCH == "arm64" {
		return lambdatypes.ArchitectureArm64
	}
	return lambdatypes.ArchitectureX8664
}

// e2e is one started local cloud and the SDK clients the tests drive it
// with, all over HTTP.
type e2e struct {
	cloud *localcloud.Cloud
	cfg   aws.Config
	sqs   *sqs.Client
	lam   *lambda.Client
	ddb   *dynamodb.Client
	dir   string // journals
}

// startCloud starts a local cloud on a free port; it is closed (and every
// bootstrap process stopped) when the test ends.
func startCloud(tb testing.TB) *e2e {
	tb.Helper()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0"})
	require.NoError(tb, c.Start(context.Background()))
	tb.Cleanup(func() { require.NoError(tb, c.Close()) })
	cfg := aws.Config{
		Region:           emu.DefaultRegion,
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint:     aws.String(c.URL()),
		RetryMaxAttempts: 1,
	}
	return &e2e{cloud: c, cfg: cfg, sqs: sqs.NewFromConfig(cfg), lam: lambda.NewFromConfig(cfg),
		ddb: dynamodb.NewFromConfig(cfg), dir: tb.TempDir()}
}

// fnSpec is a function the tests deploy: the e2efn bootstrap in one MODE.
type fnSpec struct {
	name     string
	mode     string
	timeout  int32 // seconds
	reserved int32 // reserved concurrency; 0 for none
	journal  bool
	env      map[string]string
}

// createFunction deploys the real bootstrap with CreateFunction and returns
// the journal path (empty without a journal).
func (e *e2e) createFunction(tb testing.TB, s fnSpec) string {
	tb.Helper()
	ctx := context.Background()
	vars := map[string]string{"MODE": s.mode}
	for k, v := range s.env {
		vars[k] = v
	}
	journal := ""
	if s.journal {
		journal = filepath.Join(e.dir, s.name+".jsonl")
		vars["JOURNAL"] = journal
	}
	_, err := e.lam.CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName:  aws.String(s.name),
		Runtime:       lambdatypes.RuntimeProvidedal2023,
		Handler:       aws.String("bootstrap"),
		Role:          aws.String(roleARN),
		Architectures: []lambdatypes.Architecture{hostArch()},
		Timeout:       aws.Int32(s.timeout),
		MemorySize:    aws.Int32(128),
		Code:          &lambdatypes.FunctionCode{ZipFile: bootstrapZip(tb)},
		Environment:   &lambdatypes.Environment{Variables: vars},
	})
	require.NoError(tb, err)
	// A new function is Pending for a while, as on AWS: wait as the
	// Terraform provider does.
	require.NoError(tb, lambda.NewFunctionActiveV2Waiter(e.lam, func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	}).Wait(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(s.name)}, time.Minute))
	if s.reserved > 0 {
		_, err = e.lam.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{
			FunctionName: aws.String(s.name), ReservedConcurrentExecutions: aws.Int32(s.reserved)})
		require.NoError(tb, err)
	}
	return journal
}

// createQueue creates a standard queue and returns its URL and ARN.
func (e *e2e) createQueue(tb testing.TB, name string, visibility time.Duration) (string, string) {
	tb.Helper()
	ctx := context.Background()
	out, err := e.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name),
		Attributes: map[string]string{"VisibilityTimeout": strconv.Itoa(int(visibility / time.Second))}})
	require.NoError(tb, err)
	attrs, err := e.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	require.NoError(tb, err)
	return aws.ToString(out.QueueUrl), attrs.Attributes["QueueArn"]
}

// sendBodies sends one message per body (in batches of 10) and returns the
// message ids, in order.
func (e *e2e) sendBodies(tb testing.TB, queueURL string, bodies []string) []string {
	tb.Helper()
	ids := make([]string, len(bodies))
	for lo := 0; lo < len(bodies); lo += 10 {
		hi := min(lo+10, len(bodies))
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i := lo; i < hi; i++ {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(bodies[i])})
		}
		out, err := e.sqs.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: entries})
		require.NoError(tb, err)
		require.Empty(tb, out.Failed)
		for _, ok := range out.Successful {
			i, err := strconv.Atoi(aws.ToString(ok.Id))
			require.NoError(tb, err)
			ids[i] = aws.ToString(ok.MessageId)
		}
	}
	return ids
}

// mappingSpec is an SQS event source mapping the tests create.
type mappingSpec struct {
	function       string
	queueARN       string
	batchSize      int32
	maxConcurrency int32 // 0: none
	reportFailures bool
}

// createMapping creates the mapping with CreateEventSourceMapping and
// returns its UUID.
func (e *e2e) createMapping(tb testing.TB, s mappingSpec) string {
	tb.Helper()
	in := &lambda.CreateEventSourceMappingInput{
		FunctionName:   aws.String(s.function),
		EventSourceArn: aws.String(s.queueARN),
		BatchSize:      aws.Int32(s.batchSize),
		Enabled:        aws.Bool(true),
	}
	if s.maxConcurrency > 0 {
		in.ScalingConfig = &lambdatypes.ScalingConfig{MaximumConcurrency: aws.Int32(s.maxConcurrency)}
	}
	if s.reportFailures {
		in.FunctionResponseTypes = []lambdatypes.FunctionResponseType{lambdatypes.FunctionResponseTypeReportBatchItemFailures}
	}
	out, err := e.lam.CreateEventSourceMapping(context.Background(), in)
	require.NoError(tb, err)
	return aws.ToString(out.UUID)
}

// mappingStats reads a mapping's counters.
func (e *e2e) mappingStats(tb testing.TB, uuid string) mapping.Stats {
	tb.Helper()
	st, ok := e.cloud.Mappings().Stats(uuid)
	require.True(tb, ok, "mapping %s", uuid)
	return st
}

// waitDeleted waits until the mapping has acknowledged n messages and no
// invocation is in flight.
func (e *e2e) waitDeleted(tb testing.TB, uuid string, n int64) mapping.Stats {
	tb.Helper()
	var st mapping.Stats
	require.Eventually(tb, func() bool {
		st = e.mappingStats(tb, uuid)
		return st.Deleted >= n && st.InFlight == 0
	}, settle, poll, "mapping %s never acknowledged %d messages", uuid, n)
	require.Equal(tb, n, st.Deleted, "acknowledged messages")
	return st
}

// queueDepth returns the queue's visible and in-flight message counts.
func (e *e2e) queueDepth(tb testing.TB, queueURL string) (visible, inFlight int) {
	tb.Helper()
	out, err := e.sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	require.NoError(tb, err)
	visible, err = strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	require.NoError(tb, err)
	inFlight, err = strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	require.NoError(tb, err)
	return visible, inFlight
}

// entry is one line of the e2efn journal (testdata/e2efn, type Entry).
type entry struct {
	Kind         string          `json:"kind"`
	PID          int             `json:"pid"`
	UnixNano     int64           `json:"unixNano"`
	Invocation   string          `json:"invocation"`
	Messages     []delivery      `json:"messages"`
	Failed       []string        `json:"failed"`
	Event        json.RawMessage `json:"event"`
	TasksUpdated int             `json:"tasksUpdated"`
}

// delivery is one message as the handler saw it.
type delivery struct {
	MessageID    string `json:"messageId"`
	Key          string `json:"key"`
	ReceiveCount int    `json:"receiveCount"`
}

// readJournal reads every complete line of a journal (none when the file
// does not exist yet).
func readJournal(tb testing.TB, path string) []entry {
	tb.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(tb, err)
	defer f.Close()
	var out []entry
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a partial last line is being written; the next read gets it
		}
		require.NoError(tb, err)
		var e entry
		require.NoError(tb, json.Unmarshal(line, &e), "journal line %q", line)
		out = append(out, e)
	}
	return out
}

// maxOverlap is the largest number of invocations whose start and end
// lines overlap in time, measured inside the bootstrap processes. An
// invocation whose end line is missing (killed) counts as running until
// the end of the journal. At equal instants ends are counted first, so
// touching intervals do not count as overlapping.
func maxOverlap(entries []entry) int {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	ended := map[string]bool{}
	var last int64
	for _, e := range entries {
		last = max(last, e.UnixNano)
		if e.Kind == "end" {
			ended[e.Invocation] = true
		}
	}
	for _, e := range entries {
		switch e.Kind {
		case "start":
			edges = append(edges, edge{e.UnixNano, +1})
			if !ended[e.Invocation] {
				edges = append(edges, edge{last + 1, -1})
			}
		case "end":
			edges = append(edges, edge{e.UnixNano, -1})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// adminPost posts to an admin endpoint and decodes the JSON answer.
func adminPost(tb testing.TB, client *http.Client, url string, v any) int {
	tb.Helper()
	resp, err := client.Post(url, "application/json", nil)
	require.NoError(tb, err)
	defer resp.Body.Close()
	if v != nil {
		require.NoError(tb, json.NewDecoder(resp.Body).Decode(v))
	}
	return resp.StatusCode
}
