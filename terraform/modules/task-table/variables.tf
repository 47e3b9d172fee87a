################################################################################
# Required
################################################################################

variable "name" {
  description = "Name of the DynamoDB table."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]{3,255}$", var.name))
    error_message = "The table name must be 3-255 characters of A-Z, a-z, 0-9, '_', '-' and '.'."
  }
}

################################################################################
# Optional
################################################################################

variable "tags" {
  description = "Tags for the table."
  type        = map(string)
  default     = {}
}

variable "enable_deletion_protection" {
  description = "Refuse DeleteTable while true. Turn it on for production tables."
  type        = bool
  nullable    = false
  default     = false
}

variable "enable_point_in_time_recovery" {
  description = "Keep continuous backups (point-in-time recovery) of the table."
  type        = bool
  nullable    = false
  default     = true
}

variable "enable_ttl" {
  description = "Let DynamoDB delete rows after the epoch-seconds time in ttl_attribute_name. TTL deletions appear in the stream as REMOVE records, which the pipe filter ignores."
  type        = bool
  nullable    = false
  default     = false
}

variable "ttl_attribute_name" {
  description = "Attribute holding the expiry time (epoch seconds) when enable_ttl is true."
  type        = string
  default     = "expiresAt"

  validation {
    condition     = length(var.ttl_attribute_name) > 0 && length(var.ttl_attribute_name) <= 255
    error_message = "ttl_attribute_name must be 1-255 characters."
  }
}
