package identity

import (
	"net/url"

	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
)

// checkModel validates a query-protocol request against AWS's IAM or STS
// model before the action runs (ValidationError, Coral's wording).
func checkModel(service, action string, form url.Values) *queryError {
	e := awsmodel.CheckQuery(service, action, form)
	if e == nil {
		return nil
	}
	return &queryError{e.Status, e.Code, e.Message}
}
