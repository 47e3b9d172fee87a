// Package dynamostore is the task.Store on DynamoDB, through aws-sdk-go-v2.
// It owns the table layout below; Terraform's task-table module creates
// the same one (TableInput is the code form of it).
//
// # Table
//
// One item per task, partition key taskId (S), no sort key. On-demand
// billing. Stream NEW_AND_OLD_IMAGES: the Pipe filters records whose new
// image has status "Pending" and whose old image has no status or another
// one. TTL on expiresAt when Options.ResultTTL is set.
//
//	attribute       type  meaning
//	taskId          S     partition key
//	runId           S     run the task belongs to (byRun partition key)
//	url             S     page to scrape
//	status          S     Pending | Running | Finished | Failed
//	attempts        N     claims so far
//	maxAttempts     N     claims allowed (default 3)
//	claimToken      S     token of the latest claim (fences Finish/Fail/Release)
//	leaseExpiresAt  N     epoch ms; the latest claim's lease end
//	createdAt       N     epoch ms
//	updatedAt       N     epoch ms; every write sets it
//	finishedAt      N     epoch ms; set when the task becomes terminal
//	lastError       S     latest failure, at most 1 KiB
//	errorKind       S     fatal | retryable | poison | exhausted | stuck
//	result          S     JSON summary, at most 16 KiB (Finished only)
//	liveKey         S     "<State>#<NN>" while Pending or Running, absent after
//	dueAt           N     epoch ms; when it became Pending, or its lease end while Running
//	expiresAt       N     epoch SECONDS; TTL of terminal rows (optional)
//
// # Indexes
//
// byRun: partition key runId, sort key taskId, projection ALL. It serves
// run progress (RunCounts, projecting only status) and the results export
// (RunTasks, pages in task-id order).
//
// live: partition key liveKey, sort key dueAt, projection ALL. Sparse: only
// Pending and Running rows carry liveKey and dueAt; Finish, Fail and the
// exhausted claim REMOVE them, so the index holds the live work only and its
// size and cost do not grow with history
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-indexes-general-sparse-indexes.html).
// ListLive queries "liveKey = <State>#NN AND dueAt < :before" shard by
// shard, oldest first: the reconciler's "Pending for longer than the grace"
// and "Running with a lease expired longer ago than the grace". Nothing
// scans the table.
//
// # Why the live key is sharded
//
// A single value of a GSI partition key lives in one partition, which takes
// about 1,000 write units per second (splitting it on the sort key does not
// help here: dueAt grows with time, so new entries all land at the tail);
// and when an index cannot absorb writes, DynamoDB throttles the writes to
// the base table
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/gsi-throttling.html,
// bp-partition-key-sharding.html). Every task transition writes the live
// index: Create puts an entry, Claim moves it (a delete and a put, as the key
// changes), Release moves it again, Finish/Fail delete it; four to six index
// writes per task. A production run creates up to 3,575 tasks in one burst
// of BatchWriteItem calls, and 140 concurrent scrapers then claim and finish
// them. With one key per state ("Pending"), the submit burst alone asks a
// single partition for thousands of writes per second and would throttle the
// submitter. Suffixing the state with shard = fnv32a(taskId) % LiveShards
// ("Pending#00" … "Pending#07") spreads those writes over LiveShards
// partition keys, so the limit becomes LiveShards × 1,000 writes/s per
// state. A task keeps its shard for life, because the shard depends on the
// id only. The price is on the read side: ListLive makes LiveShards queries
// per pass, which is cheap for a reconciler that runs every 5 minutes.
//
// Rows must be written by Create (or with Store.Item, which derives liveKey
// and dueAt). A Pending row that another writer puts without them is still
// dispatched by the Pipe, but the reconciler cannot see it until its first
// claim adds it to the index.
//
// Raising the shard count: readers must know every shard that writers use.
// Deploy the readers (reconciler, CLI) with the larger LiveShards first, they
// query the new, still empty shards harmlessly, then the writers. Lowering
// it is the reverse, and the readers may drop the high shards only after no
// live row uses them (after a drain, or after a Retry of the rows there).
//
// # Transitions
//
// Claim is one conditional UpdateItem with ReturnValues ALL_NEW and
// ReturnValuesOnConditionCheckFailure ALL_OLD, so neither the happy path nor
// a refusal needs a read; an exhausted task costs one more conditional write.
// Finish, Fail and Release are conditional on "status = Running AND
// claimToken = :token" (fencing). All times come from the caller's params,
// stored to the millisecond. Reads of the indexes are eventually
// consistent; Get reads the table with strong consistency.
package dynamostore
