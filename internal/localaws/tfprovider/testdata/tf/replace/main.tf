# Planned against terraform.tfstate, which records the pipe created with
# starting_position = "LATEST".

variable "starting_position" {
  type    = string
  default = "TRIM_HORIZON"
}

resource "aws_pipes_pipe" "tasks" {
  name     = "tasks"
  role_arn = "arn:aws:iam::000000000000:role/pipe"
  source   = "arn:aws:dynamodb:us-east-1:000000000000:table/tasks/stream/2024-01-01T00:00:00.000"
  target   = "arn:aws:sqs:us-east-1:000000000000:work"

  source_parameters {
    dynamodb_stream_parameters {
      starting_position                  = var.starting_position
      batch_size                         = 1
      maximum_batching_window_in_seconds = 0
      maximum_record_age_in_seconds      = 3600
      maximum_retry_attempts             = 3
      on_partial_batch_item_failure      = "AUTOMATIC_BISECT"
      parallelization_factor             = 1
    }
  }
}
