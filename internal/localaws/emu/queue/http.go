package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// maxRequestBytes bounds a request body: a 1 MiB batch grows by about a
// third when binary attributes are base64-encoded, plus JSON framing.
const maxRequestBytes = 4 << 20

// call is one decoded HTTP request.
type call struct {
	ctx      context.Context
	body     []byte
	endpoint string // scheme://host of the request, for queue URLs
	senderID string
}

type handlerFunc func(s *Service, c *call) (any, error)

// operations maps X-Amz-Target operation names to handlers. Every SQS
// operation of the 2012-11-05 API is here.
var operations = map[string]handlerFunc{
	"AddPermission":                (*Service).httpAddPermission,
	"CancelMessageMoveTask":        (*Service).httpCancelMessageMoveTask,
	"ChangeMessageVisibility":      (*Service).httpChangeMessageVisibility,
	"ChangeMessageVisibilityBatch": (*Service).httpChangeMessageVisibilityBatch,
	"CreateQueue":                  (*Service).httpCreateQueue,
	"DeleteMessage":                (*Service).httpDeleteMessage,
	"DeleteMessageBatch":           (*Service).httpDeleteMessageBatch,
	"DeleteQueue":                  (*Service).httpDeleteQueue,
	"GetQueueAttributes":           (*Service).httpGetQueueAttributes,
	"GetQueueUrl":                  (*Service).httpGetQueueURL,
	"ListDeadLetterSourceQueues":   (*Service).httpListDeadLetterSourceQueues,
	"ListMessageMoveTasks":         (*Service).httpListMessageMoveTasks,
	"ListQueueTags":                (*Service).httpListQueueTags,
	"ListQueues":                   (*Service).httpListQueues,
	"PurgeQueue":                   (*Service).httpPurgeQueue,
	"ReceiveMessage":               (*Service).httpReceiveMessage,
	"RemovePermission":             (*Service).httpRemovePermission,
	"SendMessage":                  (*Service).httpSendMessage,
	"SendMessageBatch":             (*Service).httpSendMessageBatch,
	"SetQueueAttributes":           (*Service).httpSetQueueAttributes,
	"StartMessageMoveTask":         (*Service).httpStartMessageMoveTask,
	"TagQueue":                     (*Service).httpTagQueue,
	"UntagQueue":                   (*Service).httpUntagQueue,
}

// ServeHTTP serves the SQS API in the AWS JSON 1.0 protocol
// (X-Amz-Target: AmazonSQS.<Operation>), with query-compatible errors:
// a "__type" body plus the x-amzn-query-error header (docs/aws-behaviour.md §3.1–3.3).
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-amzn-RequestId", uuid.NewString())
	target := r.Header.Get("X-Amz-Target")
	if target == "" {
		writeQueryProtocolError(w)
		return
	}
	opName, ok := strings.CutPrefix(target, "AmazonSQS.")
	h := operations[opName]
	if !ok || h == nil {
		// The query protocol's recorded answer is InvalidAction "The action
		// FooBar is not valid for this endpoint." (AWS-validated LocalStack
		// test test_invalid_action_raises_exception); JSON services type
		// an unknown target as UnknownOperationException.
		writeError(w, &Error{Type: "UnknownOperationException", Code: "InvalidAction", Status: http.StatusBadRequest,
			Message: fmt.Sprintf("The action %s is not valid for this endpoint.", strings.TrimPrefix(target, "AmazonSQS."))})
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, &Error{Type: "UnknownOperationException", Code: "InvalidAction", Status: http.StatusBadRequest,
			Message: fmt.Sprintf("The AWS JSON protocol needs POST, not %s.", r.Method)})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		writeError(w, errSerialization(fmt.Sprintf("reading the request body: %v", err)))
		return
	}
	if len(body) > maxRequestBytes {
		writeError(w, errorf(ErrBatchRequestTooLong, "Request bodies cannot be longer than %d bytes.", maxRequestBytes))
		return
	}
	if e := checkModel(opName, body); e != nil {
		writeError(w, e)
		return
	}
	c := &call{ctx: r.Context(), body: body, endpoint: endpointOf(r), senderID: senderOf(r, s.opts.AccountID)}
	out, err := h(s, c)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	emu.WriteJSON(w, "application/x-amz-json-1.0", out)
}

// endpointOf is scheme://host of the request: queue URLs point back at the
// endpoint the client used.
func endpointOf(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// senderOf is the SenderId of messages sent by this request: the SigV4
// access key id when there is one (on AWS it is the caller's principal id).
func senderOf(r *http.Request, account string) string {
	_, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if ok {
		if key, _, ok := strings.Cut(cred, "/"); ok && key != "" {
			return key
		}
	}
	return account
}

func errSerialization(msg string) *Error {
	return &Error{Type: "SerializationException", Code: "SerializationException", Status: http.StatusBadRequest, Message: msg}
}

// writeAPIError writes err as an SQS error; anything that is not an *Error
// (a cancelled request) becomes an internal error rather than a 500 page.
func writeAPIError(w http.ResponseWriter, err error) {
	var e *Error
	if errors.As(err, &e) {
		writeError(w, e)
		return
	}
	writeError(w, &Error{Type: "InternalError", Code: "InternalError", Status: http.StatusInternalServerError, Message: err.Error()})
}

// writeError writes the query-compatible AWS JSON error: the namespaced
// shape name in "__type", "message", and x-amzn-query-error "<code>;Sender".
func writeError(w http.ResponseWriter, e *Error) {
	fault := "Sender"
	if e.Status >= 500 {
		fault = "Receiver"
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-query-error", e.Code+";"+fault)
	w.WriteHeader(e.Status)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"__type": "com.amazonaws.sqs#" + e.Type, "message": e.Message}) // plain strings always encode
	_, _ = w.Write(buf.Bytes())                                                                      // the client went away; nothing left to tell it
}

// writeQueryProtocolError answers requests in the older query protocol
// (form-encoded Action=...) with a query-style XML error those SDKs parse.
func writeQueryProtocolError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusBadRequest)
	msg := "The taskpipe local cloud serves SQS in the AWS JSON 1.0 protocol only (X-Amz-Target: AmazonSQS.<Operation>); use an SDK released after November 2023."
	_, _ = fmt.Fprintf(w, `<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>%s</Message><Detail/></Error><RequestId>%s</RequestId></ErrorResponse>`,
		html.EscapeString(msg), html.EscapeString(w.Header().Get("x-amzn-RequestId")))
}

// decode unmarshals the request body; an empty body is an empty object.
func decode(c *call, v any) error {
	if len(bytes.TrimSpace(c.body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		return errSerialization(fmt.Sprintf("The request body is not a valid AWS JSON 1.0 request: %v", err))
	}
	return nil
}

// empty is the body of operations without output.
type empty struct{}

func requireQueueURL(u string) error {
	if u == "" {
		return errMissing("QueueUrl")
	}
	return nil
}
