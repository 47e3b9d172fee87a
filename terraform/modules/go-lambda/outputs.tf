output "function_name" {
  description = "Name of the function."
  value       = aws_lambda_function.this.function_name
}

output "function_arn" {
  description = "ARN of the function."
  value       = aws_lambda_function.this.arn
}

output "role_name" {
  description = "Name of the function's execution role."
  value       = aws_iam_role.this.name
}

output "role_arn" {
  description = "ARN of the function's execution role."
  value       = aws_iam_role.this.arn
}

output "log_group_name" {
  description = "Name of the function's log group."
  value       = aws_cloudwatch_log_group.this.name
}

output "log_group_arn" {
  description = "ARN of the function's log group."
  value       = aws_cloudwatch_log_group.this.arn
}

output "event_source_mapping_uuid" {
  description = "UUID of the SQS event source mapping, or null without one."
  value       = try(aws_lambda_event_source_mapping.sqs[0].uuid, null)
}
