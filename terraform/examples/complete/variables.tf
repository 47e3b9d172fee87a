variable "name" {
  description = "Name of the deployment; prefixes every resource."
  type        = string
}

variable "region" {
  description = "AWS region to deploy to."
  type        = string
  default     = "eu-west-1"
}

variable "dist_dir" {
  description = "Directory with the Lambda zips from make build; null means the repository's dist/."
  type        = string
  default     = null
}

variable "architecture" {
  description = "Lambda instruction set: arm64 or x86_64."
  type        = string
  default     = "arm64"
}

variable "pipe_filter_patterns" {
  description = "Pipe filter patterns (JSON strings); null keeps \"status becomes Pending\"."
  type        = list(string)
  default     = null
}

variable "alarm_actions" {
  description = "Extra ARNs every alarm notifies."
  type        = list(string)
  default     = []
}

variable "enable_table_deletion_protection" {
  description = "Refuse DeleteTable on the task table; set false (and apply) before destroying a test stack."
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags for every resource."
  type        = map(string)
  default     = {}
}
