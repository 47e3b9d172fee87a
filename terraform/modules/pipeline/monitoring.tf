# Alarms, the optional alarm topic and the dashboard.

locals {
  alarm_actions = concat(var.alarm_actions, aws_sns_topic.alarms[*].arn)

  # Keys are known at plan time, so for_each works before the functions exist.
  functions = merge(
    {
      scraper    = module.scraper.function_name
      reconciler = module.reconciler.function_name
    },
    var.enable_enrichment ? { enrich = module.enrich[0].function_name } : {},
  )

  # The reconciler's embedded metrics (internal/emf) use this namespace.
  metrics_namespace = "taskpipe"
}

# tfsec:ignore:aws-sns-enable-topic-encryption -- Alarm notifications carry no task data. The AWS managed key (alias/aws/sns) cannot be used here at all: its key policy cannot grant CloudWatch, so alarms could not publish. A customer key can be set with alarm_topic_kms_master_key_id.
resource "aws_sns_topic" "alarms" {
  count = var.enable_alarm_topic ? 1 : 0

  name              = "${var.name}-alarms"
  kms_master_key_id = var.alarm_topic_kms_master_key_id
  tags              = var.tags
}

# The two DLQs and the pipe's failed executions alarm at their first
# event, with one shape: only what they watch differs. Both DLQs count
# ApproximateNumberOfMessagesVisible rather than NumberOfMessagesSent:
# messages moved by a redrive policy are not counted as sent
# (docs/aws-behaviour.md §3.10).
locals {
  first_event_alarms = {
    work_dlq = {
      alarm_name        = "${var.name}-work-dlq-not-empty"
      alarm_description = "A work message failed ${module.queue.max_receive_count} deliveries or was unparseable; it waits in ${module.queue.dlq_name}. Inspect it, fix the cause, then redrive it from the console."
      namespace         = "AWS/SQS"
      metric_name       = "ApproximateNumberOfMessagesVisible"
      dimensions        = { QueueName = module.queue.dlq_name }
      statistic         = "Maximum"
      period            = 60
    }
    pipe_dlq = {
      alarm_name        = "${var.name}-pipe-dlq-not-empty"
      alarm_description = "The pipe gave up on a batch of stream records; ${module.dispatch.dlq_name} holds its shard and sequence range. The reconciler re-dispatches the affected tasks from the table."
      namespace         = "AWS/SQS"
      metric_name       = "ApproximateNumberOfMessagesVisible"
      dimensions        = { QueueName = module.dispatch.dlq_name }
      statistic         = "Maximum"
      period            = 60
    }
    pipe_failed = {
      alarm_name        = "${var.name}-pipe-execution-failed"
      alarm_description = "The pipe ${module.dispatch.pipe_name} failed executions (enrichment or target errors, permissions); see its log group."
      namespace         = "AWS/EventBridge/Pipes"
      metric_name       = "ExecutionFailed"
      dimensions        = { PipeName = module.dispatch.pipe_name }
      statistic         = "Sum"
      period            = 300
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "first_event" {
  for_each = local.first_event_alarms

  alarm_name          = each.value.alarm_name
  alarm_description   = each.value.alarm_description
  namespace           = each.value.namespace
  metric_name         = each.value.metric_name
  dimensions          = each.value.dimensions
  statistic           = each.value.statistic
  period              = each.value.period
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

# The three alarms were separate resources until they shared one; the moved
# blocks keep existing stacks' alarms instead of replacing them.
moved {
  from = aws_cloudwatch_metric_alarm.work_dlq
  to   = aws_cloudwatch_metric_alarm.first_event["work_dlq"]
}

moved {
  from = aws_cloudwatch_metric_alarm.pipe_dlq
  to   = aws_cloudwatch_metric_alarm.first_event["pipe_dlq"]
}

moved {
  from = aws_cloudwatch_metric_alarm.pipe_failed
  to   = aws_cloudwatch_metric_alarm.first_event["pipe_failed"]
}

resource "aws_cloudwatch_metric_alarm" "lambda_errors" {
  for_each = local.functions

  alarm_name          = "${var.name}-${each.key}-errors"
  alarm_description   = "The ${each.value} function returned errors (a partial batch response is not an error; a crash, timeout or returned error is)."
  namespace           = "AWS/Lambda"
  metric_name         = "Errors"
  dimensions          = { FunctionName = each.value }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = var.lambda_errors_threshold
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

resource "aws_cloudwatch_metric_alarm" "lambda_throttles" {
  for_each = local.functions

  alarm_name          = "${var.name}-${each.key}-throttles"
  alarm_description   = "The ${each.value} function was throttled: its reserved concurrency (or the account's) is below what its event source asks for."
  namespace           = "AWS/Lambda"
  metric_name         = "Throttles"
  dimensions          = { FunctionName = each.value }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

# The scraper's event source mapping publishes event counts (go-lambda turns
# on metrics_config EventCount) in AWS/Lambda by EventSourceMappingUUID
# (lambda/latest/dg/monitoring-metrics-types.html, "Event source mapping
# metrics"). DroppedEventCount: events the mapping gave up on without
# invoking the function; any one is a lost task until the reconciler finds
# it.
resource "aws_cloudwatch_metric_alarm" "scraper_dropped_events" {
  alarm_name          = "${var.name}-scraper-dropped-events"
  alarm_description   = "The work queue's event source mapping dropped events without invoking ${module.scraper.function_name}; the reconciler re-dispatches their tasks once they are overdue."
  namespace           = "AWS/Lambda"
  metric_name         = "DroppedEventCount"
  dimensions          = { EventSourceMappingUUID = module.scraper.event_source_mapping_uuid }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

# FailedInvokeEventCount also counts the messages the scraper reports in
# batchItemFailures (released tasks waiting for their next delivery), so
# the threshold is a rate, not the first event.
resource "aws_cloudwatch_metric_alarm" "scraper_failed_invoke_events" {
  alarm_name          = "${var.name}-scraper-failed-invoke-events"
  alarm_description   = "The work queue's event source mapping counted ${var.scraper_failed_invoke_events_threshold} or more failed invocations of ${module.scraper.function_name} in 5 minutes (errors, throttles, or messages released for retry)."
  namespace           = "AWS/Lambda"
  metric_name         = "FailedInvokeEventCount"
  dimensions          = { EventSourceMappingUUID = module.scraper.event_source_mapping_uuid }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = var.scraper_failed_invoke_events_threshold
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

# The reconciler publishes, each run, how long the oldest overdue task has
# been due (Pending: since it became Pending; Running: since its lease
# expired), as an embedded metric (internal/emf). Every metric carries the
# deployment's Deployment dimension and is also emitted without the State
# dimension; the alarm watches that total of this deployment alone. Missing
# data means the reconciler did not run, which its errors alarm covers.
resource "aws_cloudwatch_metric_alarm" "oldest_live_task" {
  alarm_name          = "${var.name}-oldest-live-task-age"
  alarm_description   = "A task of ${var.name} has been overdue (Pending, or Running with an expired lease) for over ${var.oldest_live_task_age_threshold_seconds} seconds although the reconciler re-dispatches it every run."
  namespace           = local.metrics_namespace
  metric_name         = "OldestLiveTaskAge"
  dimensions          = { Deployment = var.name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = var.oldest_live_task_age_threshold_seconds
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}

resource "aws_cloudwatch_dashboard" "this" {
  # Dashboards are account-global (their ARN,
  # arn:aws:cloudwatch::<account>:dashboard/<name>, has no region): the
  # region keeps two regions' dashboards apart.
  dashboard_name = "${var.name}-${local.region}"
  dashboard_body = jsonencode({
    widgets = [
      {
        type = "metric", x = 0, y = 0, width = 12, height = 6
        properties = {
          title  = "Work queue"
          region = local.region
          view   = "timeSeries"
          stat   = "Maximum"
          period = 60
          metrics = [
            ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", module.queue.queue_name, { label = "waiting" }],
            ["AWS/SQS", "ApproximateNumberOfMessagesNotVisible", "QueueName", module.queue.queue_name, { label = "in flight" }],
            ["AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName", module.queue.queue_name, { label = "oldest message age (s)", yAxis = "right" }],
          ]
        }
      },
      {
        type = "metric", x = 12, y = 0, width = 12, height = 6
        properties = {
          title  = "Dead-letter queues"
          region = local.region
          view   = "timeSeries"
          stat   = "Maximum"
          period = 60
          metrics = [
            ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", module.queue.dlq_name, { label = "work DLQ" }],
            ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", module.dispatch.dlq_name, { label = "pipe DLQ" }],
          ]
        }
      },
      {
        type = "metric", x = 0, y = 6, width = 12, height = 6
        properties = {
          title  = "Scraper"
          region = local.region
          view   = "timeSeries"
          stat   = "Sum"
          period = 60
          metrics = [
            ["AWS/Lambda", "Invocations", "FunctionName", module.scraper.function_name],
            ["AWS/Lambda", "Errors", "FunctionName", module.scraper.function_name],
            ["AWS/Lambda", "Throttles", "FunctionName", module.scraper.function_name],
            ["AWS/Lambda", "ConcurrentExecutions", "FunctionName", module.scraper.function_name, { stat = "Maximum", yAxis = "right" }],
          ]
        }
      },
      {
        type = "metric", x = 12, y = 6, width = 12, height = 6
        properties = {
          title  = "Scraper duration (ms)"
          region = local.region
          view   = "timeSeries"
          period = 60
          metrics = [
            ["AWS/Lambda", "Duration", "FunctionName", module.scraper.function_name, { stat = "p50" }],
            ["AWS/Lambda", "Duration", "FunctionName", module.scraper.function_name, { stat = "p99" }],
            ["AWS/Lambda", "Duration", "FunctionName", module.scraper.function_name, { stat = "Maximum" }],
          ]
        }
      },
      {
        type = "metric", x = 0, y = 12, width = 12, height = 6
        properties = {
          title  = "Pipe"
          region = local.region
          view   = "timeSeries"
          stat   = "Sum"
          period = 60
          metrics = [
            ["AWS/EventBridge/Pipes", "EventCount", "PipeName", module.dispatch.pipe_name],
            ["AWS/EventBridge/Pipes", "ExecutionFailed", "PipeName", module.dispatch.pipe_name],
            ["AWS/EventBridge/Pipes", "ExecutionThrottled", "PipeName", module.dispatch.pipe_name],
          ]
        }
      },
      {
        type = "metric", x = 12, y = 12, width = 12, height = 6
        properties = {
          title  = "Oldest overdue task (s)"
          region = local.region
          view   = "timeSeries"
          stat   = "Maximum"
          period = 300
          metrics = [
            [local.metrics_namespace, "OldestLiveTaskAge", "Deployment", var.name, "State", "Pending", { label = "Pending" }],
            [local.metrics_namespace, "OldestLiveTaskAge", "Deployment", var.name, "State", "Running", { label = "Running (lease expired)" }],
          ]
          annotations = {
            horizontal = [{ label = "alarm", value = var.oldest_live_task_age_threshold_seconds }]
          }
        }
      },
    ]
  })
}

# A stopped, disabled or failed pipe emits no ExecutionFailed, so nothing
# else notices it: each reconciler run reads the pipe's CurrentState
# (pipes:DescribePipe) and publishes PipeStalled, 1 when the pipe is not
# RUNNING although this deployment wants it running (internal/emf). Two
# runs in a row, so a pipe briefly UPDATING during an apply does not page.
# Missing data means the reconciler did not run, which its errors alarm
# covers.
resource "aws_cloudwatch_metric_alarm" "pipe_stalled" {
  alarm_name          = "${var.name}-pipe-stalled"
  alarm_description   = "The ${var.name} pipe is not RUNNING although the deployment wants it running: new tasks are not dispatched (the reconciler re-sends them only after their Pending grace)."
  namespace           = local.metrics_namespace
  metric_name         = "PipeStalled"
  dimensions          = { Deployment = var.name }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 2
  datapoints_to_alarm = 2
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions
  tags                = var.tags
}
