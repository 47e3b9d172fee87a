// Package cli is the logic of taskpipe's operator commands: submit, status,
// results, retry, dlq list, dlq redrive and filter test. cmd/taskpipe only
// wires them to the process (arguments, standard streams, exit codes).
//
// Every command talks to AWS through the real aws-sdk-go-v2 clients, built
// from config.LoadDefaultConfig, so the same command works against AWS and
// against the local cloud (AWS_ENDPOINT_URL). Resource names come from
// flags, then TASKPIPE_* environment variables, then `terraform output
// -json` of the directory named by --tf-dir (see Config).
//
// # Task ids
//
// submit names each task <run id>/<line number, zero-padded to 7 digits>,
// for example "20260101T120000Z-3fa9c2/0000042" for line 42 of the input.
// The id is deterministic per run and input line, so re-submitting the
// same file to the same run with --resume writes exactly the lines that
// are missing, and a run's listing (sorted by task id) is in input
// order (for inputs under ten million lines).
//
// A URL that appears twice in one input (after weburl.Normalize) is written
// once, for its first line; later lines are reported on stderr as
// duplicates, which is not a rejection. Scraping the same page twice in one
// run costs a Lambda invocation and yields a duplicate result row.
//
// # Exit status
//
// 0 success; 1 failure (nothing or not everything written, a task not
// retried, an invalid filter); 2 bad usage; 3 (ExitRejected) submit
// rejected some input lines but wrote all the others.
package cli
