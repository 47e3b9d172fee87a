// Package table emulates the DynamoDB API for taskpipe's local cloud, with
// DynamoDB Streams capture built in.
//
// Storage, expressions, conditions, indexes, batches and transactions come
// from minidyn (github.com/truora/minidyn), called in process. This package
// adds what minidyn lacks and the pipeline depends on:
//
//   - the control plane around it: CreateTable, DescribeTable, UpdateTable
//     and DeleteTable with everything the Terraform provider and the SDK
//     waiters read (TableArn, TableStatus, BillingModeSummary, index ARNs
//     and statuses, StreamSpecification, LatestStreamArn/Label, SSE, table
//     class, deletion protection), ListTables, TTL, tags and
//     point-in-time-recovery settings;
//   - stream capture: every write (PutItem, UpdateItem, DeleteItem,
//     BatchWriteItem, TransactWriteItems) on a table with a stream appends
//     INSERT, MODIFY or REMOVE records with the images its view type asks
//     for, in per-key order, and nothing for a write that changes nothing or
//     fails its condition;
//   - an in-process reader API (Stream, Cursor, Read, Wait) used by the
//     DynamoDB Streams API (package stream) and the Pipe runtime.
//
// The AWS behaviour emulated here is documented in
// docs/aws-behaviour.md §2; comments cite its sections.
//
// Not emulated, deliberately: capacity and throttling (ConsumedCapacity is
// never returned), table and index status transitions (everything is ACTIVE
// at once), TTL expiry (the setting is stored; items never expire, so no
// TTL stream records), backups and restores (the PITR flag is stored),
// global tables, PartiQL, and the legacy parameters (Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter,
// AttributesToGet), which are rejected rather than ignored. TableSizeBytes
// is always 0. Each stream has a single shard for its whole life; AWS uses
// many shards that roll over every few hours, but consumers may rely only on
// per-key order, which one shard preserves.
package table
