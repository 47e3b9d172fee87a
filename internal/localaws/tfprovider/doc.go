// Package tfprovider is a local stand-in for the hashicorp/aws Terraform
// provider (version 6.47.0). It serves the real provider's resource and
// data-source schemas, loaded from the JSON that `terraform providers schema
// -json` prints, over plugin protocol 5 (the protocol the real provider
// speaks), so that `terraform validate` and `terraform plan` check real
// argument names, types, nesting and required fields without network access.
//
// On top of the schema it reproduces the plan-time behaviour of the real
// provider for the resource types taskpipe uses: argument validation the
// schema cannot express (ranges, enums, JSON documents), SDKv2 defaults,
// ForceNew (RequiresReplace), computed attributes that change when their
// inputs change, and the SDKv2 cross-attribute rules (ConflictsWith,
// ExactlyOneOf, AtLeastOneOf, RequiredWith) with the SDK's wording, so that
// e.g. sqs_managed_sse_enabled = false next to kms_master_key_id fails
// `terraform plan` here as it does with the real provider. Each rule cites
// the provider source file or AWS API page it comes from; see rules_*.go
// and crossrules.go.
//
// Apply is pluggable: a ResourceHandler registered for a type name performs
// Create/Read/Update/Delete against the local cloud. Without a handler, apply
// fails with a clear diagnostic and read returns the prior state unchanged.
// WithAWSHandlers (apply.go, apply_<service>.go; the plugin registers it)
// adds a handler for every resource type the taskpipe modules use. They
// call the real AWS APIs through aws-sdk-go-v2 at the endpoints the
// provider block names, as the real provider's resources do (each cites
// its source), wait where AWS is eventually consistent, and read back the
// state the real provider records, so drift shows in the next plan.
// Configuration the local cloud cannot honour (KMS keys, VPCs, FIFO
// queues, global tables, …) fails the apply with a diagnostic saying so.
// The acceptance test applies terraform/examples/local into a local cloud
// started in-process.
//
// Layout: schema.go and convert.go load and convert the schema file;
// providerconfig.go is the provider block; server.go is the protocol server;
// plan.go is the generic planner; rules.go plus rules_<service>.go hold the
// per-resource tables (defaults, ForceNew, recomputed attributes,
// validators, CustomizeDiff checks) with their sources; crossrules.go is the
// table of cross-attribute rules, one entry per resource type the modules
// use (a test keeps it complete); datasource.go reads
// aws_region, aws_partition, aws_default_tags and aws_caller_identity.
//
// `make provider` installs the plugin into .tfmirror/ and writes
// .tfmirror/terraform.rc for TF_CLI_CONFIG_FILE; tests use tfprovidertest.
// A rebuilt plugin has a new checksum, so a working directory initialised
// against an older build needs its .terraform.lock.hcl removed before
// `terraform init` (builds are reproducible: unchanged sources give the
// same binary).
package tfprovider
