package pipe

import (
	"net/http"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates a Pipes request (path, query, body) against AWS's
// model before it runs: ValidationException with Pipes' JSON-schema
// messages and fieldList.
func checkModel(r *http.Request, op string, body []byte) *apiError {
	e := awsmodel.CheckHTTP(emu.ServicePipes, op, r, body)
	if e == nil {
		return nil
	}
	fields := make([]fieldError, 0, len(e.FieldList))
	for _, f := range e.FieldList {
		fields = append(fields, fieldError{Name: f.Name, Message: f.Message})
	}
	return &apiError{Status: e.Status, Type: e.Code, Message: e.Message, Fields: fields}
}
