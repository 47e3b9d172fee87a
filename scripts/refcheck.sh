#!/usr/bin/env bash
# Fails when a tracked file cites something outside the repository: the
# notes this project was started from (by their names below), a path into a
# folder beside the checkout, an absolute path of the machine the file was
# written on (the checkout's parent directory), or a temporary directory in
# committed output (Markdown and text files, e.g. a demo transcript).
# Run by `make lint`; scripts/lint-selftest.sh proves each rule can fail.
# Usage: scripts/refcheck.sh [DIR]   (DIR: a git work tree, default: this one)
set -euo pipefail

top="$(git -C "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" rev-parse --show-toplevel)"
cd "$top"
parent="$(dirname "$top")"
# This script and its self-test necessarily name what they look for.
exclude=(':!scripts/refcheck.sh' ':!scripts/lint-selftest.sh')
names='\.\./shared|shared/reference|pipes-facts|emulation-facts|DESIGN(\.md)? §|style-anchors'
status=0
report() { # title, output
	if [[ -n "$2" ]]; then
		echo "refcheck: $1:" >&2
		echo "$2" | head -20 >&2
		status=1
	fi
}
report "citations of documents outside the repository" \
	"$(git grep -nE "$names" -- . "${exclude[@]}" || true)"
if [[ "$parent" != "/" ]]; then
	report "absolute paths of this machine ($parent/...)" \
		"$(git grep -nF "$parent/" -- . "${exclude[@]}" || true)"
fi
# Every "docs/<page>.md §N" a file cites must be a heading of that page
# ("## N. …" or "### N …").
missing=""
while read -r ref; do
	[[ -n "$ref" ]] || continue
	page="${ref%% §*}" sec="${ref##*§}"
	if [[ ! -f "$page" ]] || ! grep -qE "^#+ ${sec//./\\.}[. ]" "$page"; then
		missing+="$ref"$'\n'
	fi
done < <(git grep -ohE 'docs/[A-Za-z0-9_-]+\.md §[0-9]+(\.[0-9]+)*' -- . "${exclude[@]}" | sort -u)
report "citations of sections that do not exist" "$missing"
report "temporary directories in committed output" \
	"$(git grep -nE '(^|[^A-Za-z0-9_.])/tmp/[A-Za-z0-9]' -- '*.md' '*.txt' "${exclude[@]}" || true)"
exit "$status"
