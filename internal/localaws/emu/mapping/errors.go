package mapping

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a Lambda API error as the REST-JSON protocol carries it: the
// X-Amzn-ErrorType header names the Smithy shape and the body is
// {"Type":"User","message":…}. Lambda's shapes disagree on the case of the
// message key (InvalidParameterValueException and ResourceConflictException
// use "message", ResourceNotFoundException "Message": the Lambda Smithy
// model, aws-sdk-go-v2 service/lambda schemas.go), so the key travels with
// the kind; the SDK accepts either.
type Error struct {
	Type    string
	Status  int
	Message string
	// upperKey selects "Message" over "message" in the body.
	upperKey bool
	// noUserType leaves out "Type":"User" (ValidationException has none,
	// AWS-recorded in LocalStack test_api.snapshot.json).
	noUserType bool
}

// Error implements error.
func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Is reports whether target is an *Error of the same type, so callers can
// write errors.Is(err, mapping.ErrResourceNotFound).
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Type == e.Type
}

// Kinds of errors the service returns. Compare with errors.Is.
var (
	ErrInvalidParameterValue = &Error{Type: "InvalidParameterValueException", Status: http.StatusBadRequest}
	ErrResourceNotFound      = &Error{Type: "ResourceNotFoundException", Status: http.StatusNotFound, upperKey: true}
	ErrResourceConflict      = &Error{Type: "ResourceConflictException", Status: http.StatusConflict}
	ErrValidation            = &Error{Type: "ValidationException", Status: http.StatusBadRequest, noUserType: true}
	ErrInvalidRequestContent = &Error{Type: "InvalidRequestContentException", Status: http.StatusBadRequest}
	ErrUnsupportedOperation  = &Error{Type: "UnsupportedOperationException", Status: http.StatusBadRequest}
	ErrService               = &Error{Type: "ServiceException", Status: http.StatusInternalServerError}
)

func errorf(kind *Error, format string, args ...any) *Error {
	return &Error{
		Type: kind.Type, Status: kind.Status, upperKey: kind.upperKey, noUserType: kind.noUserType,
		Message: fmt.Sprintf(format, args...),
	}
}

// errRange is AWS's constraint-violation wording for a number out of range,
// the shape of the AWS-recorded ValidationException in LocalStack's
// test_api.snapshot.json ("1 validation error detected: Value '0' at
// 'startingPosition' failed to satisfy constraint: …").
func errRange(field string, value int64, lo, hi int64) *Error {
	if value < lo {
		return errorf(ErrValidation, "1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to %d", value, field, lo)
	}
	return errorf(ErrValidation, "1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value less than or equal to %d", value, field, hi)
}

// errNotFound is Lambda's generic not-found message, which its console and
// CLI show for an unknown mapping UUID (the exact text is UNCONFIRMED by a
// recording).
func errNotFound() *Error {
	return errorf(ErrResourceNotFound, "The resource you requested does not exist.")
}
