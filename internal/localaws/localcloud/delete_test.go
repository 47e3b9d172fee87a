package localcloud_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/buildtool/lambdazip"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// enrichZip builds lambdas/enrich (it needs no AWS resources) as make build
// does and returns its deployment package.
func enrichZip(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bootstrap")
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "build", "-tags", "lambda.norpc", "-trimpath", "-o", bin, "../../../lambdas/enrich")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build enrich: %s", out)
	f, err := os.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	var zip bytes.Buffer
	require.NoError(t, lambdazip.Write(&zip, f))
	return zip.Bytes()
}

// TestDeleteFunctionStopsEveryWarmProcess: after several concurrent
// invocations leave several warm processes, DeleteFunction over the API must
// stop all of them, so Close returns instead of waiting forever for
// processes nothing will stop. (Regression: function.Service.Delete once
// ranged over the idle list while each removal shrank it, skipping
// processes; make demo's terraform destroy found it.)
func TestDeleteFunctionStopsEveryWarmProcess(t *testing.T) {
	t.Parallel()
	zip := enrichZip(t)
	// No Pending phase: the function is invoked in process right away.
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", LambdaTransition: -1})
	require.NoError(t, c.Start(context.Background()))
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = c.Close() // the test failed before its own Close
		}
	})
	ctx := context.Background()
	_, err := c.Functions().Create(function.CreateInput{
		FunctionName: "warm", Runtime: "provided.al2023", Handler: "bootstrap",
		Role: "arn:aws:iam::" + emu.DefaultAccountID + ":role/warm", Code: function.Code{ZipFile: zip},
		Environment: &function.Environment{Variables: map[string]string{"LOG_LEVEL": "info"}},
	})
	require.NoError(t, err)

	// Four overlapping invocations start four processes.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Functions().Invoke(ctx, "warm", []byte(`[]`), function.InvokeOptions{Type: function.Sync})
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	st, err := c.Functions().Stats("warm")
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.ColdStarts, int64(2), "the bug needs at least two warm processes")

	cfg := aws.Config{Region: emu.DefaultRegion, BaseEndpoint: aws.String(c.URL()),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
	_, err = lambda.NewFromConfig(cfg).DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("warm")})
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		closed = true
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		closed = true // a second Close would wait as long; the processes leak
		t.Fatal("Close still waits 30 s after DeleteFunction: a warm process of the deleted function was not stopped")
	}
}
