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
//	runId           S     run the task belongs to (projected into live)
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
//	liveKey         S     "live#<NN>" while Pending or Running, absent after
//	liveSince       N     epoch ms; when it became live (creation or retry), absent after
//	doneRun         S     runId ("-" without one) once terminal, absent while live
//	expiresAt       N     epoch SECONDS; TTL of terminal rows (optional)
//
// # Indexes
//
// DynamoDB writes an index entry when the index key or a projected
// attribute changes, two when the key changes, and nothing when neither
// does (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes).
// The indexes are chosen so that only entering and leaving the live set
// writes them: per task on the happy path, 3 table writes (create, claim,
// finish) and 3 index writes (live put at creation; live delete and done
// put at the terminal write). A release and each further claim write the
// table only.
//
// live: partition key liveKey, sort key liveSince, projecting runId.
// Sparse: only Pending and Running rows carry liveKey and liveSince, set by
// Create and Retry and left alone by Claim and Release; Finish, Fail and
// the exhausted claim REMOVE them, so the index holds the live work only and
// its size and cost do not grow with history
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-indexes-general-sparse-indexes.html).
// ListLive queries "liveKey = live#NN AND liveSince < :before" shard by
// shard, oldest first, and reads those rows (BatchGetItem) to keep the
// ones in the asked state that are due: a task's due time (became Pending,
// or lease end) is never before liveSince, so the query finds every due
// task. The reconciler's happy path reads no row: nothing has been live
// longer than its grace. While a large run waits in the queue, its old
// Pending tasks are read on each pass, half a read unit each.
//
// done: partition key doneRun, sort key taskId, projection ALL. Sparse:
// the write that makes a task terminal sets doneRun, and Retry removes it.
// That write is the row's last, so the whole-item projection costs one
// index write per task, and RunTasks and RunCounts read a run's terminal
// tasks from it without touching the table. A run's live tasks are found in
// the live index (filtered on runId) and read from the table: a finished
// run costs no row read, a running one half a read unit per live task.
//
// # Why the live key is sharded
//
// A single value of a GSI partition key lives in one partition, which takes
// about 1,000 write units per second (splitting it on the sort key does not
// help here: liveSince grows with time, so new entries all land at the
// tail); and when an index cannot absorb writes, DynamoDB throttles the
// writes to the base table
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/gsi-throttling.html,
// bp-partition-key-sharding.html). A production run creates up to 3,575
// tasks in one burst of BatchWriteItem calls, each putting a live entry.
// With one key ("live"), the submit burst alone asks a single partition for
// thousands of writes per second and would throttle the submitter.
// Suffixing it with shard = fnv32a(taskId) % LiveShards ("live#00" …
// "live#07") spreads those writes over LiveShards partition keys, so the
// limit becomes LiveShards × 1,000 writes/s. A task keeps its shard for
// life, because the shard depends on the id only. The price is on the read
// side: ListLive, RunTasks and RunCounts make LiveShards queries per pass.
// The done index needs no sharding: its writes come at the rate tasks end,
// which the scrapers' concurrency caps.
//
// Rows must be written by Create (or with Store.Item, which derives liveKey
// and liveSince). A Pending row that another writer puts without them is
// still dispatched by the Pipe and finished by the scraper (which adds it to
// the done index), but while it is live neither the reconciler nor a run's
// listing sees it: a claim does not add it to the live index.
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
