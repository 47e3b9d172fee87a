output "table_name" {
  description = "Name of the task table."
  value       = module.pipeline.table_name
}

output "table_stream_arn" {
  description = "ARN of the task table's stream."
  value       = module.pipeline.table_stream_arn
}

output "work_queue_url" {
  description = "URL of the work queue."
  value       = module.pipeline.work_queue_url
}

output "work_dlq_url" {
  description = "URL of the work DLQ."
  value       = module.pipeline.work_dlq_url
}

output "pipe_name" {
  description = "Name of the pipe."
  value       = module.pipeline.pipe_name
}

output "pipe_dlq_url" {
  description = "URL of the pipe DLQ."
  value       = module.pipeline.pipe_dlq_url
}

output "function_names" {
  description = "Function names by role."
  value       = module.pipeline.function_names
}

output "schedule_name" {
  description = "Name of the reconciler schedule."
  value       = module.pipeline.schedule_name
}

output "alarm_names" {
  description = "Alarm names by purpose."
  value       = module.pipeline.alarm_names
}

output "dashboard_name" {
  description = "Name of the CloudWatch dashboard."
  value       = module.pipeline.dashboard_name
}

output "lambda_environment" {
  description = "Environment of every function, for running the same code outside Lambda."
  value       = module.pipeline.lambda_environment
}

output "scraper_function_name" {
  description = "Name of the scraper function (taskpipe optout reads and changes its opt-out list)."
  value       = module.pipeline.scraper_function_name
}
