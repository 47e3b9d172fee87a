package localcloud

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// The local cloud runs user code as the developer (Lambda functions are
// processes on this machine), so it must not be a door: a web page the
// developer visits can make the browser send requests to 127.0.0.1, with
// DNS rebinding even with its own host name. The guard admits only local
// clients:
//
//   - the Host must be a loopback name (localhost, 127.0.0.1, [::1]), the
//     listen host, or one of Config.AllowedHosts: a rebound name
//     (attacker.example) is refused;
//   - a request with an Origin header, or Sec-Fetch-Site: cross-site, came
//     from a web page: refused unless Config.AllowCrossOrigin (SDKs, the
//     CLI and Terraform send neither);
//   - the admin API (/_taskpipe/, which can fire schedules and inject
//     faults) needs the random token printed with the exports
//     (TASKPIPE_ADMIN_TOKEN, sent as the X-Taskpipe-Admin-Token header);
//     GET /_taskpipe/health stays open for readiness probes (it reports
//     the region, account and services only).
//
// The RPC v2 path's Content-Type rule, the other cross-site defence, is the
// router's (emu.checkRPCv2).

// AdminTokenHeader carries the admin token on /_taskpipe/ requests.
const AdminTokenHeader = "X-Taskpipe-Admin-Token"

// EnvAdminToken is the variable Env exports the admin token in.
const EnvAdminToken = "TASKPIPE_ADMIN_TOKEN"

func newAdminToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// guard implements the checks above; it is the router's guard, so requests
// forwarded from function instances pass it too.
func (c *Cloud) guard(w http.ResponseWriter, r *http.Request) bool {
	if !c.allowedHost(r.Host) {
		emu.WriteJSONError(w, http.StatusForbidden, "AccessDeniedException",
			"the taskpipe local cloud answers local clients only: Host "+r.Host+" is not allowed (see localcloud.Config.AllowedHosts)")
		return false
	}
	if !c.cfg.AllowCrossOrigin && (r.Header.Get("Origin") != "" || strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site")) {
		emu.WriteJSONError(w, http.StatusForbidden, "AccessDeniedException",
			"the taskpipe local cloud refuses requests from web pages (Origin or Sec-Fetch-Site: cross-site); start it with cross-origin requests allowed to accept them")
		return false
	}
	if strings.HasPrefix(r.URL.Path, emu.AdminPrefix) && !(r.Method == http.MethodGet && r.URL.Path == emu.AdminPrefix+"health") {
		got := r.Header.Get(AdminTokenHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(c.adminToken)) != 1 {
			emu.WriteJSONError(w, http.StatusUnauthorized, "UnauthorizedException",
				"the admin API needs the "+AdminTokenHeader+" header with the token the local cloud printed ("+EnvAdminToken+")")
			return false
		}
	}
	return true
}

func (c *Cloud) allowedHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	switch host {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	if strings.HasSuffix(host, ".localhost") {
		// A virtual-hosted S3 request (<bucket>.localhost): names under
		// localhost are loopback names (RFC 6761 §6.3).
		return true
	}
	if lh, _, err := net.SplitHostPort(c.cfg.Addr); err == nil && lh != "" && !net.ParseIP(lh).IsUnspecified() && strings.EqualFold(lh, host) {
		return true
	}
	for _, a := range c.cfg.AllowedHosts {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// AdminToken returns the token the admin API requires.
func (c *Cloud) AdminToken() string { return c.adminToken }

// AdminClient returns an HTTP client that sends the admin token, for the
// admin API's in-process callers (the demo, chaos, tests).
func (c *Cloud) AdminClient() *http.Client {
	return &http.Client{Transport: tokenTransport{token: c.adminToken, next: http.DefaultTransport}}
}

type tokenTransport struct {
	token string
	next  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(AdminTokenHeader, t.token)
	return t.next.RoundTrip(r)
}
