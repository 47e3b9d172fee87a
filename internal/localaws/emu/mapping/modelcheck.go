package mapping

import (
	"net/http"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates an event source mapping request against AWS's
// Lambda model before it runs; the handler reads the same body afterwards.
func checkModel(r *http.Request, op string) *Error {
	e := awsmodel.CheckRequest(emu.ServiceLambda, op, r, maxBody)
	if e == nil {
		return nil
	}
	return &Error{Type: e.Code, Status: e.Status, Message: e.Message, noUserType: e.Code == ErrValidation.Type}
}
