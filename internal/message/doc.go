// Package message is the work-message contract between the EventBridge Pipe
// (or the reconciler) and the scraper: what a work-queue message body may
// look like, and how one DynamoDB stream record is read.
//
// A body on the work queue has one of three shapes, and the scraper accepts
// all of them because it needs only the task id (its claim returns the row):
//
//   - the raw DynamoDB stream record, which a Pipe without enrichment and
//     without an input_template sends as-is (docs/aws-behaviour.md §1.2);
//   - the compact Message that lambdas/enrich and the reconciler produce:
//     {"v":1,"taskId":"…","runId":"…","url":"…","domain":"…"};
//   - a compact {"taskId":"…"} built by a Pipe input_template (docs/aws-behaviour.md
//     §1.8).
//
// Anything else is poison: it can never become valid by retrying, so the
// scraper forwards it to the work DLQ with the reason Parse gives.
//
// Stream records are decoded by hand rather than through aws-lambda-go's
// DynamoDBAttributeValue, whose accessors panic when a value has an
// unexpected type (docs/aws-behaviour.md §1.2). Untrusted input never panics here.
package message
