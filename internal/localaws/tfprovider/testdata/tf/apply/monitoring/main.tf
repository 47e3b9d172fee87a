# A log group, two alarms and a dashboard, as modules/pipeline and
# modules/go-lambda declare them.

variable "retention" {
  type    = number
  default = 1
}

variable "threshold" {
  type    = number
  default = 1
}

resource "aws_cloudwatch_log_group" "fn" {
  name              = "/aws/lambda/work-scraper"
  retention_in_days = var.retention
  tags              = { fn = "scraper" }
}

resource "aws_cloudwatch_metric_alarm" "dlq" {
  alarm_name          = "work-dlq-not-empty"
  alarm_description   = "A work message failed 3 deliveries."
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = "work-dlq" }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 1
  datapoints_to_alarm = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = var.threshold
  treat_missing_data  = "notBreaching"
  alarm_actions       = []
  ok_actions          = []
  tags                = { purpose = "dlq" }
}

resource "aws_cloudwatch_metric_alarm" "age" {
  alarm_name          = "oldest-live-task-age"
  namespace           = "taskpipe"
  metric_name         = "OldestLiveTaskAge"
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 21600.5
}

resource "aws_cloudwatch_dashboard" "main" {
  dashboard_name = "work"
  dashboard_body = jsonencode({
    widgets = [{
      type = "metric", x = 0, y = 0, width = 12, height = 6
      properties = {
        title   = "Work queue"
        region  = "us-east-1"
        stat    = "Maximum"
        period  = 60
        metrics = [["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", "work", { label = "waiting" }]]
      }
    }]
  })
}
