#!/usr/bin/env bash
# Builds the local hashicorp/aws provider (cmd/terraform-provider-aws) into an
# unpacked filesystem mirror at .tfmirror/ and writes .tfmirror/terraform.rc.
# Use it with: TF_CLI_CONFIG_FILE=$PWD/.tfmirror/terraform.rc terraform init
# The provider embeds its schema; $TASKPIPE_AWS_SCHEMA, set when Terraform
# runs, points it at another document.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
GO="${GO:-go}"
mirror="$root/.tfmirror"
version=6.47.0
goos="$($GO env GOOS)"
goarch="$($GO env GOARCH)"
dir="$mirror/registry.terraform.io/hashicorp/aws/$version/${goos}_${goarch}"
mkdir -p "$dir"
CGO_ENABLED=0 "$GO" build -trimpath \
	-ldflags "-s -w" \
	-o "$dir/terraform-provider-aws_v$version" ./cmd/terraform-provider-aws
cat >"$mirror/terraform.rc" <<RC
# Written by the taskpipe local provider build: hashicorp/aws comes from the
# local mirror (the taskpipe stand-in, schema $version); everything else as usual.
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
  direct {
    exclude = ["registry.terraform.io/hashicorp/aws"]
  }
}
RC
# Paths relative to the repository root: this output ends up in transcripts.
echo "provider: built ${dir#"$root"/}/terraform-provider-aws_v$version"
echo "provider: export TF_CLI_CONFIG_FILE=\$PWD/.tfmirror/terraform.rc   # from the repository root"
