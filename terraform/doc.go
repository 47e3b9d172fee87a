// Package terraform holds no code: it is the home of the tests of the
// Terraform modules and examples in this directory. The contract tests
// (contract_test.go) check the invariants that must never regress on what
// Terraform itself plans: each example is planned once per test process
// with the local hashicorp/aws provider (internal/localaws/tfprovider) and
// read back with terraform show -json (subject_test.go); what a plan cannot
// show (a variable refusing a value, a precondition stopping a plan) is
// asked of terraform validate and plan on generated probe configurations.
// The mutation tests plan broken copies of the tree and require the
// contract, or Terraform, to fail.
package terraform
