package pipe

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is an error in the Pipes REST-JSON shape: the type travels in
// the X-Amzn-ErrorType header and the body carries "message" plus the
// members of the error shape (botocore pipes/2015-10-07 service-2.json:
// ValidationException{message, fieldList}, ConflictException{message,
// resourceId, resourceType}, NotFoundException{message}).
type apiError struct {
	Status int
	Type   string
	// Message is the "message" member.
	Message string
	// Fields is ValidationException's fieldList; nil omits it.
	Fields []fieldError
	// ResourceID and ResourceType are ConflictException's members.
	ResourceID   string
	ResourceType string
}

// fieldError is one ValidationExceptionField.
type fieldError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// Error returns "Type: message".
func (e *apiError) Error() string { return e.Type + ": " + e.Message }

func (e *apiError) write(w http.ResponseWriter) {
	body := map[string]any{"message": e.Message}
	if e.Fields != nil {
		body["fieldList"] = e.Fields
	}
	if e.ResourceID != "" {
		body["resourceId"] = e.ResourceID
		body["resourceType"] = e.ResourceType
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", e.Type)
	w.WriteHeader(e.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // the client went away; nothing left to tell it
}

func errNotFound(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusNotFound, Type: "NotFoundException", Message: fmt.Sprintf(format, args...)}
}

func errConflict(name string) *apiError {
	return &apiError{Status: http.StatusConflict, Type: "ConflictException",
		Message: fmt.Sprintf("Pipe %s already exists.", name), ResourceID: name, ResourceType: "pipe"}
}

func errSerialization(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "SerializationException", Message: fmt.Sprintf(format, args...)}
}

// errValidation is a ValidationException with a plain message, used where
// the local cloud refuses something AWS would accept (an unsupported source
// or target) and for problems AWS words in ways nobody has recorded.
func errValidation(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "ValidationException", Message: fmt.Sprintf(format, args...)}
}

// semantic is one violation found by the Pipes service itself rather than by
// model validation.
type semantic struct {
	Name    string `json:"Name"`
	Message string `json:"Message"`
}

// semanticError renders service-side parameter checks as AWS is recorded to:
// the message is a JSON document {"ValidationErrorFields":[{"Name","Message"}]}
// (hashicorp/terraform-provider-aws#41573, an UpdatePipe rejected for
// MaximumRecordAgeInSeconds and MaximumBatchingWindowInSeconds).
func semanticError(fs []semantic) *apiError {
	b, err := json.Marshal(struct {
		Fields []semantic `json:"ValidationErrorFields"`
	}{fs})
	if err != nil { // cannot happen for strings; keep the information anyway
		b = []byte(fmt.Sprint(fs))
	}
	return &apiError{Status: http.StatusBadRequest, Type: "ValidationException", Message: string(b)}
}
