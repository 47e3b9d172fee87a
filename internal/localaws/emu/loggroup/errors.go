package loggroup

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error is a CloudWatch Logs API error. Type is the Smithy shape name
// written to "__type", which the SDKs type their errors by. Every
// CloudWatch Logs error is an HTTP 400 (the SDK error snapshots in
// aws-sdk-go-v2/service/cloudwatchlogs/response_snapshot/*.error.snap),
// except the server-side ones.
type Error struct {
	Type    string
	Status  int
	Message string
}

// Error implements error.
func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Is reports whether target is an *Error of the same type, so callers can
// write errors.Is(err, loggroup.ErrResourceNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type
}

// Kinds of errors. Compare with errors.Is.
var (
	ErrResourceNotFound      = &Error{Type: "ResourceNotFoundException", Status: http.StatusBadRequest}
	ErrResourceAlreadyExists = &Error{Type: "ResourceAlreadyExistsException", Status: http.StatusBadRequest}
	ErrInvalidParameter      = &Error{Type: "InvalidParameterException", Status: http.StatusBadRequest}
	ErrTooManyTags           = &Error{Type: "TooManyTagsException", Status: http.StatusBadRequest}
	ErrSerialization         = &Error{Type: "SerializationException", Status: http.StatusBadRequest}
	ErrUnknownOperation      = &Error{Type: "UnknownOperationException", Status: http.StatusBadRequest}
)

func errorf(k *Error, format string, args ...any) *Error {
	return &Error{Type: k.Type, Status: k.Status, Message: fmt.Sprintf(format, args...)}
}

// The messages CloudWatch Logs answers with for missing and duplicate
// resources.
func errNoGroup() *Error {
	return errorf(ErrResourceNotFound, "The specified log group does not exist.")
}

func errNoStream() *Error {
	return errorf(ErrResourceNotFound, "The specified log stream does not exist.")
}

// errValidation is the Coral "1 validation error detected" message that
// CloudWatch Logs returns as InvalidParameterException for model
// constraint violations.
func errValidation(value any, member, constraint string) *Error {
	return errorf(ErrInvalidParameter,
		"1 validation error detected: Value '%v' at '%s' failed to satisfy constraint: %s", value, member, constraint)
}

// writeError writes err in the AWS JSON 1.1 error shape.
func writeError(w http.ResponseWriter, err *Error) {
	status := err.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Amzn-ErrorType", err.Type)
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]string{"__type": err.Type, "message": err.Message}) // strings always marshal
	_, _ = w.Write(body)                                                                   // the client went away; nothing left to tell it
}
