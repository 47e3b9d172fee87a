variable "name" {
  description = "Name of the deployment; prefixes every resource."
  type        = string
  default     = "taskpipe-local"
}

variable "region" {
  description = "Region the local cloud pretends to be."
  type        = string
  default     = "us-east-1"
}

variable "local_endpoint" {
  description = "URL of the local cloud (every service on one endpoint)."
  type        = string
  default     = "http://127.0.0.1:4566"

  validation {
    condition     = can(regex("^https?://", var.local_endpoint))
    error_message = "local_endpoint must be an http or https URL."
  }
}

variable "dist_dir" {
  description = "Directory with the Lambda zips from make build; null means the repository's dist/."
  type        = string
  default     = null
}

variable "architecture" {
  description = "Lambda instruction set; the local cloud runs bootstrap natively, so use the host's (x86_64 or arm64)."
  type        = string
  default     = "x86_64"
}

variable "enable_enrichment" {
  description = "Run the enrich function in the pipe."
  type        = bool
  default     = true
}

variable "pipe_filter_patterns" {
  description = "Pipe filter patterns (JSON strings); null keeps \"status becomes Pending\"."
  type        = list(string)
  default     = null
}

variable "scraper_concurrency" {
  description = "Most concurrent scrapers (and their reserved concurrency). A scraper mostly waits (slow sites, fetch backoff), so 32 processes of about 20 MB each keep 2 cores busy without starving them; make demo runs 3,575 tasks in about 35 s with it."
  type        = number
  default     = 32
}
