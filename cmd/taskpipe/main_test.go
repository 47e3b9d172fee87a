package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"
)

// envRunMain makes the test binary act as the taskpipe binary, so the
// signal test can run the real main in a child process.
const envRunMain = "TASKPIPE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		noStdout bool
	}{
		{name: "Help", args: []string{"help"}, code: exitOK, stdout: "local"},
		{name: "DashH", args: []string{"-h"}, code: exitOK, stdout: "Commands:"},
		{name: "HelpLocal", args: []string{"help", "local"}, code: exitOK, stdout: "-addr"},
		{name: "NoArgs", args: nil, code: exitUsage, stderr: "Usage: taskpipe", noStdout: true},
		{name: "Unknown", args: []string{"deploy-everything"}, code: exitUsage, stderr: `unknown command "deploy-everything"`, noStdout: true},
		{name: "BadFlag", args: []string{"local", "--bogus"}, code: exitUsage, stderr: "flag provided but not defined", noStdout: true},
		{name: "ExtraArgs", args: []string{"local", "extra"}, code: exitUsage, stderr: "unexpected arguments", noStdout: true},
		{name: "BadAccountConcurrency", args: []string{"local", "--account-concurrency", "0"}, code: exitUsage, stderr: "--account-concurrency must be at least 1, got 0", noStdout: true},
		{name: "BadAddr", args: []string{"local", "--addr", "127.0.0.1:99999"}, code: exitError, stderr: "listen on 127.0.0.1:99999", noStdout: true},
		{name: "HelpChaos", args: []string{"help", "chaos"}, code: exitOK, stdout: "-fault-seed"},
		{name: "ChaosBadRate", args: []string{"chaos", "--throttle", "2", "--kill", "-0.5"}, code: exitUsage, stderr: "throttle rate 2 outside 0..1; kill rate -0.5 outside 0..1", noStdout: true},
		{name: "ChaosBadDelay", args: []string{"chaos", "--ack-delay", "2m"}, code: exitUsage, stderr: "ack delay 2m0s outside 0..1m", noStdout: true},
		{name: "ChaosBadMix", args: []string{"chaos", "--mix", "healthy=x"}, code: exitUsage, stderr: "healthy", noStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			require.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			require.Contains(t, stdout.String(), tt.stdout)
			require.Contains(t, stderr.String(), tt.stderr)
			if tt.noStdout {
				require.Empty(t, stdout.String())
			}
		})
	}
}

// endpointFrom waits for the export block and returns AWS_ENDPOINT_URL.
func endpointFrom(t *testing.T, out *syncBuffer) string {
	t.Helper()
	var endpoint string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(out.String(), "\n") {
			if v, ok := strings.CutPrefix(line, "export AWS_ENDPOINT_URL="); ok {
				endpoint = v
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "no export block; got %q", out.String())
	return endpoint
}

func requireHealthy(t *testing.T, endpoint string) {
	t.Helper()
	resp, err := http.Get(endpoint + "/_taskpipe/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var health struct{ Status string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
	require.Equal(t, "ok", health.Status)
}

// TestLocalStopsOnCancel runs the subcommand in process: it prints the
// environment, serves, and returns 0 when its context ends.
func TestLocalStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"local", "--addr", "127.0.0.1:0", "--region", "eu-central-1"}, &stdout, &stderr)
	}()

	endpoint := endpointFrom(t, &stdout)
	requireHealthy(t, endpoint)
	out := stdout.String()
	for _, want := range []string{"export AWS_REGION=eu-central-1", "export AWS_DEFAULT_REGION=eu-central-1",
		"export AWS_ACCESS_KEY_ID=test", "export AWS_SECRET_ACCESS_KEY=test", "export TASKPIPE_ADMIN_TOKEN="} {
		require.Contains(t, out, want)
	}

	cancel()
	select {
	case code := <-done:
		require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	case <-time.After(20 * time.Second): // a hang detector, not a speed check
		t.Fatal("local did not stop after cancel")
	}
	require.Contains(t, stderr.String(), "local cloud stopped")
	_, err := http.Get(endpoint + "/_taskpipe/health")
	require.Error(t, err, "nothing listens after exit")
}

// TestLocalSIGINT runs the real main in a child process, with a long poll in
// flight, and interrupts it: the process exits 0, the poll is answered, and
// -v logged the requests.
func TestLocalSIGINT(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "local", "--addr", "127.0.0.1:0", "-v")
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	stdoutPipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	var stdout syncBuffer
	go func() {
		_, _ = io.Copy(&stdout, bufio.NewReader(stdoutPipe)) // ends when the child exits
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // no-op once it has exited

	endpoint := endpointFrom(t, &stdout)
	requireHealthy(t, endpoint)

	client := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), RetryMaxAttempts: 1})
	q, err := client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("work")})
	require.NoError(t, err)
	polled := make(chan error, 1)
	go func() {
		_, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		polled <- err
	}()
	require.Eventually(t, func() bool { return inFlight(endpoint) == 1 }, 10*time.Second, 5*time.Millisecond, "long poll in flight")

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-exited:
		require.NoError(t, err, "exit status; stderr: %s", stderr.String())
	case <-time.After(15 * time.Second): // the poll would hold a naive shutdown for 20 s
		t.Fatalf("taskpipe local did not exit on SIGINT; stderr: %s", stderr.String())
	}
	select {
	case err := <-polled:
		require.Error(t, err, "the poll is answered with ServiceUnavailable at shutdown")
	case <-time.After(5 * time.Second):
		t.Fatal("long poll not released")
	}
	logs := stderr.String()
	require.Contains(t, logs, "local cloud stopped")
	require.Contains(t, logs, "service=sqs operation=CreateQueue status=200")
	require.Contains(t, logs, "service=admin operation=health")
}

// inFlight reads the in-flight API request count from the health endpoint.
func inFlight(endpoint string) int {
	resp, err := http.Get(endpoint + "/_taskpipe/health")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var health struct {
		InFlight int `json:"inFlight"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&health); err != nil {
		return -1
	}
	return health.InFlight
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	require.Equal(t, "http://127.0.0.1:4566", shellQuote("http://127.0.0.1:4566"))
	require.Equal(t, "''", shellQuote(""))
	require.Equal(t, `'a b'`, shellQuote("a b"))
	require.Equal(t, `'it'\''s'`, shellQuote("it's"))
}
