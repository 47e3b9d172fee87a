#!/usr/bin/env bash
# Builds the local hashicorp/aws provider (cmd/terraform-provider-aws) into an
# unpacked filesystem mirror at .tfmirror/ and writes .tfmirror/terraform.rc.
# Use it with: TF_CLI_CONFIG_FILE=$PWD/.tfmirror/terraform.rc terraform init
# The schema path is recorded in the binary; $TASKPIPE_AWS_SCHEMA overrides it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
GO="${GO:-go}"
mirror="$root/.tfmirror"
schema="${TASKPIPE_AWS_SCHEMA:-$root/../shared/aws-provider-schema/aws-6.47.0.json}"
if [[ ! -f "$schema" ]]; then
	echo "provider: schema file $schema is missing." >&2
	echo "provider: produce it where the real provider can be downloaded: terraform init in a root" >&2
	echo "provider: module that requires hashicorp/aws 6.47.0, then terraform providers schema -json > aws-6.47.0.json;" >&2
	echo "provider: or point TASKPIPE_AWS_SCHEMA at a copy." >&2
	exit 1
fi
# Record an absolute path: Terraform runs the plugin from .terraform/.
schema="$(cd "$(dirname "$schema")" && pwd)/$(basename "$schema")"
version=6.47.0
goos="$($GO env GOOS)"
goarch="$($GO env GOARCH)"
dir="$mirror/registry.terraform.io/hashicorp/aws/$version/${goos}_${goarch}"
mkdir -p "$dir"
CGO_ENABLED=0 "$GO" build -trimpath \
	-ldflags "-s -w -X github.com/taskpipe/taskpipe/internal/tfprovider.defaultSchemaPath=$schema" \
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
echo "provider: built $dir/terraform-provider-aws_v$version"
echo "provider: export TF_CLI_CONFIG_FILE=$mirror/terraform.rc"
