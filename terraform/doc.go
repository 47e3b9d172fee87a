// Package terraform holds no code: it is the home of the tests of the
// Terraform modules and examples in this directory. The contract tests
// (contract_test.go) parse the modules with hashicorp/hcl/v2, evaluate them
// as a first plan would, and check the invariants that must never regress;
// the terraform-exec tests run terraform validate and plan against the local
// hashicorp/aws provider (internal/localaws/tfprovider).
package terraform
