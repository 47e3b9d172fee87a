package test

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gruntwork-io/terratest/modules/logger"

	"github.com/taskpipe/taskpipe/internal/localaws/tfprovider/tfprovidertest"
)

// TestMain runs the scenarios, then the teardown stage of the deployment
// they shared (a deferred destroy in a single test would run before the
// other scenarios), then prints the key numbers each scenario recorded.
func TestMain(m *testing.M) {
	// Terratest logs through t.Logf: shown with -v or for a failed test,
	// not interleaved with other tests' output.
	logger.Default = logger.TestingT
	// The scenarios mostly wait on timers (visibility timeouts, retries),
	// not on the CPU: run every shared one at once unless -parallel says
	// otherwise (go test's default is GOMAXPROCS).
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", "16"); err != nil {
			fmt.Fprintln(os.Stderr, "set -parallel:", err)
			os.Exit(2)
		}
	}
	start := time.Now()
	stopGuard := guardTeardown(start)
	code := m.Run()
	if !stopGuard() {
		select {} // the guard is tearing down and exits the process
	}
	if err := tearDown(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	tfprovidertest.Cleanup()
	for _, p := range suite.scratch {
		if code == 0 {
			if err := os.RemoveAll(p); err != nil {
				fmt.Fprintln(os.Stderr, "remove scratch space:", err)
			}
		} else {
			fmt.Fprintln(os.Stderr, "kept for inspection:", p)
		}
	}
	if testing.Verbose() {
		printRecords(time.Since(start))
	}
	os.Exit(code)
}

// guardTeardown makes the teardown run when the run does not end on its
// own: on Ctrl-C or SIGTERM, and teardownReserve before go test's
// -timeout, whose panic would end the process without running anything
// after m.Run. It then destroys the deployment and exits 1 (waiting on the
// state lock for an apply in flight, which Ctrl-C also stops). stop ends
// the guard and reports false if the guard has started a teardown.
func guardTeardown(start time.Time) (stop func() bool) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	var deadline <-chan time.Time
	if f := flag.Lookup("test.timeout"); f != nil {
		if timeout, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && timeout > 0 {
			reserve := min(teardownReserve, timeout/3)
			timer := time.NewTimer(time.Until(start.Add(timeout - reserve)))
			defer func() { stop = chainStop(stop, timer.Stop) }()
			deadline = timer.C
		}
	}
	var mu sync.Mutex
	aborting, done := false, make(chan struct{})
	go func() {
		var why string
		select {
		case <-done:
			return
		case s := <-sig:
			why = "interrupted (" + s.String() + ")"
		case <-deadline:
			why = fmt.Sprintf("%s before go test's -timeout", teardownReserve)
		}
		mu.Lock()
		aborting = true
		mu.Unlock()
		fmt.Fprintf(os.Stderr, "\n%s: tearing down the deployment before exiting (do not interrupt again: that would stop terraform destroy)\n", why)
		go func() {
			for s := range sig {
				fmt.Fprintf(os.Stderr, "%s: still tearing down; if you must stop, sweep the leftovers afterwards (test/README.md)\n", s)
			}
		}()
		if err := tearDown(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		tfprovidertest.Cleanup()
		for _, p := range suite.scratch {
			fmt.Fprintln(os.Stderr, "kept for inspection:", p)
		}
		os.Exit(1)
	}()
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if aborting {
			return false
		}
		close(done)
		signal.Stop(sig)
		return true
	}
}

func chainStop(stop func() bool, also func() bool) func() bool {
	return func() bool {
		ok := stop()
		if ok {
			also()
		}
		return ok
	}
}

// records are the key numbers of each scenario, for the summary.
var records struct {
	mu   sync.Mutex
	rows map[string][]string
}

// record logs a key number of the scenario and keeps it for the summary
// TestMain prints (with -v).
func record(t *testing.T, key, format string, args ...any) {
	t.Helper()
	line := key + ": " + fmt.Sprintf(format, args...)
	t.Log(line)
	records.mu.Lock()
	defer records.mu.Unlock()
	if records.rows == nil {
		records.rows = map[string][]string{}
	}
	records.rows[t.Name()] = append(records.rows[t.Name()], line)
}

func printRecords(total time.Duration) {
	records.mu.Lock()
	defer records.mu.Unlock()
	names := make([]string, 0, len(records.rows))
	for n := range records.rows {
		names = append(names, n)
	}
	sort.Strings(names)
	target := "?"
	if suite.target != nil {
		target = suite.target.Name()
	}
	fmt.Printf("\n=== key numbers (%s target, whole run %s)\n", target, total.Round(time.Second))
	for _, n := range names {
		fmt.Printf("%s\n", n)
		for _, l := range records.rows[n] {
			fmt.Printf("    %s\n", l)
		}
	}
}
