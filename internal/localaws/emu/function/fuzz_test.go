package function

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseEMF feeds arbitrary log lines to the EMF extractor: it must
// never panic, and every datapoint it returns must be complete.
func FuzzParseEMF(f *testing.F) {
	for _, s := range []string{
		`{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[["D"],[]],"Metrics":[{"Name":"X","Unit":"Count"}]}]},"D":"d","X":[1,2]}`,
		`{"_aws":null}`, `{"_aws":{"Timestamp":"x"}}`, `plain text`, `{"_aws":{"Timestamp":1e30,"CloudWatchMetrics":[]}}`, `{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ms, ok := parseEMF(line)
		if !ok && len(ms) > 0 {
			t.Fatalf("datapoints from an invalid line: %v", ms)
		}
		for _, m := range ms {
			if m.Namespace == "" || m.Name == "" || m.Unit == "" || m.Dimensions == nil {
				t.Fatalf("incomplete datapoint %+v from %q", m, line)
			}
		}
	})
}

// FuzzExtractZip feeds arbitrary packages to the extractor: it must never
// panic and never write outside the task root.
func FuzzExtractZip(f *testing.F) {
	f.Add(makeZip(f, zipEntry{name: "bootstrap", body: "x", mode: 0o755}))
	f.Add(makeZip(f, zipEntry{name: "../x", body: "x"}))
	f.Add(makeZip(f, zipEntry{name: "l", body: "../../x", mode: os.ModeSymlink | 0o777}, zipEntry{name: "l/y", body: "z"}))
	f.Add([]byte("PK\x03\x04garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		task := filepath.Join(root, "task")
		_ = extractZip(data, task) // errors are expected; escapes are not
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if p != root && p != task && !strings.HasPrefix(p, task+string(filepath.Separator)) {
				t.Fatalf("wrote %s outside %s", p, task)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzServeHTTP sends arbitrary requests to the control plane: it must
// answer with a status and never panic. Function code is never executed
// here: packages from the fuzzer have no runnable bootstrap in practice,
// and invocations of them fail at start.
func FuzzServeHTTP(f *testing.F) {
	seeds := []struct{ method, path, body string }{
		{"POST", "/2015-03-31/functions", `{"FunctionName":"f","Runtime":"provided.al2023","Role":"arn:aws:iam::000000000000:role/r","Code":{"ZipFile":"UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA=="}}`},
		{"GET", "/2015-03-31/functions", ``},
		{"GET", "/2015-03-31/functions/f", ``},
		{"PUT", "/2015-03-31/functions/f/configuration", `{"Timeout":5}`},
		{"PUT", "/2017-10-31/functions/f/concurrency", `{"ReservedConcurrentExecutions":1}`},
		{"POST", "/2017-03-31/tags/arn%3Aaws%3Alambda%3Aus-east-1%3A000000000000%3Afunction%3Af", `{"Tags":{"a":"b"}}`},
		{"POST", "/2015-03-31/functions/f/invocations", `{}`},
		{"DELETE", "/2015-03-31/functions/f", ``},
		{"GET", "/%zz", ``},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#?") || method == "" || strings.ContainsAny(method, " \r\n\t") {
			return
		}
		s := New(Options{WorkDir: t.TempDir(), IdleTimeout: -1})
		defer s.Close()
		req, err := http.NewRequest(method, "http://local"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("X-Amz-Invocation-Type", "DryRun") // never start a process
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code == 0 || rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s: status %d: %s", method, path, rec.Code, rec.Body.String())
		}
	})
}
