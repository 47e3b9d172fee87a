package alarm

import (
	"github.com/taskpipe/taskpipe/internal/localaws/awsmodel"
	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// checkModel validates a CloudWatch request body (CBOR or JSON) against
// AWS's model before the operation runs. The query code travels in
// X-Amzn-Query-Error, which the SDKs read: MissingParameter,
// InvalidParameterValue, ValidationError.
func checkModel(proto protocol, operation string, body []byte) error {
	var e *awsmodel.Error
	if proto == protoCBOR {
		e = awsmodel.CheckCBOR(emu.ServiceMonitoring, operation, body)
	} else {
		e = awsmodel.CheckJSON(emu.ServiceMonitoring, operation, body)
	}
	if e == nil {
		return nil
	}
	shape := e.Type
	if e.Code == "ValidationError" {
		shape = "ValidationException" // as validationErr: the model has no shape for it
	}
	return &apiError{shape: shape, query: e.Code, status: e.Status, msg: e.Message}
}
