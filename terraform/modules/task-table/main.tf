# The task table is the pipeline's source of truth. Its key layout must match
# internal/dynamostore (the Go store) exactly: the store names the attributes
# and indexes, this module only declares them.

locals {
  live_index_name = "live"
  done_index_name = "done"
}

# tfsec:ignore:aws-dynamodb-table-customer-key -- Encrypted at rest with the AWS managed key (aws/dynamodb); a customer key needs grants for the pipe and both functions that these modules deliberately do not manage (README, "Encryption").
resource "aws_dynamodb_table" "this" {
  name         = var.name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "taskId"

  # The pipe filter compares the old and the new status of a row ("becomes
  # Pending"), so the stream must carry both images. Changing the view type
  # creates a new stream ARN and forces the pipe to be replaced.
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  deletion_protection_enabled = var.enable_deletion_protection

  attribute {
    name = "taskId"
    type = "S"
  }

  attribute {
    name = "liveKey"
    type = "S"
  }

  attribute {
    name = "liveSince"
    type = "N"
  }

  attribute {
    name = "doneRun"
    type = "S"
  }

  # DynamoDB writes an index entry only when its key or a projected
  # attribute changes (GSI.html#GSI.ThroughputConsiderations.Writes), so the
  # projections decide the index writes per task: the live entry is put at
  # creation and deleted at the terminal write, the done entry is put at the
  # terminal write, and a claim or a release writes no index at all.
  # key_schema blocks: hash_key and range_key are deprecated in 6.x
  # (https://github.com/hashicorp/terraform-provider-aws/blob/v6.47.0/website/docs/r/dynamodb_table.html.markdown).

  # Sparse index of live (non-terminal) tasks for the reconciler, sharded on
  # liveKey ("live#NN") and sorted by the time a task became live; the store
  # removes both when a task becomes terminal, so the index size follows the
  # live work. It projects runId (never changed) and leaves out the status
  # and the lease, which every claim changes: the reconciler reads the rows
  # of the few entries older than its grace.
  global_secondary_index {
    name               = local.live_index_name
    projection_type    = "INCLUDE"
    non_key_attributes = ["runId"]

    key_schema {
      attribute_name = "liveKey"
      key_type       = "HASH"
    }
    key_schema {
      attribute_name = "liveSince"
      key_type       = "RANGE"
    }
  }

  # Sparse index of terminal tasks per run, for progress counts and the
  # results export without a Scan: doneRun is set by the terminal write,
  # which is also the last write of the row, so projecting ALL costs one
  # index write per task.
  global_secondary_index {
    name            = local.done_index_name
    projection_type = "ALL"

    key_schema {
      attribute_name = "doneRun"
      key_type       = "HASH"
    }
    key_schema {
      attribute_name = "taskId"
      key_type       = "RANGE"
    }
  }

  point_in_time_recovery {
    enabled = var.enable_point_in_time_recovery
  }

  # The AWS managed key (aws/dynamodb), which the pipe and the Lambdas use
  # without KMS permissions. A customer key would need kms:Decrypt for the
  # pipe's stream reads and kms:Decrypt + kms:GenerateDataKey for both
  # functions, and a key policy these modules do not own (issue 12 #4).
  server_side_encryption {
    enabled = true
  }

  ttl {
    enabled        = var.enable_ttl
    attribute_name = var.enable_ttl ? var.ttl_attribute_name : null
  }

  tags = var.tags
}
