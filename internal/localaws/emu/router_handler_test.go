package emu_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

func TestRouterHandlerReturnsTheRegisteredService(t *testing.T) {
	t.Parallel()
	rt := emu.NewRouter()
	require.Nil(t, rt.Handler(emu.ServiceMonitoring))
	var served bool
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true })
	rt.Handle(emu.ServiceMonitoring, h)
	got := rt.Handler(emu.ServiceMonitoring)
	require.NotNil(t, got)
	// The handler is the service itself: no middleware runs in between.
	rt.Use(func(http.ResponseWriter, *http.Request, emu.Op) bool {
		t.Error("middleware ran")
		return true
	})
	got.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
	require.True(t, served)
}

func TestIdentifyCloudWatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		req    func() *http.Request
		wantOp emu.Op
	}{
		{"RPC v2 CBOR", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/service/GraniteServiceVersion20100801/operation/PutMetricAlarm", nil)
		}, emu.Op{Service: emu.ServiceMonitoring, Operation: "PutMetricAlarm"}},
		{"AWS JSON 1.0 (botocore)", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			r.Header.Set("X-Amz-Target", "GraniteServiceVersion20100801.DescribeAlarms")
			return r
		}, emu.Op{Service: emu.ServiceMonitoring, Operation: "DescribeAlarms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			op, err := emu.Identify(tt.req())
			require.NoError(t, err)
			require.Equal(t, tt.wantOp, op)
		})
	}
}
