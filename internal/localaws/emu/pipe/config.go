package pipe

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/table"
)

// definition is a pipe as DescribePipe returns it: the request's members
// with AWS's defaults filled in.
type definition struct {
	Description      *string
	RoleArn          string
	Source           string
	Target           string
	Enrichment       string
	SourceParams     sourceParams
	TargetParams     *targetParams
	EnrichmentParams *enrichmentParams
	LogConfiguration *logConfig
	KmsKeyIdentifier string
}

// config is a definition compiled for the runtime. It is immutable; an
// UpdatePipe swaps in a new one.
type config struct {
	name      string
	arn       string
	role      string
	sourceARN string
	stream    *table.Stream
	targetARN string

	filters    []*eventpattern.Pattern
	batchSize  int
	window     time.Duration
	maxAge     time.Duration // 0: records never expire
	maxRetries int           // -1: retry until the records expire
	bisect     bool
	parallel   int
	dlqARN     string

	enrichmentARN  string
	function       string
	enrichTemplate *template
	targetTemplate *template
	groupID        string // SQS MessageGroupId: a literal or a "$." path

	logLevel string
	logGroup string // the CloudWatch Logs destination's group name, or ""
}

// sqsBatchLimit is the most records an SQS target takes per execution
// (docs/aws-behaviour.md §1.1: for an SQS target the limit is 10).
const sqsBatchLimit = 10

// Defaults AWS fills into PipeSourceDynamoDBStreamParameters (the provider
// marks batch_size, maximum_batching_window_in_seconds,
// maximum_record_age_in_seconds and parallelization_factor
// Optional+Computed because DescribePipe always returns them;
// maximum_retry_attempts is not Computed, so it is returned only when set).
// The batch size default is 10 because the only supported target is SQS
// (eventbridge user guide "eb-pipes-dynamodb": the default is 10 when the
// target is an SQS queue).
func fillDefaults(sp *streamParams) {
	def := func(p **int64, v int64) {
		if *p == nil {
			*p = &v
		}
	}
	def(&sp.BatchSize, sqsBatchLimit)
	def(&sp.MaximumBatchingWindowInSeconds, 0)
	def(&sp.MaximumRecordAgeInSeconds, -1)
	def(&sp.ParallelizationFactor, 1)
	if sp.DeadLetterConfig != nil && (sp.DeadLetterConfig.Arn == nil || *sp.DeadLetterConfig.Arn == "") {
		sp.DeadLetterConfig = nil // the provider sends an empty block to mean "none"
	}
}

// arnParts splits arn:partition:service:region:account:resource.
func arnParts(arn string) (service, region, account, resource string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return "", "", "", "", false
	}
	return parts[2], parts[3], parts[4], parts[5], true
}

// functionName resolves a Lambda function ARN
// (arn:aws:lambda:region:account:function:name[:qualifier]) to the name
// the Invoker takes: "name", or "name:qualifier" as Lambda's Invoke accepts.
func functionName(arn string) (string, bool) {
	svc, _, _, res, ok := arnParts(arn)
	if !ok || svc != "lambda" {
		return "", false
	}
	name, found := strings.CutPrefix(res, "function:")
	if !found || name == "" {
		return "", false
	}
	return name, true
}

func isStreamARN(arn string) bool {
	svc, _, _, res, ok := arnParts(arn)
	return ok && svc == "dynamodb" && strings.HasPrefix(res, "table/") && strings.Contains(res, "/stream/")
}

func isQueueARN(arn string) bool {
	svc, _, _, res, ok := arnParts(arn)
	return ok && svc == "sqs" && res != "" && !strings.Contains(res, ":")
}

// unsupportedRaw names the first non-empty raw member.
func unsupportedRaw(members map[string][]byte) string {
	for _, name := range sortedKeys(members) {
		if len(members[name]) > 0 && string(members[name]) != "null" {
			return name
		}
	}
	return ""
}

// compile checks what the Pipes service itself checks (beyond the model)
// and what the local cloud can run, and builds the runtime config. stream
// is the already-resolved source stream on UpdatePipe, nil on CreatePipe.
func (s *Service) compile(name string, d *definition, stream *table.Stream) (*config, *apiError) {
	cfg := &config{name: name, arn: s.pipeARN(name), role: d.RoleArn, sourceARN: d.Source, targetARN: d.Target, enrichmentARN: d.Enrichment}
	sp := &d.SourceParams
	if s.opts.Tables == nil || s.opts.Queues == nil {
		return nil, errValidation("the taskpipe local cloud's Pipes service was started without its DynamoDB and SQS services, so no pipe can run")
	}

	// What the local cloud runs: DynamoDB stream → (Lambda) → SQS.
	if !isStreamARN(d.Source) {
		return nil, errValidation("Source %s is not supported by the taskpipe local cloud: it runs DynamoDB stream sources only (arn:aws:dynamodb:<region>:<account>:table/<table>/stream/<label>)", d.Source)
	}
	if m := unsupportedRaw(map[string][]byte{
		"ActiveMQBrokerParameters": sp.ActiveMQBrokerParameters, "KinesisStreamParameters": sp.KinesisStreamParameters,
		"ManagedStreamingKafkaParameters": sp.ManagedStreamingKafkaParameters, "RabbitMQBrokerParameters": sp.RabbitMQBrokerParameters,
		"SelfManagedKafkaParameters": sp.SelfManagedKafkaParameters, "SqsQueueParameters": sp.SqsQueueParameters,
	}); m != "" {
		return nil, errValidation("SourceParameters.%s does not apply to a DynamoDB stream source; the taskpipe local cloud runs DynamoDB stream sources only", m)
	}
	if !isQueueARN(d.Target) {
		return nil, errValidation("Target %s is not supported by the taskpipe local cloud: it runs Amazon SQS queue targets only (arn:aws:sqs:<region>:<account>:<queue>)", d.Target)
	}
	if tp := d.TargetParams; tp != nil {
		if m := unsupportedRaw(map[string][]byte{
			"BatchJobParameters": tp.BatchJobParameters, "CloudWatchLogsParameters": tp.CloudWatchLogsParameters,
			"EcsTaskParameters": tp.EcsTaskParameters, "EventBridgeEventBusParameters": tp.EventBridgeEventBusParameters,
			"HttpParameters": tp.HttpParameters, "KinesisStreamParameters": tp.KinesisStreamParameters,
			"LambdaFunctionParameters": tp.LambdaFunctionParameters, "RedshiftDataParameters": tp.RedshiftDataParameters,
			"SageMakerPipelineParameters": tp.SageMakerPipelineParameters, "StepFunctionStateMachineParameters": tp.StepFunctionStateMachineParameters,
			"TimestreamParameters": tp.TimestreamParameters,
		}); m != "" {
			return nil, errValidation("TargetParameters.%s does not apply to an Amazon SQS target; the taskpipe local cloud runs SQS targets only", m)
		}
		if q := tp.SqsQueueParameters; q != nil {
			if q.MessageDeduplicationId != nil && *q.MessageDeduplicationId != "" {
				return nil, errValidation("TargetParameters.SqsQueueParameters.MessageDeduplicationId applies to FIFO queues, which the taskpipe local cloud does not emulate")
			}
			if q.MessageGroupId != nil {
				cfg.groupID = *q.MessageGroupId
				if isPath(cfg.groupID) {
					if _, err := parsePath(cfg.groupID); err != nil {
						return nil, errValidation("TargetParameters.SqsQueueParameters.MessageGroupId: %v", err)
					}
				}
			}
		}
	}
	if d.Enrichment != "" {
		fn, ok := functionName(d.Enrichment)
		if !ok {
			return nil, errValidation("Enrichment %s is not supported by the taskpipe local cloud: it runs AWS Lambda function enrichments only (arn:aws:lambda:<region>:<account>:function:<name>)", d.Enrichment)
		}
		if s.opts.Invoker == nil {
			return nil, errValidation("Enrichment %s cannot run: this local cloud was started without a Lambda service", d.Enrichment)
		}
		cfg.function = fn
	}
	if ep := d.EnrichmentParams; ep != nil && len(ep.HttpParameters) > 0 && string(ep.HttpParameters) != "null" {
		return nil, errValidation("EnrichmentParameters.HttpParameters apply to API Gateway and API destination enrichments, which the taskpipe local cloud does not run")
	}

	// Service-side parameter rules (AWS's ValidationErrorFields).
	dp := sp.DynamoDBStreamParameters
	if dp == nil {
		return nil, semanticError([]semantic{{Name: "DynamoDBStreamParameters",
			Message: "DynamoDBStreamParameters, including StartingPosition, are required for a DynamoDB stream source."}})
	}
	var sem []semantic
	age := *dp.MaximumRecordAgeInSeconds
	if age != -1 && age < 60 {
		// Wording recorded in hashicorp/terraform-provider-aws#41573.
		sem = append(sem, semantic{Name: "MaximumRecordAgeInSeconds",
			Message: "MaximumRecordAgeInSeconds must be either -1 (forever) or between 60 and 604800 (inclusive)"})
	}
	if age != -1 && *dp.MaximumBatchingWindowInSeconds >= age {
		sem = append(sem, semantic{Name: "MaximumBatchingWindowInSeconds",
			Message: "MaximumBatchingWindowInSeconds must be less than MaximumRecordAgeInSeconds."})
	}
	if *dp.BatchSize > sqsBatchLimit {
		// docs/aws-behaviour.md §1.1: a batch never exceeds what the target accepts,
		// 10 for SQS. The exact AWS wording is UNCONFIRMED.
		sem = append(sem, semantic{Name: "BatchSize",
			Message: fmt.Sprintf("BatchSize must be less than or equal to %d when the target is an Amazon SQS queue.", sqsBatchLimit)})
	}
	if len(sem) > 0 {
		return nil, semanticError(sem)
	}

	cfg.batchSize = int(*dp.BatchSize)
	cfg.window = time.Duration(*dp.MaximumBatchingWindowInSeconds) * time.Second
	if age > 0 {
		cfg.maxAge = time.Duration(age) * time.Second
	}
	cfg.maxRetries = -1
	if dp.MaximumRetryAttempts != nil {
		cfg.maxRetries = int(*dp.MaximumRetryAttempts)
	}
	cfg.bisect = dp.OnPartialBatchItemFailure == bisectValue
	cfg.parallel = int(*dp.ParallelizationFactor)
	if dl := dp.DeadLetterConfig; dl != nil {
		arn := *dl.Arn
		if !isQueueARN(arn) {
			return nil, errValidation("DeadLetterConfig.Arn %s is not supported by the taskpipe local cloud: pipe dead-letter queues must be Amazon SQS queues", arn)
		}
		if _, ok := s.opts.Queues.QueueByARN(arn); !ok {
			return nil, errValidation("DeadLetterConfig.Arn %s: the queue does not exist", arn)
		}
		cfg.dlqARN = arn
	}

	if fc := sp.FilterCriteria; fc != nil {
		for i, f := range fc.Filters {
			src := ""
			if f.Pattern != nil {
				src = *f.Pattern
			}
			p, err := eventpattern.Compile([]byte(src))
			if err == nil {
				err = eventpattern.ValidateForPipes(p)
			}
			if err != nil {
				return nil, errValidation("Invalid filter pattern definition in FilterCriteria.Filters[%d]: %v", i, err)
			}
			cfg.filters = append(cfg.filters, p)
		}
	}
	var err error
	if tp := d.TargetParams; tp != nil && tp.InputTemplate != nil && *tp.InputTemplate != "" {
		if cfg.targetTemplate, err = parseTemplate(*tp.InputTemplate); err != nil {
			return nil, errValidation("TargetParameters.InputTemplate is not valid: %v", err)
		}
	}
	if ep := d.EnrichmentParams; ep != nil && ep.InputTemplate != nil && *ep.InputTemplate != "" {
		if cfg.enrichTemplate, err = parseTemplate(*ep.InputTemplate); err != nil {
			return nil, errValidation("EnrichmentParameters.InputTemplate is not valid: %v", err)
		}
	}
	if lc := d.LogConfiguration; lc != nil {
		cfg.logLevel = lc.Level
		if dst := lc.CloudwatchLogsLogDestination; dst != nil && dst.LogGroupArn != nil {
			cfg.logGroup = logGroupName(*dst.LogGroupArn)
		}
	}

	// The resources must exist (docs/aws-behaviour.md §1.9 for the stream).
	if stream == nil {
		st, err := s.opts.Tables.Stream(d.Source)
		switch {
		case errors.Is(err, table.ErrStreamNotFound):
			return nil, errValidation("Cannot access stream %s. Please ensure the role can perform the GetRecords, GetShardIterator, DescribeStream, and ListStreams Actions on your stream in IAM. (The taskpipe local cloud has no such stream.)", d.Source)
		case err != nil:
			return nil, errValidation("Cannot access stream %s: %v", d.Source, err)
		case st.Disabled():
			return nil, errValidation("Stream %s is disabled; enable the table's stream and create the pipe on its new stream ARN", d.Source)
		}
		stream = st
	}
	cfg.stream = stream
	if _, ok := s.opts.Queues.QueueByARN(d.Target); !ok {
		return nil, errValidation("Target %s: the queue does not exist", d.Target)
	}
	return cfg, nil
}
