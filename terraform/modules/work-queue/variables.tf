################################################################################
# Required
################################################################################

variable "name" {
  description = "Name of the work queue; the DLQ is named \"<name>-dlq\"."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,76}$", var.name))
    error_message = "The queue name must be 1-76 characters of A-Z, a-z, 0-9, '_' and '-' (the DLQ suffix takes 4 of SQS's 80)."
  }
}

variable "consumer_timeout_seconds" {
  description = "Timeout of the Lambda function that consumes the queue; the visibility timeout is checked against it."
  type        = number

  validation {
    condition     = var.consumer_timeout_seconds >= 1 && var.consumer_timeout_seconds <= 900
    error_message = "consumer_timeout_seconds must be between 1 and 900 (the Lambda maximum)."
  }
}

################################################################################
# Optional
################################################################################

variable "tags" {
  description = "Tags for both queues."
  type        = map(string)
  default     = {}
}

variable "consumer_batching_window_seconds" {
  description = "maximum_batching_window_in_seconds of the consuming event source mapping; added to the visibility timeout check."
  type        = number
  default     = 0

  validation {
    condition     = var.consumer_batching_window_seconds >= 0 && var.consumer_batching_window_seconds <= 300
    error_message = "consumer_batching_window_seconds must be between 0 and 300."
  }
}

variable "visibility_timeout_seconds" {
  description = "Visibility timeout of the work queue: how long a received message stays hidden. Must be at least 6 x consumer_timeout_seconds (+ batching window). Production: 90 minutes."
  type        = number
  nullable    = false
  default     = 5400

  validation {
    condition     = var.visibility_timeout_seconds >= 0 && var.visibility_timeout_seconds <= 43200
    error_message = "visibility_timeout_seconds must be between 0 and 43200 (12 hours)."
  }
}

variable "message_retention_seconds" {
  description = "How long the work queue keeps a message. Production: 4 days."
  type        = number
  nullable    = false
  default     = 345600

  validation {
    condition     = var.message_retention_seconds >= 60 && var.message_retention_seconds <= 1209600
    error_message = "message_retention_seconds must be between 60 and 1209600 (14 days)."
  }
}

variable "receive_wait_time_seconds" {
  description = "Long-polling wait of ReceiveMessage calls that do not set their own."
  type        = number
  default     = 20

  validation {
    condition     = var.receive_wait_time_seconds >= 0 && var.receive_wait_time_seconds <= 20
    error_message = "receive_wait_time_seconds must be between 0 and 20."
  }
}

variable "dlq_message_retention_seconds" {
  description = "How long the DLQ keeps a message; must exceed message_retention_seconds. Production: 14 days, the SQS maximum."
  type        = number
  nullable    = false
  default     = 1209600

  validation {
    condition     = var.dlq_message_retention_seconds >= 60 && var.dlq_message_retention_seconds <= 1209600
    error_message = "dlq_message_retention_seconds must be between 60 and 1209600 (14 days)."
  }
}

variable "max_receive_count" {
  description = "Receives after which SQS moves a message to the DLQ. Production: 3. AWS suggests at least 5 for Lambda consumers because throttled receives count too; batch size 1 and reserved concurrency keep throttling rare here."
  type        = number
  nullable    = false
  default     = 3

  validation {
    condition     = var.max_receive_count >= 1 && var.max_receive_count <= 1000 && floor(var.max_receive_count) == var.max_receive_count
    error_message = "max_receive_count must be a whole number between 1 and 1000."
  }
}
