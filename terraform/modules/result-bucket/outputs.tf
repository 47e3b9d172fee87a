output "bucket_name" {
  description = "Name of the bucket."
  value       = aws_s3_bucket.this.id
}

output "bucket_arn" {
  description = "ARN of the bucket."
  value       = aws_s3_bucket.this.arn
}

output "prefix" {
  description = "Key prefix of the documents."
  value       = var.prefix
}

output "objects_arn" {
  description = "ARN pattern of the documents under the prefix, for IAM policies."
  value       = "${aws_s3_bucket.this.arn}/${var.prefix}*"
}
