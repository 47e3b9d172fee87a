variable "name" {
  description = "Name of the deployment; prefixes every resource."
  type        = string
  default     = "taskpipe-chaos"
}

variable "region" {
  description = "Region the local cloud pretends to be."
  type        = string
  default     = "us-east-1"
}

variable "local_endpoint" {
  description = "URL of the local cloud (every service on one endpoint)."
  type        = string
}

variable "dist_dir" {
  description = "Directory with the Lambda zips from make build."
  type        = string
}

variable "architecture" {
  description = "Lambda instruction set: the host's, since the local cloud runs bootstrap natively."
  type        = string
  default     = "x86_64"
}

variable "scraper_concurrency" {
  description = "Most concurrent scrapers (and their reserved concurrency)."
  type        = number
  default     = 32
}

variable "enable_enrichment" {
  description = "Run the enrich function in the pipe (the local example does; the short run keeps the module's default, off)."
  type        = bool
  default     = false
}

variable "pipe_filter_patterns" {
  description = "Pipe filter patterns (JSON strings); null keeps \"status becomes Pending\". The chaos run's filter edit sets it mid-run."
  type        = list(string)
  default     = null
}
