package emu_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// endless is a body of n bytes that counts how much of it was read.
type endless struct {
	n, read int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n-e.read)
	for i := range k {
		p[i] = 'a'
	}
	e.read += k
	return int(k), nil
}

// TestRouterCapsBodies: a body is cut at the service's limit before
// anything reads it whole (issue 15 item 8: 100 MB form bodies were read
// in full to find their Action, 625 MB RSS after two requests).
func TestRouterCapsBodies(t *testing.T) {
	t.Parallel()
	rt := emu.NewRouter()
	rt.Handle(emu.ServiceIAM, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	body := &endless{n: 100 << 20}
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader("Action=GetRole&RoleName="), body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0")
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
	require.LessOrEqual(t, body.read, emu.BodyLimit(emu.ServiceIAM)+64<<10, "read past the cap")

	// Each service has its cap; the largest is Lambda's direct zip upload.
	require.Equal(t, int64(16<<20), emu.BodyLimit(emu.ServiceDynamoDB))
	require.Greater(t, emu.BodyLimit(emu.ServiceLambda), int64(50<<20))
	require.Equal(t, int64(1<<20), emu.BodyLimit("unknown"))
}

// TestRPCv2NeedsCBOR: the Smithy RPC v2 path takes application/cbor only,
// so a cross-site text/plain POST (sent by browsers without a preflight)
// does not reach CloudWatch (issue 15 item 5).
func TestRPCv2NeedsCBOR(t *testing.T) {
	t.Parallel()
	rt := emu.NewRouter()
	served := 0
	rt.Handle(emu.ServiceMonitoring, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served++
		w.WriteHeader(http.StatusOK)
	}))
	for _, tt := range []struct {
		contentType string
		want        int
	}{
		{"text/plain", http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"", http.StatusUnsupportedMediaType},
		{"application/cbor", http.StatusOK},
	} {
		req := httptest.NewRequest(http.MethodPost, "/service/GraniteServiceVersion20100801/operation/DeleteAlarms", strings.NewReader("\xa0"))
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		require.Equal(t, tt.want, rec.Code, "%q: %s", tt.contentType, rec.Body.String())
	}
	require.Equal(t, 1, served)
}
