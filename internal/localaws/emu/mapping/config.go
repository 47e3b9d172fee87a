package mapping

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Mapping states (EventSourceMappingConfiguration.State). Create answers
// Creating (or Disabled when created disabled), Update answers Updating,
// Enabling or Disabling, Delete answers Deleting; the stored state then
// settles at once to Enabled or Disabled, which is what Terraform's
// waiters poll for (AWS-recorded sequences in LocalStack's
// test_lambda_integration_sqs.snapshot.json: test_duplicate_event_source_mappings,
// test_fifo_message_group_parallelism, test_sqs_event_source_mapping_update).
const (
	StateCreating  = "Creating"
	StateEnabling  = "Enabling"
	StateEnabled   = "Enabled"
	StateDisabling = "Disabling"
	StateDisabled  = "Disabled"
	StateUpdating  = "Updating"
	StateDeleting  = "Deleting"
)

// ReportBatchItemFailures is the only FunctionResponseTypes value.
const ReportBatchItemFailures = "ReportBatchItemFailures"

// transitionUserInitiated is the StateTransitionReason of every change made
// through the API (AWS-recorded value "USER_INITIATED").
const transitionUserInitiated = "USER_INITIATED"

// Limits and defaults for SQS sources (Lambda API reference
// CreateEventSourceMapping; docs/aws-behaviour.md §4.8, §4.10, §7.3).
const (
	defaultBatchSize     = 10
	minBatchSize         = 1
	maxBatchSize         = 10000
	maxBatchSizeNoWindow = 10
	maxBatchingWindow    = 300
	minMaxConcurrency    = 2
	maxMaxConcurrency    = 1000
	// maxFilters is the hard quota on filters per mapping (the default
	// quota is 5, adjustable to 10: docs/aws-behaviour.md §5.9).
	maxFilters = 10
	// maxPatternLength is the Pattern length limit of the Lambda model.
	maxPatternLength = 4096
)

// EpochSeconds is a timestamp in the REST-JSON default encoding: seconds
// since the Unix epoch as a JSON number with a fraction.
type EpochSeconds time.Time

// MarshalJSON implements json.Marshaler.
func (t EpochSeconds) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	secs := float64(tt.UnixMilli()) / 1000
	return strconv.AppendFloat(nil, secs, 'f', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *EpochSeconds) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("mapping: timestamp must be epoch seconds: %w", err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("mapping: timestamp %v is not a number of seconds", f)
	}
	sec, frac := math.Modf(f)
	*t = EpochSeconds(time.Unix(int64(sec), int64(frac*1e9)).UTC())
	return nil
}

// Filter is one FilterCriteria entry: an event pattern as a JSON string.
type Filter struct {
	Pattern *string `json:"Pattern,omitempty"`
}

// FilterCriteria holds up to 10 filters; a record passes when any matches.
type FilterCriteria struct {
	Filters []Filter `json:"Filters,omitempty"`
}

// ScalingConfig caps the concurrent invocations of an SQS mapping.
type ScalingConfig struct {
	MaximumConcurrency *int32 `json:"MaximumConcurrency,omitempty"`
}

// MetricsConfig lists the mapping metric groups to emit ("EventCount").
type MetricsConfig struct {
	Metrics []string `json:"Metrics,omitempty"`
}

// Configuration is an event source mapping as the Lambda API returns it
// (EventSourceMappingConfiguration). The JSON tags are the wire names.
type Configuration struct {
	UUID                           string          `json:"UUID"`
	BatchSize                      int32           `json:"BatchSize"`
	EventSourceArn                 string          `json:"EventSourceArn"`
	EventSourceMappingArn          string          `json:"EventSourceMappingArn"`
	FilterCriteria                 *FilterCriteria `json:"FilterCriteria,omitempty"`
	FunctionArn                    string          `json:"FunctionArn"`
	FunctionResponseTypes          []string        `json:"FunctionResponseTypes"`
	KMSKeyArn                      string          `json:"KMSKeyArn,omitempty"`
	LastModified                   EpochSeconds    `json:"LastModified"`
	MaximumBatchingWindowInSeconds int32           `json:"MaximumBatchingWindowInSeconds"`
	MetricsConfig                  *MetricsConfig  `json:"MetricsConfig,omitempty"`
	ScalingConfig                  *ScalingConfig  `json:"ScalingConfig,omitempty"`
	State                          string          `json:"State"`
	StateTransitionReason          string          `json:"StateTransitionReason"`
}

// clone returns a deep copy, so callers never share slices with the store.
func (c Configuration) clone() Configuration {
	c.FunctionResponseTypes = slices.Clone(c.FunctionResponseTypes)
	if c.FunctionResponseTypes == nil {
		c.FunctionResponseTypes = []string{}
	}
	if c.FilterCriteria != nil {
		fc := FilterCriteria{Filters: make([]Filter, len(c.FilterCriteria.Filters))}
		for i, f := range c.FilterCriteria.Filters {
			if f.Pattern != nil {
				p := *f.Pattern
				fc.Filters[i].Pattern = &p
			}
		}
		c.FilterCriteria = &fc
	}
	if c.MetricsConfig != nil {
		c.MetricsConfig = &MetricsConfig{Metrics: slices.Clone(c.MetricsConfig.Metrics)}
	}
	if c.ScalingConfig != nil {
		sc := *c.ScalingConfig
		if sc.MaximumConcurrency != nil {
			v := *sc.MaximumConcurrency
			sc.MaximumConcurrency = &v
		}
		c.ScalingConfig = &sc
	}
	return c
}

// reportsItemFailures reports whether the function may return a partial
// batch response.
func (c *Configuration) reportsItemFailures() bool {
	return slices.Contains(c.FunctionResponseTypes, ReportBatchItemFailures)
}

// maxConcurrency is ScalingConfig.MaximumConcurrency, or 0 when unset.
func (c *Configuration) maxConcurrency() int {
	if c.ScalingConfig == nil || c.ScalingConfig.MaximumConcurrency == nil {
		return 0
	}
	return int(*c.ScalingConfig.MaximumConcurrency)
}

// eventCountMetrics reports whether MetricsConfig asks for EventCount.
func (c *Configuration) eventCountMetrics() bool {
	return c.MetricsConfig != nil && slices.Contains(c.MetricsConfig.Metrics, "EventCount")
}

// CreateRequest is the CreateEventSourceMapping request body. Members that
// only apply to stream, Kafka, MQ or DocumentDB sources are kept so that
// their presence can be rejected with a clear message.
type CreateRequest struct {
	FunctionName                   *string           `json:"FunctionName"`
	EventSourceArn                 *string           `json:"EventSourceArn"`
	BatchSize                      *int32            `json:"BatchSize"`
	MaximumBatchingWindowInSeconds *int32            `json:"MaximumBatchingWindowInSeconds"`
	Enabled                        *bool             `json:"Enabled"`
	FunctionResponseTypes          []string          `json:"FunctionResponseTypes"`
	FilterCriteria                 *FilterCriteria   `json:"FilterCriteria"`
	ScalingConfig                  *ScalingConfig    `json:"ScalingConfig"`
	MetricsConfig                  *MetricsConfig    `json:"MetricsConfig"`
	KMSKeyArn                      *string           `json:"KMSKeyArn"`
	Tags                           map[string]string `json:"Tags"`
	streamOnly
}

// UpdateRequest is the UpdateEventSourceMapping request body; absent
// members keep their value (the UUID travels in the path).
type UpdateRequest struct {
	FunctionName                   *string         `json:"FunctionName"`
	BatchSize                      *int32          `json:"BatchSize"`
	MaximumBatchingWindowInSeconds *int32          `json:"MaximumBatchingWindowInSeconds"`
	Enabled                        *bool           `json:"Enabled"`
	FunctionResponseTypes          *[]string       `json:"FunctionResponseTypes"`
	FilterCriteria                 *FilterCriteria `json:"FilterCriteria"`
	ScalingConfig                  *ScalingConfig  `json:"ScalingConfig"`
	MetricsConfig                  *MetricsConfig  `json:"MetricsConfig"`
	KMSKeyArn                      *string         `json:"KMSKeyArn"`
	streamOnly
}

// streamOnly holds the request members that SQS mappings do not take.
type streamOnly struct {
	StartingPosition                    *string         `json:"StartingPosition"`
	StartingPositionTimestamp           json.RawMessage `json:"StartingPositionTimestamp"`
	ParallelizationFactor               *int32          `json:"ParallelizationFactor"`
	MaximumRecordAgeInSeconds           *int32          `json:"MaximumRecordAgeInSeconds"`
	MaximumRetryAttempts                *int32          `json:"MaximumRetryAttempts"`
	BisectBatchOnFunctionError          *bool           `json:"BisectBatchOnFunctionError"`
	TumblingWindowInSeconds             *int32          `json:"TumblingWindowInSeconds"`
	DestinationConfig                   json.RawMessage `json:"DestinationConfig"`
	Topics                              []string        `json:"Topics"`
	Queues                              []string        `json:"Queues"`
	SourceAccessConfigurations          json.RawMessage `json:"SourceAccessConfigurations"`
	SelfManagedEventSource              json.RawMessage `json:"SelfManagedEventSource"`
	SelfManagedKafkaEventSourceConfig   json.RawMessage `json:"SelfManagedKafkaEventSourceConfig"`
	AmazonManagedKafkaEventSourceConfig json.RawMessage `json:"AmazonManagedKafkaEventSourceConfig"`
	DocumentDBEventSourceConfig         json.RawMessage `json:"DocumentDBEventSourceConfig"`
	ProvisionedPollerConfig             json.RawMessage `json:"ProvisionedPollerConfig"`
}

// check rejects members that SQS sources do not accept. The StartingPosition
// message is AWS-recorded (LocalStack test_api.snapshot.json,
// test_create_starting_position_validation_exceptions[sqs]); the others use
// the same wording (UNCONFIRMED: AWS's exact text for them was not found).
func (o *streamOnly) check() error {
	present := []struct {
		name string
		set  bool
	}{
		{"StartingPosition", o.StartingPosition != nil || isSet(o.StartingPositionTimestamp)},
		{"ParallelizationFactor", o.ParallelizationFactor != nil},
		{"MaximumRecordAgeInSeconds", o.MaximumRecordAgeInSeconds != nil},
		{"MaximumRetryAttempts", o.MaximumRetryAttempts != nil},
		{"BisectBatchOnFunctionError", o.BisectBatchOnFunctionError != nil},
		{"TumblingWindowInSeconds", o.TumblingWindowInSeconds != nil},
		{"DestinationConfig", isSet(o.DestinationConfig)},
		{"Topics", len(o.Topics) > 0},
		{"Queues", len(o.Queues) > 0},
		{"SourceAccessConfigurations", isSet(o.SourceAccessConfigurations)},
		{"SelfManagedEventSource", isSet(o.SelfManagedEventSource)},
		{"SelfManagedKafkaEventSourceConfig", isSet(o.SelfManagedKafkaEventSourceConfig)},
		{"AmazonManagedKafkaEventSourceConfig", isSet(o.AmazonManagedKafkaEventSourceConfig)},
		{"DocumentDBEventSourceConfig", isSet(o.DocumentDBEventSourceConfig)},
		{"ProvisionedPollerConfig", isSet(o.ProvisionedPollerConfig)},
	}
	for _, p := range present {
		if p.set {
			return errorf(ErrInvalidParameterValue, "%s is not valid for SQS event sources.", p.name)
		}
	}
	return nil
}

// isSet reports whether a raw member was sent with a non-null value.
func isSet(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

// validateNumbers checks batch size, batching window and maximum
// concurrency. BatchSize above 10 needs a batching window of at least one
// second: the message is AWS-recorded (LocalStack
// test_event_source_mapping_default_batch_size, create and update).
func validateNumbers(batch, window int32, scaling *ScalingConfig) error {
	if batch < minBatchSize || batch > maxBatchSize {
		return errRange("batchSize", int64(batch), minBatchSize, maxBatchSize)
	}
	if window < 0 || window > maxBatchingWindow {
		return errRange("maximumBatchingWindowInSeconds", int64(window), 0, maxBatchingWindow)
	}
	if batch > maxBatchSizeNoWindow && window < 1 {
		return errorf(ErrInvalidParameterValue,
			"Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
	}
	if scaling != nil && scaling.MaximumConcurrency != nil {
		mc := *scaling.MaximumConcurrency
		if mc < minMaxConcurrency || mc > maxMaxConcurrency {
			return errRange("scalingConfig.maximumConcurrency", int64(mc), minMaxConcurrency, maxMaxConcurrency)
		}
	}
	return nil
}

// validateResponseTypes checks FunctionResponseTypes against its enum.
func validateResponseTypes(types []string) error {
	for _, t := range types {
		if t != ReportBatchItemFailures {
			return errorf(ErrValidation,
				"1 validation error detected: Value '[%s]' at 'functionResponseTypes' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [ReportBatchItemFailures]]",
				strings.Join(types, ", "))
		}
	}
	return nil
}

// validateMetrics checks MetricsConfig.Metrics against its enum (Lambda
// model EventSourceMappingMetric: EventCount, ErrorCount, KafkaMetrics).
func validateMetrics(mc *MetricsConfig) error {
	if mc == nil {
		return nil
	}
	for _, m := range mc.Metrics {
		switch m {
		case "EventCount", "ErrorCount":
		case "KafkaMetrics":
			return errorf(ErrInvalidParameterValue, "KafkaMetrics is not valid for SQS event sources.")
		default:
			return errorf(ErrValidation,
				"1 validation error detected: Value '[%s]' at 'metricsConfig.metrics' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [EventCount, ErrorCount, KafkaMetrics]]",
				strings.Join(mc.Metrics, ", "))
		}
	}
	return nil
}
