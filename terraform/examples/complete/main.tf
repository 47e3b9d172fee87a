# The reference production environment: every feature on, production
# numbers from the module defaults.

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Project = "taskpipe"
      Example = "complete"
    }
  }
}

module "pipeline" {
  source = "../../modules/pipeline"

  name         = var.name
  dist_dir     = coalesce(var.dist_dir, "${path.root}/../../../dist")
  architecture = var.architecture

  # Work messages are compact task references built by lambdas/enrich.
  enable_enrichment    = true
  pipe_filter_patterns = var.pipe_filter_patterns

  enable_alarm_topic = true
  alarm_actions      = var.alarm_actions

  # Production: the task table refuses DeleteTable; turn it off (and apply)
  # before terraform destroy.
  enable_table_deletion_protection = var.enable_table_deletion_protection

  tags = var.tags
}
