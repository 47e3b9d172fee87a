# One Go Lambda function (provided.al2023, a prebuilt bootstrap zip), its log
# group, one least-privilege role with one inline policy, and optionally an
# SQS event source mapping that reports partial batch failures.

# IAM is global to the account: the region in the role's name lets the same
# function name live in two regions (issue 12 #5). aws_region reads the
# provider's configuration and makes no API call.
data "aws_region" "current" {}

locals {
  log_group_name = "/aws/lambda/${var.name}"
  role_name      = "${var.name}-${data.aws_region.current.region}"

  log_statements = [{
    Sid      = "WriteLogs"
    Effect   = "Allow"
    Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    Resource = ["${aws_cloudwatch_log_group.this.arn}:log-stream:*"]
  }]

  # What the event source mapping needs on its queue
  # (lambda/latest/dg/with-sqs.html, "Execution role permissions").
  sqs_statements = var.enable_sqs_event_source ? [{
    Sid      = "ConsumeQueue"
    Effect   = "Allow"
    Action   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]
    Resource = [var.sqs_queue_arn]
  }] : []

  caller_statements = [for s in var.policy_statements : {
    Sid      = s.sid
    Effect   = "Allow"
    Action   = s.actions
    Resource = s.resources
  }]

  # The Go runtime's soft memory limit, so the collector works harder
  # before the function reaches its memory size instead of being killed at
  # it (https://go.dev/doc/gc-guide#Memory_limit). 80% leaves room for
  # what the limit does not see: the binary's mapped text, C stacks and
  # the kernel's buffers for the process. The caller may set its own.
  environment = merge({ GOMEMLIMIT = "${floor(var.memory_size * 0.8)}MiB" }, var.environment)
}

# tfsec:ignore:aws-cloudwatch-log-group-customer-key -- CloudWatch Logs encrypts every log group at rest by default. A customer key would need a key policy for the logs service principal, which this module does not own; the logs hold task URLs and error text, no secrets.
resource "aws_cloudwatch_log_group" "this" {
  name              = local.log_group_name
  retention_in_days = var.log_retention_in_days
  tags              = var.tags
}

resource "aws_iam_role" "this" {
  name        = local.role_name
  description = "Execution role of the ${var.name} Lambda function in ${data.aws_region.current.region}."
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "lambda.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
  tags = var.tags
}

resource "aws_iam_role_policy" "this" {
  name = var.name
  role = aws_iam_role.this.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = concat(local.log_statements, local.sqs_statements, local.caller_statements)
  })
}

# tfsec:ignore:aws-lambda-enable-tracing -- The functions do not use X-Ray: Active tracing would record only Lambda's own segments and needs xray:PutTraceSegments on Resource "*". Logs, metrics and the task row's lastError carry the diagnostics.
resource "aws_lambda_function" "this" {
  function_name    = var.name
  description      = var.description
  role             = aws_iam_role.this.arn
  runtime          = "provided.al2023"
  handler          = "bootstrap"
  architectures    = [var.architecture]
  filename         = var.zip_path
  source_code_hash = filebase64sha256(var.zip_path)
  memory_size      = var.memory_size
  timeout          = var.timeout_seconds

  reserved_concurrent_executions = var.reserved_concurrent_executions

  environment {
    variables = local.environment
  }

  logging_config {
    log_format = var.log_format
    log_group  = aws_cloudwatch_log_group.this.name
  }

  tags = var.tags

  # The function must not start before it may write logs and read its queue.
  depends_on = [aws_iam_role_policy.this]
}

# Async invocations (EventBridge Scheduler) retry twice by default; a
# periodic job that runs again in minutes is better off not retrying.
resource "aws_lambda_function_event_invoke_config" "this" {
  count = var.enable_async_invoke_config ? 1 : 0

  function_name                = aws_lambda_function.this.function_name
  maximum_retry_attempts       = var.async_maximum_retry_attempts
  maximum_event_age_in_seconds = var.async_maximum_event_age_in_seconds
}

resource "aws_lambda_event_source_mapping" "sqs" {
  count = var.enable_sqs_event_source ? 1 : 0

  event_source_arn                   = var.sqs_queue_arn
  function_name                      = aws_lambda_function.this.arn
  batch_size                         = var.sqs_batch_size
  maximum_batching_window_in_seconds = var.sqs_maximum_batching_window_in_seconds

  # Without this the handler's batchItemFailures are ignored: an error
  # returns the whole batch and a success deletes it, failures included
  # (docs/aws-behaviour.md §4.9). Not a variable on purpose.
  function_response_types = ["ReportBatchItemFailures"]

  # Event counts (polled, filtered, invoked, failed-invoke, dropped) in
  # AWS/Lambda by EventSourceMappingUUID, which the caller can alarm on
  # (lambda/latest/dg/monitoring-metrics-types.html, "Event source mapping
  # metrics").
  metrics_config {
    metrics = ["EventCount"]
  }

  dynamic "scaling_config" {
    for_each = var.sqs_maximum_concurrency == null ? [] : [var.sqs_maximum_concurrency]
    content {
      maximum_concurrency = scaling_config.value
    }
  }

  tags = var.tags

  lifecycle {
    precondition {
      condition     = var.sqs_queue_arn != null
      error_message = "sqs_queue_arn is required when enable_sqs_event_source is true."
    }

    # A mapping allowed more concurrency than the function reserves is
    # throttled instead of scaled (lambda/latest/dg/services-sqs-scaling.html).
    precondition {
      condition     = var.sqs_maximum_concurrency == null || var.reserved_concurrent_executions < 0 || coalesce(var.sqs_maximum_concurrency, 0) <= var.reserved_concurrent_executions
      error_message = "sqs_maximum_concurrency must not exceed reserved_concurrent_executions."
    }
  }

  depends_on = [aws_iam_role_policy.this]
}
