resource "aws_pipes_pipe" "tasks" {
  role_arn = "arn:aws:iam::000000000000:role/pipe"
  source   = "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2024-01-01T00:00:00.000"
  target   = "arn:aws:sqs:us-east-1:000000000000:work"

  source_parameters {
    # The block is dynamodb_stream_parameters.
    dynamodb_stream {
      starting_position = "LATEST"
    }
  }
}
