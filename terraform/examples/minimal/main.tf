# The smallest useful deployment: no enrichment, so the work message is the
# raw stream record (or what target_input_template makes of it); the
# scraper reads the task id from either.

provider "aws" {
  region = var.region
}

module "pipeline" {
  source = "../../modules/pipeline"

  name                  = var.name
  dist_dir              = coalesce(var.dist_dir, "${path.root}/../../../dist")
  architecture          = var.architecture
  pipe_filter_patterns  = var.pipe_filter_patterns
  target_input_template = var.target_input_template
}
