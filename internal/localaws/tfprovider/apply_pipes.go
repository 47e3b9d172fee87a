package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	pipetypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"
)

// aws_pipes_pipe. Source: hashicorp/terraform-provider-aws
// internal/service/pipes/pipe.go (resourcePipeCreate/Read/Update/Delete,
// waitPipeCreated/Updated/Deleted), source_parameters.go,
// target_parameters.go, enrichment_parameters.go, log_configuration.go
// (expand/flatten). The id is the pipe name. docs/aws-behaviour.md §7.1
// explains the update semantics (every source parameter is sent again).

func (c *clients) pipes(ctx context.Context, pc *Config, region string) (*pipes.Client, error) {
	cfg, err := c.awsConfig(ctx, pc, region)
	if err != nil {
		return nil, err
	}
	ep := c.endpoint(pc, "pipes")
	return pipes.NewFromConfig(cfg, func(o *pipes.Options) { o.BaseEndpoint = ep }), nil
}

// Timeouts of pipe.go.
const (
	pipeCreateTimeout = 30 * time.Minute
	pipeUpdateTimeout = 30 * time.Minute
	pipeDeleteTimeout = 30 * time.Minute
)

func pipeGone(err error) bool {
	var nf *pipetypes.NotFoundException
	return errors.As(err, &nf) || isCode(err, "NotFoundException")
}

type pipeHandler struct{ c *clients }

var pipeUnsupported = map[string]string{
	"kms_key_identifier":                                         "the local cloud has no KMS",
	"source_parameters.*.activemq_broker_parameters":             "the local pipes read DynamoDB streams only",
	"source_parameters.*.kinesis_stream_parameters":              "the local pipes read DynamoDB streams only",
	"source_parameters.*.managed_streaming_kafka_parameters":     "the local pipes read DynamoDB streams only",
	"source_parameters.*.rabbitmq_broker_parameters":             "the local pipes read DynamoDB streams only",
	"source_parameters.*.self_managed_kafka_parameters":          "the local pipes read DynamoDB streams only",
	"source_parameters.*.sqs_queue_parameters":                   "the local pipes read DynamoDB streams only",
	"target_parameters.*.batch_job_parameters":                   "the local pipes deliver to SQS queues only",
	"target_parameters.*.cloudwatch_logs_parameters":             "the local pipes deliver to SQS queues only",
	"target_parameters.*.ecs_task_parameters":                    "the local pipes deliver to SQS queues only",
	"target_parameters.*.eventbridge_event_bus_parameters":       "the local pipes deliver to SQS queues only",
	"target_parameters.*.http_parameters":                        "the local pipes deliver to SQS queues only",
	"target_parameters.*.kinesis_stream_parameters":              "the local pipes deliver to SQS queues only",
	"target_parameters.*.lambda_function_parameters":             "the local pipes deliver to SQS queues only",
	"target_parameters.*.redshift_data_parameters":               "the local pipes deliver to SQS queues only",
	"target_parameters.*.sagemaker_pipeline_parameters":          "the local pipes deliver to SQS queues only",
	"target_parameters.*.step_function_state_machine_parameters": "the local pipes deliver to SQS queues only",
	"enrichment_parameters.*.http_parameters":                    "API Gateway and API destination enrichments are not emulated",
	"log_configuration.*.firehose_log_destination":               "the local cloud has no Firehose; use cloudwatch_logs_log_destination",
	"log_configuration.*.s3_log_destination":                     "the local cloud has no S3; use cloudwatch_logs_log_destination",
}

func (h *pipeHandler) check(cfg cty.Value) error {
	return unsupportedSet("aws_pipes_pipe", cfg, pipeUnsupported, sortedKeys(pipeUnsupported)...)
}

func filterCriteria(sp cty.Value) *pipetypes.FilterCriteria {
	fc := block(sp, "filter_criteria")
	if !known(fc) {
		return nil
	}
	out := &pipetypes.FilterCriteria{}
	for _, f := range blocks(fc, "filter") {
		out.Filters = append(out.Filters, pipetypes.Filter{Pattern: strp(f, "pattern")})
	}
	return out
}

func deadLetterOf(v cty.Value) *pipetypes.DeadLetterConfig {
	dl := block(v, "dead_letter_config")
	if !known(dl) {
		return nil
	}
	return &pipetypes.DeadLetterConfig{Arn: strp(dl, "arn")}
}

func sourceParams(p cty.Value) *pipetypes.PipeSourceParameters {
	sp := block(p, "source_parameters")
	if !known(sp) {
		return nil
	}
	out := &pipetypes.PipeSourceParameters{FilterCriteria: filterCriteria(sp)}
	if d := block(sp, "dynamodb_stream_parameters"); known(d) {
		out.DynamoDBStreamParameters = &pipetypes.PipeSourceDynamoDBStreamParameters{
			StartingPosition:               pipetypes.DynamoDBStreamStartPosition(str(d, "starting_position")),
			BatchSize:                      int32p(d, "batch_size"),
			DeadLetterConfig:               deadLetterOf(d),
			MaximumBatchingWindowInSeconds: int32p(d, "maximum_batching_window_in_seconds"),
			MaximumRecordAgeInSeconds:      int32p(d, "maximum_record_age_in_seconds"),
			MaximumRetryAttempts:           int32p(d, "maximum_retry_attempts"),
			OnPartialBatchItemFailure:      pipetypes.OnPartialBatchItemFailureStreams(str(d, "on_partial_batch_item_failure")),
			ParallelizationFactor:          int32p(d, "parallelization_factor"),
		}
	}
	return out
}

// updateSourceParams is expandUpdatePipeSourceParameters: every stream
// parameter again (without the create-only starting position), and an
// empty FilterCriteria to remove the filters.
func updateSourceParams(p cty.Value) *pipetypes.UpdatePipeSourceParameters {
	sp := block(p, "source_parameters")
	out := &pipetypes.UpdatePipeSourceParameters{FilterCriteria: &pipetypes.FilterCriteria{}}
	if !known(sp) {
		return out
	}
	if fc := filterCriteria(sp); fc != nil {
		out.FilterCriteria = fc
	}
	if d := block(sp, "dynamodb_stream_parameters"); known(d) {
		out.DynamoDBStreamParameters = &pipetypes.UpdatePipeSourceDynamoDBStreamParameters{
			BatchSize:                      int32p(d, "batch_size"),
			DeadLetterConfig:               deadLetterOf(d),
			MaximumBatchingWindowInSeconds: int32p(d, "maximum_batching_window_in_seconds"),
			MaximumRecordAgeInSeconds:      int32p(d, "maximum_record_age_in_seconds"),
			MaximumRetryAttempts:           int32p(d, "maximum_retry_attempts"),
			OnPartialBatchItemFailure:      pipetypes.OnPartialBatchItemFailureStreams(str(d, "on_partial_batch_item_failure")),
			ParallelizationFactor:          int32p(d, "parallelization_factor"),
		}
		if out.DynamoDBStreamParameters.DeadLetterConfig == nil {
			out.DynamoDBStreamParameters.DeadLetterConfig = &pipetypes.DeadLetterConfig{}
		}
	}
	return out
}

func targetParams(p cty.Value) *pipetypes.PipeTargetParameters {
	tp := block(p, "target_parameters")
	if !known(tp) {
		return nil
	}
	out := &pipetypes.PipeTargetParameters{InputTemplate: strp(tp, "input_template")}
	if sq := block(tp, "sqs_queue_parameters"); known(sq) {
		out.SqsQueueParameters = &pipetypes.PipeTargetSqsQueueParameters{
			MessageDeduplicationId: strp(sq, "message_deduplication_id"), MessageGroupId: strp(sq, "message_group_id"),
		}
	}
	return out
}

func enrichmentParams(p cty.Value) *pipetypes.PipeEnrichmentParameters {
	ep := block(p, "enrichment_parameters")
	if !known(ep) {
		return nil
	}
	return &pipetypes.PipeEnrichmentParameters{InputTemplate: strp(ep, "input_template")}
}

func logConfig(p cty.Value) *pipetypes.PipeLogConfigurationParameters {
	lc := block(p, "log_configuration")
	if !known(lc) {
		return nil
	}
	out := &pipetypes.PipeLogConfigurationParameters{Level: pipetypes.LogLevel(str(lc, "level"))}
	for _, d := range strs(lc, "include_execution_data") {
		out.IncludeExecutionData = append(out.IncludeExecutionData, pipetypes.IncludeExecutionDataOption(d))
	}
	if cw := block(lc, "cloudwatch_logs_log_destination"); known(cw) {
		out.CloudwatchLogsLogDestination = &pipetypes.CloudwatchLogsLogDestinationParameters{LogGroupArn: strp(cw, "log_group_arn")}
	}
	return out
}

// Create is resourcePipeCreate: CreatePipe, a wait until the pipe is
// RUNNING or STOPPED, then Read.
func (h *pipeHandler) Create(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, p := req.Provider, req.Planned
	cl, err := h.c.pipes(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := generatedName(str(p, "name"), str(p, "name_prefix"), "")
	in := &pipes.CreatePipeInput{
		Name:                 aws.String(name),
		RoleArn:              strp(p, "role_arn"),
		Source:               strp(p, "source"),
		Target:               strp(p, "target"),
		Description:          strp(p, "description"),
		DesiredState:         pipetypes.RequestedPipeState(str(p, "desired_state")),
		Enrichment:           strp(p, "enrichment"),
		EnrichmentParameters: enrichmentParams(p),
		SourceParameters:     sourceParams(p),
		TargetParameters:     targetParams(p),
		LogConfiguration:     logConfig(p),
	}
	if tags := tagsIn(p, pc); len(tags) > 0 {
		in.Tags = tags
	}
	if _, err := cl.CreatePipe(ctx, in); err != nil {
		return cty.NilVal, fmt.Errorf("creating EventBridge Pipes Pipe (%s): %w", name, err)
	}
	if err := waitPipe(ctx, cl, name, pipetypes.PipeStateCreating, pipeCreateTimeout); err != nil {
		return created(req, name, err)
	}
	return h.readBack(ctx, cl, req, name)
}

func (h *pipeHandler) readBack(ctx context.Context, cl *pipes.Client, req *ApplyRequest, name string) (cty.Value, error) {
	st, err := h.read(ctx, cl, req.Schema.Block, with(req.Planned, map[string]cty.Value{"id": sv(name)}), req.Provider)
	if err != nil {
		return created(req, name, err)
	}
	if st.IsNull() {
		return created(req, name, fmt.Errorf("reading EventBridge Pipes Pipe (%s): not found after apply", name))
	}
	return settle(req.Schema.Block, st, req.Planned), nil
}

// waitPipe waits while the pipe is in the transitional state: until
// RUNNING or STOPPED (waitPipeCreated, waitPipeUpdated), or until it is
// gone for DELETING (waitPipeDeleted). A *_FAILED state is an error with
// the pipe's StateReason.
func waitPipe(ctx context.Context, cl *pipes.Client, name string, from pipetypes.PipeState, timeout time.Duration) error {
	return waitUntil(ctx, timeout, "EventBridge Pipes Pipe ("+name+") to leave "+string(from), func(ctx context.Context) (bool, error) {
		out, err := cl.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(name)})
		if pipeGone(err) {
			return from == pipetypes.PipeStateDeleting, nil
		}
		if err != nil {
			return false, err
		}
		switch out.CurrentState {
		case pipetypes.PipeStateRunning, pipetypes.PipeStateStopped:
			return from != pipetypes.PipeStateDeleting, nil
		case pipetypes.PipeStateCreateFailed, pipetypes.PipeStateUpdateFailed, pipetypes.PipeStateStartFailed, pipetypes.PipeStateStopFailed,
			pipetypes.PipeStateCreateRollbackFailed, pipetypes.PipeStateDeleteFailed, pipetypes.PipeStateUpdateRollbackFailed,
			pipetypes.PipeStateDeleteRollbackFailed:
			return false, fmt.Errorf("pipe is %s: %s", out.CurrentState, aws.ToString(out.StateReason))
		}
		return false, nil
	})
}

// Read is resourcePipeRead: DescribePipe and its tags.
func (h *pipeHandler) Read(ctx context.Context, req *ReadRequest) (cty.Value, error) {
	cl, err := h.c.pipes(ctx, req.Provider, regionOf(req.Current, req.Provider))
	if err != nil {
		return cty.NilVal, err
	}
	st, err := h.read(ctx, cl, req.Schema.Block, req.Current, req.Provider)
	if err != nil || st.IsNull() {
		return st, err
	}
	return settle(req.Schema.Block, st, req.Current), nil
}

func (h *pipeHandler) read(ctx context.Context, cl *pipes.Client, sch *tfjson.SchemaBlock, cur cty.Value, pc *Config) (cty.Value, error) {
	name := str(cur, "id")
	out, err := cl.DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(name)})
	if pipeGone(err) {
		return cty.NullVal(cur.Type()), nil
	}
	if err != nil {
		return cty.NilVal, fmt.Errorf("reading EventBridge Pipes Pipe (%s): %w", name, err)
	}
	vals := map[string]cty.Value{
		"id":                 sv(aws.ToString(out.Name)),
		"arn":                sv(aws.ToString(out.Arn)),
		"name":               sv(aws.ToString(out.Name)),
		"name_prefix":        namePrefixFromName(aws.ToString(out.Name), ""),
		"description":        svp(out.Description),
		"desired_state":      sv(string(out.DesiredState)),
		"enrichment":         svp(out.Enrichment),
		"kms_key_identifier": svp(out.KmsKeyIdentifier),
		"role_arn":           svp(out.RoleArn),
		"source":             svp(out.Source),
		"target":             svp(out.Target),
	}

	spType := nestedType(sch, "source_parameters")
	if sp := out.SourceParameters; sp != nil && (sp.DynamoDBStreamParameters != nil || sp.FilterCriteria != nil) {
		m := map[string]cty.Value{}
		curSP := block(cur, "source_parameters")
		if fc := sp.FilterCriteria; fc != nil && len(fc.Filters) > 0 {
			curFilters := blocks(block(curSP, "filter_criteria"), "filter")
			var filters []map[string]cty.Value
			for i, f := range fc.Filters {
				ref := cty.NilVal
				if i < len(curFilters) {
					ref = getAttr(curFilters[i], "pattern")
				}
				filters = append(filters, map[string]cty.Value{"pattern": jsonState(aws.ToString(f.Pattern), ref)})
			}
			m["filter_criteria"] = blockOf(nestedType(sch, "source_parameters", "filter_criteria"),
				map[string]cty.Value{"filter": blockOf(nestedType(sch, "source_parameters", "filter_criteria", "filter"), filters...)})
		}
		if d := sp.DynamoDBStreamParameters; d != nil {
			dm := map[string]cty.Value{
				"batch_size":                         ivp32(d.BatchSize),
				"maximum_batching_window_in_seconds": ivp32(d.MaximumBatchingWindowInSeconds),
				"maximum_record_age_in_seconds":      ivp32(d.MaximumRecordAgeInSeconds),
				"maximum_retry_attempts":             ivp32(d.MaximumRetryAttempts),
				"parallelization_factor":             ivp32(d.ParallelizationFactor),
				"starting_position":                  sv(string(d.StartingPosition)),
			}
			if d.OnPartialBatchItemFailure != "" {
				dm["on_partial_batch_item_failure"] = sv(string(d.OnPartialBatchItemFailure))
			}
			if dl := d.DeadLetterConfig; dl != nil && aws.ToString(dl.Arn) != "" {
				dm["dead_letter_config"] = blockOf(nestedType(sch, "source_parameters", "dynamodb_stream_parameters", "dead_letter_config"),
					map[string]cty.Value{"arn": svp(dl.Arn)})
			}
			m["dynamodb_stream_parameters"] = blockOf(nestedType(sch, "source_parameters", "dynamodb_stream_parameters"), dm)
		}
		vals["source_parameters"] = blockOf(spType, m)
	} else {
		vals["source_parameters"] = blockOf(spType)
	}

	tpType := nestedType(sch, "target_parameters")
	if tp := out.TargetParameters; tp != nil && (aws.ToString(tp.InputTemplate) != "" || tp.SqsQueueParameters != nil) {
		m := map[string]cty.Value{"input_template": svp(tp.InputTemplate)}
		if sq := tp.SqsQueueParameters; sq != nil {
			m["sqs_queue_parameters"] = blockOf(nestedType(sch, "target_parameters", "sqs_queue_parameters"),
				map[string]cty.Value{"message_deduplication_id": svp(sq.MessageDeduplicationId), "message_group_id": svp(sq.MessageGroupId)})
		}
		vals["target_parameters"] = blockOf(tpType, m)
	} else {
		vals["target_parameters"] = blockOf(tpType)
	}

	epType := nestedType(sch, "enrichment_parameters")
	if ep := out.EnrichmentParameters; ep != nil && aws.ToString(ep.InputTemplate) != "" {
		vals["enrichment_parameters"] = blockOf(epType, map[string]cty.Value{"input_template": svp(ep.InputTemplate)})
	} else {
		vals["enrichment_parameters"] = blockOf(epType)
	}

	lcType := nestedType(sch, "log_configuration")
	if lc := out.LogConfiguration; lc != nil {
		var data []string
		for _, d := range lc.IncludeExecutionData {
			data = append(data, string(d))
		}
		m := map[string]cty.Value{"level": sv(string(lc.Level)), "include_execution_data": setOf(data)}
		if cw := lc.CloudwatchLogsLogDestination; cw != nil {
			m["cloudwatch_logs_log_destination"] = blockOf(nestedType(sch, "log_configuration", "cloudwatch_logs_log_destination"),
				map[string]cty.Value{"log_group_arn": svp(cw.LogGroupArn)})
		}
		vals["log_configuration"] = blockOf(lcType, m)
	} else {
		vals["log_configuration"] = blockOf(lcType)
	}

	tags, err := cl.ListTagsForResource(ctx, &pipes.ListTagsForResourceInput{ResourceArn: out.Arn})
	if err != nil {
		return cty.NilVal, fmt.Errorf("listing tags for EventBridge Pipes Pipe (%s): %w", name, err)
	}
	vals["tags"], vals["tags_all"] = tagsOut(pc, tags.Tags)
	return with(cur, vals), nil
}

// Update is resourcePipeUpdate: one UpdatePipe with the whole definition
// (enrichment "" removes it), a wait, then tags.
func (h *pipeHandler) Update(ctx context.Context, req *ApplyRequest) (cty.Value, error) {
	if err := h.check(req.Config); err != nil {
		return cty.NilVal, err
	}
	pc, prior, p := req.Provider, req.Prior, req.Planned
	cl, err := h.c.pipes(ctx, pc, regionOf(p, pc))
	if err != nil {
		return cty.NilVal, err
	}
	name := str(prior, "id")
	if changed(prior, p, "description", "desired_state", "enrichment", "enrichment_parameters", "log_configuration",
		"role_arn", "source_parameters", "target", "target_parameters") {
		in := &pipes.UpdatePipeInput{
			Name:                 aws.String(name),
			RoleArn:              strp(p, "role_arn"),
			Target:               strp(p, "target"),
			Description:          aws.String(str(p, "description")),
			DesiredState:         pipetypes.RequestedPipeState(str(p, "desired_state")),
			Enrichment:           aws.String(str(p, "enrichment")),
			EnrichmentParameters: enrichmentParams(p),
			SourceParameters:     updateSourceParams(p),
			TargetParameters:     targetParams(p),
			LogConfiguration:     logConfig(p),
		}
		if in.EnrichmentParameters == nil && len(blocks(prior, "enrichment_parameters")) > 0 {
			in.EnrichmentParameters = &pipetypes.PipeEnrichmentParameters{}
		}
		if in.TargetParameters == nil && len(blocks(prior, "target_parameters")) > 0 {
			in.TargetParameters = &pipetypes.PipeTargetParameters{InputTemplate: aws.String("")}
		}
		if _, err := cl.UpdatePipe(ctx, in); err != nil {
			return cty.NilVal, fmt.Errorf("updating EventBridge Pipes Pipe (%s): %w", name, err)
		}
		if err := waitPipe(ctx, cl, name, pipetypes.PipeStateUpdating, pipeUpdateTimeout); err != nil {
			return cty.NilVal, err
		}
	}
	set, remove := tagDiff(tagsIn(prior, pc), tagsIn(p, pc))
	arnStr := str(prior, "arn")
	if len(remove) > 0 {
		if _, err := cl.UntagResource(ctx, &pipes.UntagResourceInput{ResourceArn: aws.String(arnStr), TagKeys: remove}); err != nil {
			return cty.NilVal, fmt.Errorf("untagging EventBridge Pipes Pipe (%s): %w", name, err)
		}
	}
	if len(set) > 0 {
		if _, err := cl.TagResource(ctx, &pipes.TagResourceInput{ResourceArn: aws.String(arnStr), Tags: set}); err != nil {
			return cty.NilVal, fmt.Errorf("tagging EventBridge Pipes Pipe (%s): %w", name, err)
		}
	}
	return h.readBack(ctx, cl, req, name)
}

// Delete is resourcePipeDelete: DeletePipe, then a wait until it is gone.
func (h *pipeHandler) Delete(ctx context.Context, req *ApplyRequest) error {
	cl, err := h.c.pipes(ctx, req.Provider, regionOf(req.Prior, req.Provider))
	if err != nil {
		return err
	}
	name := str(req.Prior, "id")
	if _, err := cl.DeletePipe(ctx, &pipes.DeletePipeInput{Name: aws.String(name)}); err != nil {
		if pipeGone(err) {
			return nil
		}
		return fmt.Errorf("deleting EventBridge Pipes Pipe (%s): %w", name, err)
	}
	return waitPipe(ctx, cl, name, pipetypes.PipeStateDeleting, pipeDeleteTimeout)
}

// Import takes the pipe name.
func (h *pipeHandler) Import(_ context.Context, req *ImportRequest) (cty.Value, error) {
	return importByID(req, map[string]cty.Value{"id": sv(req.ID), "name": sv(req.ID)}), nil
}
