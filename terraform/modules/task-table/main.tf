# The task table is the pipeline's source of truth. Its key layout must match
# internal/dynamostore (the Go store) exactly: the store names the attributes
# and indexes, this module only declares them.

locals {
  by_run_index_name = "byRun"
  live_index_name   = "live"
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
    name = "runId"
    type = "S"
  }

  attribute {
    name = "liveKey"
    type = "S"
  }

  attribute {
    name = "dueAt"
    type = "N"
  }

  # Progress counts and result export per run, without a Scan.
  # key_schema blocks: hash_key and range_key are deprecated in 6.x
  # (https://github.com/hashicorp/terraform-provider-aws/blob/v6.47.0/website/docs/r/dynamodb_table.html.markdown).
  global_secondary_index {
    name            = local.by_run_index_name
    projection_type = "ALL"

    key_schema {
      attribute_name = "runId"
      key_type       = "HASH"
    }
    key_schema {
      attribute_name = "taskId"
      key_type       = "RANGE"
    }
  }

  # Sparse index of live (non-terminal) tasks for the reconciler: the store
  # removes liveKey when a task becomes terminal, so the index size follows
  # the live work, not the table's history.
  global_secondary_index {
    name            = local.live_index_name
    projection_type = "ALL"

    key_schema {
      attribute_name = "liveKey"
      key_type       = "HASH"
    }
    key_schema {
      attribute_name = "dueAt"
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
