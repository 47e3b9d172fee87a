//go:build linux

package localcloud_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/pipes"
	ptypes "github.com/aws/aws-sdk-go-v2/service/pipes/types"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// BenchmarkEndToEnd measures the assembled local cloud's throughput from a
// row written Pending (PutItem through the SDK) to its handler done: the
// stream capture, the Pipe ("becomes Pending" filters) to the work queue,
// the event source mapping (batch 1, MaximumConcurrency 20) and a real
// bootstrap process per concurrent invocation.
//
// A task is done when the mapping has deleted its message, which happens
// only after the handler returned success (mapping Stats.Deleted). Counting
// there costs the system under test nothing; a handler write would add a
// request per task to what is measured. The two sub-benchmarks differ in
// what the handler does:
//
//	ack     returns success at once: the local cloud's own cost per task
//	finish  marks the row Finished with a conditional UpdateItem through
//	        the SDK, as the real scraper's finish does (a check afterwards
//	        makes sure every row was written exactly once)
//	drain   as ack, but the rows are written while the pipe is stopped,
//	        outside the timed window, which then runs from StartPipe until
//	        the last task is done: the pipeline's own capacity, without the
//	        writers competing for the two cores
//
// Metrics: tasks/s; cloud-cpu-ms/task, the CPU time of this process
// (getrusage RUSAGE_SELF: the local cloud plus the benchmark's own PutItem
// clients); bootstrap-cpu-ms/task, the CPU time of the bootstrap
// processes during the timed window (their /proc/<pid>/stat times, plus
// RUSAGE_CHILDREN for any that exited); processes, the bootstraps started;
// peak-concurrency, the mapping's peak (at most 20);
// inserts/s, the rate of the writers alone (when it is close to tasks/s,
// the pipeline kept up with its input and the writers set the pace).
//
// Run with a fixed count, e.g. -benchtime=2000x: each run sets up a fresh
// cloud and warms 20 processes first, outside the timed window.
func BenchmarkEndToEnd(b *testing.B) {
	for _, name := range []string{"ack", "finish", "drain"} {
		b.Run(name, func(b *testing.B) { benchEndToEnd(b, name) })
	}
}

const (
	benchConcurrency = 20
	benchWriters     = 4
	benchWarmup      = 3 * benchConcurrency
)

func benchEndToEnd(b *testing.B, name string) {
	mode, drain := name, name == "drain"
	if drain {
		mode = "ack"
	}
	e := startCloud(b)
	p := newPipeline(b, e, mode, benchConcurrency)

	// Warm up: start the processes the mapping's concurrency allows, so the
	// timed window measures the steady state, not 20 cold starts.
	if err := p.insert(b.Context(), "warm", benchWarmup); err != nil {
		b.Fatal(err)
	}
	p.waitDone(b, benchWarmup)
	if drain {
		_, err := p.pipes.StopPipe(b.Context(), &pipes.StopPipeInput{Name: aws.String("dispatch")})
		if err != nil {
			b.Fatal(err)
		}
		p.waitPipe(b, ptypes.PipeStateStopped)
		if err := p.insert(b.Context(), "task", b.N); err != nil {
			b.Fatal(err)
		}
	}
	e.cloud.ResetCounts()

	b.ResetTimer()
	self0, kids0 := cpuSelf(b), cpuChildren(b)
	start := time.Now()
	if drain {
		if _, err := p.pipes.StartPipe(b.Context(), &pipes.StartPipeInput{Name: aws.String("dispatch")}); err != nil {
			b.Fatal(err)
		}
	} else if err := p.insert(b.Context(), "task", b.N); err != nil {
		b.Fatal(err)
	}
	inserted := time.Since(start)
	p.waitDone(b, benchWarmup+int64(b.N))
	elapsed := time.Since(start)
	self1, kids1 := cpuSelf(b), cpuChildren(b)
	b.StopTimer()

	st := e.mappingStats(b, p.uuid)
	if st.FunctionErrors != 0 || st.ItemFailures != 0 || st.FailedBatches != 0 {
		b.Fatalf("tasks failed: %+v", st)
	}
	if mode == "finish" {
		var updates int64
		for _, r := range e.cloud.CountsByCaller() {
			if r.Caller == p.fn && r.Service == emu.ServiceDynamoDB && r.Operation == "UpdateItem" {
				updates = r.Count
			}
		}
		if updates != int64(b.N) {
			b.Fatalf("the handler finished %d tasks, want %d: %v", updates, b.N, e.cloud.CountsByCaller())
		}
	}
	fs, err := e.cloud.Functions().Stats(p.fn)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(n/elapsed.Seconds(), "tasks/s")
	if !drain {
		b.ReportMetric(n/inserted.Seconds(), "inserts/s")
	}
	b.ReportMetric(float64((self1-self0).Microseconds())/1000/n, "cloud-cpu-ms/task")
	b.ReportMetric(float64((kids1-kids0).Microseconds())/1000/n, "bootstrap-cpu-ms/task")
	b.ReportMetric(float64(fs.ColdStarts), "processes")
	b.ReportMetric(float64(st.PeakConcurrency), "peak-concurrency")
}

// insert writes n Pending rows with benchWriters concurrent SDK clients.
func (p *pipeline) insert(ctx context.Context, prefix string, n int) error {
	var wg sync.WaitGroup
	errs := make([]error, benchWriters)
	for w := range benchWriters {
		wg.Go(func() {
			for i := w; i < n; i += benchWriters {
				_, err := p.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(p.table),
					Item: map[string]ddbtypes.AttributeValue{
						"taskId": &ddbtypes.AttributeValueMemberS{Value: prefix + "-" + strconv.Itoa(i)},
						"status": &ddbtypes.AttributeValueMemberS{Value: "Pending"},
					}})
				if err != nil {
					errs[w] = fmt.Errorf("insert %s-%d: %w", prefix, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// waitDone waits until the mapping has acknowledged n messages in all.
// Stats is an in-process read of atomic counters, so polling it every
// millisecond costs the measurement next to nothing.
func (p *pipeline) waitDone(b *testing.B, n int64) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Minute) // a hang detector
	for {
		st := p.mappingStats(b, p.uuid)
		if st.Deleted >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d tasks done after 5 minutes: %+v", st.Deleted, n, st)
		}
		time.Sleep(time.Millisecond)
	}
}

// cpuSelf is this process's user+system CPU time.
func cpuSelf(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return tv(ru.Utime) + tv(ru.Stime)
}

// cpuChildren is the CPU time of this process's children: RUSAGE_CHILDREN
// counts only children that have exited and been waited for, so the live
// ones (the warm bootstraps) are read from /proc/<pid>/stat. A child that
// exits between two readings moves from the second term to the first, so
// differences stay exact.
func cpuChildren(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		b.Fatal(err)
	}
	total := tv(ru.Utime) + tv(ru.Stime)
	live, err := liveChildrenCPU(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	return total + live
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture Go supports (proc(5)).
const clockTick = 10 * time.Millisecond

// liveChildrenCPU sums utime+stime of the processes whose parent is ppid.
func liveChildrenCPU(ppid int) (time.Duration, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, fmt.Errorf("list processes: %w", err)
	}
	var total time.Duration
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the process exited meanwhile; RUSAGE_CHILDREN has it
		}
		// Fields after the parenthesised command name (which may hold
		// spaces): state ppid pgrp session tty_nr tpgid flags minflt
		// cminflt majflt cmajflt utime stime …
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			return 0, fmt.Errorf("parse %s: no command name", path)
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			return 0, fmt.Errorf("parse %s: %d fields", path, len(f))
		}
		parent, err := strconv.Atoi(f[1])
		if err != nil {
			return 0, fmt.Errorf("parse %s ppid: %w", path, err)
		}
		if parent != ppid {
			continue
		}
		utime, err := strconv.ParseInt(f[11], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s utime: %w", path, err)
		}
		stime, err := strconv.ParseInt(f[12], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s stime: %w", path, err)
		}
		total += time.Duration(utime+stime) * clockTick
	}
	return total, nil
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}
