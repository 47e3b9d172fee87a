################################################################################
# Required
################################################################################

variable "name" {
  description = "Function name; also names the log group (/aws/lambda/<name>) and the role (<name>-<region>: IAM names are account-wide, so the region keeps two regions apart)."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,49}$", var.name))
    error_message = "The function name must be 1-49 characters of A-Z, a-z, 0-9, '_' and '-' (the role's region suffix takes up to 15 of IAM's 64)."
  }
}

variable "zip_path" {
  description = "Path of the deployment zip with the bootstrap binary at its root (make build writes dist/<function>-<arm64|amd64>.zip)."
  type        = string

  validation {
    condition     = can(regex("\\.zip$", var.zip_path))
    error_message = "zip_path must name a .zip file."
  }
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
  description = "Description of the function."
  type        = string
  default     = ""
}

variable "architecture" {
  description = "Instruction set of the function; must match the zip (arm64 for *-arm64.zip, x86_64 for *-amd64.zip)."
  type        = string
  default     = "arm64"

  validation {
    condition     = contains(["arm64", "x86_64"], var.architecture)
    error_message = "architecture must be arm64 or x86_64."
  }
}

variable "memory_size" {
  description = "Memory of the function in MB (CPU scales with it)."
  type        = number
  nullable    = false
  default     = 128

  validation {
    condition     = var.memory_size >= 128 && var.memory_size <= 10240
    error_message = "memory_size must be between 128 and 10240 MB."
  }
}

variable "timeout_seconds" {
  description = "Timeout of one invocation in seconds."
  type        = number
  nullable    = false
  default     = 30

  validation {
    condition     = var.timeout_seconds >= 1 && var.timeout_seconds <= 900
    error_message = "timeout_seconds must be between 1 and 900 seconds."
  }
}

variable "reserved_concurrent_executions" {
  description = "Concurrency reserved for (and capping) the function; -1 leaves it unreserved, 0 throttles every invocation."
  type        = number
  default     = -1

  validation {
    condition     = var.reserved_concurrent_executions >= -1 && floor(var.reserved_concurrent_executions) == var.reserved_concurrent_executions
    error_message = "reserved_concurrent_executions must be a whole number, -1 or more."
  }
}

variable "environment" {
  description = "Environment variables of the function."
  type        = map(string)
  default     = {}
}

variable "log_retention_in_days" {
  description = "Retention of the function's log group."
  type        = number
  nullable    = false
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_in_days)
    error_message = "log_retention_in_days must be one of the values CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, ... 3653)."
  }
}

variable "log_format" {
  description = "Log format of the function: Text, or JSON for Lambda's structured system logs."
  type        = string
  nullable    = false
  default     = "Text"

  validation {
    condition     = contains(["Text", "JSON"], var.log_format)
    error_message = "log_format must be Text or JSON."
  }
}

variable "policy_statements" {
  description = "Extra Allow statements of the function's inline policy, one per purpose. Actions are exact API actions: wildcards are rejected."
  type = list(object({
    sid       = string
    actions   = list(string)
    resources = list(string)
  }))
  default = []

  validation {
    condition     = alltrue([for s in var.policy_statements : alltrue([for a in s.actions : length(regexall("\\*", a)) == 0])])
    error_message = "policy_statements must not use '*' in actions."
  }

  validation {
    condition     = alltrue([for s in var.policy_statements : can(regex("^[A-Za-z0-9]+$", s.sid)) && length(s.actions) > 0 && length(s.resources) > 0])
    error_message = "Each statement needs an alphanumeric sid, at least one action and at least one resource."
  }

  # IAM requires unique Sids within a policy; WriteLogs and ConsumeQueue are
  # this module's own statements
  # (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_sid.html).
  validation {
    condition     = length(distinct([for s in var.policy_statements : s.sid])) == length(var.policy_statements) && length(setintersection([for s in var.policy_statements : s.sid], ["WriteLogs", "ConsumeQueue"])) == 0
    error_message = "policy_statements sids must be unique and must not be WriteLogs or ConsumeQueue (the module's own statements)."
  }
}

variable "enable_async_invoke_config" {
  description = "Manage the function's asynchronous invocation settings (retries, event age)."
  type        = bool
  default     = false
}

variable "async_maximum_retry_attempts" {
  description = "Retries of a failed asynchronous invocation when enable_async_invoke_config is true."
  type        = number
  default     = 0

  validation {
    condition     = var.async_maximum_retry_attempts >= 0 && var.async_maximum_retry_attempts <= 2
    error_message = "async_maximum_retry_attempts must be between 0 and 2."
  }
}

variable "async_maximum_event_age_in_seconds" {
  description = "Age after which a queued asynchronous invocation is dropped, when enable_async_invoke_config is true."
  type        = number
  default     = 21600

  validation {
    condition     = var.async_maximum_event_age_in_seconds >= 60 && var.async_maximum_event_age_in_seconds <= 21600
    error_message = "async_maximum_event_age_in_seconds must be between 60 and 21600."
  }
}

variable "enable_sqs_event_source" {
  description = "Consume sqs_queue_arn through an event source mapping with ReportBatchItemFailures."
  type        = bool
  default     = false
}

variable "sqs_queue_arn" {
  description = "ARN of the queue to consume when enable_sqs_event_source is true."
  type        = string
  default     = null
}

variable "sqs_batch_size" {
  description = "Messages per invocation."
  type        = number
  default     = 1

  validation {
    condition     = var.sqs_batch_size >= 1 && var.sqs_batch_size <= 10000
    error_message = "sqs_batch_size must be between 1 and 10000."
  }
}

variable "sqs_maximum_batching_window_in_seconds" {
  description = "How long the mapping may wait to fill a batch; 0 invokes as soon as a message arrives."
  type        = number
  default     = 0

  validation {
    condition     = var.sqs_maximum_batching_window_in_seconds >= 0 && var.sqs_maximum_batching_window_in_seconds <= 300
    error_message = "sqs_maximum_batching_window_in_seconds must be between 0 and 300."
  }
}

variable "sqs_maximum_concurrency" {
  description = "Most concurrent invocations the mapping starts (scaling_config.maximum_concurrency); null leaves it unbounded. Must not exceed reserved_concurrent_executions."
  type        = number
  default     = null

  validation {
    condition     = var.sqs_maximum_concurrency == null || (coalesce(var.sqs_maximum_concurrency, 0) >= 2 && coalesce(var.sqs_maximum_concurrency, 0) <= 1000)
    error_message = "sqs_maximum_concurrency must be null or between 2 and 1000 (API_ScalingConfig)."
  }
}
