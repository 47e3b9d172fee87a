# The pipeline on taskpipe's local cloud (make emulate): every AWS endpoint
# points at one local process, credentials are dummies, timeouts are short
# and concurrency fits a laptop. The scraper may fetch the local fixture
# sites on loopback addresses, which production never allows.

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
  source = "../../modules/pipeline"

  name         = var.name
  dist_dir     = coalesce(var.dist_dir, "${path.root}/../../../dist")
  architecture = var.architecture

  enable_enrichment    = var.enable_enrichment
  pipe_filter_patterns = var.pipe_filter_patterns

  # Short timeouts keep retries and recovery observable in minutes;
  # 180 s of visibility is the 6 x 30 s minimum.
  scraper_timeout_seconds    = 30
  visibility_timeout_seconds = 180
  running_grace_seconds      = 240
  pending_grace_seconds      = 60
  lease_seconds              = 45
  reconciler_timeout_seconds = 50

  reconciler_schedule_expression = "rate(1 minute)"

  # A released task comes back after 1 s, then 2 s (ChangeMessageVisibility),
  # instead of the 180 s visibility timeout: retries still go through SQS
  # redelivery, at a pace that fits a demo.
  scraper_retry_backoff_seconds = 1

  scraper_maximum_concurrency  = var.scraper_concurrency
  scraper_reserved_concurrency = var.scraper_concurrency

  # The local cloud's IAM and streams are consistent at once.
  pipe_create_delay_seconds = 0

  enable_private_network_fetches = true
  log_retention_in_days          = 1

  # The demo destroys what it deployed, documents included.
  enable_result_force_destroy = true
}
