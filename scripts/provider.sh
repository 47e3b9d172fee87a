#!/usr/bin/env bash
# Builds the local hashicorp/aws provider (cmd/terraform-provider-aws) and the
# real hashicorp/time provider (from source, go install) into an unpacked
# filesystem mirror at .tfmirror/ and writes .tfmirror/terraform.rc, so an
# offline terraform init finds both.
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
# hashicorp/time: the dispatch module's time_sleep (internal/localaws/tfprovider
# TimeVersion must match).
time_version=0.14.2
time_dir="$mirror/registry.terraform.io/hashicorp/time/$time_version/${goos}_${goarch}"
gobin="$(mktemp -d)"
trap 'rm -rf "$gobin"' EXIT
mkdir -p "$time_dir"
(cd "$gobin" && CGO_ENABLED=0 GOBIN="$gobin" GOFLAGS= "$GO" install -trimpath \
	"github.com/hashicorp/terraform-provider-time@v$time_version")
mv "$gobin/terraform-provider-time" "$time_dir/terraform-provider-time_v$time_version"
cat >"$mirror/terraform.rc" <<RC
# Written by the taskpipe local provider build: hashicorp/aws (the taskpipe
# stand-in, schema $version) and hashicorp/time $time_version come from the local mirror;
# everything else as usual.
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/time"]
  }
  direct {
    exclude = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/time"]
  }
}
RC
# Paths relative to the repository root: this output ends up in transcripts.
echo "provider: built ${dir#"$root"/}/terraform-provider-aws_v$version"
echo "provider: built ${time_dir#"$root"/}/terraform-provider-time_v$time_version"
echo "provider: export TF_CLI_CONFIG_FILE=\$PWD/.tfmirror/terraform.rc   # from the repository root"
