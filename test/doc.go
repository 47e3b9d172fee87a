// Package test is taskpipe's Terratest integration suite: the ten seed
// scenarios (happy path, duplicate delivery, worker fails, traffic spike,
// poison message, fatal and retryable errors, pipe target failure, stuck
// tasks, filter edit without a code deploy, DLQ redrive), each a test that
// applies a Terraform example and drives the deployed pipeline with the
// AWS SDK.
//
// One test body, two targets, chosen at build time:
//
//   - local (default, part of make test): the local cloud
//     (internal/localaws/localcloud) and the fixture web (internal/e2e/fixtureweb) start
//     in the test process; terraform/examples/local is applied to them
//     through the local hashicorp/aws provider.
//   - aws (go test -tags aws): terraform/examples/complete is applied to a
//     real account with the real provider, in the region of AWS_REGION.
//
// The code lives in _test.go files only; README.md says how to run each
// target, what it costs and which scenarios the AWS target skips.
package test
