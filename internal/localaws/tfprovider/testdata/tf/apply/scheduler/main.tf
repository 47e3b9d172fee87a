# The reconciler's schedule, as modules/pipeline declares it (the target
# function need not exist: the scheduler only invokes it when due).

variable "expression" {
  type    = string
  default = "rate(5 minutes)"
}

resource "aws_iam_role" "scheduler" {
  name = "reconciler-schedule"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "scheduler.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_scheduler_schedule" "reconciler" {
  name                = "reconciler"
  description         = "Runs the reconciler."
  schedule_expression = var.expression
  state               = "ENABLED"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = "arn:aws:lambda:us-east-1:000000000000:function:reconciler"
    role_arn = aws_iam_role.scheduler.arn
    input    = jsonencode({})

    retry_policy {
      maximum_event_age_in_seconds = 300
      maximum_retry_attempts       = 2
    }
  }
}

# Defaults everywhere: no retry policy, default group.
resource "aws_scheduler_schedule" "plain" {
  name                = "plain"
  schedule_expression = "cron(0 3 * * ? *)"

  flexible_time_window {
    mode                      = "FLEXIBLE"
    maximum_window_in_minutes = 15
  }

  target {
    arn      = "arn:aws:lambda:us-east-1:000000000000:function:reconciler"
    role_arn = aws_iam_role.scheduler.arn
  }
}
