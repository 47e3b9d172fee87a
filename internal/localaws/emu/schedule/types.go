package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Schedule and group states, and the ActionAfterCompletion values
// (scheduler model enums; aws-sdk-go-v2 service/scheduler types/enums.go).
const (
	StateEnabled  = "ENABLED"
	StateDisabled = "DISABLED"

	ModeOff      = "OFF"
	ModeFlexible = "FLEXIBLE"

	ActionNone   = "NONE"
	ActionDelete = "DELETE"

	// DefaultGroup always exists and cannot be deleted.
	DefaultGroup = "default"
	groupActive  = "ACTIVE"
)

// Defaults AWS fills in (AWS-recorded GetSchedule responses in
// LocalStack's tests/aws/services/scheduler/test_scheduler.snapshot.json:
// ScheduleExpressionTimezone "UTC", ActionAfterCompletion "NONE",
// RetryPolicy 86400 s / 185 attempts).
const (
	defaultTimezone    = "UTC"
	defaultMaxEventAge = 86400
	defaultMaxRetries  = 185
)

// Error is an EventBridge Scheduler API error: the X-Amzn-ErrorType
// header names the shape and the body is {"Message": …} (AWS-recorded
// responses carry "Message").
type Error struct {
	Type    string
	Status  int
	Message string
}

// Error implements error.
func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Is matches errors of the same type, for errors.Is(err, schedule.ErrConflict).
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Type == e.Type
}

// Kinds of errors. Compare with errors.Is.
var (
	ErrValidation = &Error{Type: "ValidationException", Status: http.StatusBadRequest}
	ErrConflict   = &Error{Type: "ConflictException", Status: http.StatusConflict}
	ErrNotFound   = &Error{Type: "ResourceNotFoundException", Status: http.StatusNotFound}
	ErrInternal   = &Error{Type: "InternalServerException", Status: http.StatusInternalServerError}
)

func errorf(kind *Error, format string, args ...any) *Error {
	return &Error{Type: kind.Type, Status: kind.Status, Message: fmt.Sprintf(format, args...)}
}

// errPattern and errRange use AWS's constraint-violation wording.
func errPattern(field, value, pattern string) *Error {
	return errorf(ErrValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", value, field, pattern)
}

func errRange(field string, value, lo, hi int64) *Error {
	if value < lo {
		return errorf(ErrValidation, "1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to %d", value, field, lo)
	}
	return errorf(ErrValidation, "1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value less than or equal to %d", value, field, hi)
}

func errEnum(field, value string, allowed ...string) *Error {
	return errorf(ErrValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", value, field, strings.Join(allowed, ", "))
}

func errLength(field string, max int) *Error {
	return errorf(ErrValidation, "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", field, max)
}

// EpochSeconds is a timestamp in the REST-JSON default encoding: seconds
// since the Unix epoch as a JSON number with a fraction.
type EpochSeconds time.Time

// MarshalJSON implements json.Marshaler.
func (t EpochSeconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(time.Time(t).UnixMilli())/1000, 'f', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *EpochSeconds) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("schedule: timestamp must be epoch seconds: %w", err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
		return fmt.Errorf("schedule: timestamp %v is out of range", f)
	}
	sec, frac := math.Modf(f)
	*t = EpochSeconds(time.Unix(int64(sec), int64(frac*1e9)).UTC())
	return nil
}

// FlexibleTimeWindow is the window within which a schedule may fire.
type FlexibleTimeWindow struct {
	Mode                   string `json:"Mode"`
	MaximumWindowInMinutes *int32 `json:"MaximumWindowInMinutes,omitempty"`
}

// RetryPolicy bounds the retries of a failed delivery.
type RetryPolicy struct {
	MaximumEventAgeInSeconds *int32 `json:"MaximumEventAgeInSeconds,omitempty"`
	MaximumRetryAttempts     *int32 `json:"MaximumRetryAttempts,omitempty"`
}

// DeadLetterConfig names the SQS queue for events that could not be
// delivered.
type DeadLetterConfig struct {
	Arn *string `json:"Arn,omitempty"`
}

// Target is a schedule's target. Only Lambda function targets are
// emulated; the parameters of other templated targets are kept so that
// their presence can be refused clearly.
type Target struct {
	Arn                         *string           `json:"Arn"`
	RoleArn                     *string           `json:"RoleArn"`
	Input                       *string           `json:"Input,omitempty"`
	RetryPolicy                 *RetryPolicy      `json:"RetryPolicy,omitempty"`
	DeadLetterConfig            *DeadLetterConfig `json:"DeadLetterConfig,omitempty"`
	EcsParameters               json.RawMessage   `json:"EcsParameters,omitempty"`
	EventBridgeParameters       json.RawMessage   `json:"EventBridgeParameters,omitempty"`
	KinesisParameters           json.RawMessage   `json:"KinesisParameters,omitempty"`
	SageMakerPipelineParameters json.RawMessage   `json:"SageMakerPipelineParameters,omitempty"`
	SqsParameters               json.RawMessage   `json:"SqsParameters,omitempty"`
}

// ScheduleRequest is the body of CreateSchedule and UpdateSchedule (the
// name travels in the path). UpdateSchedule replaces the whole schedule:
// members left out take their defaults, as the API reference says.
type ScheduleRequest struct {
	ActionAfterCompletion      string              `json:"ActionAfterCompletion,omitempty"`
	ClientToken                *string             `json:"ClientToken,omitempty"`
	Description                *string             `json:"Description,omitempty"`
	EndDate                    *EpochSeconds       `json:"EndDate,omitempty"`
	FlexibleTimeWindow         *FlexibleTimeWindow `json:"FlexibleTimeWindow,omitempty"`
	GroupName                  *string             `json:"GroupName,omitempty"`
	KmsKeyArn                  *string             `json:"KmsKeyArn,omitempty"`
	ScheduleExpression         *string             `json:"ScheduleExpression,omitempty"`
	ScheduleExpressionTimezone *string             `json:"ScheduleExpressionTimezone,omitempty"`
	StartDate                  *EpochSeconds       `json:"StartDate,omitempty"`
	State                      string              `json:"State,omitempty"`
	Target                     *Target             `json:"Target,omitempty"`
}

// ScheduleOutput is the GetSchedule response.
type ScheduleOutput struct {
	ActionAfterCompletion      string             `json:"ActionAfterCompletion"`
	Arn                        string             `json:"Arn"`
	CreationDate               EpochSeconds       `json:"CreationDate"`
	Description                *string            `json:"Description,omitempty"`
	EndDate                    *EpochSeconds      `json:"EndDate,omitempty"`
	FlexibleTimeWindow         FlexibleTimeWindow `json:"FlexibleTimeWindow"`
	GroupName                  string             `json:"GroupName"`
	KmsKeyArn                  *string            `json:"KmsKeyArn,omitempty"`
	LastModificationDate       EpochSeconds       `json:"LastModificationDate"`
	Name                       string             `json:"Name"`
	ScheduleExpression         string             `json:"ScheduleExpression"`
	ScheduleExpressionTimezone string             `json:"ScheduleExpressionTimezone"`
	StartDate                  *EpochSeconds      `json:"StartDate,omitempty"`
	State                      string             `json:"State"`
	Target                     Target             `json:"Target"`
}

// ScheduleSummary is one ListSchedules entry.
type ScheduleSummary struct {
	Arn                  string        `json:"Arn"`
	CreationDate         EpochSeconds  `json:"CreationDate"`
	GroupName            string        `json:"GroupName"`
	LastModificationDate EpochSeconds  `json:"LastModificationDate"`
	Name                 string        `json:"Name"`
	State                string        `json:"State"`
	Target               TargetSummary `json:"Target"`
}

// TargetSummary is the target of a ScheduleSummary.
type TargetSummary struct {
	Arn string `json:"Arn"`
}

// GroupOutput is GetScheduleGroup's response and a ListScheduleGroups entry.
type GroupOutput struct {
	Arn                  string       `json:"Arn"`
	CreationDate         EpochSeconds `json:"CreationDate"`
	LastModificationDate EpochSeconds `json:"LastModificationDate"`
	Name                 string       `json:"Name"`
	State                string       `json:"State"`
}

// Tag is a schedule group tag.
type Tag struct {
	Key   *string `json:"Key"`
	Value *string `json:"Value"`
}

// Validation patterns and limits of the scheduler model (API reference
// CreateSchedule, Target, DeadLetterConfig, RetryPolicy, FlexibleTimeWindow).
var (
	namePattern    = regexp.MustCompile(`^[0-9a-zA-Z-_.]+$`)
	rolePattern    = regexp.MustCompile(`^arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@\/-]+$`)
	dlqPattern     = regexp.MustCompile(`^arn:aws(-[a-z]+)?:sqs:[a-z0-9\-]+:\d{12}:[a-zA-Z0-9\-_]+$`)
	lambdaPattern  = regexp.MustCompile(`^arn:aws(-[a-z]+)?:lambda:[a-z0-9\-]+:\d{12}:function:[a-zA-Z0-9\-_]+(:(\$LATEST|[a-zA-Z0-9\-_]+))?$`)
	nameMaxLength  = 64
	descMaxLength  = 512
	exprMaxLength  = 256
	arnMaxLength   = 1600
	inputMaxLength = 8192
)

const namePatternText = "^[0-9a-zA-Z-_.]+$"

// checkName validates a schedule or group name.
func checkName(field, name string) error {
	if len(name) > nameMaxLength {
		return errLength(field, nameMaxLength)
	}
	if !namePattern.MatchString(name) {
		return errPattern(field, name, namePatternText)
	}
	return nil
}
