package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/cli"
	"github.com/taskpipe/taskpipe/internal/e2e/fixtureweb"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/function"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/mapping"
	"github.com/taskpipe/taskpipe/internal/localaws/localcloud"
	"github.com/taskpipe/taskpipe/internal/task"
)

func TestLatencyOf(t *testing.T) {
	t.Parallel()
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100 down to 1: sorting is LatencyOf's job
	}
	tests := []struct {
		name          string
		in            []time.Duration
		p50, p95, max time.Duration
	}{
		{"empty", nil, 0, 0, 0},
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond},
		{"two", ms(10, 20), 10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond},
		{"nearest rank of 100", ms(hundred...), 50 * time.Millisecond, 95 * time.Millisecond, 100 * time.Millisecond},
		{"odd count", ms(5, 1, 3, 2, 4), 3 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]time.Duration(nil), tc.in...)
			l := LatencyOf(tc.in)
			require.Equal(t, len(tc.in), l.N)
			require.Equal(t, tc.p50, l.P50)
			require.Equal(t, tc.p95, l.P95)
			require.Equal(t, tc.max, l.Max)
			require.Equal(t, in, tc.in, "LatencyOf must not reorder its argument")
		})
	}
}

func s(v string) streamtypes.AttributeValue { return &streamtypes.AttributeValueMemberS{Value: v} }
func n(v string) streamtypes.AttributeValue { return &streamtypes.AttributeValueMemberN{Value: v} }

type item = map[string]streamtypes.AttributeValue

func TestItemSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		item item
		want int
	}{
		{"empty", item{}, 0},
		{"string", item{"ab": s("hello")}, 2 + 5},
		{"utf-8 bytes", item{"k": s("é")}, 1 + 2},
		{"number digits", item{"n": n("12345")}, 1 + 4},        // 5 digits: 3 bytes + 1
		{"number trailing zeros", item{"n": n("1000")}, 1 + 2}, // 1 significant digit
		{"number decimal", item{"n": n("-0.0125")}, 1 + 3},     // 125: 2 + 1
		{"zero", item{"n": n("0")}, 1 + 1},                     // one byte
		{"bool and null", item{"b": &streamtypes.AttributeValueMemberBOOL{Value: true}, "z": &streamtypes.AttributeValueMemberNULL{Value: true}}, 2 + 2},
		{"map", item{"m": &streamtypes.AttributeValueMemberM{Value: item{"ab": s("xy")}}}, 1 + 3 + 1 + 2 + 2},
		{"list", item{"l": &streamtypes.AttributeValueMemberL{Value: []streamtypes.AttributeValue{s("a"), s("bc")}}}, 1 + 3 + 1 + 1 + 1 + 2},
		{"string set", item{"ss": &streamtypes.AttributeValueMemberSS{Value: []string{"a", "bcd"}}}, 2 + 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, ItemSize(tc.item))
		})
	}
}

func TestWriteUnits(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1500) // pushes an item past 1 KB
	pending := item{"taskId": s("r/1"), "runId": s("r"), "status": s("Pending"), "liveKey": s("live#01"), "liveSince": n("1")}
	running := item{"taskId": s("r/1"), "runId": s("r"), "status": s("Running"), "liveKey": s("live#01"), "liveSince": n("1"), "leaseExpiresAt": n("9")}
	released := item{"taskId": s("r/1"), "runId": s("r"), "status": s("Running"), "liveKey": s("live#01"), "liveSince": n("1"), "leaseExpiresAt": n("2"), "lastError": s("e")}
	finished := item{"taskId": s("r/1"), "runId": s("r"), "status": s("Finished"), "doneRun": s("r"), "result": s(big)}
	moved := item{"taskId": s("r/1"), "runId": s("q"), "status": s("Running"), "liveKey": s("live#01"), "liveSince": n("1")}
	retried := item{"taskId": s("r/1"), "runId": s("r"), "status": s("Pending"), "liveKey": s("live#01"), "liveSince": n("7")}
	tests := []struct {
		name         string
		old, new     item
		table, index float64
	}{
		{"nothing", nil, nil, 0, 0},
		{"insert: table and live put", nil, pending, 1, 1},
		{"claim changes nothing the live index holds", pending, running, 1, 0},
		{"release neither", running, released, 1, 0},
		{"a projected attribute changed: one update", running, moved, 1, 1},
		{"finish: live delete, done put of the whole item; the bigger image counts", running, finished, 2, 1 + 2},
		{"retry: done delete, live put", finished, retried, 2, 2 + 1},
		{"remove", finished, nil, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			table, index := WriteUnits(tc.old, tc.new, taskIndexes)
			require.Equal(t, tc.table, table, "table units")
			require.Equal(t, tc.index, index, "index units")
		})
	}
}

func TestDynamoUsageFromRecordsAndRequests(t *testing.T) {
	t.Parallel()
	var u DynamoUsage
	u.addRecord(streamtypes.Record{EventName: streamtypes.OperationTypeInsert, Dynamodb: &streamtypes.StreamRecord{
		NewImage: item{"taskId": s("r/1"), "doneRun": s("r")}}})
	u.addRecord(streamtypes.Record{EventName: streamtypes.OperationTypeModify, Dynamodb: &streamtypes.StreamRecord{
		OldImage: item{"taskId": s("r/1"), "doneRun": s("r")}, NewImage: item{"taskId": s("r/1"), "doneRun": s("r"), "x": s("y")}}})
	u.addRecord(streamtypes.Record{EventName: streamtypes.OperationTypeModify}) // no images: ignored
	u.addRequests([]localcloud.CallerCount{
		{Caller: localcloud.ClientCaller, Service: "dynamodb", Operation: "BatchWriteItem", Count: 1},
		{Caller: "scraper", Service: "dynamodb", Operation: "UpdateItem", Count: 4},
		{Caller: "reconciler", Service: "dynamodb", Operation: "Query", Count: 16},
		{Caller: localcloud.ClientCaller, Service: "dynamodb", Operation: "Query", Count: 9},
		{Caller: "scraper", Service: "sqs", Operation: "UpdateItem", Count: 100}, // another service
	})
	require.Equal(t, 1, u.Inserts)
	require.Equal(t, 1, u.Modifies)
	require.Equal(t, 2, u.StreamRecords())
	require.Equal(t, 2.0, u.TableWriteUnits)
	require.Equal(t, 2.0, u.IndexWriteUnits) // done put and update
	require.Equal(t, int64(3), u.FailedWrites, "4 UpdateItem calls left 1 MODIFY record")
	require.Equal(t, 7.0, u.WriteUnits())
	require.Equal(t, int64(16), u.PipelineReads)
	require.Equal(t, int64(9), u.OperatorReads)
	require.Equal(t, 8.0, u.ReadUnits())
}

func TestParseReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		ok   bool
		want reportFields
	}{
		{"text with init", "REPORT RequestId: 1a\tDuration: 19.23 ms\tBilled Duration: 28 ms\tMemory Size: 512 MB\tMax Memory Used: 14 MB\tInit Duration: 8.17 ms\t",
			true, reportFields{durationMS: 19.23, billedMS: 28, maxMemMB: 14, init: true}},
		{"text warm", "REPORT RequestId: 1a\tDuration: 1.50 ms\tBilled Duration: 2 ms\tMemory Size: 128 MB\tMax Memory Used: 9 MB\t",
			true, reportFields{durationMS: 1.5, billedMS: 2, maxMemMB: 9}},
		{"text timeout", "REPORT RequestId: 1a\tDuration: 30000.00 ms\tBilled Duration: 30000 ms\tMemory Size: 128 MB\tMax Memory Used: 9 MB\tStatus: timeout",
			true, reportFields{durationMS: 30000, billedMS: 30000, maxMemMB: 9}},
		{"json", `{"time":"t","type":"platform.report","record":{"requestId":"1a","metrics":{"durationMs":3.2,"billedDurationMs":4,"memorySizeMB":128,"maxMemoryUsedMB":11,"initDurationMs":5}}}`,
			true, reportFields{durationMS: 3.2, billedMS: 4, maxMemMB: 11, init: true}},
		{"json other record", `{"type":"platform.start","record":{}}`, false, reportFields{}},
		{"app log mentioning REPORT", `{"msg":"REPORT RequestId: x"}`, false, reportFields{}},
		{"START", "START RequestId: 1a Version: $LATEST", false, reportFields{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseReport(tc.line)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestLineOf(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]int{cli.TaskID("demo-1", 42): 42, cli.TaskID("a/b", 1): 1, "noslash": -1, "r/x": -1} {
		got, ok := lineOf(id)
		require.Equal(t, want >= 0, ok, id)
		if ok {
			require.Equal(t, want, got, id)
		}
	}
}

func TestIgnoredLines(t *testing.T) {
	t.Parallel()
	require.Equal(t, 3, ignoredLines([]string{"http://a", "", "  \t ", "# note", "x"}))
}

func TestParseOutputs(t *testing.T) {
	t.Parallel()
	raw := map[string][]byte{
		"table_name": []byte(`"t"`), "work_queue_url": []byte(`"q"`), "work_dlq_url": []byte(`"d"`),
		"pipe_name": []byte(`"p"`), "pipe_dlq_url": []byte(`"pd"`), "schedule_name": []byte(`"s"`),
		"function_names":     []byte(`{"scraper":"a","reconciler":"b","enrich":"c"}`),
		"lambda_environment": []byte(`{"LIVE_SHARDS":"8"}`),
		"result_bucket_name": []byte(`"rb"`), "result_prefix": []byte(`""`),
	}
	o, err := parseOutputs(raw)
	require.NoError(t, err)
	require.Equal(t, "t", o.TableName)
	require.Equal(t, "b", o.Functions["reconciler"])
	shards, err := o.liveShards()
	require.NoError(t, err)
	require.Equal(t, 8, shards)

	delete(raw, "pipe_name")
	raw["function_names"] = []byte(`{"scraper":"a"}`)
	_, err = parseOutputs(raw)
	require.ErrorContains(t, err, "pipe_name")
	require.ErrorContains(t, err, "function_names.reconciler")

	raw["pipe_name"] = []byte(`42`)
	_, err = parseOutputs(raw)
	require.ErrorContains(t, err, "terraform output pipe_name")

	_, err = Outputs{LambdaEnv: map[string]string{"LIVE_SHARDS": "x"}}.liveShards()
	require.ErrorContains(t, err, "LIVE_SHARDS")
}

func TestCopyStackKeepsTheRepositoryLayoutAndSkipsState(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("terraform/modules/m/main.tf", "# module")
	write("terraform/examples/local/main.tf", `module "m" { source = "../../modules/m" }`)
	write("terraform/examples/local/terraform.tfstate", "{}")
	write("terraform/examples/local/.terraform.lock.hcl", "")
	write("terraform/examples/local/.terraform/providers/x", "")
	tmp := t.TempDir()
	dir, err := copyStack(root, filepath.Join(root, "terraform/examples/local"), tmp)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(tmp, "terraform/examples/local"), dir)
	require.FileExists(t, filepath.Join(dir, "main.tf"))
	require.FileExists(t, filepath.Join(tmp, "terraform/modules/m/main.tf"))
	require.NoFileExists(t, filepath.Join(dir, "terraform.tfstate"))
	require.NoFileExists(t, filepath.Join(dir, ".terraform.lock.hcl"))
	require.NoDirExists(t, filepath.Join(dir, ".terraform"))
}

// consistentReport is a report whose every count agrees, as a clean run of
// 10 lines leaves it: 1 rejected, 1 blank, 8 tasks: 6 finished (one after
// a retry), 1 fatal, 1 exhausted after 3 claims.
func consistentReport() *Report {
	r := &Report{
		Lines: 10, Blank: 1, Submitted: 8, Quiet: true,
		Input:    &cli.Input{Rejected: []cli.Rejection{{Line: 3, Reason: "bad"}}},
		Expected: fixtureweb.Tally{Lines: 10, Rejected: 2, Tasks: 8, Finished: 6, FailedFatal: 1, FailedExhausted: 1, Requests: 14},
		Outcomes: Outcomes{Tasks: 8, Claims: 11, Released: 3,
			States:       map[task.State]int{task.StateFinished: 6, task.StateFailed: 2},
			FailedByKind: map[task.ErrorKind]int{task.KindFatal: 1, task.KindExhausted: 1}},
		Metrics: Metrics{Finished: 6, Failed: 2, FailedFatal: 1, FailedExhausted: 1, Released: 3, PipeEvents: 8, PipeInvocations: 1},
		Functions: []FunctionReport{{Role: "scraper", Name: "s", Arch: "x86_64", MemoryMB: 512, Reports: 11,
			Stats: function.Stats{Invocations: 11}, BilledMS: 1100}},
		Mapping:   mapping.Stats{Batches: 11, Deleted: 8},
		Web:       fixtureweb.Stats{Requests: 14},
		Documents: Documents{Finished: 6, Objects: 6, Pages: 9, Bytes: 6000},
		// One duplicate delivery rewrote its object.
		Requests: []localcloud.CallerCount{{Caller: "s", Service: "s3", Operation: "PutObject", Count: 7}},
	}
	return r
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	for _, c := range Reconcile(consistentReport()) {
		require.Truef(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
	tests := []struct {
		name   string
		break_ func(r *Report)
		fails  string
	}{
		{"a live task", func(r *Report) { r.Outcomes.States[task.StateRunning] = 1 }, "every task terminal"},
		{"a stuck task listed", func(r *Report) { r.Stuck = []task.Task{{ID: "x"}} }, "every task terminal"},
		{"a task not read back", func(r *Report) { r.Outcomes.Tasks = 7 }, "every task terminal"},
		{"lost a finished task", func(r *Report) { r.Outcomes.States[task.StateFinished] = 5 }, "finished + failed = submitted"},
		{"one rejection too many", func(r *Report) { r.Input.Rejected = append(r.Input.Rejected, cli.Rejection{Line: 4}) }, "rejected + blank lines"},
		{"blank lines miscounted", func(r *Report) { r.Blank = 0 }, "rejected + blank lines"},
		{"a task ended otherwise", func(r *Report) { r.Mismatches = []Mismatch{{Line: 2}} }, "outcomes = fixture web's expectations"},
		{"fatal instead of exhausted", func(r *Report) {
			r.Outcomes.FailedByKind = map[task.ErrorKind]int{task.KindFatal: 2}
			r.Metrics.FailedFatal, r.Metrics.FailedExhausted = 2, 0
		}, "outcomes = fixture web's expectations"},
		{"a metric lost", func(r *Report) { r.Metrics.Finished = 5 }, "EMF metrics = table"},
		{"stuck counted twice", func(r *Report) { r.Metrics.StuckFailed = 1 }, "EMF metrics = table"},
		{"a release not in the table", func(r *Report) { r.Metrics.Released = 4 }, "retries"},
		{"pipe sent a task twice", func(r *Report) { r.Metrics.PipeEvents = 9 }, "pipe dispatched each task once"},
		{"pipe failure", func(r *Report) { r.Metrics.PipeFailed = 1 }, "pipe dispatched each task once"},
		{"invocation without delivery", func(r *Report) { r.Functions[0].Stats.Invocations = 12 }, "scraper invocations = deliveries"},
		{"REPORT line missing", func(r *Report) { r.Functions[0].Reports = 10 }, "scraper invocations = deliveries"},
		{"delivery not claimed nor skipped", func(r *Report) {
			r.Mapping.Batches = 12
			r.Functions[0].Stats.Invocations = 12
			r.Functions[0].Reports = 12
		},
			"deliveries = claims + skipped"},
		{"extra fetches", func(r *Report) { r.Web.Requests = 15 }, "fixture web requests = expected"},
		{"a DLQ message", func(r *Report) { r.DLQ = []DLQMessage{{Queue: "work", Reason: "poison"}} }, "DLQs empty"},
		{"not quiet", func(r *Report) { r.Quiet = false }, "pipeline quiet"},
		{"a lost document", func(r *Report) { r.Documents.Objects = 5 }, "one S3 document per Finished task"},
		{"a document rewritten with other bytes", func(r *Report) { r.Documents.Unmatched = []string{"runs/r/0000001.json.gz"} },
			"one S3 document per Finished task"},
		{"an object never written", func(r *Report) { r.Requests[0].Count = 5 }, "one S3 document per Finished task"},
		{"no scraper", func(r *Report) { r.Functions = nil }, "scraper invocations = deliveries"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := consistentReport()
			tc.break_(r)
			var failed []string
			for _, c := range Reconcile(r) {
				if !c.OK {
					failed = append(failed, c.Name)
				}
			}
			require.NotEmpty(t, failed)
			require.Containsf(t, strings.Join(failed, "|"), tc.fails, "failed: %v", failed)
		})
	}
}

func TestDuplicatesAreReconciled(t *testing.T) {
	t.Parallel()
	// Two duplicate deliveries, skipped because the task was terminal,
	// keep every check green.
	r := consistentReport()
	r.Mapping.Batches, r.Functions[0].Stats.Invocations, r.Functions[0].Reports = 13, 13, 13
	r.Metrics.DuplicatesSkipped = 2
	for _, c := range Reconcile(r) {
		require.Truef(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	r := consistentReport()
	r.Functions = append(r.Functions, FunctionReport{Role: "enrich", Name: "e", Arch: "x86_64", MemoryMB: 128, Stats: function.Stats{Invocations: 1}, BilledMS: 3, LogBytes: 100})
	r.Functions[0].LogBytes = 900
	r.Requests = []localcloud.CallerCount{
		{Caller: "s", Service: "sqs", Operation: "ChangeMessageVisibility", Count: 3},
		{Caller: "s", Service: "dynamodb", Operation: "UpdateItem", Count: 22},
	}
	r.Dynamo = DynamoUsage{TableWriteUnits: 30, IndexWriteUnits: 60, FailedWrites: 2, PipelineReads: 4}
	u := r.Usage()
	require.Equal(t, 8, u.Tasks)
	require.Len(t, u.Functions, 2)
	require.Equal(t, 11.0, u.Functions[0].Invocations)
	require.Equal(t, 1100.0, u.Functions[0].BilledMS)
	// 3 over HTTP + 11 receives + 8 deletes (mapping) + 8 sends (pipe).
	require.Equal(t, 30.0, u.SQSRequests)
	require.Equal(t, 92.0, u.DynamoWriteUnits)
	require.Equal(t, 2.0, u.DynamoReadUnits)
	require.Equal(t, 8.0, u.PipeRequests)
	require.Equal(t, 1000.0, u.LogBytes)

	e, err := r.estimateARM()
	require.NoError(t, err)
	require.Contains(t, e.Lines[1].Item, "arm64")
}

func TestPrintShowsEverySection(t *testing.T) {
	t.Parallel()
	r := consistentReport()
	r.RunID = "demo-x"
	r.Checks = Reconcile(r)
	var err error
	r.Cost, err = r.estimateARM()
	require.NoError(t, err)
	r.Phases = []Phase{{Name: "run", Duration: 1500 * time.Millisecond}}
	var b strings.Builder
	require.NoError(t, r.Print(&b))
	out := b.String()
	for _, want := range []string{"Summary of run demo-x", "rejected at submit", "retried (released)", "duplicates skipped",
		"task latency", "wall time", "Functions:", "AWS requests of the run", "Cost of 1,000 tasks", "Checks", "ok   every task terminal", "Phases"} {
		require.Contains(t, out, want)
	}
}

func TestCommasAndQty(t *testing.T) {
	t.Parallel()
	require.Equal(t, "0", commas(0))
	require.Equal(t, "999", commas(999))
	require.Equal(t, "1,000", commas(1000))
	require.Equal(t, "-1,234,567", commas(int64(-1234567)))
	require.Equal(t, "1,235", qty(1234.6))
	require.Equal(t, "12.50", qty(12.5))
	require.Equal(t, "0.0123", qty(0.0123))
}
