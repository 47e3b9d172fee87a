# The module shape defect 4 of issue 12 describes: SQS-managed SSE turned
# off because a customer key is given. The real provider declares
# kms_master_key_id ConflictsWith sqs_managed_sse_enabled, and an explicit
# false is set, so the plan fails. The values come from variables, which
# `terraform validate` does not know: only the plan catches it.
variable "kms_key_id" {
  type    = string
  default = "alias/taskpipe"
}

resource "aws_sqs_queue" "work" {
  name                    = "work"
  kms_master_key_id       = var.kms_key_id
  sqs_managed_sse_enabled = var.kms_key_id == null
}
