# A work queue and its DLQ wired the way modules/work-queue wires them, plus
# an IAM role with an inline policy.

variable "visibility" {
  type    = number
  default = 180
}

variable "team" {
  type    = string
  default = "a"
}

resource "aws_sqs_queue" "work" {
  name                       = "work"
  visibility_timeout_seconds = var.visibility
  message_retention_seconds  = 345600
  sqs_managed_sse_enabled    = true
  tags                       = { team = var.team }
}

resource "aws_sqs_queue" "dlq" {
  name                      = "work-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue_redrive_policy" "work" {
  queue_url = aws_sqs_queue.work.id
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 3
  })
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url = aws_sqs_queue.dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.work.arn]
  })
}

resource "aws_iam_role" "consumer" {
  name        = "work-consumer"
  description = "Reads the work queue."
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
  tags = { team = var.team }
}

resource "aws_iam_role_policy" "consumer" {
  name = "consume"
  role = aws_iam_role.consumer.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["sqs:ReceiveMessage", "sqs:DeleteMessage"], Resource = [aws_sqs_queue.work.arn] }]
  })
}

output "work_url" {
  value = aws_sqs_queue.work.url
}
