# The outputs the demo reads (internal/e2e/demo terraform.go, parseOutputs).

output "table_name" {
  description = "Name of the task table."
  value       = module.pipeline.table_name
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

output "lambda_environment" {
  description = "Environment of every function."
  value       = module.pipeline.lambda_environment
}

output "result_bucket_name" {
  description = "Name of the bucket of the site documents."
  value       = module.pipeline.result_bucket_name
}

output "result_prefix" {
  description = "Key prefix of the site documents."
  value       = module.pipeline.result_prefix
}
