# One Go function with its log group, role, SQS event source mapping and
# asynchronous invoke configuration, as modules/go-lambda declares them.

variable "zip" {
  type = string
}

variable "arch" {
  type = string
}

variable "memory" {
  type    = number
  default = 128
}

variable "batch_size" {
  type    = number
  default = 1
}

variable "invoke_config" {
  type    = bool
  default = false
}

resource "aws_cloudwatch_log_group" "fn" {
  name              = "/aws/lambda/scraper"
  retention_in_days = 1
}

resource "aws_iam_role" "fn" {
  name = "scraper-lambda"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy" "fn" {
  name = "scraper-lambda"
  role = aws_iam_role.fn.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = ["logs:CreateLogStream", "logs:PutLogEvents"], Resource = ["${aws_cloudwatch_log_group.fn.arn}:log-stream:*"] },
      { Effect = "Allow", Action = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"], Resource = [aws_sqs_queue.work.arn] },
    ]
  })
}

resource "aws_sqs_queue" "work" {
  name                       = "work"
  visibility_timeout_seconds = 180
}

resource "aws_lambda_function" "fn" {
  function_name    = "scraper"
  description      = "Claims and scrapes one task per message."
  role             = aws_iam_role.fn.arn
  runtime          = "provided.al2023"
  handler          = "bootstrap"
  architectures    = [var.arch]
  filename         = var.zip
  source_code_hash = filebase64sha256(var.zip)
  memory_size      = var.memory
  timeout          = 30

  reserved_concurrent_executions = 2

  environment {
    variables = { TABLE_NAME = "tasks", LOG_LEVEL = "info" }
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.fn.name
  }

  tags = { fn = "scraper" }

  depends_on = [aws_iam_role_policy.fn]
}

resource "aws_lambda_event_source_mapping" "sqs" {
  event_source_arn                   = aws_sqs_queue.work.arn
  function_name                      = aws_lambda_function.fn.arn
  batch_size                         = var.batch_size
  maximum_batching_window_in_seconds = 0
  function_response_types            = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 2
  }
}

resource "aws_lambda_function_event_invoke_config" "fn" {
  count = var.invoke_config ? 1 : 0

  function_name                = aws_lambda_function.fn.function_name
  maximum_retry_attempts       = 0
  maximum_event_age_in_seconds = 300
}
