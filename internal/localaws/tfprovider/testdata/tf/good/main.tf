# A pipe + queue + lambda slice of the pipeline: everything the plan test
# inspects with `terraform show -json`.

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
  name                       = "work"
  visibility_timeout_seconds = 5400
}

resource "aws_sqs_queue" "pipe_dlq" {
  name = "pipe-dlq"
}

resource "aws_iam_role" "pipe" {
  name = "tasks-pipe"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "pipes.amazonaws.com" } }]
  })
}

resource "aws_pipes_pipe" "tasks" {
  name     = "tasks"
  role_arn = aws_iam_role.pipe.arn
  source   = aws_dynamodb_table.tasks.stream_arn
  target   = aws_sqs_queue.work.arn

  source_parameters {
    dynamodb_stream_parameters {
      starting_position                  = "LATEST"
      batch_size                         = 1
      maximum_batching_window_in_seconds = 0
      maximum_record_age_in_seconds      = 3600
      maximum_retry_attempts             = 3
      on_partial_batch_item_failure      = "AUTOMATIC_BISECT"
      parallelization_factor             = 1

      dead_letter_config {
        arn = aws_sqs_queue.pipe_dlq.arn
      }
    }

    filter_criteria {
      filter {
        pattern = jsonencode({ dynamodb = { NewImage = { status = { S = ["Pending"] } } } })
      }
    }
  }
}

resource "aws_iam_role" "scraper" {
  name = "scraper"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "lambda.amazonaws.com" } }]
  })
}

resource "aws_lambda_function" "scraper" {
  function_name    = "scraper"
  role             = aws_iam_role.scraper.arn
  handler          = "bootstrap"
  runtime          = "provided.al2023"
  architectures    = ["arm64"]
  filename         = "scraper.zip"
  source_code_hash = "c2NyYXBlcg=="
  timeout          = 420
}

resource "aws_lambda_event_source_mapping" "scraper" {
  event_source_arn        = aws_sqs_queue.work.arn
  function_name           = aws_lambda_function.scraper.arn
  batch_size              = 1
  function_response_types = ["ReportBatchItemFailures"]

  scaling_config {
    maximum_concurrency = 140
  }
}

data "aws_region" "current" {}

data "aws_partition" "current" {}

output "region" {
  value = data.aws_region.current.region
}

output "partition" {
  value = data.aws_partition.current.partition
}
