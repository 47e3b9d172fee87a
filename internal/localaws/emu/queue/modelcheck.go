package queue

import (
	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates a request body against AWS's SQS model before the
// operation runs; the rejection carries SQS's query-compatible codes
// (MissingParameter, InvalidParameterValue, InvalidAttributeName).
func checkModel(operation string, body []byte) *Error {
	e := awsmodel.CheckJSON(emu.ServiceSQS, operation, body)
	if e == nil {
		return nil
	}
	return &Error{Type: e.Type, Code: e.Code, Status: e.Status, Message: e.Message}
}
