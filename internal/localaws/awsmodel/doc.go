// Package awsmodel validates decoded AWS API requests against the botocore
// service models of the operations the local cloud serves, and words the
// rejections as each AWS service does (DynamoDB's "1 validation error
// detected: Value 'ab' at 'tableName' failed to satisfy constraint: …",
// SQS's MissingParameter, CloudWatch's "The parameter X is required.",
// Pipes' JSON-schema messages, S3's codes).
//
// The models are embedded (model.json.gz, generated from botocore by
// internal/gen; provenance and licence in PROVENANCE.md). Validate takes
// the request as a generic tree; HTTPInput, QueryInput, XMLPayload and
// DecodeJSON build that tree from REST, query, REST-XML and JSON requests.
// See README.md for the formats, their sources and what stays lenient.
package awsmodel
