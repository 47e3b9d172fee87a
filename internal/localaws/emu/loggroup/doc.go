// Package loggroup is the local cloud's Amazon CloudWatch Logs: log groups,
// log streams and log events in memory, with a Go API for in-process
// writers (the Lambda emulation appends every line a function prints) and
// an http.Handler that speaks the CloudWatch Logs AWS JSON 1.1 protocol
// (X-Amz-Target: Logs_20140328.<Operation>) to the AWS SDKs, the AWS CLI
// and Terraform.
//
// Register it in the router under emu.ServiceLogs:
//
//	logs := loggroup.New(loggroup.Options{})
//	router.Handle(emu.ServiceLogs, logs)
//
// # What is emulated
//
// CreateLogGroup, DeleteLogGroup, DescribeLogGroups (prefix or
// case-insensitive pattern, identifiers, class, pagination),
// PutRetentionPolicy (the documented enum of day counts),
// DeleteRetentionPolicy, TagResource, UntagResource, ListTagsForResource,
// the older TagLogGroup, UntagLogGroup and ListTagsLogGroup,
// CreateLogStream, DeleteLogStream, DescribeLogStreams (prefix, order,
// pagination), PutLogEvents (chronological batches, the 10,000-event and
// 1 MiB limits, the 24-hour span, and the too-old / too-new / expired
// rejection indexes), GetLogEvents (head or tail, time range, forward and
// backward tokens that repeat at the end of the stream) and
// FilterLogEvents (interleaved across streams, time range, stream names or
// prefix, pagination).
//
// Errors carry the shape names the SDKs type them by
// (ResourceNotFoundException, ResourceAlreadyExistsException,
// InvalidParameterException, TooManyTagsException, …) with AWS's messages
// where they are known.
//
// Retention is enforced against the injected clock: events older than the
// group's retention are no longer returned and are dropped from memory.
//
// # What is not
//
// Filter patterns are term patterns only: space-separated terms that must
// all occur (case-sensitive), "quoted phrases", ?term alternatives and
// -term exclusions. JSON ({ $.x = 1 }), space-delimited ([a, b]) and
// regular-expression (%re%) patterns are refused with
// InvalidParameterException rather than answered wrongly. Metric filters,
// subscriptions, Insights queries, KMS association, data protection and
// cross-account identifiers are not emulated. storedBytes counts message
// bytes plus the 26-byte per-event overhead that PutLogEvents quotas use; in
// AWS it lags by hours.
package loggroup
