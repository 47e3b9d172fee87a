module "queue" {
  source = "../queue"
  name   = var.name
}

resource "aws_sqs_queue" "this" {
  name = var.name
}

data "aws_iam_policy_document" "this" {}

resource "aws_iam_role" "this" {
  name = var.name
}
