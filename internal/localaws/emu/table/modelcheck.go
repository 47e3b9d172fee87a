package table

import (
	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// CheckModel validates a DynamoDB (service emu.ServiceDynamoDB) or
// DynamoDB Streams (emu.ServiceStreams) request body before it runs:
// against AWS's model of the operation, then, for DynamoDB, the limits the
// service itself applies (limits.go). It returns the rejection AWS would
// send (ValidationException, or SerializationException for a value of the
// wrong type), or nil. A body that is not JSON is left to the operation.
func CheckModel(service, operation string, body []byte) *APIError {
	op := awsmodel.MustLoad().Operation(service, operation)
	if op == nil {
		return nil
	}
	in, err := awsmodel.DecodeJSON(body)
	if err != nil {
		return nil
	}
	if e := op.Validate(in); e != nil {
		return &APIError{Code: e.Code, Message: e.Message, Status: e.Status}
	}
	if service == emu.ServiceDynamoDB {
		return checkLimits(in)
	}
	return nil
}
