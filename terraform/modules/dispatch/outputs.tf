output "pipe_name" {
  description = "Name of the pipe (the PipeName metric dimension)."
  value       = aws_pipes_pipe.this.name
}

output "pipe_arn" {
  description = "ARN of the pipe."
  value       = aws_pipes_pipe.this.arn
}

output "role_arn" {
  description = "ARN of the pipe's execution role."
  value       = aws_iam_role.this.arn
}

output "dlq_name" {
  description = "Name of the pipe DLQ."
  value       = aws_sqs_queue.dlq.name
}

output "dlq_url" {
  description = "URL of the pipe DLQ."
  value       = aws_sqs_queue.dlq.url
}

output "dlq_arn" {
  description = "ARN of the pipe DLQ."
  value       = aws_sqs_queue.dlq.arn
}

output "log_group_name" {
  description = "Name of the pipe's log group."
  value       = aws_cloudwatch_log_group.this.name
}
