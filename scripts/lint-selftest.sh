#!/usr/bin/env bash
# Proves that each lint rule of `make lint` can fail: plants one violation
# at a time, checks the rule reports it, and removes it again (also on exit
# or interrupt). Run by `make lint` after the real checks pass.
# Needs GOLANGCI_LINT (the pinned binary the Makefile builds).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
lint="${GOLANGCI_LINT:?set GOLANGCI_LINT to the golangci-lint binary}"
planted=()
scratch="$(mktemp -d)"
cleanup() { rm -f "${planted[@]}"; rm -rf "$scratch"; }
trap cleanup EXIT INT TERM

fail() { echo "lint-selftest: $*" >&2; exit 1; }

# expect_depguard FILE PKGDIR IMPORT: a product file importing tooling must
# be reported by depguard.
expect_depguard() {
	local file="$1" pkgdir="$2" import="$3" pkg out
	pkg="$(basename "$pkgdir")"
	[[ "$pkgdir" == lambdas/* ]] && pkg=main
	planted+=("$file")
	printf 'package %s\n\nimport _ "%s"\n' "$pkg" "$import" >"$file"
	if out="$("$lint" run --allow-parallel-runners --enable-only depguard "./$pkgdir/" 2>&1)"; then
		fail "depguard accepted $file importing $import"
	fi
	grep -q depguard <<<"$out" || fail "golangci-lint failed on $file without a depguard finding: $out"
	rm -f "$file"
	echo "lint-selftest: depguard rejects $pkgdir importing $import"
}
expect_depguard internal/task/zz_lint_selftest.go internal/task github.com/taskpipe/taskpipe/internal/localaws/emu
expect_depguard internal/handler/zz_lint_selftest.go internal/handler github.com/taskpipe/taskpipe/internal/e2e/pricing
expect_depguard lambdas/scraper/zz_lint_selftest.go lambdas/scraper github.com/taskpipe/taskpipe/internal/cli

# expect_refcheck NAME FILE CONTENT: a scratch repository holding one file
# with CONTENT must fail scripts/refcheck.sh; a clean one must pass.
repo_with() { # dir file content
	rm -rf "$1"; mkdir -p "$1"
	git -C "$1" init -q
	printf '%s\n' "$3" >"$1/$2"
	git -C "$1" add "$2"
}
repo_with "$scratch/clean" doc.md "nothing outside the repository"
scripts/refcheck.sh "$scratch/clean" 2>/dev/null || fail "refcheck rejected a clean repository"
expect_refcheck() {
	local name="$1" file="$2" content="$3"
	repo_with "$scratch/$name" "$file" "$content"
	if scripts/refcheck.sh "$scratch/$name" 2>/dev/null; then
		fail "refcheck accepted $name: $content"
	fi
	echo "lint-selftest: refcheck rejects $name"
}
expect_refcheck notes a.go "// see pipes-""facts §2.2"
expect_refcheck sibling a.sh "cat ../sha""red/x"
expect_refcheck design a.go "// DESIGN"" §7"
# The scratch repositories live in $scratch, so their parent is $scratch.
expect_refcheck abspath README.md "built $scratch/abspath/bin/taskpipe"
expect_refcheck tmpdir docs.md "log: /tmp/taskpipe-demo-123.log"
expect_refcheck section a.go "// see docs/nowhere.md §1"
echo "lint-selftest: every rule fails on its planted violation"
