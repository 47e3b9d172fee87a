output "queue_name" {
  description = "Name of the work queue."
  value       = aws_sqs_queue.this.name
}

output "queue_url" {
  description = "URL of the work queue."
  value       = aws_sqs_queue.this.url
}

output "queue_arn" {
  description = "ARN of the work queue."
  value       = aws_sqs_queue.this.arn
}

output "dlq_name" {
  description = "Name of the work DLQ."
  value       = aws_sqs_queue.dlq.name
}

output "dlq_url" {
  description = "URL of the work DLQ."
  value       = aws_sqs_queue.dlq.url
}

output "dlq_arn" {
  description = "ARN of the work DLQ."
  value       = aws_sqs_queue.dlq.arn
}

output "visibility_timeout_seconds" {
  description = "Visibility timeout of the work queue, for grace periods that must exceed it."
  value       = aws_sqs_queue.this.visibility_timeout_seconds
}

output "max_receive_count" {
  description = "Receives after which SQS moves a message to the DLQ."
  value       = var.max_receive_count
}
