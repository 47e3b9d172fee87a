################################################################################
# Required
################################################################################

variable "name" {
  description = "Name of the bucket (globally unique)."
  type        = string

  validation {
    # https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
    condition     = can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.name)) && !can(regex("\\.\\.|^\\d+\\.\\d+\\.\\d+\\.\\d+$|^xn--|-s3alias$|--ol-s3$", var.name))
    error_message = "The bucket name must be 3-63 characters of a-z, 0-9, '.' and '-', start and end with a letter or digit, and follow the S3 bucket naming rules."
  }
}

################################################################################
# Optional
################################################################################

variable "prefix" {
  description = "Key prefix of the documents (\"\" or ending in \"/\"); the lifecycle rule applies to it."
  type        = string
  nullable    = false
  default     = ""

  validation {
    condition     = var.prefix == "" || (endswith(var.prefix, "/") && !startswith(var.prefix, "/") && length(var.prefix) <= 256)
    error_message = "prefix must be empty or at most 256 characters ending with \"/\" and not starting with one."
  }
}

variable "expiration_days" {
  description = "Days after which a document expires (lifecycle rule on prefix); 0 keeps documents forever."
  type        = number
  nullable    = false
  default     = 90

  validation {
    condition     = var.expiration_days >= 0 && floor(var.expiration_days) == var.expiration_days
    error_message = "expiration_days must be a whole number of days, 0 or more."
  }
}

variable "kms_key_arn" {
  description = "ARN of a KMS key for SSE-KMS; null uses SSE-S3 (AES256). Writers then need kms:GenerateDataKey on the key, readers kms:Decrypt."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:[a-z-]+:kms:", var.kms_key_arn))
    error_message = "kms_key_arn must be a KMS key ARN (arn:<partition>:kms:...)."
  }
}

variable "enable_versioning" {
  description = "Turn on bucket versioning (off by default: a task's document is rewritten only with the same bytes)."
  type        = bool
  nullable    = false
  default     = false
}

variable "enable_force_destroy" {
  description = "Let terraform destroy delete the bucket with its objects."
  type        = bool
  nullable    = false
  default     = false
}

variable "tags" {
  description = "Tags for the bucket."
  type        = map(string)
  default     = {}
}
