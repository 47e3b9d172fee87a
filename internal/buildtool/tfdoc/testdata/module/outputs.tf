output "arn" {
  description = "ARN of the thing."
  value       = "arn"
}
