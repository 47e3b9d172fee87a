package loggroup

import (
	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates a request body against AWS's CloudWatch Logs model
// before the operation runs (InvalidParameterException with Coral's
// "N validation errors detected" wording).
func checkModel(operation string, body []byte) *Error {
	e := awsmodel.CheckJSON(emu.ServiceLogs, operation, body)
	if e == nil {
		return nil
	}
	return &Error{Type: e.Code, Status: e.Status, Message: e.Message}
}
