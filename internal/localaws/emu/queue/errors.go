package queue

import (
	"fmt"
	"net/http"
)

// Error is an SQS API error as the AWS JSON 1.0 protocol carries it: Type is
// the Smithy shape name written to "__type" (the SDKs pick their typed error
// by it), Code is the legacy query-protocol code written to the
// x-amzn-query-error header (what ErrorCode() returns in aws-sdk-go-v2), and
// Status is the HTTP status of the shape's awsQueryError trait.
//
// Source: docs/aws-behaviour.md §3.3 (Smithy model
// sqs-2012-11-05.json traits; AWS recordings in LocalStack's snapshots).
type Error struct {
	Type    string
	Code    string
	Status  int
	Message string
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is reports whether target is an *Error of the same kind, so callers can
// write errors.Is(err, queue.ErrQueueDoesNotExist).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Type == e.Type && t.Code == e.Code
}

// Kinds of SQS errors. Compare with errors.Is; the messages of returned
// errors are specific to the request.
var (
	ErrQueueDoesNotExist            = kind("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", http.StatusBadRequest)
	ErrQueueNameExists              = kind("QueueNameExists", "QueueAlreadyExists", http.StatusBadRequest)
	ErrQueueDeletedRecently         = kind("QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently", http.StatusBadRequest)
	ErrPurgeQueueInProgress         = kind("PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", http.StatusForbidden)
	ErrMessageNotInflight           = kind("MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", http.StatusBadRequest)
	ErrReceiptHandleIsInvalid       = kind("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", http.StatusNotFound)
	ErrResourceNotFound             = kind("ResourceNotFoundException", "ResourceNotFoundException", http.StatusNotFound)
	ErrUnsupportedOperation         = kind("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", http.StatusBadRequest)
	ErrEmptyBatchRequest            = kind("EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", http.StatusBadRequest)
	ErrTooManyEntriesInBatchRequest = kind("TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", http.StatusBadRequest)
	ErrBatchEntryIdsNotDistinct     = kind("BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", http.StatusBadRequest)
	ErrBatchRequestTooLong          = kind("BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", http.StatusBadRequest)
	ErrInvalidBatchEntryID          = kind("InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", http.StatusBadRequest)
	ErrInvalidAttributeName         = kind("InvalidAttributeName", "InvalidAttributeName", http.StatusBadRequest)
	ErrInvalidAttributeValue        = kind("InvalidAttributeValue", "InvalidAttributeValue", http.StatusBadRequest)
	ErrInvalidMessageContents       = kind("InvalidMessageContents", "InvalidMessageContents", http.StatusBadRequest)
	ErrOverLimit                    = kind("OverLimit", "OverLimit", http.StatusForbidden)
	// The two unmodelled codes SQS still returns; their "__type" names are
	// the ones LocalStack's serializer uses (the exact AWS namespace is
	// UNCONFIRMED, and the SDKs strip it anyway).
	ErrInvalidParameterValue = kind("InvalidParameterValueException", "InvalidParameterValue", http.StatusBadRequest)
	ErrMissingParameter      = kind("MissingRequiredParameterException", "MissingParameter", http.StatusBadRequest)
	// ErrClosed is returned by calls on a Service after Close.
	ErrClosed = kind("ServiceUnavailable", "AWS.SimpleQueueService.ServiceUnavailable", http.StatusServiceUnavailable)
)

func kind(typ, code string, status int) *Error {
	return &Error{Type: typ, Code: code, Status: status}
}

// errorf returns a new error of kind k with a formatted message.
func errorf(k *Error, format string, args ...any) *Error {
	return &Error{Type: k.Type, Code: k.Code, Status: k.Status, Message: fmt.Sprintf(format, args...)}
}

// Messages AWS is recorded to return (docs/aws-behaviour.md §3.3, §3.9 and the
// AWS-validated LocalStack tests it cites).
func errNoQueue() *Error {
	return errorf(ErrQueueDoesNotExist, "The specified queue does not exist.")
}

func errInvalidParam(value any, param, reason string) *Error {
	return errorf(ErrInvalidParameterValue, "Value %v for parameter %s is invalid. Reason: %s", value, param, reason)
}

func errMissing(param string) *Error {
	return errorf(ErrMissingParameter, "The request must contain the parameter %s.", param)
}
