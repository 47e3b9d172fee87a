output "table_name" {
  description = "Name of the table."
  value       = aws_dynamodb_table.this.name
}

output "table_arn" {
  description = "ARN of the table."
  value       = aws_dynamodb_table.this.arn
}

output "stream_arn" {
  description = "ARN of the table's stream (NEW_AND_OLD_IMAGES), the pipe's source."
  value       = aws_dynamodb_table.this.stream_arn
}

output "stream_label" {
  description = "Timestamp label of the current stream; it changes when the stream is re-enabled."
  value       = aws_dynamodb_table.this.stream_label
}

output "live_index_name" {
  description = "Name of the sparse GSI of live tasks, keyed by liveKey (range key liveSince)."
  value       = local.live_index_name
}

output "live_index_arn" {
  description = "ARN of the live GSI, for Query permissions."
  value       = "${aws_dynamodb_table.this.arn}/index/${local.live_index_name}"
}

output "done_index_name" {
  description = "Name of the sparse GSI of terminal tasks, keyed by doneRun (range key taskId)."
  value       = local.done_index_name
}

output "done_index_arn" {
  description = "ARN of the done GSI, for Query permissions."
  value       = "${aws_dynamodb_table.this.arn}/index/${local.done_index_name}"
}
