package function

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// Configuration is a function's configuration in the shape of Lambda's
// FunctionConfiguration (GetFunctionConfiguration, CreateFunction and
// UpdateFunction* responses), so SDK waiters and the Terraform provider
// read back what they wrote. Source: FunctionConfiguration in
// aws-sdk-go-v2/service/lambda/response_snapshot/CreateFunction.response.snap.
type Configuration struct {
	FunctionName               string                `json:"FunctionName"`
	FunctionArn                string                `json:"FunctionArn"`
	Runtime                    string                `json:"Runtime"`
	Role                       string                `json:"Role"`
	Handler                    string                `json:"Handler,omitempty"`
	CodeSize                   int64                 `json:"CodeSize"`
	Description                string                `json:"Description"`
	Timeout                    int                   `json:"Timeout"`
	MemorySize                 int                   `json:"MemorySize"`
	LastModified               string                `json:"LastModified"`
	CodeSha256                 string                `json:"CodeSha256"`
	Version                    string                `json:"Version"`
	Environment                *EnvironmentResponse  `json:"Environment,omitempty"`
	TracingConfig              TracingConfig         `json:"TracingConfig"`
	RevisionID                 string                `json:"RevisionId"`
	State                      string                `json:"State"`
	StateReason                string                `json:"StateReason,omitempty"`
	StateReasonCode            string                `json:"StateReasonCode,omitempty"`
	LastUpdateStatus           string                `json:"LastUpdateStatus"`
	LastUpdateStatusReason     string                `json:"LastUpdateStatusReason,omitempty"`
	LastUpdateStatusReasonCode string                `json:"LastUpdateStatusReasonCode,omitempty"`
	PackageType                string                `json:"PackageType"`
	Architectures              []string              `json:"Architectures"`
	EphemeralStorage           EphemeralStorage      `json:"EphemeralStorage"`
	LoggingConfig              LoggingConfig         `json:"LoggingConfig"`
	SnapStart                  SnapStartResponse     `json:"SnapStart"`
	RuntimeVersionConfig       *RuntimeVersionConfig `json:"RuntimeVersionConfig,omitempty"`
	DeadLetterConfig           *DeadLetterConfig     `json:"DeadLetterConfig,omitempty"`
}

// EnvironmentResponse holds a function's environment variables.
type EnvironmentResponse struct {
	Variables map[string]string `json:"Variables"`
}

// TracingConfig is the X-Ray mode (not emulated; echoed back).
type TracingConfig struct {
	Mode string `json:"Mode"`
}

// EphemeralStorage is the /tmp size in MB (echoed back; /tmp is not capped).
type EphemeralStorage struct {
	Size int `json:"Size"`
}

// LoggingConfig selects the log format and the log group.
type LoggingConfig struct {
	LogFormat           string `json:"LogFormat,omitempty"`
	LogGroup            string `json:"LogGroup,omitempty"`
	ApplicationLogLevel string `json:"ApplicationLogLevel,omitempty"`
	SystemLogLevel      string `json:"SystemLogLevel,omitempty"`
}

// SnapStartResponse is always "None"/"Off" (SnapStart is Java-only).
type SnapStartResponse struct {
	ApplyOn            string `json:"ApplyOn"`
	OptimizationStatus string `json:"OptimizationStatus"`
}

// RuntimeVersionConfig names the runtime version.
type RuntimeVersionConfig struct {
	RuntimeVersionArn string `json:"RuntimeVersionArn"`
}

// DeadLetterConfig is the async DLQ target (stored and echoed; the local
// cloud does not deliver failed async events to it).
type DeadLetterConfig struct {
	TargetArn string `json:"TargetArn,omitempty"`
}

// Code is the CreateFunction Code member. Only ZipFile is supported: the
// local cloud has no S3 and no container images.
type Code struct {
	ZipFile  []byte `json:"ZipFile"` // base64 on the wire
	S3Bucket string `json:"S3Bucket"`
	S3Key    string `json:"S3Key"`
	ImageURI string `json:"ImageUri"`
}

// Environment is the Environment member of create and update requests.
type Environment struct {
	Variables map[string]string `json:"Variables"`
}

// CreateInput holds the CreateFunction parameters the local cloud reads.
type CreateInput struct {
	FunctionName     string            `json:"FunctionName"`
	Runtime          string            `json:"Runtime"`
	Role             string            `json:"Role"`
	Handler          string            `json:"Handler"`
	Code             Code              `json:"Code"`
	Description      string            `json:"Description"`
	Timeout          *int              `json:"Timeout"`
	MemorySize       *int              `json:"MemorySize"`
	Publish          bool              `json:"Publish"`
	PackageType      string            `json:"PackageType"`
	Environment      *Environment      `json:"Environment"`
	Architectures    []string          `json:"Architectures"`
	LoggingConfig    *LoggingConfig    `json:"LoggingConfig"`
	Tags             map[string]string `json:"Tags"`
	TracingConfig    *TracingConfig    `json:"TracingConfig"`
	EphemeralStorage *EphemeralStorage `json:"EphemeralStorage"`
	DeadLetterConfig *DeadLetterConfig `json:"DeadLetterConfig"`
	Layers           []string          `json:"Layers"`
}

// UpdateConfigInput holds the UpdateFunctionConfiguration parameters; nil
// members are left unchanged.
type UpdateConfigInput struct {
	Runtime          *string           `json:"Runtime"`
	Role             *string           `json:"Role"`
	Handler          *string           `json:"Handler"`
	Description      *string           `json:"Description"`
	Timeout          *int              `json:"Timeout"`
	MemorySize       *int              `json:"MemorySize"`
	Environment      *Environment      `json:"Environment"`
	LoggingConfig    *LoggingConfig    `json:"LoggingConfig"`
	TracingConfig    *TracingConfig    `json:"TracingConfig"`
	EphemeralStorage *EphemeralStorage `json:"EphemeralStorage"`
	DeadLetterConfig *DeadLetterConfig `json:"DeadLetterConfig"`
	Layers           []string          `json:"Layers"`
	RevisionID       string            `json:"RevisionId"`
}

// UpdateCodeInput holds the UpdateFunctionCode parameters.
type UpdateCodeInput struct {
	ZipFile       []byte   `json:"ZipFile"`
	S3Bucket      string   `json:"S3Bucket"`
	S3Key         string   `json:"S3Key"`
	ImageURI      string   `json:"ImageUri"`
	Architectures []string `json:"Architectures"`
	Publish       bool     `json:"Publish"`
	DryRun        bool     `json:"DryRun"`
	RevisionID    string   `json:"RevisionId"`
}

// Limits and defaults from the Lambda developer guide ("Lambda quotas",
// "Configuring function timeout", "Configuring memory") and the API model.
const (
	defaultTimeout   = 3
	maxTimeout       = 900
	defaultMemory    = 128
	minMemory        = 128
	maxMemory        = 10240
	defaultEphemeral = 512
	// maxZipRequest is the CreateFunction request limit for a direct zip
	// upload (the 50 MB zipped quota, base64-encoded in JSON).
	maxZipRequest = 70167211
	// maxUnzipped is the unzipped deployment package quota.
	maxUnzipped = 262144000
)

// Runtimes the local cloud runs: OS-only runtimes with a bootstrap
// executable, which is what a Go Lambda is.
var supportedRuntimes = map[string]bool{"provided.al2023": true, "provided.al2": true}

// hostArchitecture is the Lambda architecture name of this machine;
// bootstraps for another architecture cannot run here.
func hostArchitecture() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "arm64"
	}
	return runtime.GOARCH
}

// reservedEnv are the environment variables Lambda sets itself and refuses
// in a function's configuration (docs/aws-behaviour.md §4.5, "Defined runtime
// environment variables").
var reservedEnv = map[string]bool{
	"_HANDLER": true, "_X_AMZN_TRACE_ID": true, "AWS_REGION": true, "AWS_EXECUTION_ENV": true,
	"AWS_LAMBDA_FUNCTION_NAME": true, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": true, "AWS_LAMBDA_FUNCTION_VERSION": true,
	"AWS_LAMBDA_INITIALIZATION_TYPE": true, "AWS_LAMBDA_LOG_GROUP_NAME": true, "AWS_LAMBDA_LOG_STREAM_NAME": true,
	"AWS_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true,
	"AWS_LAMBDA_RUNTIME_API": true, "LAMBDA_TASK_ROOT": true, "LAMBDA_RUNTIME_DIR": true,
}

var (
	functionNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	roleRE         = regexp.MustCompile(`^arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$`)
	envKeyRE       = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9_])+$`)
	logGroupRE     = regexp.MustCompile(`^[\.\-_/#A-Za-z0-9]+$`)
	logLevels      = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "WARN": true, "ERROR": true, "FATAL": true}
)

func validateRuntime(rt string) *Error {
	if rt == "" {
		return errorf(ErrInvalidParameter, "Runtime is required for Zip package functions; the taskpipe local cloud runs provided.al2023 and provided.al2 (custom runtime) zips")
	}
	if !supportedRuntimes[rt] {
		return errorf(ErrInvalidParameter,
			"The runtime parameter of %s is not supported by the taskpipe local cloud: it runs only custom-runtime zips (provided.al2023, provided.al2) whose bootstrap executable it starts as a local process", rt)
	}
	return nil
}

func validateArchitectures(archs []string) ([]string, *Error) {
	if len(archs) == 0 {
		return []string{"x86_64"}, nil
	}
	if len(archs) > 1 {
		return nil, errValidation("["+strings.Join(archs, ", ")+"]", "architectures", "Member must have length less than or equal to 1")
	}
	switch archs[0] {
	case "x86_64", "arm64":
	default:
		return nil, errValidation("["+archs[0]+"]", "architectures", "Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64]]")
	}
	if host := hostArchitecture(); archs[0] != host {
		return nil, errorf(ErrInvalidParameter,
			"The taskpipe local cloud runs bootstraps as local processes on this %s machine and cannot run a %s function; build the bootstrap with GOARCH=%s and set architectures to [\"%s\"] for local runs",
			host, archs[0], goarchOf(host), host)
	}
	return []string{archs[0]}, nil
}

func goarchOf(lambdaArch string) string {
	if lambdaArch == "x86_64" {
		return "amd64"
	}
	return lambdaArch
}

func validateTimeout(t int) *Error {
	if t < 1 {
		return errValidation(t, "timeout", "Member must have value greater than or equal to 1")
	}
	if t > maxTimeout {
		return errorf(ErrInvalidParameter, "Value %d for parameter timeout is invalid. Reason: the function timeout must be between 1 and %d seconds", t, maxTimeout)
	}
	return nil
}

func validateMemory(m int) *Error {
	if m < minMemory || m > maxMemory {
		return errValidation(m, "memorySize", fmt.Sprintf("Member must have value between %d and %d", minMemory, maxMemory))
	}
	return nil
}

func validateRole(role string) *Error {
	if role == "" {
		return errValidation("null", "role", "Member must not be null")
	}
	if !roleRE.MatchString(role) {
		return errValidation(role, "role", `Member must satisfy regular expression pattern: arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+`)
	}
	return nil
}

func validateEnvironment(env *Environment) *Error {
	if env == nil {
		return nil
	}
	var reserved, bad []string
	size := 0
	for k, v := range env.Variables {
		if reservedEnv[k] {
			reserved = append(reserved, k)
		}
		if !envKeyRE.MatchString(k) {
			bad = append(bad, k)
		}
		size += len(k) + len(v)
	}
	sort.Strings(reserved)
	sort.Strings(bad)
	if len(reserved) > 0 {
		// Source: the Lambda error for reserved keys ("Lambda was unable to
		// configure your environment variables because the environment
		// variables you have provided contains reserved keys …").
		return errorf(ErrInvalidParameter,
			"Lambda was unable to configure your environment variables because the environment variables you have provided contains reserved keys that are currently not supported for modification. Reserved keys used in this request: %s",
			strings.Join(reserved, ","))
	}
	if len(bad) > 0 {
		return errorf(ErrInvalidParameter, "Lambda was unable to configure your environment variables because the environment variables you have provided contains invalid keys: %s", strings.Join(bad, ","))
	}
	// "Lambda quotas": the total size of all environment variables is 4 KB.
	if size > 4096 {
		return errorf(ErrInvalidParameter, "Lambda was unable to configure your environment variables because the environment variables you have provided exceeded the 4KB limit. String measured: %d bytes", size)
	}
	return nil
}

// normalizeLogging validates a LoggingConfig and fills Lambda's defaults:
// Text format, log group /aws/lambda/<name>, and INFO levels for JSON.
func normalizeLogging(in *LoggingConfig, name string) (LoggingConfig, *Error) {
	out := LoggingConfig{LogFormat: "Text", LogGroup: "/aws/lambda/" + name}
	if in == nil {
		return out, nil
	}
	switch in.LogFormat {
	case "", "Text":
	case "JSON":
		out.LogFormat = "JSON"
	default:
		return out, errValidation(in.LogFormat, "loggingConfig.logFormat", "Member must satisfy enum value set: [JSON, Text]")
	}
	if in.LogGroup != "" {
		if len(in.LogGroup) > 512 || !logGroupRE.MatchString(in.LogGroup) {
			return out, errValidation(in.LogGroup, "loggingConfig.logGroup", `Member must satisfy regular expression pattern: [\.\-_/#A-Za-z0-9]+`)
		}
		out.LogGroup = in.LogGroup
	}
	for member, lvl := range map[string]string{"applicationLogLevel": in.ApplicationLogLevel, "systemLogLevel": in.SystemLogLevel} {
		if lvl != "" && !logLevels[lvl] {
			return out, errValidation(lvl, "loggingConfig."+member, "Member must satisfy enum value set: [TRACE, DEBUG, INFO, WARN, ERROR, FATAL]")
		}
	}
	if out.LogFormat == "JSON" {
		out.ApplicationLogLevel, out.SystemLogLevel = "INFO", "INFO"
		if in.ApplicationLogLevel != "" {
			out.ApplicationLogLevel = in.ApplicationLogLevel
		}
		if in.SystemLogLevel != "" {
			out.SystemLogLevel = in.SystemLogLevel
		}
	} else if in.ApplicationLogLevel != "" || in.SystemLogLevel != "" {
		return out, errorf(ErrInvalidParameter, "ApplicationLogLevel and SystemLogLevel can only be set when LogFormat is JSON")
	}
	return out, nil
}

func validateTags(tags map[string]string) *Error {
	// "Lambda quotas": 50 tags per function; keys up to 128, values up
	// to 256 characters; the aws: prefix is reserved.
	if len(tags) > 50 {
		return errorf(ErrInvalidParameter, "Number of tags exceeds resource tag limit.")
	}
	for k, v := range tags {
		if len(k) < 1 || len(k) > 128 || len(v) > 256 {
			return errorf(ErrInvalidParameter, "Tag key or value length out of range: %q", k)
		}
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return errorf(ErrInvalidParameter, "Tag keys starting with 'aws:' are reserved for system use.")
		}
	}
	return nil
}

// runtimeVersionARN names a stable runtime version per runtime, in the
// arn:aws:lambda:<region>::runtime:<hash> form Lambda reports.
func runtimeVersionARN(region, rt string) string {
	sum := sha256.Sum256([]byte("taskpipe-local-cloud:" + rt))
	return "arn:aws:lambda:" + region + "::runtime:" + hex.EncodeToString(sum[:])
}
