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

variable "target_input_template" {
  description = "Pipe input template for each work message; null sends the raw stream record."
  type        = string
  default     = null
}
