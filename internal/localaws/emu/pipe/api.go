package pipe

import (
	"encoding/json"
	"math"
	"time"
)

// Wire shapes of the Pipes REST-JSON API (aws-sdk-go-v2 service/pipes
// v1.24.2 serializers.go/deserializers.go; botocore pipes/2015-10-07).
// Members are PascalCase; timestamps are epoch seconds. Members the local
// cloud does not support are kept as raw JSON so that validation can name
// them instead of silently dropping them.

type filter struct {
	Pattern *string `json:"Pattern,omitempty"`
}

type filterCriteria struct {
	Filters []filter `json:"Filters"`
}

type deadLetterConfig struct {
	Arn *string `json:"Arn,omitempty"`
}

// streamParams is PipeSourceDynamoDBStreamParameters (and, without
// StartingPosition, UpdatePipeSourceDynamoDBStreamParameters).
type streamParams struct {
	BatchSize                      *int64            `json:"BatchSize,omitempty"`
	DeadLetterConfig               *deadLetterConfig `json:"DeadLetterConfig,omitempty"`
	MaximumBatchingWindowInSeconds *int64            `json:"MaximumBatchingWindowInSeconds,omitempty"`
	MaximumRecordAgeInSeconds      *int64            `json:"MaximumRecordAgeInSeconds,omitempty"`
	MaximumRetryAttempts           *int64            `json:"MaximumRetryAttempts,omitempty"`
	OnPartialBatchItemFailure      string            `json:"OnPartialBatchItemFailure,omitempty"`
	ParallelizationFactor          *int64            `json:"ParallelizationFactor,omitempty"`
	StartingPosition               string            `json:"StartingPosition,omitempty"`
}

type sourceParams struct {
	FilterCriteria           *filterCriteria `json:"FilterCriteria,omitempty"`
	DynamoDBStreamParameters *streamParams   `json:"DynamoDBStreamParameters,omitempty"`

	// Sources the local cloud does not run.
	ActiveMQBrokerParameters        json.RawMessage `json:"ActiveMQBrokerParameters,omitempty"`
	KinesisStreamParameters         json.RawMessage `json:"KinesisStreamParameters,omitempty"`
	ManagedStreamingKafkaParameters json.RawMessage `json:"ManagedStreamingKafkaParameters,omitempty"`
	RabbitMQBrokerParameters        json.RawMessage `json:"RabbitMQBrokerParameters,omitempty"`
	SelfManagedKafkaParameters      json.RawMessage `json:"SelfManagedKafkaParameters,omitempty"`
	SqsQueueParameters              json.RawMessage `json:"SqsQueueParameters,omitempty"`
}

type sqsTargetParams struct {
	MessageDeduplicationId *string `json:"MessageDeduplicationId,omitempty"` //nolint:revive // wire name
	MessageGroupId         *string `json:"MessageGroupId,omitempty"`         //nolint:revive // wire name
}

type targetParams struct {
	InputTemplate      *string          `json:"InputTemplate,omitempty"`
	SqsQueueParameters *sqsTargetParams `json:"SqsQueueParameters,omitempty"`

	// Targets the local cloud does not run.
	BatchJobParameters                 json.RawMessage `json:"BatchJobParameters,omitempty"`
	CloudWatchLogsParameters           json.RawMessage `json:"CloudWatchLogsParameters,omitempty"`
	EcsTaskParameters                  json.RawMessage `json:"EcsTaskParameters,omitempty"`
	EventBridgeEventBusParameters      json.RawMessage `json:"EventBridgeEventBusParameters,omitempty"`
	HttpParameters                     json.RawMessage `json:"HttpParameters,omitempty"` //nolint:revive // wire name
	KinesisStreamParameters            json.RawMessage `json:"KinesisStreamParameters,omitempty"`
	LambdaFunctionParameters           json.RawMessage `json:"LambdaFunctionParameters,omitempty"`
	RedshiftDataParameters             json.RawMessage `json:"RedshiftDataParameters,omitempty"`
	SageMakerPipelineParameters        json.RawMessage `json:"SageMakerPipelineParameters,omitempty"`
	StepFunctionStateMachineParameters json.RawMessage `json:"StepFunctionStateMachineParameters,omitempty"`
	TimestreamParameters               json.RawMessage `json:"TimestreamParameters,omitempty"`
}

type enrichmentParams struct {
	InputTemplate *string `json:"InputTemplate,omitempty"`
	// HttpParameters apply to API Gateway and API destination enrichments,
	// which the local cloud does not run.
	HttpParameters json.RawMessage `json:"HttpParameters,omitempty"` //nolint:revive // wire name
}

type logGroupDest struct {
	LogGroupArn *string `json:"LogGroupArn,omitempty"`
}

type firehoseDest struct {
	DeliveryStreamArn *string `json:"DeliveryStreamArn,omitempty"`
}

type s3Dest struct {
	BucketName   *string `json:"BucketName,omitempty"`
	BucketOwner  *string `json:"BucketOwner,omitempty"`
	OutputFormat string  `json:"OutputFormat,omitempty"`
	Prefix       *string `json:"Prefix,omitempty"`
}

type logConfig struct {
	Level                        string        `json:"Level,omitempty"`
	IncludeExecutionData         []string      `json:"IncludeExecutionData,omitempty"`
	CloudwatchLogsLogDestination *logGroupDest `json:"CloudwatchLogsLogDestination,omitempty"`
	FirehoseLogDestination       *firehoseDest `json:"FirehoseLogDestination,omitempty"`
	S3LogDestination             *s3Dest       `json:"S3LogDestination,omitempty"`
}

// pipeRequest is the body of CreatePipe and UpdatePipe (Source and Tags
// are CreatePipe-only; UpdatePipe's source parameters have no
// StartingPosition, which is ignored there).
type pipeRequest struct {
	Description          *string           `json:"Description"`
	DesiredState         string            `json:"DesiredState"`
	Enrichment           *string           `json:"Enrichment"`
	EnrichmentParameters *enrichmentParams `json:"EnrichmentParameters"`
	KmsKeyIdentifier     *string           `json:"KmsKeyIdentifier"`
	LogConfiguration     *logConfig        `json:"LogConfiguration"`
	RoleArn              *string           `json:"RoleArn"`
	Source               *string           `json:"Source"`
	SourceParameters     *sourceParams     `json:"SourceParameters"`
	Tags                 map[string]string `json:"Tags"`
	Target               *string           `json:"Target"`
	TargetParameters     *targetParams     `json:"TargetParameters"`
}

// stateOutput is the response of CreatePipe, UpdatePipe, StartPipe,
// StopPipe and DeletePipe.
type stateOutput struct {
	Arn              string  `json:"Arn"`
	Name             string  `json:"Name"`
	CurrentState     string  `json:"CurrentState"`
	DesiredState     string  `json:"DesiredState"`
	CreationTime     float64 `json:"CreationTime"`
	LastModifiedTime float64 `json:"LastModifiedTime"`
}

// describeOutput is DescribePipe's response.
type describeOutput struct {
	Arn                  string            `json:"Arn"`
	Name                 string            `json:"Name"`
	Description          *string           `json:"Description,omitempty"`
	CurrentState         string            `json:"CurrentState"`
	DesiredState         string            `json:"DesiredState"`
	StateReason          string            `json:"StateReason,omitempty"`
	Source               string            `json:"Source"`
	SourceParameters     *sourceParams     `json:"SourceParameters,omitempty"`
	Enrichment           string            `json:"Enrichment,omitempty"`
	EnrichmentParameters *enrichmentParams `json:"EnrichmentParameters,omitempty"`
	Target               string            `json:"Target"`
	TargetParameters     *targetParams     `json:"TargetParameters,omitempty"`
	RoleArn              string            `json:"RoleArn"`
	KmsKeyIdentifier     string            `json:"KmsKeyIdentifier,omitempty"`
	LogConfiguration     *logConfig        `json:"LogConfiguration,omitempty"`
	Tags                 map[string]string `json:"Tags,omitempty"`
	CreationTime         float64           `json:"CreationTime"`
	LastModifiedTime     float64           `json:"LastModifiedTime"`
}

// summary is one element of ListPipes' Pipes.
type summary struct {
	Arn              string  `json:"Arn"`
	Name             string  `json:"Name"`
	CurrentState     string  `json:"CurrentState"`
	DesiredState     string  `json:"DesiredState"`
	StateReason      string  `json:"StateReason,omitempty"`
	Source           string  `json:"Source"`
	Target           string  `json:"Target"`
	Enrichment       string  `json:"Enrichment,omitempty"`
	CreationTime     float64 `json:"CreationTime"`
	LastModifiedTime float64 `json:"LastModifiedTime"`
}

type listOutput struct {
	Pipes     []summary `json:"Pipes"`
	NextToken string    `json:"NextToken,omitempty"`
}

type tagsBody struct {
	Tags map[string]string `json:"tags"`
}

// epoch renders a timestamp as REST-JSON does: epoch seconds with
// millisecond precision.
func epoch(t time.Time) float64 {
	return math.Round(float64(t.UnixMilli())) / 1000
}
