################################################################################
# Required
################################################################################

variable "name" {
  description = "Name of the deployment; prefixes every resource (<name>-tasks, <name>-work, <name>-scraper, ...)."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9-]{0,31}$", var.name))
    error_message = "name must be 1-32 characters of A-Z, a-z, 0-9 and '-', starting with a letter or digit."
  }
}

variable "dist_dir" {
  description = "Directory with the Lambda zips that make build writes: <function>-arm64.zip and <function>-amd64.zip for scraper, reconciler and enrich."
  type        = string
}

################################################################################
# Optional: everything
################################################################################

variable "tags" {
  description = "Tags for every resource."
  type        = map(string)
  default     = {}
}

variable "architecture" {
  description = "Lambda instruction set: arm64 (uses the *-arm64.zip files) or x86_64 (the *-amd64.zip files)."
  type        = string
  default     = "arm64"

  validation {
    condition     = contains(["arm64", "x86_64"], var.architecture)
    error_message = "architecture must be arm64 or x86_64."
  }
}

variable "log_retention_in_days" {
  description = "Retention of every log group (functions and pipe); null keeps the go-lambda and dispatch modules' default."
  type        = number
  default     = null
}

################################################################################
# Optional: task table
################################################################################

variable "enable_table_deletion_protection" {
  description = "Refuse DeleteTable on the task table. Turn it on in production. null keeps the task-table module's default."
  type        = bool
  default     = null
}

variable "enable_point_in_time_recovery" {
  description = "Keep continuous backups of the task table; null keeps the task-table module's default."
  type        = bool
  default     = null
}

variable "enable_ttl" {
  description = "Let DynamoDB delete task rows after their expiresAt time (epoch seconds), if the writer sets one; null keeps the task-table module's default."
  type        = bool
  default     = null
}

################################################################################
# Optional: work queue
################################################################################

variable "visibility_timeout_seconds" {
  description = "Visibility timeout of the work queue: a failed or released task comes back after it. At least 6 x scraper_timeout_seconds. null keeps the work-queue module's default."
  type        = number
  default     = null
}

variable "message_retention_seconds" {
  description = "How long the work queue keeps a message; null keeps the work-queue module's default."
  type        = number
  default     = null
}

variable "work_dlq_message_retention_seconds" {
  description = "How long the work DLQ keeps a message; must exceed message_retention_seconds. null keeps the work-queue module's default."
  type        = number
  default     = null
}

variable "max_receive_count" {
  description = "Deliveries of a work message before SQS moves it to the work DLQ; null keeps the work-queue module's default."
  type        = number
  default     = null
}

################################################################################
# Optional: pipe
################################################################################

variable "pipe_create_delay_seconds" {
  description = "Wait between the stream and the pipe's role policy and CreatePipe, for IAM and the new stream to propagate (the first apply otherwise ends with the pipe CREATE_FAILED, \"Cannot access stream\"). null keeps the dispatch module's default, sized for AWS; 0 on the local cloud."
  type        = number
  default     = null
}

variable "pipe_filter_patterns" {
  description = "Event patterns (JSON strings) that select the stream records to dispatch; null keeps the dispatch module's default, \"status becomes Pending\"."
  type        = list(string)
  default     = null
}

variable "pipe_starting_position" {
  description = "Where a new pipe starts reading the stream: TRIM_HORIZON or LATEST. Changing it replaces the pipe. null keeps the dispatch module's default."
  type        = string
  default     = null
}

variable "pipe_batch_size" {
  description = "Stream records per pipe batch (at most 10 for an SQS target); null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_maximum_batching_window_in_seconds" {
  description = "How long the pipe may wait to fill a batch; null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_maximum_record_age_in_seconds" {
  description = "Stream records older than this go to the pipe DLQ instead of being retried; finite and below the stream's 24 hours. null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_maximum_retry_attempts" {
  description = "Retries of a failing pipe batch before it goes to the pipe DLQ; finite (1-10000). null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_parallelization_factor" {
  description = "Concurrent pipe batches per stream shard; null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_dlq_message_retention_seconds" {
  description = "How long the pipe DLQ keeps batch pointers; null keeps the dispatch module's default."
  type        = number
  default     = null
}

variable "pipe_log_level" {
  description = "Pipe log level: OFF, ERROR, INFO or TRACE; null keeps the dispatch module's default."
  type        = string
  default     = null
}

variable "enable_pipe_log_execution_data" {
  description = "Include event payloads (task URLs) in the pipe's logs; null keeps the dispatch module's default."
  type        = bool
  default     = null
}

variable "enable_enrichment" {
  description = "Run the enrich function in the pipe, so work messages are compact task references instead of raw stream records."
  type        = bool
  default     = false
}

variable "target_input_template" {
  description = "Pipe input template for each work message; null sends the stream record (or the enrichment's item) unchanged."
  type        = string
  default     = null
}

################################################################################
# Optional: functions
################################################################################

variable "lambda_log_format" {
  description = "Log format of the functions: Text or JSON; null keeps the go-lambda module's default."
  type        = string
  default     = null
}

variable "lambda_log_level" {
  description = "Log level of the functions (LOG_LEVEL): debug, info, warn or error."
  type        = string
  default     = "info"

  validation {
    condition     = contains(["debug", "info", "warn", "error"], var.lambda_log_level)
    error_message = "lambda_log_level must be debug, info, warn or error."
  }
}

variable "lambda_environment" {
  description = "Extra environment variables for every function; the pipeline's own variables (TABLE_NAME, ...) win on conflict. They appear in plans, in the state and to anyone who may read the function's configuration: no secrets (keep those in Secrets Manager or SSM Parameter Store and pass their names). Keys that look like secrets are refused; a key ending in _NAME, _ARN, _ID or _PATH (a secret's reference) is not."
  type        = map(string)
  default     = {}

  # Not sensitive: that would hide every function's whole environment, the
  # pipeline's own settings included, from plan diffs. A validation rather
  # than a check block, which tfsec v1.26 cannot parse (issue 15 #13).
  validation {
    condition     = length([for k in keys(var.lambda_environment) : k if can(regex("(?i)(secret|passw|token|api_?key|private_?key|credential)", k)) && !can(regex("(?i)_(name|arn|id|path)$", k))]) == 0
    error_message = "lambda_environment has keys that look like secrets: their values would appear in plans, the state and the function's configuration. Store secrets in Secrets Manager or SSM Parameter Store and pass their names (e.g. DB_PASSWORD_SECRET_ARN)."
  }
}

variable "scraper_timeout_seconds" {
  description = "Scraper timeout in seconds (one task, up to 3 fetches); also the work queue's consumer timeout and the base of lease_seconds. Production: 420."
  type        = number
  default     = 420
}

variable "scraper_memory_size" {
  description = "Scraper memory in MB (GOMEMLIMIT is set to 80% of it). The production Node.js scraper used 1,536 MB; the Go one streams pages with capped sizes and bounds its main-content extractor's input, and peaks below 160 MB (docs/extraction.md)."
  type        = number
  default     = 256
}

variable "scraper_user_agent" {
  description = "User-Agent of every scraper request (SCRAPER_USER_AGENT): a product token with its version and a contact URL, so site owners can tell who crawls them and how to reach you. robots.txt groups are matched against its product token."
  type        = string
  default     = "taskpipe-scraper/1.0 (+https://github.com/taskpipe/taskpipe)"

  validation {
    condition     = var.scraper_user_agent != "" && can(regex("^[A-Za-z0-9._-]+/[A-Za-z0-9._+-]+ .*https?://", var.scraper_user_agent))
    error_message = "scraper_user_agent must be a product token with a version and a contact URL, e.g. \"acme-bot/1.0 (+https://acme.example/bot)\"."
  }
}

variable "scraper_optout_domains" {
  description = "Registrable domains the scraper never fetches (SCRAPER_OPTOUT_DOMAINS): their tasks fail with errorKind optout before any request. It travels in the function's environment, which Lambda caps at 4 KB in all (lambda/latest/dg/configuration-envvars.html), hence at most 2,048 characters; `taskpipe optout add` changes the live function (and prints the list to put here), and this list must then follow or the next apply reverts it."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for d in var.scraper_optout_domains : can(regex("^[a-z0-9]([a-z0-9.-]*[a-z0-9])?\\.[a-z0-9-]+$", d))]) && length(join(",", var.scraper_optout_domains)) <= 2048
    error_message = "scraper_optout_domains must be lowercase domain names (example.com), at most 2,048 characters together."
  }
}

variable "scraper_max_pages" {
  description = "Key pages (contact, imprint, about, ...) each task fetches besides the start page (SCRAPER_MAX_PAGES); 0 fetches the start page only."
  type        = number
  default     = 5

  validation {
    condition     = var.scraper_max_pages >= 0 && var.scraper_max_pages <= 10 && floor(var.scraper_max_pages) == var.scraper_max_pages
    error_message = "scraper_max_pages must be a whole number from 0 to 10."
  }
}

variable "scraper_retry_backoff_seconds" {
  description = "First delay before a released task is delivered again (RETRY_BACKOFF_SECONDS, doubled per attempt, set with ChangeMessageVisibility); 0 leaves it to the visibility timeout."
  type        = number
  default     = 0

  validation {
    condition     = var.scraper_retry_backoff_seconds >= 0 && var.scraper_retry_backoff_seconds <= 43200 && floor(var.scraper_retry_backoff_seconds) == var.scraper_retry_backoff_seconds
    error_message = "scraper_retry_backoff_seconds must be a whole number from 0 to 43200."
  }
}

variable "scraper_maximum_concurrency" {
  description = "Most scrapers the work queue's event source mapping runs at once. Production: 140."
  type        = number
  default     = 140
}

variable "scraper_reserved_concurrency" {
  description = "Concurrency reserved for the scraper; at least scraper_maximum_concurrency. null leaves it unreserved (for accounts whose concurrency quota cannot spare it: AWS keeps 100 unreserved), and the mapping's scraper_maximum_concurrency still caps the scrapers. Production: 140."
  type        = number
  default     = 140

  validation {
    condition     = var.scraper_reserved_concurrency == null || (coalesce(var.scraper_reserved_concurrency, 2) >= 2 && floor(coalesce(var.scraper_reserved_concurrency, 2)) == coalesce(var.scraper_reserved_concurrency, 2))
    error_message = "scraper_reserved_concurrency must be null or a whole number, at least 2."
  }
}

variable "reconciler_timeout_seconds" {
  description = "Reconciler timeout in seconds; keep it below the schedule's period."
  type        = number
  default     = 120
}

variable "reconciler_memory_size" {
  description = "Reconciler memory in MB."
  type        = number
  default     = 256
}

variable "reconciler_reserved_concurrency" {
  description = "Concurrency reserved for the reconciler; 1 keeps two runs from overlapping. null leaves it unreserved (for accounts whose concurrency quota cannot spare it): runs then may overlap when one outlasts the schedule's period, and overlapping runs may re-send a task twice, which the scraper skips as a duplicate."
  type        = number
  default     = 1

  validation {
    condition     = var.reconciler_reserved_concurrency == null || (coalesce(var.reconciler_reserved_concurrency, 1) >= 1 && floor(coalesce(var.reconciler_reserved_concurrency, 1)) == coalesce(var.reconciler_reserved_concurrency, 1))
    error_message = "reconciler_reserved_concurrency must be null or a whole number, at least 1."
  }
}

variable "reconciler_max_redispatch" {
  description = "Most work messages one reconciler run re-sends (MAX_REDISPATCH); later runs continue. Bounds the duplicates while a large run's backlog drains."
  type        = number
  default     = 1000

  validation {
    condition     = var.reconciler_max_redispatch >= 1 && var.reconciler_max_redispatch <= 100000 && floor(var.reconciler_max_redispatch) == var.reconciler_max_redispatch
    error_message = "reconciler_max_redispatch must be a whole number from 1 to 100000."
  }
}

variable "reconciler_schedule_expression" {
  description = "EventBridge Scheduler expression for the reconciler. Production: rate(5 minutes)."
  type        = string
  default     = "rate(5 minutes)"

  validation {
    condition     = can(regex("^(rate\\([1-9][0-9]* (minute|minutes|hour|hours|day|days)\\)|cron\\(.+\\))$", var.reconciler_schedule_expression))
    error_message = "reconciler_schedule_expression must be rate(N unit) or cron(...)."
  }
}

variable "enrich_timeout_seconds" {
  description = "Enrichment timeout in seconds; the pipe waits for it synchronously. null keeps the go-lambda module's default."
  type        = number
  default     = null
}

variable "enrich_memory_size" {
  description = "Enrichment memory in MB; null keeps the go-lambda module's default."
  type        = number
  default     = null
}

################################################################################
# Optional: task handling (function environment)
################################################################################

variable "enable_private_network_fetches" {
  description = "Let the scraper fetch loopback and private addresses (ALLOW_PRIVATE_NETWORKS). Only for the local cloud's fixture sites; never in production."
  type        = bool
  default     = false
}

variable "lease_seconds" {
  description = "Lease of a claim (LEASE_SECONDS); null means scraper_timeout_seconds + 60. Must exceed scraper_timeout_seconds (and 30 s of margins)."
  type        = number
  default     = null

  validation {
    condition     = var.lease_seconds == null || coalesce(var.lease_seconds, 1) >= 1
    error_message = "lease_seconds must be null or positive."
  }
}

variable "pending_grace_seconds" {
  description = "How long a task may stay Pending before the reconciler sends it again (PENDING_GRACE_SECONDS). Large runs keep tasks Pending in the queue for a while, and duplicates are harmless but not free."
  type        = number
  default     = 1800

  validation {
    condition     = var.pending_grace_seconds >= 60
    error_message = "pending_grace_seconds must be at least 60."
  }
}

variable "running_grace_seconds" {
  description = "How long past its lease a Running task may stay before the reconciler re-dispatches or fails it (RUNNING_GRACE_SECONDS); null means visibility_timeout_seconds + 600. Must exceed visibility_timeout_seconds."
  type        = number
  default     = null

  validation {
    condition     = var.running_grace_seconds == null || coalesce(var.running_grace_seconds, 1) >= 1
    error_message = "running_grace_seconds must be null or positive."
  }
}

variable "live_shards" {
  description = "Write shards per state of the live index's key (LIVE_SHARDS, internal/dynamostore's DefaultLiveShards is 8); more shards spread high write rates, and the reconciler queries each. Do not lower it while tasks are live: tasks in the dropped shards become invisible to the reconciler."
  type        = number
  default     = 8

  validation {
    condition     = var.live_shards >= 1 && var.live_shards <= 100 && floor(var.live_shards) == var.live_shards
    error_message = "live_shards must be a whole number between 1 and 100."
  }
}

################################################################################
# Optional: alarms
################################################################################

variable "enable_alarm_topic" {
  description = "Create an SNS topic that every alarm notifies (subscribe to it yourself)."
  type        = bool
  default     = false
}

variable "alarm_topic_kms_master_key_id" {
  description = "Customer managed KMS key for the alarm topic; its key policy must let cloudwatch.amazonaws.com use it. null leaves the topic unencrypted."
  type        = string
  default     = null
}

variable "alarm_actions" {
  description = "Extra ARNs (SNS topics, ...) every alarm notifies, in addition to the alarm topic."
  type        = list(string)
  default     = []
}

variable "lambda_errors_threshold" {
  description = "Function errors in 5 minutes that raise a function's errors alarm."
  type        = number
  default     = 1

  validation {
    condition     = var.lambda_errors_threshold >= 1
    error_message = "lambda_errors_threshold must be at least 1."
  }
}

variable "scraper_failed_invoke_events_threshold" {
  description = "Failed invocations the scraper's event source mapping may count in 5 minutes (FailedInvokeEventCount: errors, throttles and messages released for retry) before its alarm fires."
  type        = number
  default     = 100

  validation {
    condition     = var.scraper_failed_invoke_events_threshold >= 1
    error_message = "scraper_failed_invoke_events_threshold must be at least 1."
  }
}

variable "oldest_live_task_age_threshold_seconds" {
  description = "How long the oldest overdue task (Pending past its grace, or Running with an expired lease) may stay due before the alarm fires. The default, 6 hours, exceeds 3 deliveries x 90 minutes of visibility timeout plus the queue wait of a large run."
  type        = number
  default     = 21600

  validation {
    condition     = var.oldest_live_task_age_threshold_seconds >= 60
    error_message = "oldest_live_task_age_threshold_seconds must be at least 60."
  }
}

################################################################################
# Site documents (S3)
################################################################################

variable "result_bucket_name" {
  description = "Name of the bucket of the site documents; null names it <name>-<account>-<region> (lowercase), unique per region of an account."
  type        = string
  default     = null
}

variable "result_prefix" {
  description = "Key prefix of the site documents (RESULT_PREFIX): \"\" or ending in \"/\". Objects are <prefix>runs/<runId>/<task>.json.gz. null keeps the result-bucket module's default."
  type        = string
  default     = null
}

variable "result_expiration_days" {
  description = "Days after which a site document expires; 0 keeps them forever. null keeps the result-bucket module's default."
  type        = number
  default     = null
}

variable "result_kms_key_arn" {
  description = "KMS key for SSE-KMS on the result bucket (the scraper gets kms:GenerateDataKey on it); null uses SSE-S3."
  type        = string
  default     = null
}

variable "enable_result_versioning" {
  description = "Turn on versioning of the result bucket; null keeps the result-bucket module's default."
  type        = bool
  default     = null
}

variable "enable_result_force_destroy" {
  description = "Let terraform destroy delete the result bucket with its documents; null keeps the result-bucket module's default."
  type        = bool
  default     = null
}
