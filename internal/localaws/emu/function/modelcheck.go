package function

import (
	"net/http"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates a Lambda request (path, query, headers, body)
// against AWS's model before its handler runs; the handler reads the same
// body afterwards.
func checkModel(r *http.Request, op string) *Error {
	limit := int64(maxJSONRequest)
	switch op {
	case "CreateFunction", "UpdateFunctionCode":
		limit = maxZipRequest + 4096
	case "Invoke":
		limit = maxSyncPayload
	}
	e := awsmodel.CheckRequest(emu.ServiceLambda, op, r, limit)
	if e == nil {
		return nil
	}
	return &Error{Type: e.Code, Status: e.Status, Message: e.Message}
}
