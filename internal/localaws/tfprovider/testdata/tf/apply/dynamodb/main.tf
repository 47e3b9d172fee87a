# The task table as modules/task-table declares it.

variable "ttl" {
  type    = bool
  default = false
}

variable "pitr" {
  type    = bool
  default = true
}

resource "aws_dynamodb_table" "tasks" {
  name         = "tasks"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "taskId"

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  deletion_protection_enabled = false

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

  global_secondary_index {
    name            = "byRun"
    hash_key        = "runId"
    range_key       = "taskId"
    projection_type = "ALL"
  }

  global_secondary_index {
    name            = "live"
    hash_key        = "liveKey"
    range_key       = "dueAt"
    projection_type = "ALL"
  }

  point_in_time_recovery {
    enabled = var.pitr
  }

  server_side_encryption {
    enabled     = true
    kms_key_arn = null
  }

  ttl {
    enabled        = var.ttl
    attribute_name = var.ttl ? "expiresAt" : null
  }

  tags = { table = "tasks" }
}

# A bare table: no optional blocks at all.
resource "aws_dynamodb_table" "plain" {
  name           = "plain"
  hash_key       = "pk"
  read_capacity  = 1
  write_capacity = 1

  attribute {
    name = "pk"
    type = "S"
  }
}
