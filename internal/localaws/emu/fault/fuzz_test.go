package fault_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// FuzzAdminPut sends arbitrary bodies to PUT /_taskpipe/faults: the answer
// is 200 with a valid, stored config or 400 with the config unchanged,
// never a panic or a 5xx.
func FuzzAdminPut(f *testing.F) {
	f.Add(`{"dynamodb":{"throttleRate":0.2,"operations":["UpdateItem"]},"sqs":{"ackDelay":"1s"}}`)
	f.Add(`{"kill":[{"service":"dynamodb","rate":1,"times":1,"bodyContains":"Pending"}]}`)
	f.Add(`{"pipes":{"targetFailureRate":1e309}}`)
	f.Add(`{"sqs":{"ackDelay":"-5m"}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		inj, err := fault.New(fault.Config{}, 1, fault.WithServices(func(string) http.Handler { return nil }))
		require.NoError(t, err)
		rec := httptest.NewRecorder()
		inj.AdminHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/_taskpipe/faults", strings.NewReader(body)))
		switch rec.Code {
		case http.StatusOK:
			require.NoError(t, inj.Config().Validate())
			var echoed fault.Config
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &echoed))
		case http.StatusBadRequest:
			require.Equal(t, fault.Config{}, inj.Config(), "a rejected config changes nothing")
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	})
}
