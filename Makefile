# taskpipe — run `make` (or `make help`) to list the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
# Tools go to $(BIN) (go install needs an absolute GOBIN); recipes that print
# a path use the relative bin/, so transcripts show no path of the machine.
BIN       := $(CURDIR)/bin
TERRAFORM ?= $(BIN)/terraform
TFLINT    ?= $(BIN)/tflint
TFSEC     ?= $(BIN)/tfsec
GOLANGCI_LINT ?= $(BIN)/golangci-lint
export TERRAFORM

TERRAFORM_VERSION := v1.5.7
TFLINT_VERSION    := v0.64.0
TFSEC_VERSION     := v1.26.0
GOLANGCI_LINT_VERSION := v2.15.0

# Lambda packaging: reproducible bootstrap zips for both architectures.
FUNCTIONS := scraper reconciler enrich
ARCHS     := arm64 amd64

.PHONY: help
help: ## list the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z0-9_\/-]+:.*## /{printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Only the tools that are not overridden (TERRAFORM=..., TFLINT=..., TFSEC=..., GOLANGCI_LINT=...) are built.
TOOLS := $(filter $(BIN)/%,$(TERRAFORM) $(TFLINT) $(TFSEC) $(GOLANGCI_LINT))

.PHONY: tools
tools: $(TOOLS) ## build terraform, tflint, tfsec and golangci-lint from source into bin/ (terraform v1.5.7: newer versions refuse go install)

$(BIN)/terraform:
	GOBIN=$(BIN) $(GO) install github.com/hashicorp/terraform@$(TERRAFORM_VERSION)

$(BIN)/tflint:
	GOBIN=$(BIN) $(GO) install github.com/terraform-linters/tflint@$(TFLINT_VERSION)

$(BIN)/tfsec:
	GOBIN=$(BIN) $(GO) install github.com/aquasecurity/tfsec/cmd/tfsec@$(TFSEC_VERSION)

$(BIN)/golangci-lint:
	GOBIN=$(BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

.PHONY: build
build: ## build dist/<function>-<arch>.zip (bootstrap at the root, reproducible)
	$(GO) build -trimpath -o bin/lambdazip ./cmd/lambdazip
	@for fn in $(FUNCTIONS); do for arch in $(ARCHS); do \
	  echo "build $$fn $$arch"; \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -tags lambda.norpc -trimpath -buildvcs=false \
	    -ldflags='-s -w -buildid=' -o dist/build/$$fn-$$arch/bootstrap ./lambdas/$$fn; \
	  bin/lambdazip -o dist/$$fn-$$arch.zip dist/build/$$fn-$$arch/bootstrap; \
	done; done

.PHONY: provider
provider: ## build the local hashicorp/aws provider into a filesystem mirror + CLI config
	GO=$(GO) ./scripts/provider.sh

# The packages make test runs with the race detector: the product, its
# conformance suites and the local cloud's services. The others (Terraform,
# the local provider, the Terratest scenarios, the end-to-end harness and
# the local cloud's assembly, whose time goes to terraform and to child
# processes) run without it; each package runs once.
RACE_PKGS := ./internal/task/... ./internal/dynamostore/... ./internal/handler/... ./internal/scrape/... \
	./internal/weburl/... ./internal/message/... ./internal/sqsqueue/... ./internal/emf/... \
	./internal/eventpattern/... ./internal/cli/... ./internal/localaws/emu/... ./lambdas/...

.PHONY: test
test: tools build provider lint ## run every offline test: lint (incl. go vet -tags aws), Terraform checks, the product and local cloud with -race, then every other package
	TERRAFORM=$(TERRAFORM) TFLINT=$(TFLINT) TFSEC=$(TFSEC) ./scripts/tf-check.sh
	$(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 40m $$($(GO) list ./... | grep -vxF -f <($(GO) list $(RACE_PKGS)))

.PHONY: test/short
test/short: ## the fast tier: go test -short ./... (no Terraform, no end to end, no boto3; about 2 minutes)
	$(GO) test -short -count=1 ./...

.PHONY: tf-check
tf-check: tools build provider ## terraform fmt, init/validate/plan every example offline, tflint, tfsec
	TERRAFORM=$(TERRAFORM) TFLINT=$(TFLINT) TFSEC=$(TFSEC) ./scripts/tf-check.sh

.PHONY: lint
lint: $(filter $(BIN)/%,$(GOLANGCI_LINT)) ## gofmt, go vet (also -tags aws: the opt-in AWS tests must compile), golangci-lint (depguard: product never imports tooling), the reference check, and a self-test that each rule fails on a planted violation
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags aws ./...
	$(GOLANGCI_LINT) run ./...
	./scripts/refcheck.sh
	GOLANGCI_LINT=$(GOLANGCI_LINT) ./scripts/lint-selftest.sh

.PHONY: bench
bench: ## run the Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: fuzz
fuzz: ## smoke-run every fuzz target (FUZZTIME each, default 10s)
	GO=$(GO) ./scripts/fuzz.sh

# The local cloud runs bootstrap natively, so the demo builds the zips of
# this machine's architecture only (a cold build of both took a minute more).
.PHONY: demo
demo: $(filter $(BIN)/%,$(TERRAFORM)) provider ## run a 3,575-site job on the local cloud end to end (DEMO_FLAGS="--sites 500 -v" passes flags)
	$(MAKE) --no-print-directory build ARCHS=$$($(GO) env GOARCH)
	$(GO) build -trimpath -o bin/taskpipe ./cmd/taskpipe
	bin/taskpipe demo $(DEMO_FLAGS)

.PHONY: chaos
chaos: $(filter $(BIN)/%,$(TERRAFORM)) provider ## the demo's 3,575 sites with faults on; invariants checked from the recorded history (CHAOS_FLAGS="--short" passes flags)
	$(MAKE) --no-print-directory build ARCHS=$$($(GO) env GOARCH)
	$(GO) build -trimpath -o bin/taskpipe ./cmd/taskpipe
	bin/taskpipe chaos $(CHAOS_FLAGS)

.PHONY: clean
clean: ## remove build outputs (keeps bin/)
	rm -rf dist .tfmirror

.PHONY: docs
docs: ## regenerate the Terraform input/output tables in the module and example READMEs (the root README links to them)
	$(GO) run ./cmd/tfdoc terraform/modules/* terraform/examples/*

# The Terratest suite (test/README.md). make test runs it too, on the local
# cloud; these targets run it alone, verbosely, with its key numbers.
.PHONY: test/integration
test/integration: tools build provider ## run the Terratest scenarios on the in-process local cloud (TEST=regexp picks some)
	TERRAFORM=$(TERRAFORM) $(GO) test -count=1 -timeout 30m -v -run '$(or $(TEST),.)' ./test/...

.PHONY: test/aws
test/aws: tools build ## run the Terratest scenarios on AWS (AWS_REGION, credentials; creates billable resources; TEST=regexp)
	TERRAFORM=$(TERRAFORM) $(GO) test -tags aws -count=1 -timeout 100m -v -run '$(or $(TEST),.)' ./test/...
