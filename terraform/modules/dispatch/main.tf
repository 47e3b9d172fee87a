# EventBridge Pipe from a DynamoDB stream to an SQS queue, with an optional
# enrichment Lambda, its own dead-letter queue, CloudWatch logs and a role
# that can do exactly that.

# IAM is global to the account: the region in the role's name lets the same
# pipe name live in two regions (issue 12 #5). aws_region reads the
# provider's configuration and makes no API call.
data "aws_region" "current" {}

locals {
  # arn:<partition>:sqs:<region>:<account>:<name>. Read from the target
  # rather than from data sources, so planning needs no AWS API call.
  target_arn_parts = split(":", var.target_queue_arn)
  partition        = local.target_arn_parts[1]
  region           = local.target_arn_parts[3]
  account_id       = local.target_arn_parts[4]
  pipe_arn         = "arn:${local.partition}:pipes:${local.region}:${local.account_id}:pipe/${var.name}"

  # eb-pipes-permissions.html; docs/aws-behaviour.md §1.9.
  base_statements = [
    {
      Sid      = "ReadStream"
      Effect   = "Allow"
      Action   = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"]
      Resource = [var.source_stream_arn]
    },
    {
      # ListStreams supports no resource-level permissions: the Service
      # Authorization Reference lists no resource type for it, so a grant on
      # table/<name>/stream/* grants nothing
      # (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html).
      # Alone in its statement so "*" covers nothing else.
      Sid      = "ListStreams"
      Effect   = "Allow"
      Action   = ["dynamodb:ListStreams"]
      Resource = ["*"]
    },
    {
      Sid      = "SendToTarget"
      Effect   = "Allow"
      Action   = ["sqs:SendMessage"]
      Resource = [var.target_queue_arn]
    },
    {
      # Without it, failed batches cannot reach the DLQ and the pipe reports
      # "Error occurred while sending message to SQS queue" (docs/aws-behaviour.md §1.9).
      Sid      = "SendToDeadLetterQueue"
      Effect   = "Allow"
      Action   = ["sqs:SendMessage"]
      Resource = [aws_sqs_queue.dlq.arn]
    },
    {
      Sid      = "WriteLogs"
      Effect   = "Allow"
      Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
      Resource = ["${aws_cloudwatch_log_group.this.arn}:log-stream:*"]
    },
  ]

  enrichment_statements = var.enable_enrichment ? [{
    Sid      = "InvokeEnrichment"
    Effect   = "Allow"
    Action   = ["lambda:InvokeFunction"]
    Resource = [var.enrichment_function_arn]
  }] : []
}

# Receives a pointer (shard id and sequence range) to every batch the pipe
# gave up on, not the records themselves (docs/aws-behaviour.md §1.6); the reconciler
# recovers the tasks from the table.
resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = var.dlq_message_retention_seconds
  sqs_managed_sse_enabled   = true
  tags                      = var.tags
}

# tfsec:ignore:aws-cloudwatch-log-group-customer-key -- CloudWatch Logs encrypts every log group at rest by default. A customer key would need a key policy for the logs service principal, which this module does not own; the pipe logs hold at most record payloads that the table already stores.
resource "aws_cloudwatch_log_group" "this" {
  # The vendedlogs prefix keeps the log group's resource policy small when
  # AWS services deliver logs to many groups.
  name              = "/aws/vendedlogs/pipes/${var.name}"
  retention_in_days = var.log_retention_in_days
  tags              = var.tags
}

resource "aws_iam_role" "this" {
  name        = "${var.name}-${data.aws_region.current.region}"
  description = "Execution role of the ${var.name} EventBridge pipe in ${data.aws_region.current.region}."
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "pipes.amazonaws.com" }
      Action    = "sts:AssumeRole"
      # Confused-deputy guard: only this account's pipe of this name.
      Condition = {
        StringEquals = { "aws:SourceAccount" = local.account_id }
        ArnEquals    = { "aws:SourceArn" = local.pipe_arn }
      }
    }]
  })
  tags = var.tags
}

resource "aws_iam_role_policy" "this" {
  name = var.name
  role = aws_iam_role.this.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = concat(local.base_statements, local.enrichment_statements)
  })
}

# CreatePipe answers "Cannot access stream ... ensure the customer role can
# perform actions on source stream" until a new stream and a new role policy
# have propagated, which depends_on alone does not wait for; a wait of about
# 90-120 s does (provider issue #40572, aws-cdk issue #31211). The triggers
# wait again when the stream or the policy is replaced.
resource "time_sleep" "propagation" {
  count = var.create_delay_seconds > 0 ? 1 : 0

  create_duration = "${var.create_delay_seconds}s"
  triggers = {
    stream = var.source_stream_arn
    policy = aws_iam_role_policy.this.policy
  }
}

resource "aws_pipes_pipe" "this" {
  name          = var.name
  description   = var.description
  role_arn      = aws_iam_role.this.arn
  source        = var.source_stream_arn
  target        = var.target_queue_arn
  desired_state = var.desired_state
  enrichment    = var.enable_enrichment ? var.enrichment_function_arn : null

  source_parameters {
    filter_criteria {
      dynamic "filter" {
        for_each = var.filter_patterns
        content {
          pattern = filter.value
        }
      }
    }

    # Every field is set, even where it equals the AWS default: on update the
    # provider sends all of them, and unset ones go out as 0 or empty and are
    # rejected or silently change behaviour (provider issue #41573;
    # docs/aws-behaviour.md §7.1 "Provider quirks").
    dynamodb_stream_parameters {
      starting_position                  = var.starting_position
      batch_size                         = var.batch_size
      maximum_batching_window_in_seconds = var.maximum_batching_window_in_seconds
      maximum_record_age_in_seconds      = var.maximum_record_age_in_seconds
      maximum_retry_attempts             = var.maximum_retry_attempts
      # Halve a failing batch until the poison record is alone, so one bad
      # record does not hold back the rest of the shard.
      on_partial_batch_item_failure = "AUTOMATIC_BISECT"
      parallelization_factor        = var.parallelization_factor

      dead_letter_config {
        arn = aws_sqs_queue.dlq.arn
      }
    }
  }

  dynamic "target_parameters" {
    for_each = var.target_input_template == null ? [] : [var.target_input_template]
    content {
      input_template = target_parameters.value
    }
  }

  log_configuration {
    level = var.log_level
    # Set explicitly in both cases: left unset it shows a perpetual diff in
    # some provider versions (docs/aws-behaviour.md §7.1, pulumi-aws #4412).
    include_execution_data = var.enable_log_execution_data ? ["ALL"] : []

    cloudwatch_logs_log_destination {
      log_group_arn = aws_cloudwatch_log_group.this.arn
    }
  }

  tags = var.tags

  lifecycle {
    precondition {
      condition     = !var.enable_enrichment || var.enrichment_function_arn != null
      error_message = "enrichment_function_arn is required when enable_enrichment is true."
    }
  }

  # The policy must exist, and have propagated (time_sleep above), before
  # CreatePipe.
  depends_on = [aws_iam_role_policy.this, time_sleep.propagation]
}
