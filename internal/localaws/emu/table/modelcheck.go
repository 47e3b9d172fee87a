package table

import "github.com/taskpipe/taskpipe/internal/localaws/awsmodel"

// CheckModel validates a DynamoDB (service emu.ServiceDynamoDB) or
// DynamoDB Streams (emu.ServiceStreams) request body against AWS's model
// of the operation, before it runs, and returns the rejection AWS would
// send (ValidationException, or SerializationException for a value of the
// wrong type), or nil.
func CheckModel(service, operation string, body []byte) *APIError {
	e := awsmodel.CheckJSON(service, operation, body)
	if e == nil {
		return nil
	}
	return &APIError{Code: e.Code, Message: e.Message, Status: e.Status}
}
