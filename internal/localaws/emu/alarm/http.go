package alarm

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// Protocol facts (sources: aws-sdk-go-v2/service/cloudwatch@v1.75.7
// request_snapshot/*.snap and response_snapshot/*.snap; smithy-go
// transport/http/protocol/rpcv2/rpcv2.go; botocore data/cloudwatch/2010-08-01
// service-2.json metadata):
//
//   - RPC v2 CBOR: POST /service/GraniteServiceVersion20100801/operation/<Op>,
//     headers Smithy-Protocol: rpc-v2-cbor, Content-Type/Accept
//     application/cbor, X-Amzn-Query-Mode: true. The response carries the
//     same Smithy-Protocol header and a CBOR map body.
//   - AWS JSON 1.0: X-Amz-Target: GraniteServiceVersion20100801.<Op>, what
//     botocore picks from metadata.protocols [smithy-rpc-v2-cbor, json, query].
//   - Errors (both): a map with "__type" (the error shape id) and "message";
//     the service is awsQueryCompatible, so X-Amzn-Query-Error carries the
//     legacy code ("InvalidParameterValue;Sender"), which the Go SDK puts in
//     ErrorCode() and botocore in Error.Code.
//   - PutMetricData may arrive gzip-compressed (Content-Encoding: gzip;
//     the SDK's requestcompression middleware, RequestMinCompressSizeBytes).

const (
	cborServicePath = "/service/GraniteServiceVersion20100801/operation/"
	jsonTargetPref  = "GraniteServiceVersion20100801."
	errNamespace    = "com.amazonaws.cloudwatch#"
	// maxBody bounds a (decompressed) request: PutMetricData is limited to
	// 1 MB (PutMetricData API reference); dashboards to 1 MB bodies too.
	maxBody = 2 << 20
)

type protocol int

const (
	protoCBOR protocol = iota
	protoJSON
)

// call is one decoded request.
type call struct {
	proto protocol
	body  []byte
}

func (c *call) decode(out any) error {
	var err error
	switch c.proto {
	case protoCBOR:
		err = decodeCBOR(c.body, out)
	default:
		if len(bytes.TrimSpace(c.body)) == 0 {
			return nil
		}
		err = json.Unmarshal(c.body, out)
	}
	if err != nil {
		return &apiError{shape: "SerializationException", query: "SerializationException", status: http.StatusBadRequest,
			msg: "cannot read the request: " + err.Error()}
	}
	return nil
}

type opFunc func(s *Service, c *call) (any, error)

// operations are the CloudWatch operations the local cloud serves.
var operations = map[string]opFunc{
	"DeleteAlarms":            (*Service).opDeleteAlarms,
	"DeleteDashboards":        (*Service).opDeleteDashboards,
	"DescribeAlarmHistory":    (*Service).opDescribeAlarmHistory,
	"DescribeAlarms":          (*Service).opDescribeAlarms,
	"DescribeAlarmsForMetric": (*Service).opDescribeAlarmsForMetric,
	"DisableAlarmActions":     (*Service).opDisableAlarmActions,
	"EnableAlarmActions":      (*Service).opEnableAlarmActions,
	"GetDashboard":            (*Service).opGetDashboard,
	"GetMetricStatistics":     (*Service).opGetMetricStatistics,
	"ListDashboards":          (*Service).opListDashboards,
	"ListMetrics":             (*Service).opListMetrics,
	"ListTagsForResource":     (*Service).opListTagsForResource,
	"PutDashboard":            (*Service).opPutDashboard,
	"PutMetricAlarm":          (*Service).opPutMetricAlarm,
	"PutMetricData":           (*Service).opPutMetricData,
	"SetAlarmState":           (*Service).opSetAlarmState,
	"TagResource":             (*Service).opTagResource,
	"UntagResource":           (*Service).opUntagResource,
}

// ServeHTTP serves the CloudWatch API over Smithy RPC v2 CBOR and AWS
// JSON 1.0. Register it under emu.ServiceMonitoring.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Amzn-Requestid", uuid.NewString())
	proto, opName, ok := identify(r)
	if !ok {
		// An old SDK on the query protocol (form-encoded Action=...).
		writeError(w, protoJSON, &apiError{shape: "UnknownOperationException", query: "InvalidAction", status: http.StatusBadRequest,
			msg: "the taskpipe local cloud serves CloudWatch over Smithy RPC v2 CBOR and AWS JSON 1.0 only, not the query protocol; use a current AWS SDK"})
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, proto, &apiError{shape: "UnknownOperationException", query: "InvalidAction", status: http.StatusMethodNotAllowed,
			msg: "CloudWatch operations are POST requests"})
		return
	}
	op := operations[opName]
	if op == nil {
		writeError(w, proto, &apiError{shape: "UnknownOperationException", query: "InvalidAction", status: http.StatusBadRequest,
			msg: fmt.Sprintf("operation %s is not emulated by the taskpipe local cloud's CloudWatch", opName)})
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, proto, err)
		return
	}
	if err := checkModel(proto, opName, body); err != nil {
		writeError(w, proto, err)
		return
	}
	out, err := op(s, &call{proto: proto, body: body})
	if err != nil {
		writeError(w, proto, err)
		return
	}
	writeOK(w, proto, out)
}

func identify(r *http.Request) (protocol, string, bool) {
	if name, ok := strings.CutPrefix(r.URL.Path, cborServicePath); ok && name != "" {
		return protoCBOR, name, true
	}
	if name, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), jsonTargetPref); ok && name != "" {
		return protoJSON, name, true
	}
	return 0, "", false
}

func readBody(r *http.Request) ([]byte, error) {
	var src io.Reader = r.Body
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(io.LimitReader(r.Body, maxBody))
		if err != nil {
			return nil, &apiError{shape: "SerializationException", query: "SerializationException", status: http.StatusBadRequest,
				msg: "the gzip-encoded request body is not valid gzip: " + err.Error()}
		}
		defer zr.Close()
		src = zr
	default:
		return nil, &apiError{shape: "SerializationException", query: "SerializationException", status: http.StatusBadRequest,
			msg: fmt.Sprintf("Content-Encoding %q is not supported (gzip is)", enc)}
	}
	body, err := io.ReadAll(io.LimitReader(src, maxBody+1))
	if err != nil {
		return nil, &apiError{shape: "SerializationException", query: "SerializationException", status: http.StatusBadRequest,
			msg: "cannot read the request body: " + err.Error()}
	}
	if len(body) > maxBody {
		return nil, &apiError{shape: "RequestEntityTooLarge", query: "RequestEntityTooLarge", status: http.StatusRequestEntityTooLarge,
			msg: fmt.Sprintf("the request body exceeds %d bytes", maxBody)}
	}
	return body, nil
}

func writeOK(w http.ResponseWriter, proto protocol, out any) {
	if out == nil {
		out = empty{}
	}
	if proto == protoCBOR {
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		w.Header().Set("Content-Type", "application/cbor")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(encodeCBOR(out)) // the client went away; nothing left to tell it
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out) // the client went away; nothing left to tell it
}

// apiError is a CloudWatch error: the Smithy shape name (what "__type"
// carries), the awsQueryError code (X-Amzn-Query-Error) and the HTTP status
// of the shape's httpError trait (cloudwatch@v1.75.7 schemas/schemas.go).
type apiError struct {
	shape  string
	query  string
	status int
	msg    string
	extra  map[string]any
}

func (e *apiError) Error() string { return e.query + ": " + e.msg }

func writeError(w http.ResponseWriter, proto protocol, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{shape: "InternalServiceFault", query: "InternalServiceError", status: http.StatusInternalServerError,
			msg: "local cloud: " + err.Error()}
	}
	fault := "Sender"
	if ae.status >= 500 {
		fault = "Receiver"
	}
	w.Header().Set("X-Amzn-Query-Error", ae.query+";"+fault)
	body := map[string]any{"__type": errNamespace + ae.shape, "message": ae.msg}
	for k, v := range ae.extra {
		body[k] = v
	}
	if proto == protoCBOR {
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		w.Header().Set("Content-Type", "application/cbor")
		w.WriteHeader(ae.status)
		_, _ = w.Write(encodeCBOR(body)) // the client went away; nothing left to tell it
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Errortype", ae.shape)
	w.WriteHeader(ae.status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // the client went away; nothing left to tell it
}

// Error constructors, one per modeled error the operations return.

func validationErr(format string, args ...any) error {
	return &apiError{shape: "ValidationException", query: "ValidationError", status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func invalidValue(format string, args ...any) error {
	return &apiError{shape: "InvalidParameterValueException", query: "InvalidParameterValue", status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func invalidCombination(format string, args ...any) error {
	return &apiError{shape: "InvalidParameterCombinationException", query: "InvalidParameterCombination", status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func missingParam(format string, args ...any) error {
	return &apiError{shape: "MissingRequiredParameterException", query: "MissingParameter", status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func alarmNotFound(format string, args ...any) error {
	return &apiError{shape: "ResourceNotFound", query: "ResourceNotFound", status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

func resourceNotFound(resourceType, id string) error {
	msg := fmt.Sprintf("%s %s does not exist", resourceType, id)
	return &apiError{shape: "ResourceNotFoundException", query: "ResourceNotFoundException", status: http.StatusNotFound, msg: msg,
		extra: map[string]any{"ResourceType": resourceType, "ResourceId": id, "Message": msg}}
}

func invalidNextToken() error {
	return &apiError{shape: "InvalidNextToken", query: "InvalidNextToken", status: http.StatusBadRequest, msg: "The service cannot process the NextToken: it is not one this service returned"}
}

func invalidFormat(format string, args ...any) error {
	return &apiError{shape: "InvalidFormatFault", query: "InvalidFormat", status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func notSupported(what string) error {
	return invalidValue("%s is not supported by the taskpipe local cloud", what)
}
