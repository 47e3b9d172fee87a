package localcloud_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
)

// TestGuard: a web page cannot drive the local cloud (issue 15 item 5:
// CreateFunction and Invoke with Host and Origin of attacker.example were
// accepted and the function's bootstrap ran), and the admin API needs the
// token printed with the exports.
func TestGuard(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", AllowedHosts: []string{"host.docker.internal"}})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	const createFunction = `{"FunctionName":"evil","Role":"arn:aws:iam::000000000000:role/r","Runtime":"provided.al2023",` +
		`"Handler":"bootstrap","Code":{"ZipFile":"UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA=="}}`
	lambdaAuth := "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=0"
	tests := []struct {
		name    string
		host    string
		headers map[string]string
		path    string
		body    string
		admin   bool // send the admin token
		want    int
	}{
		{"rebound host name", "attacker.example:4566", nil, "/2015-03-31/functions", createFunction, false, http.StatusForbidden},
		{"web page origin", "127.0.0.1", map[string]string{"Origin": "http://attacker.example:4566"}, "/2015-03-31/functions", createFunction, false, http.StatusForbidden},
		{"cross-site fetch", "localhost", map[string]string{"Sec-Fetch-Site": "cross-site"}, "/2015-03-31/functions", createFunction, false, http.StatusForbidden},
		{"admin without token", "127.0.0.1", nil, "/_taskpipe/counts", "", false, http.StatusUnauthorized},
		{"admin with a wrong token", "127.0.0.1", map[string]string{localcloud.AdminTokenHeader: "guess"}, "/_taskpipe/counts", "", false, http.StatusUnauthorized},
		{"admin with the token", "127.0.0.1", nil, "/_taskpipe/counts", "", true, http.StatusOK},
		{"health stays open", "localhost", nil, "/_taskpipe/health", "", false, http.StatusOK},
		{"virtual-hosted S3 name", "results.localhost:4566", nil, "/_taskpipe/health", "", false, http.StatusOK},
		{"IPv6 loopback", "[::1]:4566", nil, "/_taskpipe/health", "", false, http.StatusOK},
		{"configured host", "host.docker.internal:4566", nil, "/_taskpipe/health", "", false, http.StatusOK},
		{"same-origin fetch", "localhost", map[string]string{"Sec-Fetch-Site": "same-origin"}, "/_taskpipe/health", "", false, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodGet
			if tt.body != "" {
				method = http.MethodPost
			}
			req, err := http.NewRequest(method, c.URL()+tt.path, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Host = tt.host
			req.Header.Set("Authorization", lambdaAuth)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			client := http.DefaultClient
			if tt.admin {
				client = c.AdminClient()
			}
			resp, err := client.Do(req)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, tt.want, resp.StatusCode)
		})
	}
	// Nothing the refused requests asked for happened.
	_, err := c.Functions().Configuration("evil")
	require.Error(t, err)
	require.Contains(t, c.Env(), localcloud.EnvAdminToken+"="+c.AdminToken())
	require.Len(t, c.AdminToken(), 64)
}

// TestGuardAllowsCrossOriginWhenAsked: the flag lets a browser tool in.
func TestGuardAllowsCrossOriginWhenAsked(t *testing.T) {
	t.Parallel()
	c := localcloud.New(localcloud.Config{Addr: "127.0.0.1:0", AllowCrossOrigin: true, AdminToken: "fixed"})
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	req, err := http.NewRequest(http.MethodGet, c.URL()+"/_taskpipe/counts", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set(localcloud.AdminTokenHeader, "fixed")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
