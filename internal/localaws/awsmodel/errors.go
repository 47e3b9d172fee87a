package awsmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error is a request AWS would reject before running the operation. Each
// service writes it in its own wire shape: JSON protocols as
// {"__type": Type, "message": Message} (SQS and CloudWatch also put Code
// in x-amzn-query-error), query protocols as <Error><Code>Code</Code>
// <Message>…</Message></Error>, S3 as <Error><Code>Code</Code>… with
// ArgumentName/ArgumentValue when set.
type Error struct {
	Service   string
	Operation string
	// Code is the error code clients see (ErrorCode() in the SDKs; the query
	// protocol's <Code>; for awsQueryCompatible services the legacy code,
	// e.g. SQS "InvalidParameterValue").
	Code string
	// Type is the JSON protocols' __type shape name. It equals Code except
	// for awsQueryCompatible services (SQS "InvalidParameterValueException"
	// for Code "InvalidParameterValue") and CloudWatch over JSON/CBOR.
	Type    string
	Message string
	Status  int
	// Fault is "Sender" (all validation errors are client errors).
	Fault string
	// FieldList is Pipes' ValidationException fieldList: one entry per violation.
	FieldList []Field
	// ArgumentName / ArgumentValue: S3's InvalidArgument details.
	ArgumentName, ArgumentValue string
	// Violations are the violations the error reports (the first ones, in model order).
	Violations []Violation
}

// Field is an entry of Pipes' ValidationException fieldList.
type Field struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// JSONBody is the AWS JSON protocol error body ({"__type", "message"}, and
// Pipes' fieldList).
func (e *Error) JSONBody() map[string]any {
	b := map[string]any{"__type": e.Type, "message": e.Message}
	if len(e.FieldList) > 0 {
		b["fieldList"] = e.FieldList
	}
	return b
}

// style is how a service words validation errors.
type style int

const (
	styleCoral      style = iota // "N validation error(s) detected: Value … at '…' failed to satisfy constraint: …"
	styleCloudWatch              // MissingParameter "The parameter X is required." else Coral ValidationError
	styleSQS                     // MissingParameter / InvalidParameterValue / InvalidAttributeName, query names
	stylePipes                   // ValidationException "[json-schema messages]" + fieldList
	styleS3                      // InvalidArgument / MalformedXML / InvalidStorageClass …
)

type policy struct {
	style style
	// code is the Coral-style validation error code.
	code string
	// serialization is the code for values of the wrong type.
	serialization string
}

// policyFor returns how a service reports validation errors. Sources are
// in PROVENANCE.md ("Error formats").
func policyFor(service string) *policy {
	switch service {
	case "dynamodb", "streams.dynamodb", "lambda", "scheduler", "events", "kms", "ssm":
		return &policy{style: styleCoral, code: "ValidationException", serialization: "SerializationException"}
	case "logs":
		return &policy{style: styleCoral, code: "InvalidParameterException", serialization: "SerializationException"}
	case "iam", "sts":
		return &policy{style: styleCoral, code: "ValidationError", serialization: "ValidationError"}
	case "monitoring":
		return &policy{style: styleCloudWatch, code: "ValidationError", serialization: "InvalidParameterValue"}
	case "sqs":
		// A value of the wrong JSON type fails deserialization first:
		// SerializationException "STRING_VALUE can not be converted to an
		// Integer" (AWS-recorded, https://github.com/async-aws/aws/issues/1667).
		return &policy{style: styleSQS, code: "InvalidParameterValue", serialization: "SerializationException"}
	case "pipes":
		return &policy{style: stylePipes, code: "ValidationException", serialization: "ValidationException"}
	case "s3":
		return &policy{style: styleS3, code: "InvalidArgument", serialization: "InvalidArgument"}
	}
	return &policy{style: styleCoral, code: "ValidationException", serialization: "SerializationException"}
}

// jsonTypes maps legacy query codes to the JSON __type shapes of the
// awsQueryCompatible services (SQS, CloudWatch over JSON/CBOR).
var jsonTypes = map[string]string{
	"InvalidParameterValue": "InvalidParameterValueException",
	"MissingParameter":      "MissingRequiredParameterException",
}

func (op *Operation) newError(code, msg string, viol []Violation) *Error {
	typ := code
	if t, ok := jsonTypes[code]; ok && (op.Service.Key == "sqs" || op.Service.Key == "monitoring") {
		typ = t
	}
	return &Error{Service: op.Service.Key, Operation: op.Name, Code: code, Type: typ, Message: msg,
		Status: http.StatusBadRequest, Fault: "Sender", Violations: viol}
}

func (op *Operation) errorFor(viol []Violation) *Error {
	pol := op.Service.policy
	// Values of the wrong type fail deserialization, before validation.
	for i := range viol {
		if viol[i].Kind == KindType {
			return op.typeError(pol, viol[i:i+1])
		}
	}
	switch pol.style {
	case styleCloudWatch:
		var lines []string
		var req []Violation
		for _, v := range viol {
			if v.Kind == KindRequired {
				lines = append(lines, "The parameter "+QueryPath(v.Path)+" is required.")
				req = append(req, v)
			}
		}
		if len(lines) > 0 {
			return op.newError("MissingParameter", strings.Join(lines, "\n"), req)
		}
		return op.newError(pol.code, coralMessage(viol), viol)
	case styleSQS:
		return op.sqsError(viol[0])
	case stylePipes:
		return op.pipesError(viol)
	case styleS3:
		return op.s3Error(viol[0])
	}
	return op.newError(pol.code, coralMessage(viol), viol)
}

// coralMessage formats violations as AWS's Coral validators do:
// "1 validation error detected: Value 'ab' at 'tableName' failed to
// satisfy constraint: Member must have length greater than or equal to 3",
// several joined by "; " after "N validation errors detected: ".
func coralMessage(viol []Violation) string {
	var items []string
	seen := map[string]bool{}
	for i := range viol {
		v := &viol[i]
		if c := v.Container; c != nil {
			path := CoralPath(c.Path)
			key := c.Kind + "\x00" + path
			if seen[key] {
				continue
			}
			seen[key] = true
			var constraint string
			switch c.Kind {
			case "list":
				constraint = "Member must satisfy constraint: " + allConstraints(c.Shape.Member.Shape, true)
			case "mapKey":
				constraint = "Map keys must satisfy constraint: " + allConstraints(c.Shape.Key.Shape, false)
			default:
				constraint = "Map value must satisfy constraint: " + allConstraints(c.Shape.Value.Shape, false)
			}
			items = append(items, valueAt(c.Value, c.Shape, containerSensitive(c), path)+" failed to satisfy constraint: "+constraint)
			continue
		}
		items = append(items, valueAt(v.Value, v.Shape, v.Shape.Sensitive, CoralPath(v.Path))+" failed to satisfy constraint: "+coralConstraint(v))
	}
	n := len(items)
	head := "1 validation error detected: "
	if n != 1 {
		head = strconv.Itoa(n) + " validation errors detected: "
	}
	return head + strings.Join(items, "; ")
}

func containerSensitive(c *ContainerRef) bool {
	if c.Shape.Sensitive {
		return true
	}
	switch c.Kind {
	case "list":
		return c.Shape.Member.Shape.Sensitive
	case "mapKey":
		return c.Shape.Key.Shape.Sensitive
	}
	return c.Shape.Value.Shape.Sensitive
}

// valueAt is "Value 'v' at 'path'", "Value null at 'path'" or, for a
// sensitive value, "Value at 'path'".
func valueAt(val any, sh *Shape, sensitive bool, path string) string {
	switch {
	case val == nil:
		return "Value null at '" + path + "'"
	case sensitive:
		return "Value at '" + path + "'"
	}
	return "Value '" + renderJava(val, sh) + "' at '" + path + "'"
}

func (op *Operation) typeError(pol *policy, viol []Violation) *Error {
	v := viol[0]
	sh := v.Shape
	switch pol.style {
	case styleCloudWatch:
		return op.newError("InvalidParameterValue", "The value "+renderJava(v.Value, sh)+" for parameter "+QueryPath(v.Path)+" is invalid.", viol)
	case stylePipes:
		return op.pipesError(viol)
	case styleS3:
		return op.s3Error(v)
	}
	if op.Service.Protocol == "query" {
		return op.newError(pol.serialization, coralMessage(viol), viol)
	}
	var msg string
	switch jsonKind(v.Value) {
	case "object":
		msg = "Start of structure or map found where not expected."
	case "array":
		msg = "Start of list found where not expected"
	default:
		if sh.Type == "structure" || sh.Type == "map" || sh.Type == "union" {
			msg = "Unexpected value type in payload"
		} else {
			msg = jsonToken(v.Value) + " can not be converted to " + article(javaTypeName(sh))
		}
	}
	return op.newError(pol.serialization, msg, viol)
}

func (op *Operation) sqsError(v Violation) *Error {
	one := []Violation{v}
	switch v.Kind {
	case KindRequired:
		mem := lastMember(v.Path)
		if op.Name == "CreateQueue" && mem != nil && mem.Name == "QueueName" && len(v.Path) == 1 {
			// AWS-validated (LocalStack tests/aws/test_validate.py).
			return op.newError("InvalidParameterValue", "Value for parameter QueueName is invalid. Reason: Must specify a queue name.", one)
		}
		name := QueryPath(v.Path)
		if mem != nil && mem.Shape.Type == "map" {
			// "The request must contain the parameter Attribute.Name." (AWS-validated, SetQueueAttributes)
			name += "." + nameOr(mem.Shape.Key.QueryName, "key")
		}
		return op.newError("MissingParameter", "The request must contain the parameter "+name+".", one)
	case KindEnum:
		return op.newError("InvalidAttributeName", "Unknown Attribute "+renderJava(v.Value, v.Shape)+".", one)
	}
	return op.newError("InvalidParameterValue", "Value "+renderJava(v.Value, v.Shape)+" for parameter "+QueryPath(v.Path)+" is invalid. Reason: "+coralConstraint(&v)+".", one)
}

// pipesError words violations as the JSON-schema validator behind Pipes
// does ("[numeric instance is lower than the required minimum (minimum:
// 1, found: 0)]", recorded from UpdatePipe) and lists them in fieldList.
func (op *Operation) pipesError(viol []Violation) *Error {
	var msgs []string
	var fields []Field
	missing := map[string][]string{}
	var order []string
	for i := range viol {
		v := &viol[i]
		if v.Kind == KindRequired && lastMember(v.Path) != nil {
			parent := FieldPath(v.Path[:len(v.Path)-1])
			if _, ok := missing[parent]; !ok {
				order = append(order, parent)
			}
			missing[parent] = append(missing[parent], lastMember(v.Path).Name)
			continue
		}
		m := fgeMessage(v)
		msgs = append(msgs, m)
		fields = append(fields, Field{Name: FieldPath(v.Path), Message: m})
	}
	var req []string
	var reqFields []Field
	for _, parent := range order {
		names, _ := json.Marshal(missing[parent])
		m := "object has missing required properties (" + string(names) + ")"
		req = append(req, m)
		reqFields = append(reqFields, Field{Name: parent, Message: m})
	}
	msgs = append(req, msgs...)
	fields = append(reqFields, fields...)
	e := op.newError("ValidationException", "["+strings.Join(msgs, ", ")+"]", viol)
	e.FieldList = fields
	return e
}

func fgeMessage(v *Violation) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	sh := v.Shape
	switch v.Kind {
	case KindRequired:
		return "instance type (null) does not match any allowed primitive type (allowed: [" + q(schemaType(sh)) + "])"
	case KindMinLength, KindMaxLength:
		min := v.Kind == KindMinLength
		switch sh.Type {
		case "list":
			if min {
				return fmt.Sprintf("array is too short: must have at least %s elements but instance has %d elements", v.Bound.Text, v.Length)
			}
			return fmt.Sprintf("array is too long: must have at most %s elements but instance has %d elements", v.Bound.Text, v.Length)
		case "map":
			if min {
				return fmt.Sprintf("object has too few properties (found %d but schema requires at least %s)", v.Length, v.Bound.Text)
			}
			return fmt.Sprintf("object has too many properties (found %d but schema requires at most %s)", v.Length, v.Bound.Text)
		}
		s := renderJava(v.Value, sh)
		if min {
			return fmt.Sprintf("string %s is too short (length: %d, required minimum: %s)", q(s), v.Length, v.Bound.Text)
		}
		return fmt.Sprintf("string %s is too long (length: %d, maximum allowed: %s)", q(s), v.Length, v.Bound.Text)
	case KindMinValue:
		return "numeric instance is lower than the required minimum (minimum: " + v.Bound.Text + ", found: " + renderJava(v.Value, sh) + ")"
	case KindMaxValue:
		return "numeric instance is greater than the required maximum (maximum: " + v.Bound.Text + ", found: " + renderJava(v.Value, sh) + ")"
	case KindPattern:
		return "ECMA 262 regex " + q(sh.Pattern.Source) + " does not match input string " + q(renderJava(v.Value, sh))
	case KindEnum:
		vals, _ := json.Marshal(sh.Enum)
		return "instance value (" + q(renderJava(v.Value, sh)) + ") not found in enum (possible values: " + string(vals) + ")"
	}
	return "instance type (" + jsonKind(v.Value) + ") does not match any allowed primitive type (allowed: [" + q(schemaType(sh)) + "])"
}

// schemaType is the JSON-schema type of a shape.
func schemaType(sh *Shape) string {
	switch {
	case sh.IsInteger():
		return "integer"
	case sh.IsNumber():
		return "number"
	case sh.Type == "boolean":
		return "boolean"
	case sh.Type == "list":
		return "array"
	case sh.Type == "structure" || sh.Type == "map" || sh.Type == "union":
		return "object"
	}
	return "string"
}

// s3Error maps the first violation to S3's own codes
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
func (op *Operation) s3Error(v Violation) *Error {
	one := []Violation{v}
	if len(v.Path) == 0 {
		// The input itself is not a structure: an unreadable body.
		return op.newError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema", one)
	}
	top := v.Path[0].Member
	var value string
	if v.Value != nil {
		value = renderJava(v.Value, v.Shape)
	}
	if top != nil && top.Location == "" {
		// The XML payload.
		if v.Kind == KindRequired && len(v.Path) == 1 {
			return op.newError("MissingRequestBodyError", "Request Body is empty", one)
		}
		return op.newError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema", one)
	}
	name := ""
	if top != nil {
		name = nameOr(top.LocationName, top.Name)
	}
	var e *Error
	switch {
	case v.Kind == KindEnum && top != nil && top.Name == "StorageClass":
		e = op.newError("InvalidStorageClass", "The storage class you specified is not valid", one)
	case v.Kind == KindRequired:
		e = op.newError("InvalidArgument", "Missing required parameter "+name, one)
	default:
		e = op.newError("InvalidArgument", "Invalid argument "+name+": "+value, one)
	}
	e.ArgumentName, e.ArgumentValue = name, value
	return e
}
