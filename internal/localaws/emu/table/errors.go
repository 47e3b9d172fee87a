package table

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/truora/minidyn/server"
)

// Error namespaces DynamoDB puts in front of the error code in "__type".
// SDKs keep only what follows '#'; boto3 and the CLI do the same.
const (
	nsDynamoDB   = "com.amazonaws.dynamodb.v20120810#"
	nsValidation = "com.amazon.coral.validate#"
	nsService    = "com.amazon.coral.service#"
)

// APIError is an error in the AWS JSON protocol shape. The stream package
// writes its errors with it too, so both APIs look alike on the wire.
type APIError struct {
	// Code is the AWS error code, e.g. "ResourceNotFoundException".
	Code string
	// Message is the human-readable message.
	Message string
	// Status is the HTTP status; 0 means 400.
	Status int
	// Extra holds additional members (Item, CancellationReasons).
	Extra map[string]any
}

// Error implements error.
func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// ErrorCode returns the AWS error code.
func (e *APIError) ErrorCode() string { return e.Code }

// Body returns the JSON error document, "__type" namespaced like DynamoDB's.
func (e *APIError) Body() map[string]any {
	ns := nsDynamoDB
	switch e.Code {
	case "ValidationException":
		ns = nsValidation
	case "SerializationException", "UnknownOperationException", "InternalFailure":
		ns = nsService
	}
	body := map[string]any{"__type": ns + e.Code, "message": e.Message}
	for k, v := range e.Extra {
		body[k] = v
	}
	return body
}

// HTTPStatus returns the response status code.
func (e *APIError) HTTPStatus() int {
	if e.Status == 0 {
		return http.StatusBadRequest
	}
	return e.Status
}

func apiErr(code, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

func validation(format string, args ...any) *APIError {
	return apiErr("ValidationException", format, args...)
}

func notFoundTable(name string) *APIError {
	// DescribeTable/DeleteTable/UpdateTable wording, as AWS returns it.
	return apiErr("ResourceNotFoundException", "Requested resource not found: Table: %s not found", name)
}

// errDataNotFound is the data-plane wording for a missing table.
func errDataNotFound() *APIError {
	return apiErr("ResourceNotFoundException", "Requested resource not found")
}

// fromMinidyn converts an error returned by minidyn's client into the AWS
// shape. Anything that is not an AWS API error is an emulator fault and is
// reported as a 500 InternalServerError with its text, never hidden.
func fromMinidyn(err error) *APIError {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	var tce *ddbtypes.TransactionCanceledException
	if errors.As(err, &tce) {
		reasons := make([]map[string]any, len(tce.CancellationReasons))
		for i, r := range tce.CancellationReasons {
			m := map[string]any{"Code": aws.ToString(r.Code)}
			if r.Message != nil {
				m["Message"] = *r.Message
			}
			if len(r.Item) > 0 {
				m["Item"] = wireItem(fromSDKItem(r.Item))
			}
			reasons[i] = m
		}
		return &APIError{Code: "TransactionCanceledException", Message: aws.ToString(tce.Message),
			Extra: map[string]any{"CancellationReasons": reasons}}
	}
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		e := &APIError{Code: "ConditionalCheckFailedException", Message: aws.ToString(ccf.Message)}
		if e.Message == "" {
			e.Message = "The conditional request failed"
		}
		if len(ccf.Item) > 0 {
			e.Extra = map[string]any{"Item": wireItem(fromSDKItem(ccf.Item))}
		}
		return e
	}
	var rnf *ddbtypes.ResourceNotFoundException
	if errors.As(err, &rnf) {
		return errDataNotFound()
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		e := &APIError{Code: api.ErrorCode(), Message: api.ErrorMessage()}
		if e.Code == "InternalServerError" {
			e.Status = http.StatusInternalServerError
		}
		return e
	}
	return &APIError{Code: "InternalServerError", Message: "local cloud: minidyn: " + err.Error(),
		Status: http.StatusInternalServerError}
}

// fromSDKItem converts the SDK's attribute-value union (used by minidyn in
// its error types) to the wire representation.
func fromSDKItem(m map[string]ddbtypes.AttributeValue) item {
	out := make(item, len(m))
	for k, v := range m {
		out[k] = fromSDKValue(v)
	}
	return out
}

func fromSDKValue(v ddbtypes.AttributeValue) *server.AttributeValue {
	switch t := v.(type) {
	case *ddbtypes.AttributeValueMemberS:
		return &server.AttributeValue{S: aws.String(t.Value)}
	case *ddbtypes.AttributeValueMemberN:
		return &server.AttributeValue{N: aws.String(t.Value)}
	case *ddbtypes.AttributeValueMemberB:
		return &server.AttributeValue{B: t.Value}
	case *ddbtypes.AttributeValueMemberBOOL:
		return &server.AttributeValue{BOOL: aws.Bool(t.Value)}
	case *ddbtypes.AttributeValueMemberNULL:
		return &server.AttributeValue{NULL: aws.Bool(t.Value)}
	case *ddbtypes.AttributeValueMemberSS:
		return &server.AttributeValue{SS: aws.StringSlice(t.Value)}
	case *ddbtypes.AttributeValueMemberNS:
		return &server.AttributeValue{NS: aws.StringSlice(t.Value)}
	case *ddbtypes.AttributeValueMemberBS:
		return &server.AttributeValue{BS: t.Value}
	case *ddbtypes.AttributeValueMemberL:
		l := make([]*server.AttributeValue, len(t.Value))
		for i, e := range t.Value {
			l[i] = fromSDKValue(e)
		}
		return &server.AttributeValue{L: l}
	case *ddbtypes.AttributeValueMemberM:
		return &server.AttributeValue{M: fromSDKItem(t.Value)}
	default:
		return &server.AttributeValue{}
	}
}
