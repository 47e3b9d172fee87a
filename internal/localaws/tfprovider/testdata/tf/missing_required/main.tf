resource "aws_pipes_pipe" "tasks" {
  # role_arn is required.
  source = "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2024-01-01T00:00:00.000"
  target = "arn:aws:sqs:us-east-1:000000000000:work"
}
