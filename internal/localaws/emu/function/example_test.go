package function_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
)

// A function is created from the same zip that is deployed to AWS, and
// invoked: its bootstrap runs as a local process through the Runtime API.
func ExampleService_Invoke() {
	bin, err := buildBootstrap() // go build -tags lambda.norpc ./testdata/testfn
	if err != nil {
		fmt.Println(err)
		return
	}
	pkg, err := zipBootstrap(bin)
	if err != nil {
		fmt.Println(err)
		return
	}
	workDir, err := os.MkdirTemp("", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(workDir)

	fns := function.New(function.Options{WorkDir: workDir})
	defer fns.Close()
	arch := "x86_64"
	if runtime.GOARCH == "arm64" {
		arch = "arm64"
	}
	_, err = fns.Create(function.CreateInput{
		FunctionName: "hello", Runtime: "provided.al2023", Handler: "bootstrap",
		Role: "arn:aws:iam::000000000000:role/hello", Architectures: []string{arch},
		Code: function.Code{ZipFile: pkg},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		res, err := fns.Invoke(context.Background(), "hello", []byte(`{"value":"hi"}`), function.InvokeOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		var out struct{ Value string }
		if err := json.Unmarshal(res.Payload, &out); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.StatusCode, out.Value, "cold start:", res.ColdStart)
	}
	// Output:
	// 200 hi cold start: true
	// 200 hi cold start: false
}

func zipBootstrap(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read bootstrap: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	hdr.SetMode(0o755)
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return nil, fmt.Errorf("zip bootstrap: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return nil, fmt.Errorf("zip bootstrap: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip bootstrap: %w", err)
	}
	return buf.Bytes(), nil
}
