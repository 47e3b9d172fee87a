package schedule

import (
	"net/http"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// begin names the operation for the router's counters and validates the
// request (path, query, body) against AWS's Scheduler model before the
// operation runs; false means it answered with the rejection.
func begin(w http.ResponseWriter, r *http.Request, op string) bool {
	emu.SetOperation(r, op)
	if e := awsmodel.CheckRequest(emu.ServiceScheduler, op, r, maxBody); e != nil {
		writeError(w, &Error{Type: e.Code, Status: e.Status, Message: e.Message})
		return false
	}
	return true
}
