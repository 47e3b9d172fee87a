# Resources created outside Terraform, to be imported.

resource "aws_sqs_queue" "work" {
  name                       = "imported"
  visibility_timeout_seconds = 120
}

resource "aws_iam_role" "fn" {
  name = "imported-role"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy" "fn" {
  name   = "inline"
  role   = aws_iam_role.fn.id
  policy = jsonencode({ Version = "2012-10-17", Statement = [{ Effect = "Allow", Action = "sqs:SendMessage", Resource = "*" }] })
}

resource "aws_dynamodb_table" "t" {
  name         = "imported"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"

  attribute {
    name = "pk"
    type = "S"
  }
}
