################################################################################
# Required
################################################################################

variable "name" {
  description = "Name of the pipe; also names its DLQ (<name>-dlq), log group and role (<name>-<region>: IAM names are account-wide, so the region keeps two regions apart)."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,49}$", var.name))
    error_message = "The pipe name must be 1-49 characters of A-Z, a-z, 0-9, '_' and '-' (the role's region suffix takes up to 15 of IAM's 64)."
  }
}

variable "source_stream_arn" {
  description = "ARN of the DynamoDB stream to read (NEW_AND_OLD_IMAGES for the default filters). Changing it replaces the pipe."
  type        = string
}

variable "target_queue_arn" {
  description = "ARN of the SQS queue that receives one message per matching record."
  type        = string
}

################################################################################
# Optional
################################################################################

variable "tags" {
  description = "Tags for every resource of the module."
  type        = map(string)
  default     = {}
}

variable "description" {
  description = "Description of the pipe."
  type        = string
  default     = "Dispatches tasks that become Pending from the task table's stream to the work queue."
}

variable "create_delay_seconds" {
  description = "Seconds to wait after the role policy (and a new source stream) exist before creating the pipe: CreatePipe fails with \"Cannot access stream\" until both have propagated (provider issue #40572). 0 skips the wait (the local cloud)."
  type        = number
  nullable    = false
  default     = 90

  validation {
    condition     = var.create_delay_seconds >= 0 && var.create_delay_seconds <= 600 && floor(var.create_delay_seconds) == var.create_delay_seconds
    error_message = "create_delay_seconds must be a whole number from 0 to 600."
  }
}

variable "desired_state" {
  description = "RUNNING, or STOPPED to pause dispatching. A stopped pipe leaves the records in the stream, but once it runs again every record older than maximum_record_age_in_seconds goes to the pipe DLQ (as a batch pointer) instead of the target, and the reconciler re-dispatches those tasks from the table; the stream itself drops records after 24 hours."
  type        = string
  default     = "RUNNING"

  validation {
    condition     = contains(["RUNNING", "STOPPED"], var.desired_state)
    error_message = "desired_state must be RUNNING or STOPPED."
  }
}

variable "filter_patterns" {
  description = "Event patterns (JSON strings, OR'ed, at most 5) a stream record must match to be sent. The default matches records whose new image has status Pending and whose old image has no status (INSERT) or another status (MODIFY); written in the EventBridge event-pattern syntax (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-event-filtering.html). Editing them updates the pipe in place without a code deploy."
  type        = list(string)
  nullable    = false
  default = [
    "{\"dynamodb\":{\"NewImage\":{\"status\":{\"S\":[\"Pending\"]}},\"OldImage\":{\"status\":{\"S\":[{\"exists\":false}]}}}}",
    "{\"dynamodb\":{\"NewImage\":{\"status\":{\"S\":[\"Pending\"]}},\"OldImage\":{\"status\":{\"S\":[{\"anything-but\":[\"Pending\"]}]}}}}",
  ]

  validation {
    condition     = length(var.filter_patterns) >= 1 && length(var.filter_patterns) <= 5
    error_message = "filter_patterns must hold 1 to 5 patterns (the Pipes limit)."
  }

  validation {
    condition     = alltrue([for p in var.filter_patterns : can(keys(jsondecode(p))) && length(p) <= 4096])
    error_message = "Each filter pattern must be a JSON object of at most 4096 characters."
  }
}

variable "starting_position" {
  description = "Where a new pipe starts reading: TRIM_HORIZON (the oldest record still in the stream, so nothing written between table and pipe creation is missed; duplicates are harmless) or LATEST. Changing it replaces the pipe."
  type        = string
  nullable    = false
  default     = "TRIM_HORIZON"

  validation {
    condition     = contains(["TRIM_HORIZON", "LATEST"], var.starting_position)
    error_message = "starting_position must be TRIM_HORIZON or LATEST."
  }
}

variable "batch_size" {
  description = "Records per batch; an SQS target takes at most 10."
  type        = number
  nullable    = false
  default     = 10

  validation {
    condition     = var.batch_size >= 1 && var.batch_size <= 10
    error_message = "batch_size must be between 1 and 10 for an SQS target."
  }
}

variable "maximum_batching_window_in_seconds" {
  description = "How long the pipe may wait to fill a batch; 0 sends as soon as records arrive."
  type        = number
  nullable    = false
  default     = 0

  validation {
    condition     = var.maximum_batching_window_in_seconds >= 0 && var.maximum_batching_window_in_seconds <= 300
    error_message = "maximum_batching_window_in_seconds must be between 0 and 300."
  }
}

variable "maximum_record_age_in_seconds" {
  description = "Records older than this go to the DLQ instead of being retried. Finite and below the stream's 24-hour retention, so a poison record cannot block its shard until it expires."
  type        = number
  nullable    = false
  default     = 3600

  validation {
    # -1 (forever) is deliberately refused; 0-59 are refused by the service.
    condition     = var.maximum_record_age_in_seconds >= 60 && var.maximum_record_age_in_seconds < 86400
    error_message = "maximum_record_age_in_seconds must be at least 60 and below 86400 (the stream retention); -1 (forever) is not allowed."
  }
}

variable "maximum_retry_attempts" {
  description = "Retries of a failing batch (after bisecting) before it goes to the DLQ. Finite on purpose; 0 is refused because the provider does not send 0 on create, which leaves the AWS default of -1 (retry forever)."
  type        = number
  nullable    = false
  default     = 3

  validation {
    condition     = var.maximum_retry_attempts >= 1 && var.maximum_retry_attempts <= 10000 && floor(var.maximum_retry_attempts) == var.maximum_retry_attempts
    error_message = "maximum_retry_attempts must be a whole number between 1 and 10000; -1 (forever) and 0 (sent as the default -1) are not allowed."
  }
}

variable "parallelization_factor" {
  description = "Concurrent batches per shard. Record order per key holds at any value, so 1 is only a starting point."
  type        = number
  nullable    = false
  default     = 1

  validation {
    condition     = var.parallelization_factor >= 1 && var.parallelization_factor <= 10
    error_message = "parallelization_factor must be between 1 and 10."
  }
}

variable "dlq_message_retention_seconds" {
  description = "How long the pipe DLQ keeps batch pointers. The stream keeps the records only 24 hours; the pointers stay useful as an audit trail."
  type        = number
  nullable    = false
  default     = 1209600

  validation {
    condition     = var.dlq_message_retention_seconds >= 60 && var.dlq_message_retention_seconds <= 1209600
    error_message = "dlq_message_retention_seconds must be between 60 and 1209600 (14 days)."
  }
}

variable "enable_enrichment" {
  description = "Pass each batch through enrichment_function_arn before it reaches the queue."
  type        = bool
  default     = false
}

variable "enrichment_function_arn" {
  description = "ARN of the enrichment Lambda function, required when enable_enrichment is true. Pipes invokes it synchronously with the batch as a JSON array."
  type        = string
  default     = null
}

variable "target_input_template" {
  description = "Input template that shapes each SQS message body; null sends the stream record (or the enrichment's item) as it is."
  type        = string
  default     = null

  validation {
    condition     = var.target_input_template == null || length(coalesce(var.target_input_template, " ")) <= 8192
    error_message = "target_input_template must be at most 8192 characters."
  }
}

variable "log_level" {
  description = "Pipe log level: OFF, ERROR, INFO or TRACE."
  type        = string
  nullable    = false
  default     = "ERROR"

  validation {
    condition     = contains(["OFF", "ERROR", "INFO", "TRACE"], var.log_level)
    error_message = "log_level must be OFF, ERROR, INFO or TRACE."
  }
}

variable "enable_log_execution_data" {
  description = "Include event payloads in the pipe's logs (may log task URLs)."
  type        = bool
  nullable    = false
  default     = false
}

variable "log_retention_in_days" {
  description = "Retention of the pipe's log group."
  type        = number
  nullable    = false
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_in_days)
    error_message = "log_retention_in_days must be one of the values CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, ... 3653)."
  }
}
