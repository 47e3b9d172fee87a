// Package identity emulates the minimum of AWS IAM and STS that taskpipe's
// Terraform and tools need, over the AWS query protocol (form-encoded
// Action=…&Version=… requests, XML responses with a RequestId):
//
//   - IAM roles: CreateRole, GetRole, UpdateRole, UpdateAssumeRolePolicy,
//     DeleteRole, inline policies (Put/Get/Delete/ListRolePolicies), managed
//     policy attachments (Attach/Detach/ListAttachedRolePolicies), tags
//     (TagRole, UntagRole, ListRoleTags) and ListInstanceProfilesForRole
//     (always empty: instance profiles are not emulated). Terraform's
//     aws_iam_role reads and deletes through these.
//   - STS GetCallerIdentity, for the emulator's account.
//
// Nothing is enforced: policies are stored and returned, never evaluated.
// The package is not called "iam" so it does not shadow the SDK package.
package identity

import (
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// XML namespaces of the two APIs (botocore iam 2010-05-08, sts 2011-06-15).
const (
	iamNamespace = "https://iam.amazonaws.com/doc/2010-05-08/"
	stsNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"
)

// Options configures the identity services.
type Options struct {
	// AccountID owns every role and is the caller's account; default
	// emu.DefaultAccountID.
	AccountID string
	// Now stamps CreateDate; default time.Now.
	Now func() time.Time
}

// Service holds the IAM state. IAM() and STS() return its two handlers.
type Service struct {
	accountID string
	now       func() time.Time

	mu    sync.Mutex
	roles map[string]*role // by lower-cased name: IAM names are case-insensitive
}

// role is one stored IAM role.
type role struct {
	name, path, id, arn    string
	description            string
	assumeRolePolicy       string // the JSON document as given
	maxSessionDuration     int
	permissionsBoundaryARN string
	created                time.Time
	tags                   []tag
	inline                 map[string]string // policy name → JSON document
	inlineOrder            []string
	attached               []string // managed policy ARNs, in attach order
}

type tag struct{ key, value string }

// New returns the identity services with empty state.
func New(opts Options) *Service {
	if opts.AccountID == "" {
		opts.AccountID = emu.DefaultAccountID
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{accountID: opts.AccountID, now: opts.Now, roles: map[string]*role{}}
}

// queryError is an AWS query-protocol error.
type queryError struct {
	status  int
	code    string
	message string
}

func (e *queryError) Error() string { return e.code + ": " + e.message }

func errValidation(format string, args ...any) *queryError {
	return &queryError{http.StatusBadRequest, "ValidationError", fmt.Sprintf(format, args...)}
}

// handler is the shared query-protocol front for one API.
type handler struct {
	service   string // emu.ServiceIAM or emu.ServiceSTS
	namespace string
	version   string
	actions   map[string]func(form url.Values) (any, error)
}

// ServeHTTP parses the form, dispatches on Action, and writes the XML
// response or error.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	requestID := uuid.NewString()
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		writeError(w, h.namespace, requestID, &queryError{http.StatusBadRequest, "MalformedQueryString", err.Error()})
		return
	}
	action := r.Form.Get("Action")
	fn, ok := h.actions[action]
	if !ok {
		writeError(w, h.namespace, requestID, &queryError{http.StatusBadRequest, "InvalidAction",
			fmt.Sprintf("Could not find operation %s for version %s", action, h.version)})
		return
	}
	if qe := checkModel(h.service, action, r.Form); qe != nil {
		writeError(w, h.namespace, requestID, qe)
		return
	}
	result, err := fn(r.Form)
	if err != nil {
		var qe *queryError
		if !errors.As(err, &qe) {
			qe = &queryError{http.StatusInternalServerError, "ServiceFailure", err.Error()}
		}
		writeError(w, h.namespace, requestID, qe)
		return
	}
	writeResult(w, h.namespace, action, requestID, result)
}

// envelope is <ActionResponse><ActionResult>…</ActionResult><ResponseMetadata>.
type envelope struct {
	XMLName xml.Name
	Xmlns   string `xml:"xmlns,attr"`
	Result  any
	Meta    struct {
		RequestID string `xml:"RequestId"`
	} `xml:"ResponseMetadata"`
}

// writeResult writes a success response. result is a struct whose XMLName is
// "<Action>Result", or nil for actions that return nothing.
func writeResult(w http.ResponseWriter, ns, action, requestID string, result any) {
	env := envelope{XMLName: xml.Name{Local: action + "Response"}, Xmlns: ns, Result: result}
	env.Meta.RequestID = requestID
	body, err := xml.Marshal(env)
	if err != nil {
		writeError(w, ns, requestID, &queryError{http.StatusInternalServerError, "ServiceFailure", err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append([]byte(xml.Header), body...)) // client gone: nothing to do
}

// errorResponse is AWS's query-protocol error document.
type errorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

func writeError(w http.ResponseWriter, ns, requestID string, qe *queryError) {
	var doc errorResponse
	doc.Xmlns = ns
	doc.Error.Type = "Sender"
	if qe.status >= 500 {
		doc.Error.Type = "Receiver"
	}
	doc.Error.Code = qe.code
	doc.Error.Message = qe.message
	doc.RequestID = requestID
	body, err := xml.Marshal(doc)
	if err != nil { // cannot happen: plain strings only
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(qe.status)
	_, _ = w.Write(append([]byte(xml.Header), body...)) // client gone: nothing to do
}

// encodePolicy URL-encodes a policy document the way IAM returns
// AssumeRolePolicyDocument and PolicyDocument (RFC 3986: everything but
// unreserved characters is %XX, so a space is %20). Clients such as the
// Terraform AWS provider url.QueryUnescape it.
func encodePolicy(doc string) string {
	var sb strings.Builder
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		fmt.Fprintf(&sb, "%%%02X", c)
	}
	return sb.String()
}

// uniqueID returns an IAM unique id: a four-letter prefix (AROA for roles)
// and 17 characters from IAM's alphabet, 21 in all.
func uniqueID(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 17)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}
