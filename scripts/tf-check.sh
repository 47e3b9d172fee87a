#!/usr/bin/env bash
# tf-check: every offline check of terraform/ that needs no AWS account.
#
#   1. terraform fmt -check on the whole tree;
#   2. for every example: init (hashicorp/aws from the local provider's
#      filesystem mirror), validate and plan with dummy credentials, in a
#      temporary copy so the repository gets no .terraform or lock files;
#   3. tflint (bundled terraform ruleset, .tflint.hcl) and tfsec.
#
# Needs: make tools (bin/terraform, bin/tflint, bin/tfsec), make provider
# (.tfmirror/terraform.rc) and make build (dist/*.zip, hashed by the plan).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
terraform=${TERRAFORM:-$root/bin/terraform}
tflint=${TFLINT:-$root/bin/tflint}
tfsec=${TFSEC:-$root/bin/tfsec}
dist=${DIST_DIR:-$root/dist}
# Not the caller's TF_CLI_CONFIG_FILE: hashicorp/aws must come from the local mirror.
export TF_CLI_CONFIG_FILE=$root/.tfmirror/terraform.rc

die() { echo "tf-check: $*" >&2; exit 1; }

for tool in "$terraform" "$tflint" "$tfsec"; do
	[[ -x $tool ]] || die "$tool is missing; run make tools"
done
[[ -f $TF_CLI_CONFIG_FILE ]] || die "$TF_CLI_CONFIG_FILE is missing; run make provider"
for fn in scraper reconciler enrich; do
	for arch in arm64 amd64; do
		[[ -f $dist/$fn-$arch.zip ]] || die "$dist/$fn-$arch.zip is missing; run make build"
	done
done

# Plans never reach AWS: the only data source the modules read is
# aws_region (the provider's own configuration), and the local provider
# makes no API calls while planning. Dummy credentials keep any
# real ones in the environment out of the way.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_SESSION_TOKEN=
unset AWS_PROFILE
export TF_IN_AUTOMATION=1 TF_INPUT=0
# No plugin cache: init copies the provider from the local mirror in well
# under a second, and Terraform >= 1.4 does not read a cache for providers
# missing from the lock file, which every fresh copy below is.
unset TF_PLUGIN_CACHE_DIR

echo "== terraform fmt"
"$terraform" fmt -check -recursive -diff "$root/terraform"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$root/terraform" "$work/terraform"
rm -rf "$work"/terraform/examples/*/.terraform "$work"/terraform/examples/*/.terraform.lock.hcl

for dir in "$work"/terraform/examples/*/; do
	example=$(basename "$dir")
	echo "== example $example: init, validate, plan"
	"$terraform" -chdir="$dir" init -input=false -no-color >"$work/$example-init.log" 2>&1 ||
		{ cat "$work/$example-init.log" >&2; die "terraform init failed for $example"; }
	"$terraform" -chdir="$dir" validate -no-color
	"$terraform" -chdir="$dir" plan -input=false -lock=false -no-color \
		-var "name=tf-check-$example" -var "dist_dir=$dist" -out="$work/$example.tfplan" >"$work/$example-plan.log" 2>&1 ||
		{ cat "$work/$example-plan.log" >&2; die "terraform plan failed for $example"; }
	grep -E '^Plan: ' "$work/$example-plan.log"
done

echo "== tflint"
"$tflint" --chdir="$root/terraform" --recursive --config="$root/.tflint.hcl" --minimum-failure-severity=notice

echo "== tfsec"
"$tfsec" "$root/terraform" --no-color --concise-output --no-module-downloads

echo "tf-check: ok"
