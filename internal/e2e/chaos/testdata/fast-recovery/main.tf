# The local example (terraform/examples/local) with its recovery timers
# cut as far as the pipeline module's rules allow, for the short chaos run
# of make test: a killed worker's message comes back after 150 s instead
# of 180 s, and the reconciler takes over a task whose message was lost
# 155 s after its lease ended instead of 240 s. The module's rules: the
# visibility timeout is at least 6 x the scraper timeout (the work-queue
# module's precondition, after AWS's advice for SQS event sources), the
# lease exceeds the scraper timeout and 30 s, the Running grace exceeds
# the visibility timeout; and the scraper keeps 15 s of its timeout free
# to write the outcome, so 25 s leave it 10 s to fetch. Everything else is
# the example's.

provider "aws" {
  region = var.region

  # The local cloud accepts any credentials; these never reach AWS.
  access_key                  = "test"
  secret_key                  = "test"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_region_validation      = true
  # Buckets in the path: the local cloud is one host, not one per bucket.
  s3_use_path_style = true

  endpoints {
    cloudwatch = var.local_endpoint
    dynamodb   = var.local_endpoint
    iam        = var.local_endpoint
    lambda     = var.local_endpoint
    logs       = var.local_endpoint
    pipes      = var.local_endpoint
    s3         = var.local_endpoint
    scheduler  = var.local_endpoint
    sqs        = var.local_endpoint
    sts        = var.local_endpoint
  }
}

module "pipeline" {
  # The demo copies this module to <tmp>/internal/chaos/testdata/... and
  # the repository's modules to <tmp>/terraform/modules.
  source = "../../../../../terraform/modules/pipeline"

  name         = var.name
  dist_dir     = var.dist_dir
  architecture = var.architecture

  scraper_timeout_seconds    = 25
  lease_seconds              = 40
  visibility_timeout_seconds = 150
  running_grace_seconds      = 155
  pending_grace_seconds      = 60
  reconciler_timeout_seconds = 30

  reconciler_schedule_expression = "rate(1 minute)"
  scraper_retry_backoff_seconds  = 1

  scraper_maximum_concurrency  = var.scraper_concurrency
  scraper_reserved_concurrency = var.scraper_concurrency

  # The local cloud's IAM and streams are consistent at once.
  pipe_create_delay_seconds = 0

  enable_private_network_fetches = true
  log_retention_in_days          = 1

  enable_enrichment    = var.enable_enrichment
  pipe_filter_patterns = var.pipe_filter_patterns

  # The run destroys what it deployed, documents included.
  enable_result_force_destroy = true
}
