# Shared by every apply test: the local provider pointed at a local cloud
# the test starts in-process (var.endpoint), with dummy credentials.

terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "endpoint" {
  type = string
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "test"
  secret_key                  = "test"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_region_validation      = true
  s3_use_path_style           = true

  default_tags {
    tags = { suite = "apply" }
  }

  endpoints {
    cloudwatch = var.endpoint
    dynamodb   = var.endpoint
    iam        = var.endpoint
    lambda     = var.endpoint
    logs       = var.endpoint
    pipes      = var.endpoint
    s3         = var.endpoint
    scheduler  = var.endpoint
    sns        = var.endpoint
    sqs        = var.endpoint
    sts        = var.endpoint
  }
}
