# The work queue and its dead-letter queue. The redrive policy (queue → DLQ)
# and the redrive-allow policy (DLQ ← queue) are separate resources: set
# inline, each queue would reference the other and Terraform would report a
# cycle (docs/aws-behaviour.md §7.2).

resource "aws_sqs_queue" "this" {
  name                       = var.name
  visibility_timeout_seconds = var.visibility_timeout_seconds
  message_retention_seconds  = var.message_retention_seconds
  receive_wait_time_seconds  = var.receive_wait_time_seconds
  # SSE-SQS only: a customer KMS key would need grants for every producer
  # and consumer (the pipe: kms:GenerateDataKey and kms:Decrypt; the
  # scraper: kms:Decrypt, plus kms:GenerateDataKey for its DLQ forward; the
  # reconciler) and the key policy, which these modules do not own (issue 12
  # #4; sqs-key-management.html).
  sqs_managed_sse_enabled = true
  tags                    = var.tags

  lifecycle {
    # AWS: set the source queue's visibility timeout to at least six times
    # the function timeout, plus the batching window, so a message is not
    # redelivered while Lambda still retries a throttled batch
    # (lambda/latest/dg/services-sqs-configure.html; docs/aws-behaviour.md §4.10).
    precondition {
      condition     = var.visibility_timeout_seconds >= 6 * var.consumer_timeout_seconds + var.consumer_batching_window_seconds
      error_message = "visibility_timeout_seconds must be at least 6 x consumer_timeout_seconds + consumer_batching_window_seconds."
    }
  }
}

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name}-dlq"
  message_retention_seconds = var.dlq_message_retention_seconds
  sqs_managed_sse_enabled   = true
  tags                      = var.tags

  lifecycle {
    # A standard queue's message expiry counts from the original enqueue
    # time, also after it moved to the DLQ; a DLQ that keeps messages no
    # longer than its source can drop them on arrival (SQS developer guide,
    # sqs-dead-letter-queues.html).
    precondition {
      condition     = var.dlq_message_retention_seconds > var.message_retention_seconds
      error_message = "dlq_message_retention_seconds must be greater than message_retention_seconds."
    }
  }
}

resource "aws_sqs_queue_redrive_policy" "this" {
  queue_url = aws_sqs_queue.this.id
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = var.max_receive_count
  })
}

# Only the work queue may use the DLQ, and the console's "Start DLQ redrive"
# (StartMessageMoveTask) moves messages back to it.
resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url = aws_sqs_queue.dlq.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.this.arn]
  })
}
