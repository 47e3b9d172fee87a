# tflint configuration for terraform/ (run by scripts/tf-check.sh).
#
# Only the bundled terraform ruleset: the aws plugin cannot be downloaded on
# the offline build machines, and the local provider's schema checks in
# terraform validate cover argument names and types instead.

config {
  # Inspect the local modules an example calls, with its arguments.
  call_module_type = "local"
}

plugin "terraform" {
  enabled = true
  preset  = "recommended"
}

# Beyond the recommended preset: the conventions the modules follow on
# purpose (docs/design.md §5).
rule "terraform_documented_variables" {
  enabled = true
}

rule "terraform_documented_outputs" {
  enabled = true
}

rule "terraform_standard_module_structure" {
  enabled = true
}

rule "terraform_naming_convention" {
  enabled = true
}
