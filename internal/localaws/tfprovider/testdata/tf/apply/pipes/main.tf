# Table stream → pipe (filter, bisect, finite retries, DLQ, logs) → queue,
# as modules/dispatch declares it.

variable "filters" {
  type = list(string)
  default = [
    "{\"dynamodb\":{\"NewImage\":{\"status\":{\"S\":[\"Pending\"]}}}}",
  ]
}

variable "batch_size" {
  type    = number
  default = 1
}

resource "aws_dynamodb_table" "tasks" {
  name             = "tasks"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "taskId"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  attribute {
    name = "taskId"
    type = "S"
  }
}

resource "aws_sqs_queue" "work" {
  name = "work"
}

resource "aws_sqs_queue" "dlq" {
  name                    = "dispatch-dlq"
  sqs_managed_sse_enabled = true
}

resource "aws_cloudwatch_log_group" "pipe" {
  name              = "/aws/vendedlogs/pipes/dispatch"
  retention_in_days = 1
}

resource "aws_iam_role" "pipe" {
  name = "dispatch-pipe"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "pipes.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy" "pipe" {
  name = "dispatch-pipe"
  role = aws_iam_role.pipe.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"], Resource = [aws_dynamodb_table.tasks.stream_arn] },
      { Effect = "Allow", Action = ["sqs:SendMessage"], Resource = [aws_sqs_queue.work.arn, aws_sqs_queue.dlq.arn] },
    ]
  })
}

resource "aws_pipes_pipe" "dispatch" {
  name     = "dispatch"
  role_arn = aws_iam_role.pipe.arn
  source   = aws_dynamodb_table.tasks.stream_arn
  target   = aws_sqs_queue.work.arn

  source_parameters {
    filter_criteria {
      dynamic "filter" {
        for_each = var.filters
        content {
          pattern = filter.value
        }
      }
    }

    dynamodb_stream_parameters {
      starting_position                  = "LATEST"
      batch_size                         = var.batch_size
      maximum_batching_window_in_seconds = 0
      maximum_record_age_in_seconds      = 3600
      maximum_retry_attempts             = 3
      on_partial_batch_item_failure      = "AUTOMATIC_BISECT"
      parallelization_factor             = 1

      dead_letter_config {
        arn = aws_sqs_queue.dlq.arn
      }
    }
  }

  log_configuration {
    level                  = "ERROR"
    include_execution_data = []

    cloudwatch_logs_log_destination {
      log_group_arn = aws_cloudwatch_log_group.pipe.arn
    }
  }

  tags = { pipe = "dispatch" }

  depends_on = [aws_iam_role_policy.pipe]
}
