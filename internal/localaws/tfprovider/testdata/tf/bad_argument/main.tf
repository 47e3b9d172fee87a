resource "aws_sqs_queue" "work" {
  name               = "work"
  visibility_timeout = 30 # the argument is visibility_timeout_seconds
}
