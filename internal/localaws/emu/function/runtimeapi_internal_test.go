package function

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// fakeRuntime drives an instance's Runtime API by hand, without a process,
// to pin the protocol's edge cases.
type fakeRuntime struct {
	t    *testing.T
	url  string
	inst *instance
	svc  *Service
}

func newFakeRuntime(t *testing.T, upstream http.Handler) *fakeRuntime {
	t.Helper()
	svc := New(Options{WorkDir: t.TempDir(), Upstream: upstream, IdleTimeout: -1})
	t.Cleanup(func() { require.NoError(t, svc.Close()) })
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("bootstrap")
	require.NoError(t, err)
	_, err = io.WriteString(w, "never run")
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	timeout := 30
	_, err = svc.Create(CreateInput{FunctionName: "fake", Runtime: "provided.al2023", Role: "arn:aws:iam::000000000000:role/r", Code: Code{ZipFile: buf.Bytes()}, Timeout: &timeout})
	require.NoError(t, err)

	svc.mu.Lock()
	inst, cold, ok := svc.tryAcquireLocked(svc.functions["fake"], true)
	svc.mu.Unlock()
	require.True(t, ok)
	require.True(t, cold)
	inst.started = time.Now()
	srv := httptest.NewServer(inst)
	t.Cleanup(func() {
		// Long polls on /next end when their connection does.
		srv.CloseClientConnections()
		srv.Close()
	})
	inst.addr = strings.TrimPrefix(srv.URL, "http://")
	return &fakeRuntime{t: t, url: srv.URL, inst: inst, svc: svc}
}

// invoke runs an invocation on the instance in the background.
func (f *fakeRuntime) invoke(payload string) (*invocation, <-chan InvokeResult) {
	inv := newInvocation("req-"+strconv.FormatInt(time.Now().UnixNano(), 36), []byte(payload), f.inst.fn.arn, "Root=1-0-0", "", 30*time.Second)
	out := make(chan InvokeResult, 1)
	go func() { out <- f.svc.execute(f.inst, inv, false) }()
	return inv, out
}

func (f *fakeRuntime) do(method, path string, body string, hdr map[string]string) (*http.Response, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	require.NoError(f.t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return resp, string(b)
}

func TestRuntimeAPIProtocol(t *testing.T) {
	t.Parallel()
	var seen *emu.Caller
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = emu.CallerFrom(r.Context())
		emu.WriteJSON(w, "", map[string]string{"ok": "yes"})
	})
	f := newFakeRuntime(t, upstream)

	inv, result := f.invoke(`{"n":1}`)
	resp, body := f.do(http.MethodGet, "/2018-06-01/runtime/invocation/next", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, `{"n":1}`, body)
	require.Equal(t, inv.id, resp.Header.Get("Lambda-Runtime-Aws-Request-Id"))
	require.Equal(t, "arn:aws:lambda:us-east-1:000000000000:function:fake", resp.Header.Get("Lambda-Runtime-Invoked-Function-Arn"))
	require.Equal(t, "Root=1-0-0", resp.Header.Get("Lambda-Runtime-Trace-Id"))
	deadline, err := strconv.ParseInt(resp.Header.Get("Lambda-Runtime-Deadline-Ms"), 10, 64)
	require.NoError(t, err)
	require.InDelta(t, time.Now().Add(30*time.Second).UnixMilli(), deadline, 2000)

	resp, body = f.do(http.MethodPost, "/2018-06-01/runtime/invocation/other-id/response", `{}`, nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.JSONEq(t, `{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}`, body)

	resp, body = f.do(http.MethodPost, "/2018-06-01/runtime/invocation/"+inv.id+"/response", `{"answer":42}`, nil)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.JSONEq(t, `{"status":"OK"}`, body)
	res := <-result
	require.Equal(t, `{"answer":42}`, string(res.Payload))
	require.Empty(t, res.FunctionError)

	resp, body = f.do(http.MethodPost, "/2018-06-01/runtime/invocation/"+inv.id+"/response", `{}`, nil)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, `"errorType":"InvalidStateTransition"`)

	// The next /next returns the environment to the warm pool; a new
	// invocation reaches it there.
	type nextReply struct {
		id, body string
	}
	next := make(chan nextReply, 1)
	go func() {
		resp, body := f.do(http.MethodGet, "/2018-06-01/runtime/invocation/next", "", nil)
		next <- nextReply{resp.Header.Get("Lambda-Runtime-Aws-Request-Id"), body}
	}()
	require.Eventually(t, func() bool {
		f.svc.mu.Lock()
		defer f.svc.mu.Unlock()
		return f.inst.state == stIdle
	}, 5*time.Second, 5*time.Millisecond)
	warm, cold, err := f.svc.acquire(context.Background(), f.inst.fn)
	require.NoError(t, err)
	require.False(t, cold)
	require.Same(t, f.inst, warm)
	inv2, result2 := f.invoke(`{"n":2}`)
	got := <-next
	require.Equal(t, inv2.id, got.id)
	require.Equal(t, `{"n":2}`, got.body)

	resp, _ = f.do(http.MethodPost, "/2018-06-01/runtime/invocation/"+inv2.id+"/error",
		`{"errorMessage":"nope","errorType":"Custom.Failure"}`, nil)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	res2 := <-result2
	require.Equal(t, "Unhandled", res2.FunctionError)
	require.Equal(t, "Custom.Failure", res2.ErrorType)
	require.JSONEq(t, `{"errorMessage":"nope","errorType":"Custom.Failure"}`, string(res2.Payload))

	// After init, /init/error and extension registration are refused.
	resp, _ = f.do(http.MethodPost, "/2018-06-01/runtime/init/error", `{"errorMessage":"x","errorType":"y"}`, nil)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = f.do(http.MethodPost, "/2020-01-01/extension/register", `{"events":[]}`, map[string]string{"Lambda-Extension-Name": "late"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = f.do(http.MethodGet, "/2018-06-01/runtime/unknown", "", nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, body = f.do(http.MethodGet, "/2018-06-01/ping", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "pong", body)

	// Anything else is an AWS API call, forwarded with the caller.
	resp, body = f.do(http.MethodPost, "/", `{}`, map[string]string{"X-Amz-Target": "AmazonSQS.ListQueues"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.JSONEq(t, `{"ok":"yes"}`, body)
	require.NotNil(t, seen)
	require.Equal(t, "fake", seen.Function)
	require.Equal(t, f.inst.id, seen.Instance)
}

func TestNextWithoutAnswerFailsTheInvocation(t *testing.T) {
	t.Parallel()
	f := newFakeRuntime(t, nil)
	inv, result := f.invoke(`{}`)
	resp, _ := f.do(http.MethodGet, "/2018-06-01/runtime/invocation/next", "", nil)
	require.Equal(t, inv.id, resp.Header.Get("Lambda-Runtime-Aws-Request-Id"))
	// The second poll blocks until the next assignment. Its context ends
	// before the server closes (cleanups run last-registered first), so
	// httptest.Server.Close, which waits for active requests, cannot hang
	// on it whatever the order the connection and the cleanup race in.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/2018-06-01/runtime/invocation/next", nil)
		if err != nil {
			return
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}()
	res := <-result
	require.Equal(t, "Unhandled", res.FunctionError)
	require.Equal(t, "Runtime.NoResponse", res.ErrorType)
}

func TestInitErrorFailsTheFirstInvocation(t *testing.T) {
	t.Parallel()
	f := newFakeRuntime(t, nil)
	_, result := f.invoke(`{}`)
	resp, _ := f.do(http.MethodPost, "/2018-06-01/runtime/init/error", `{"errorMessage":"missing TABLE_NAME","errorType":"Config.Missing"}`,
		map[string]string{"Lambda-Runtime-Function-Error-Type": "Runtime.ConfigError"})
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	res := <-result
	require.Equal(t, "Unhandled", res.FunctionError)
	require.Equal(t, "Runtime.ConfigError", res.ErrorType, "the header names the type")
	var doc map[string]string
	require.NoError(t, json.Unmarshal(res.Payload, &doc))
	require.Equal(t, "missing TABLE_NAME", doc["errorMessage"])
	st, err := f.svc.Stats("fake")
	require.NoError(t, err)
	require.Zero(t, st.Instances, "the environment is replaced")
}

func TestExtensionRegistration(t *testing.T) {
	t.Parallel()
	f := newFakeRuntime(t, nil)
	resp, _ := f.do(http.MethodPost, "/2020-01-01/extension/register", `{}`, nil)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a name is required")
	resp, _ = f.do(http.MethodPost, "/2020-01-01/extension/register", `{"events":["INVOKE"]}`, map[string]string{"Lambda-Extension-Name": "x"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "INVOKE events are not delivered")
	resp, body := f.do(http.MethodPost, "/2020-01-01/extension/register", `{"events":["SHUTDOWN"]}`, map[string]string{"Lambda-Extension-Name": "GoLangEnableSIGTERM"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Lambda-Extension-Identifier")
	require.NotEmpty(t, id)
	require.Contains(t, body, `"functionName":"fake"`)
	resp, _ = f.do(http.MethodGet, "/2020-01-01/extension/event/next", "", map[string]string{"Lambda-Extension-Identifier": "wrong"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	got := make(chan string, 1)
	go func() {
		_, body := f.do(http.MethodGet, "/2020-01-01/extension/event/next", "", map[string]string{"Lambda-Extension-Identifier": id})
		got <- body
	}()
	f.inst.mu.Lock()
	require.True(t, f.inst.sigterm)
	f.inst.mu.Unlock()
	time.Sleep(20 * time.Millisecond) // let the poll reach the handler
	f.svc.mu.Lock()
	f.svc.removeLocked(f.inst)
	f.svc.mu.Unlock()
	f.inst.stop("test")
	require.Contains(t, <-got, `"eventType":"SHUTDOWN"`)
}
