package function

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Error is a Lambda API error as the REST-JSON protocol carries it: Type is
// the Smithy shape name (written to the X-Amzn-ErrorType header and
// "__type", which the SDKs type their errors by), Status the HTTP status,
// and Reason the TooManyRequestsException reason. Source: the error
// snapshots in aws-sdk-go-v2/service/lambda/response_snapshot/*.error.snap.
type Error struct {
	Type    string
	Status  int
	Message string
	// Reason is set on TooManyRequestsException, e.g.
	// "ReservedFunctionConcurrentInvocationLimitExceeded".
	Reason string
	// RetryAfter is the Retry-After header of a throttle, in seconds.
	RetryAfter int
}

// Error implements error.
func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Is reports whether target is an *Error of the same type, so callers can
// write errors.Is(err, function.ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type
}

// Kinds of errors. Compare with errors.Is; returned errors carry a message
// specific to the request.
var (
	// ErrNotFound: the function (or qualifier) does not exist.
	ErrNotFound = &Error{Type: "ResourceNotFoundException", Status: http.StatusNotFound}
	// ErrConflict: the function already exists.
	ErrConflict = &Error{Type: "ResourceConflictException", Status: http.StatusConflict}
	// ErrInvalidParameter: a parameter is out of range or unsupported.
	ErrInvalidParameter = &Error{Type: "InvalidParameterValueException", Status: http.StatusBadRequest}
	// ErrValidation: a parameter breaks a constraint of the API model.
	ErrValidation = &Error{Type: "ValidationException", Status: http.StatusBadRequest}
	// ErrThrottled: the function is at its concurrency limit.
	ErrThrottled = &Error{Type: "TooManyRequestsException", Status: http.StatusTooManyRequests}
	// ErrRequestTooLarge: the invocation payload is over the limit.
	ErrRequestTooLarge = &Error{Type: "RequestTooLargeException", Status: http.StatusRequestEntityTooLarge}
	// ErrInvalidRequestContent: the invocation payload is not JSON.
	ErrInvalidRequestContent = &Error{Type: "InvalidRequestContentException", Status: http.StatusBadRequest}
	// ErrPreconditionFailed: the RevisionId does not match.
	ErrPreconditionFailed = &Error{Type: "PreconditionFailedException", Status: http.StatusPreconditionFailed}
	// ErrCodeStorageExceeded / ErrRequestEntityTooLarge: the zip is too big.
	ErrRequestEntityTooLarge = &Error{Type: "RequestEntityTooLargeException", Status: http.StatusRequestEntityTooLarge}
	// ErrServiceUnavailable: the local cloud is shutting down.
	ErrServiceUnavailable = &Error{Type: "ServiceException", Status: http.StatusServiceUnavailable}
	// ErrUnknownOperation: the request is for an operation the local
	// cloud does not emulate.
	ErrUnknownOperation = &Error{Type: "UnknownOperationException", Status: http.StatusBadRequest}
)

func errorf(k *Error, format string, args ...any) *Error {
	return &Error{Type: k.Type, Status: k.Status, Message: fmt.Sprintf(format, args...)}
}

// errNotFound is Lambda's message for a missing function.
func errNotFound(arn string) *Error {
	return errorf(ErrNotFound, "Function not found: %s", arn)
}

// errValidation is the Coral "1 validation error detected" message of
// model constraint violations.
func errValidation(value any, member, constraint string) *Error {
	return errorf(ErrValidation, "1 validation error detected: Value '%v' at '%s' failed to satisfy constraint: %s", value, member, constraint)
}

// errThrottled is the throttle of a function at its reserved concurrency
// (TooManyRequestsException, Reason
// ReservedFunctionConcurrentInvocationLimitExceeded, "Rate Exceeded.").
func errThrottled(reserved bool) *Error {
	reason := "ConcurrentInvocationLimitExceeded"
	if reserved {
		reason = "ReservedFunctionConcurrentInvocationLimitExceeded"
	}
	return &Error{Type: ErrThrottled.Type, Status: ErrThrottled.Status, Message: "Rate Exceeded.", Reason: reason, RetryAfter: 1}
}

// writeError writes err in the REST-JSON error shape Lambda uses: the type
// in X-Amzn-ErrorType, a body with "Type" ("User" for client errors,
// "Service" otherwise) and the message. ResourceNotFoundException and
// ServiceException spell the member "Message"; the others "message".
func writeError(w http.ResponseWriter, err *Error) {
	status := err.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	body := map[string]string{"__type": err.Type, "Type": "User"}
	switch {
	case status >= 500:
		body["Type"] = "Service"
	case err.Type == ErrValidation.Type:
		// The AWS-recorded ValidationException has no Type member
		// (LocalStack's test_api.snapshot.json for Lambda).
		delete(body, "Type")
	}
	if err.Type == ErrNotFound.Type || err.Type == ErrServiceUnavailable.Type {
		body["Message"] = err.Message
	} else {
		body["message"] = err.Message
	}
	if err.Reason != "" {
		body["Reason"] = err.Reason
	}
	if err.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(err.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", err.Type)
	w.WriteHeader(status)
	b, _ := json.Marshal(body) // a map of strings always marshals
	_, _ = w.Write(b)          // the client went away; nothing left to tell it
}
