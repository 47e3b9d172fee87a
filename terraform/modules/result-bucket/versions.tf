terraform {
  required_version = ">= 1.5.0"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 5.61 is the first release where editing a pipe's filter keeps the
      # target input_template (provider PR #38598); every module pins the same
      # floor so one lock file fits the whole pipeline.
      version = ">= 5.61"
    }
  }
}
