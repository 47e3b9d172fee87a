// Package emu is taskpipe's local cloud: one HTTP endpoint that speaks the
// AWS wire protocols of the services the pipeline uses, so the real AWS SDK
// clients, the real Terraform provider calls and the real Lambda bootstrap
// binaries run against it unchanged.
//
// This package only routes: it identifies the service and operation of each
// request (X-Amz-Target for the JSON protocols, the Smithy RPC v2 path for
// CBOR, the Action form field for the query protocol, and the SigV4
// credential scope for the REST protocols), counts requests per service and
// operation, and hands the request to the service's http.Handler. Each
// service lives in a subpackage named for what it emulates.
//
// Faithfulness to AWS is the bar; every behaviour that tests rely on cites
// its source next to the code that implements it.
package emu
