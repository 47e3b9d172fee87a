# The whole task pipeline: task table → stream → pipe (optional enrichment)
# → work queue → scraper, plus the reconciler on a schedule, the DLQs'
# alarms and a dashboard. Alarms and the dashboard live in monitoring.tf.

data "aws_region" "current" {}

locals {
  # make build names zips after Go's GOARCH; Lambda calls amd64 "x86_64".
  zip_arch = var.architecture == "x86_64" ? "amd64" : "arm64"
  zip_paths = {
    for fn in ["scraper", "reconciler", "enrich"] : fn => "${var.dist_dir}/${fn}-${local.zip_arch}.zip"
  }

  # A claim's lease outlives the invocation that holds it, so no healthy
  # worker ever loses its task to a takeover.
  lease_seconds = coalesce(var.lease_seconds, var.scraper_timeout_seconds + 60)
  # Longer than the visibility timeout, so the reconciler never races SQS's
  # own redelivery of a released task (docs/design.md §3).
  running_grace_seconds = coalesce(var.running_grace_seconds, module.queue.visibility_timeout_seconds + 600)

  # arn:<partition>:sqs:<region>:<account>:<name>, read from an output so the
  # plan needs no data source call.
  queue_arn_parts = split(":", module.queue.queue_arn)
  account_id      = local.queue_arn_parts[4]

  # Known at plan time (aws_region reads the provider's configuration, no
  # API call): it names the account-global resources, IAM roles and the
  # dashboard, so the same name deploys in two regions (issue 12 #5).
  region = data.aws_region.current.region

  # What every function reads (internal/handler/config.go); each function
  # ignores the variables it does not need.
  environment = merge(var.lambda_environment, {
    TABLE_NAME                            = module.table.table_name
    WORK_QUEUE_URL                        = module.queue.queue_url
    WORK_DLQ_URL                          = module.queue.dlq_url
    WORK_QUEUE_VISIBILITY_TIMEOUT_SECONDS = tostring(module.queue.visibility_timeout_seconds)
    ALLOW_PRIVATE_NETWORKS                = tostring(var.enable_private_network_fetches)
    LEASE_SECONDS                         = tostring(local.lease_seconds)
    PENDING_GRACE_SECONDS                 = tostring(var.pending_grace_seconds)
    RUNNING_GRACE_SECONDS                 = tostring(local.running_grace_seconds)
    LIVE_SHARDS                           = tostring(var.live_shards)
    LOG_LEVEL                             = var.lambda_log_level
    # The Deployment dimension of every metric (internal/emf): the taskpipe
    # namespace is shared by every deployment in the account and region.
    DEPLOYMENT_NAME = var.name
  })

  # The scraper checks its lease against its own timeout at start-up.
  scraper_environment = merge(local.environment, {
    FUNCTION_TIMEOUT_SECONDS = tostring(var.scraper_timeout_seconds)
    RETRY_BACKOFF_SECONDS    = tostring(var.scraper_retry_backoff_seconds)
    SCRAPER_USER_AGENT       = var.scraper_user_agent
    SCRAPER_OPTOUT_DOMAINS   = join(",", var.scraper_optout_domains)
    SCRAPER_MAX_PAGES        = tostring(var.scraper_max_pages)
    RESULT_BUCKET            = module.results.bucket_name
    RESULT_PREFIX            = module.results.prefix
  })

  # Bucket names are global: the default adds the account (at most 32 + 9 +
  # 12 of S3's 63 characters).
  # Bucket names are global: the region keeps a second region's deployment
  # of the same name apart, and <name> (32) + account (12) + region (14)
  # fit S3's 63 characters.
  # https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
  result_bucket_name = coalesce(var.result_bucket_name, lower("${var.name}-${local.account_id}-${local.region}"))

  reconciler_environment = merge(local.environment, {
    MAX_REDISPATCH = tostring(var.reconciler_max_redispatch)
    # Each run checks the pipe's CurrentState (pipes:DescribePipe) and
    # publishes PipeStalled (monitoring.tf, pipe_stalled).
    PIPE_NAME          = module.dispatch.pipe_name
    PIPE_DESIRED_STATE = "RUNNING"
  })
}

module "table" {
  source = "../task-table"

  name                          = "${var.name}-tasks"
  enable_deletion_protection    = var.enable_table_deletion_protection
  enable_point_in_time_recovery = var.enable_point_in_time_recovery
  enable_ttl                    = var.enable_ttl
  tags                          = var.tags
}

module "queue" {
  source = "../work-queue"

  name                             = "${var.name}-work"
  consumer_timeout_seconds         = var.scraper_timeout_seconds
  consumer_batching_window_seconds = 0
  visibility_timeout_seconds       = var.visibility_timeout_seconds
  message_retention_seconds        = var.message_retention_seconds
  dlq_message_retention_seconds    = var.work_dlq_message_retention_seconds
  max_receive_count                = var.max_receive_count
  tags                             = var.tags
}

module "results" {
  source = "../result-bucket"

  name                 = local.result_bucket_name
  prefix               = var.result_prefix
  expiration_days      = var.result_expiration_days
  kms_key_arn          = var.result_kms_key_arn
  enable_versioning    = var.enable_result_versioning
  enable_force_destroy = var.enable_result_force_destroy
  tags                 = var.tags
}

module "enrich" {
  source = "../go-lambda"
  count  = var.enable_enrichment ? 1 : 0

  name                  = "${var.name}-enrich"
  description           = "Turns the pipe's stream records into compact work messages."
  zip_path              = local.zip_paths.enrich
  architecture          = var.architecture
  memory_size           = var.enrich_memory_size
  timeout_seconds       = var.enrich_timeout_seconds
  environment           = local.environment
  log_retention_in_days = var.log_retention_in_days
  log_format            = var.lambda_log_format
  tags                  = var.tags
}

# The dispatch module was called "pipe" before 0.2.0; the moved block keeps
# existing pipes in place instead of replacing them.
moved {
  from = module.pipe
  to   = module.dispatch
}

module "dispatch" {
  source = "../dispatch"

  name                               = "${var.name}-dispatch"
  source_stream_arn                  = module.table.stream_arn
  create_delay_seconds               = var.pipe_create_delay_seconds
  target_queue_arn                   = module.queue.queue_arn
  filter_patterns                    = var.pipe_filter_patterns
  starting_position                  = var.pipe_starting_position
  batch_size                         = var.pipe_batch_size
  maximum_batching_window_in_seconds = var.pipe_maximum_batching_window_in_seconds
  maximum_record_age_in_seconds      = var.pipe_maximum_record_age_in_seconds
  maximum_retry_attempts             = var.pipe_maximum_retry_attempts
  parallelization_factor             = var.pipe_parallelization_factor
  dlq_message_retention_seconds      = var.pipe_dlq_message_retention_seconds
  enable_enrichment                  = var.enable_enrichment
  enrichment_function_arn            = var.enable_enrichment ? module.enrich[0].function_arn : null
  target_input_template              = var.target_input_template
  log_level                          = var.pipe_log_level
  enable_log_execution_data          = var.enable_pipe_log_execution_data
  log_retention_in_days              = var.log_retention_in_days
  tags                               = var.tags
}

module "scraper" {
  source = "../go-lambda"

  name            = "${var.name}-scraper"
  description     = "Claims and scrapes one task per message from the work queue."
  zip_path        = local.zip_paths.scraper
  architecture    = var.architecture
  memory_size     = var.scraper_memory_size
  timeout_seconds = var.scraper_timeout_seconds
  # -1: unreserved (go-lambda, aws_lambda_function).
  reserved_concurrent_executions = coalesce(var.scraper_reserved_concurrency, -1)
  environment                    = local.scraper_environment
  log_retention_in_days          = var.log_retention_in_days
  log_format                     = var.lambda_log_format
  tags                           = var.tags

  # One task per invocation, no batching delay, partial batch responses on
  # (fixed in the module), and a concurrency cap that protects the sites.
  enable_sqs_event_source                = true
  sqs_queue_arn                          = module.queue.queue_arn
  sqs_batch_size                         = 1
  sqs_maximum_batching_window_in_seconds = 0
  sqs_maximum_concurrency                = var.scraper_maximum_concurrency

  policy_statements = concat([
    {
      # Claims, finishes and releases are conditional UpdateItem calls; the
      # handlers never read a row with GetItem.
      sid       = "ClaimAndFinishTasks"
      actions   = ["dynamodb:UpdateItem"]
      resources = [module.table.table_arn]
    },
    {
      # Retry backoff for a released task.
      sid       = "DelayRedelivery"
      actions   = ["sqs:ChangeMessageVisibility"]
      resources = [module.queue.queue_arn]
    },
    {
      # Unparseable messages are forwarded with their reason, then deleted.
      sid       = "ForwardPoisonMessages"
      actions   = ["sqs:SendMessage"]
      resources = [module.queue.dlq_arn]
    },
    {
      # Each finished task's site document, under the result prefix only.
      sid       = "StoreSiteDocuments"
      actions   = ["s3:PutObject"]
      resources = [module.results.objects_arn]
    },
    ], var.result_kms_key_arn == null ? [] : [
    {
      # SSE-KMS: PutObject needs a data key
      # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html#require-sse-kms).
      sid       = "EncryptSiteDocuments"
      actions   = ["kms:GenerateDataKey"]
      resources = [var.result_kms_key_arn]
    },
  ])
}

module "reconciler" {
  source = "../go-lambda"

  name                           = "${var.name}-reconciler"
  description                    = "Re-dispatches stuck Pending tasks and fails tasks stuck in Running."
  zip_path                       = local.zip_paths.reconciler
  architecture                   = var.architecture
  memory_size                    = var.reconciler_memory_size
  timeout_seconds                = var.reconciler_timeout_seconds
  reserved_concurrent_executions = coalesce(var.reconciler_reserved_concurrency, -1)
  environment                    = local.reconciler_environment
  log_retention_in_days          = var.log_retention_in_days
  log_format                     = var.lambda_log_format
  tags                           = var.tags

  # The next scheduled run is the retry.
  enable_async_invoke_config         = true
  async_maximum_retry_attempts       = 0
  async_maximum_event_age_in_seconds = 300

  policy_statements = [
    {
      # DescribePipe's resource type is the pipe
      # (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridgepipes.html).
      sid       = "ReadPipeState"
      actions   = ["pipes:DescribePipe"]
      resources = [module.dispatch.pipe_arn]
    },
    {
      sid       = "ListLiveTasks"
      actions   = ["dynamodb:Query"]
      resources = [module.table.live_index_arn]
    },
    {
      # The live index leaves out the status and the lease, so the
      # reconciler reads the rows of the entries older than its grace.
      sid       = "ReadLiveTasks"
      actions   = ["dynamodb:BatchGetItem"]
      resources = [module.table.table_arn]
    },
    {
      sid       = "FailStuckTasks"
      actions   = ["dynamodb:UpdateItem"]
      resources = [module.table.table_arn]
    },
    {
      sid       = "RedispatchTasks"
      actions   = ["sqs:SendMessage"]
      resources = [module.queue.queue_arn]
    },
  ]
}

resource "aws_iam_role" "scheduler" {
  name        = "${var.name}-schedule-${local.region}"
  description = "Lets EventBridge Scheduler invoke the ${var.name} reconciler in ${local.region}."
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "scheduler.amazonaws.com" }
      Action    = "sts:AssumeRole"
      Condition = {
        StringEquals = { "aws:SourceAccount" = local.account_id }
      }
    }]
  })
  tags = var.tags
}

resource "aws_iam_role_policy" "scheduler" {
  name = "${var.name}-reconciler-schedule"
  role = aws_iam_role.scheduler.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid      = "InvokeReconciler"
      Effect   = "Allow"
      Action   = ["lambda:InvokeFunction"]
      Resource = [module.reconciler.function_arn]
    }]
  })
}

# Scheduler invokes the function asynchronously with its own role, so no
# aws_lambda_permission is needed (docs/aws-behaviour.md §6.1).
resource "aws_scheduler_schedule" "reconciler" {
  name                = "${var.name}-reconciler"
  description         = "Runs the ${var.name} reconciler."
  schedule_expression = var.reconciler_schedule_expression
  state               = "ENABLED"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = module.reconciler.function_arn
    role_arn = aws_iam_role.scheduler.arn
    input    = jsonencode({})

    retry_policy {
      maximum_event_age_in_seconds = 300
      maximum_retry_attempts       = 2
    }
  }

  lifecycle {
    precondition {
      condition     = local.running_grace_seconds > module.queue.visibility_timeout_seconds
      error_message = "running_grace_seconds must be greater than visibility_timeout_seconds, or the reconciler races SQS's redelivery of released tasks."
    }

    # The scraper refuses to start otherwise (internal/handler/config.go):
    # a live worker must never lose its lease, and it keeps a 15 s margin
    # at both ends of the lease to write the outcome.
    precondition {
      condition     = local.lease_seconds > var.scraper_timeout_seconds && local.lease_seconds > 30
      error_message = "lease_seconds must exceed scraper_timeout_seconds and 30 seconds, or a live scraper can lose its task to a takeover."
    }
  }

  depends_on = [aws_iam_role_policy.scheduler]
}
