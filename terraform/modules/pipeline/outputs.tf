output "table_name" {
  description = "Name of the task table."
  value       = module.table.table_name
}

output "table_arn" {
  description = "ARN of the task table."
  value       = module.table.table_arn
}

output "table_stream_arn" {
  description = "ARN of the task table's stream."
  value       = module.table.stream_arn
}

output "work_queue_name" {
  description = "Name of the work queue."
  value       = module.queue.queue_name
}

output "work_queue_url" {
  description = "URL of the work queue."
  value       = module.queue.queue_url
}

output "work_queue_arn" {
  description = "ARN of the work queue."
  value       = module.queue.queue_arn
}

output "work_dlq_name" {
  description = "Name of the work DLQ."
  value       = module.queue.dlq_name
}

output "work_dlq_url" {
  description = "URL of the work DLQ."
  value       = module.queue.dlq_url
}

output "work_dlq_arn" {
  description = "ARN of the work DLQ."
  value       = module.queue.dlq_arn
}

output "pipe_name" {
  description = "Name of the pipe."
  value       = module.dispatch.pipe_name
}

output "pipe_arn" {
  description = "ARN of the pipe."
  value       = module.dispatch.pipe_arn
}

output "pipe_dlq_name" {
  description = "Name of the pipe DLQ."
  value       = module.dispatch.dlq_name
}

output "pipe_dlq_url" {
  description = "URL of the pipe DLQ."
  value       = module.dispatch.dlq_url
}

output "pipe_dlq_arn" {
  description = "ARN of the pipe DLQ."
  value       = module.dispatch.dlq_arn
}

output "scraper_function_name" {
  description = "Name of the scraper function."
  value       = module.scraper.function_name
}

output "scraper_function_arn" {
  description = "ARN of the scraper function."
  value       = module.scraper.function_arn
}

output "reconciler_function_name" {
  description = "Name of the reconciler function."
  value       = module.reconciler.function_name
}

output "reconciler_function_arn" {
  description = "ARN of the reconciler function."
  value       = module.reconciler.function_arn
}

output "enrich_function_name" {
  description = "Name of the enrich function, or null when enrichment is off."
  value       = try(module.enrich[0].function_name, null)
}

output "enrich_function_arn" {
  description = "ARN of the enrich function, or null when enrichment is off."
  value       = try(module.enrich[0].function_arn, null)
}

output "function_names" {
  description = "Function names by role (scraper, reconciler and, with enrichment, enrich)."
  value       = local.functions
}

output "schedule_name" {
  description = "Name of the reconciler's EventBridge Scheduler schedule."
  value       = aws_scheduler_schedule.reconciler.name
}

output "alarm_names" {
  description = "Alarm names by purpose: work_dlq, pipe_dlq, pipe_failed, oldest_live_task, and <function>_errors / <function>_throttles."
  value = merge(
    {
      oldest_live_task = aws_cloudwatch_metric_alarm.oldest_live_task.alarm_name
    },
    { for k, a in aws_cloudwatch_metric_alarm.first_event : k => a.alarm_name },
    { for k, a in aws_cloudwatch_metric_alarm.lambda_errors : "${k}_errors" => a.alarm_name },
    { for k, a in aws_cloudwatch_metric_alarm.lambda_throttles : "${k}_throttles" => a.alarm_name },
  )
}

output "dashboard_name" {
  description = "Name of the CloudWatch dashboard."
  value       = aws_cloudwatch_dashboard.this.dashboard_name
}

output "alarm_topic_arn" {
  description = "ARN of the alarm SNS topic, or null when enable_alarm_topic is false."
  value       = try(aws_sns_topic.alarms[0].arn, null)
}

output "live_index_name" {
  description = "Name of the task table's sparse live-task index."
  value       = module.table.live_index_name
}

output "done_index_name" {
  description = "Name of the task table's sparse index of terminal tasks per run."
  value       = module.table.done_index_name
}

output "lambda_environment" {
  description = "The environment every function receives (TABLE_NAME, WORK_QUEUE_URL, ...), for running the same code outside Lambda."
  value       = local.environment
}

output "result_bucket_name" {
  description = "Name of the bucket of the site documents."
  value       = module.results.bucket_name
}

output "result_bucket_arn" {
  description = "ARN of the bucket of the site documents."
  value       = module.results.bucket_arn
}

output "result_prefix" {
  description = "Key prefix of the site documents."
  value       = module.results.prefix
}
