package localcloud_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// listQueuesAs sends one SQS ListQueues through the router the way a
// function instance's forwarded call arrives: tagged with its caller.
func listQueuesAs(t *testing.T, c *localcloud.Cloud, fn string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := sendAs(t, c, fn, "sqs", req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// sendAs signs req (in form only) for service and sends it through the
// router tagged with the calling function.
func sendAs(t *testing.T, c *localcloud.Cloud, fn, service string, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	req.Host = "localhost"
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/"+service+"/aws4_request, SignedHeaders=host, Signature=x")
	req = req.WithContext(emu.WithCaller(req.Context(), &emu.Caller{Function: fn, Instance: "i-1"}))
	rec := httptest.NewRecorder()
	c.Router().ServeHTTP(rec, req)
	return rec
}

// TestCountsByCallerNamesRESTOperations: the functions also call REST
// services (the reconciler DescribePipe, the scraper PutObject), whose
// operation is known only from the method and path; their rows must name
// it, as the totals do, not "Unknown".
func TestCountsByCallerNamesRESTOperations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		service, method, path, fn, op string
	}{
		{"pipes", http.MethodGet, "/v1/pipes/absent", "reconciler", "DescribePipe"},
		{"s3", http.MethodPut, "/absent-bucket/runs/r/t.json", "scraper", "PutObject"},
	} {
		rec := sendAs(t, b.cloud, tc.fn, tc.service, httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{}`)))
		require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
		var got []localcloud.CallerCount
		for _, c := range b.cloud.CountsByCaller() {
			if c.Service == tc.service {
				got = append(got, c)
			}
		}
		require.Equal(t, []localcloud.CallerCount{{Caller: tc.fn, Service: tc.service, Operation: tc.op, Count: 1}}, got)
	}
}

func TestCountsByCallerSplitsFunctionsFromClients(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	client := sqs.NewFromConfig(b.cfg)
	for range 3 {
		_, err := client.ListQueues(ctx, &sqs.ListQueuesInput{})
		require.NoError(t, err)
	}
	listQueuesAs(t, b.cloud, "scraper")
	listQueuesAs(t, b.cloud, "scraper")
	listQueuesAs(t, b.cloud, "reconciler")

	var got []localcloud.CallerCount
	for _, c := range b.cloud.CountsByCaller() {
		if c.Service == emu.ServiceSQS && c.Operation == "ListQueues" {
			got = append(got, c)
		}
	}
	require.Equal(t, []localcloud.CallerCount{
		{Caller: localcloud.ClientCaller, Service: "sqs", Operation: "ListQueues", Count: 3},
		{Caller: "reconciler", Service: "sqs", Operation: "ListQueues", Count: 1},
		{Caller: "scraper", Service: "sqs", Operation: "ListQueues", Count: 2},
	}, got)

	// The admin view is the same, and the reset clears both views.
	var admin []localcloud.CallerCount
	getJSON(t, b.cloud.AdminClient(), b.cloud.URL()+emu.AdminPrefix+"counts/callers", &admin)
	require.Equal(t, b.cloud.CountsByCaller(), admin)
	resp, err := b.cloud.AdminClient().Post(b.cloud.URL()+emu.AdminPrefix+"counts/reset", "application/json", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Empty(t, b.cloud.CountsByCaller())
	require.Empty(t, b.cloud.Router().Counts())
}
