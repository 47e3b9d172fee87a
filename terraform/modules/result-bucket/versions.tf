terraform {
  required_version = ">= 1.5.0"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 6.47 is the release the modules were reviewed against (the local
      # provider embeds its schema): GSIs use key_schema, the region comes
      # from aws_region's region attribute, both 6.x. Every module pins the
      # same range so one lock file fits the whole pipeline.
      version = "~> 6.47"
    }
  }
}
