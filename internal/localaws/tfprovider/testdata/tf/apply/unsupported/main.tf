# One resource per case, each using something the local cloud cannot do;
# var.case picks the one to apply.

variable "case" {
  type = string
}

resource "aws_sns_topic" "alarms" {
  count = var.case == "sns" ? 1 : 0
  name  = "alarms"
}

resource "aws_sqs_queue" "fifo" {
  count      = var.case == "fifo" ? 1 : 0
  name       = "work.fifo"
  fifo_queue = true
}

resource "aws_sqs_queue" "kms" {
  count             = var.case == "kms" ? 1 : 0
  name              = "work"
  kms_master_key_id = "alias/work"
}

resource "aws_lambda_function" "vpc" {
  count         = var.case == "vpc" ? 1 : 0
  function_name = "in-vpc"
  role          = "arn:aws:iam::000000000000:role/fn"
  runtime       = "provided.al2023"
  handler       = "bootstrap"
  filename      = "main.tf"

  vpc_config {
    subnet_ids         = ["subnet-1"]
    security_group_ids = ["sg-1"]
  }
}

resource "aws_lambda_function" "dlq" {
  count         = var.case == "function_dlq" ? 1 : 0
  function_name = "with-dlq"
  role          = "arn:aws:iam::000000000000:role/fn"
  runtime       = "provided.al2023"
  handler       = "bootstrap"
  filename      = "main.tf"

  dead_letter_config {
    target_arn = "arn:aws:sqs:us-east-1:000000000000:dlq"
  }
}

resource "aws_dynamodb_table" "global" {
  count        = var.case == "replica" ? 1 : 0
  name         = "global"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"

  attribute {
    name = "pk"
    type = "S"
  }

  replica {
    region_name = "eu-west-1"
  }
}
