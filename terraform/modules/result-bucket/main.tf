# The bucket of the scraper's site documents: private (block public access;
# ACLs are off, BucketOwnerEnforced, the default for new buckets:
# https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html), encrypted at rest (SSE-S3, or SSE-KMS with a key
# of the caller's), reachable over TLS only, and emptied of old runs by a
# lifecycle rule. Versioning stays off by default: a document is written
# once per task (a retry rewrites the same bytes), so old versions would
# only cost storage.

locals {
  use_kms = var.kms_key_arn != null
}

# tfsec:ignore:aws-s3-enable-bucket-logging -- Server access logs would need a second bucket per deployment; the objects are written only by the scraper's role (its PutObject is scoped to the prefix) and CloudTrail data events can be turned on per account.
# tfsec:ignore:aws-s3-enable-versioning -- Off by default on purpose (enable_versioning): each object is rewritten with identical bytes by a retry or a duplicate delivery, and versions would keep every copy.
resource "aws_s3_bucket" "this" {
  bucket        = var.name
  force_destroy = var.enable_force_destroy
  tags          = var.tags
}

resource "aws_s3_bucket_public_access_block" "this" {
  bucket = aws_s3_bucket.this.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = local.use_kms ? "aws:kms" : "AES256"
      kms_master_key_id = var.kms_key_arn
    }
    # An S3 Bucket Key cuts the KMS requests (and their cost) per object
    # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-key.html).
    bucket_key_enabled = local.use_kms
  }
}

resource "aws_s3_bucket_versioning" "this" {
  count  = var.enable_versioning ? 1 : 0
  bucket = aws_s3_bucket.this.id

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "this" {
  count  = var.expiration_days > 0 ? 1 : 0
  bucket = aws_s3_bucket.this.id

  rule {
    id     = "expire-results"
    status = "Enabled"

    filter {
      prefix = var.prefix
    }

    expiration {
      days = var.expiration_days
    }

    noncurrent_version_expiration {
      noncurrent_days = var.expiration_days
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }
}

# Deny every request that does not use TLS
# (https://docs.aws.amazon.com/AmazonS3/latest/userguide/security-best-practices.html#transit).
resource "aws_s3_bucket_policy" "this" {
  bucket = aws_s3_bucket.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = [aws_s3_bucket.this.arn, "${aws_s3_bucket.this.arn}/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })

  # Block public access first: a policy put before it could be public.
  depends_on = [aws_s3_bucket_public_access_block.this]
}
