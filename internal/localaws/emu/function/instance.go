package function

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// instState is where an execution environment is in its life.
type instState int

const (
	stStarting  instState = iota // spawned for an invocation, not yet at /next
	stAssigned                   // an invocation handed to a warm process
	stInvoking                   // the invocation was delivered through /next
	stFinishing                  // the outcome is known; waiting for the next /next
	stIdle                       // warm, blocked in /next
	stDead
)

// shutdownGrace is how long a runtime that registered for SIGTERM gets
// between SIGTERM and SIGKILL: 500 ms for a function whose only extensions
// are internal ("Lambda execution environment lifecycle", Shutdown phase).
const shutdownGrace = 500 * time.Millisecond

// instance is one execution environment: a bootstrap process with its own
// Runtime API listener.
type instance struct {
	svc    *Service
	fn     *function
	id     string // 32 hex digits, as in Lambda log stream names
	gen    int
	code   *codeVersion
	cfg    Configuration // the configuration it was started with
	stream string        // its log stream
	caller *emu.Caller

	// Guarded by Service.mu.
	state    instState
	counted  bool // holds one of the function's invocation slots
	lastUsed time.Time

	addr   string
	ln     net.Listener
	srv    *http.Server
	tmpDir string
	out    *output

	// Written once by start under mu, before the process can call the
	// Runtime API; read under mu by the Runtime API handlers.
	cmd     *exec.Cmd
	pid     int
	started time.Time // real clock

	assign     chan *invocation // capacity 1: the next invocation for /next
	exited     chan struct{}    // closed once the process has exited
	exitDesc   string           // "exit status 2", "signal: killed"; set before exited closes
	initFailed chan struct{}    // closed when the runtime posts /init/error
	stopping   chan struct{}    // closed when shutdown begins
	stopOnce   sync.Once
	failOnce   sync.Once

	mu           sync.Mutex
	cur          *invocation // the invocation delivered to the runtime, until the next /next
	lastID       string      // the id of the last finished invocation
	initErr      []byte
	initErrType  string
	initDone     bool
	initDuration time.Duration
	sigterm      bool // a runtime extension registered, so shutdown sends SIGTERM first
	extID        string
	extShutdown  bool // the extension registered for SHUTDOWN events
	maxRSSKB     int64
	// logStream: the environment's log stream was created (its first
	// delivered event); logDenied: the last delivery was denied, and
	// reported.
	logStream bool
	logDenied bool
}

func newInstanceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// newInstanceLocked creates the bookkeeping of an environment for fn's
// current generation; start launches it.
func (s *Service) newInstanceLocked(fn *function) *instance {
	inst := &instance{
		svc: s, fn: fn, id: newInstanceID(), gen: fn.gen, code: fn.code, cfg: fn.configLocked(),
		state: stStarting, counted: true, lastUsed: time.Now(),
		assign: make(chan *invocation, 1), exited: make(chan struct{}),
		initFailed: make(chan struct{}), stopping: make(chan struct{}),
	}
	// Lambda names streams "YYYY/MM/DD/[$LATEST]<instance id>".
	inst.stream = s.opts.Now().UTC().Format("2006/01/02") + "/[$LATEST]" + inst.id
	inst.caller = &emu.Caller{Function: fn.name, Instance: inst.id, Kill: inst.kill, Freeze: inst.freeze}
	fn.code.users++
	fn.instances[inst] = struct{}{}
	fn.busy++
	if fn.busy > fn.stats.PeakConcurrent {
		fn.stats.PeakConcurrent = fn.busy
	}
	fn.stats.ColdStarts++
	return inst
}

// startError is a failure to launch the bootstrap; the invocation fails
// with it as Lambda fails an invoke whose runtime cannot start.
type startError struct {
	errType string
	msg     string
}

func (e *startError) Error() string { return e.errType + ": " + e.msg }

// start opens the instance's listener and execs its bootstrap.
func (inst *instance) start() error {
	s := inst.svc
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return &startError{"Sandbox.Failure", fmt.Sprintf("listen for the Runtime API: %v", err)}
	}
	inst.ln, inst.addr = ln, ln.Addr().String()
	inst.srv = &http.Server{
		Handler:           inst,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = inst.srv.Serve(ln) // ends with ErrServerClosed when the instance stops
	}()

	bootstrap := filepath.Join(inst.code.dir, "bootstrap")
	if fi, err := os.Stat(bootstrap); err != nil || fi.IsDir() {
		// Source: the provided.* runtimes' answer when the package has no
		// bootstrap at its root.
		return &startError{"Runtime.InvalidEntrypoint", "Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]"}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(inst.code.dir), "tmp-"+inst.id[:8]+"-")
	if err != nil {
		return &startError{"Sandbox.Failure", fmt.Sprintf("create /tmp: %v", err)}
	}
	inst.tmpDir = tmp
	pr, pw, err := os.Pipe()
	if err != nil {
		return &startError{"Sandbox.Failure", fmt.Sprintf("create output pipe: %v", err)}
	}
	cmd := exec.Command(bootstrap)
	cmd.Dir = inst.code.dir
	cmd.Env = inst.environ()
	// stdout and stderr share one pipe, so lines keep the order the
	// function wrote them in, as they do in the function's log stream.
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = procAttr()
	// The child's first /next reads started and pid; holding inst.mu from
	// before the exec until both are set orders those reads after them.
	inst.mu.Lock()
	inst.started = time.Now()
	if err := cmd.Start(); err != nil {
		inst.mu.Unlock()
		_ = pw.Close() // nothing was written
		_ = pr.Close()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		// Lambda reports exec failures (no execute bit, a binary for the
		// wrong architecture) as Runtime.InvalidEntrypoint.
		return &startError{"Runtime.InvalidEntrypoint", fmt.Sprintf("fork/exec /var/task/bootstrap: %v", err)}
	}
	inst.cmd, inst.pid = cmd, cmd.Process.Pid
	inst.mu.Unlock()
	_ = pw.Close() // the child holds its own copy
	inst.out = newOutput(inst, pr)
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		inst.out.run()
	}()
	go func() {
		defer s.wg.Done()
		inst.wait()
	}()
	s.log.Debug("lambda instance started", "function", inst.fn.name, "instance", inst.id, "pid", inst.pid, "runtimeApi", inst.addr)
	return nil
}

// environ builds the process environment from scratch: the function's
// variables, then the ones Lambda defines, which win (RIE builds it in the
// same order; docs/aws-behaviour.md §4.5, §4.6). _LAMBDA_SERVER_PORT is never
// set, so aws-lambda-go uses the Runtime API (docs/aws-behaviour.md §4.4).
func (inst *instance) environ() []string {
	s, cfg := inst.svc, inst.cfg
	env := map[string]string{}
	if cfg.Environment != nil {
		for k, v := range cfg.Environment.Variables {
			env[k] = v
		}
	}
	platform := map[string]string{
		"AWS_LAMBDA_RUNTIME_API": inst.addr,
		// Every AWS SDK call of the function reaches this instance's
		// listener, which forwards it to the local cloud tagged with the
		// caller, so faults can target the exact process.
		"AWS_ENDPOINT_URL":                "http://" + inst.addr,
		"AWS_LAMBDA_FUNCTION_NAME":        cfg.FunctionName,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(cfg.MemorySize),
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_INITIALIZATION_TYPE":  "on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME":       cfg.LoggingConfig.LogGroup,
		"AWS_LAMBDA_LOG_STREAM_NAME":      inst.stream,
		"AWS_REGION":                      s.opts.Region,
		"AWS_DEFAULT_REGION":              s.opts.Region,
		// Dummy credentials: the local cloud accepts any, but the SDKs
		// refuse to sign without some.
		"AWS_ACCESS_KEY_ID":     "ASIALOCALCLOUDLAMBDA",
		"AWS_ACCESS_KEY":        "ASIALOCALCLOUDLAMBDA",
		"AWS_SECRET_ACCESS_KEY": "local-cloud-secret",
		"AWS_SESSION_TOKEN":     "local-cloud-session:" + cfg.FunctionName,
		"_HANDLER":              cfg.Handler,
		"LAMBDA_TASK_ROOT":      inst.code.dir,
		"LAMBDA_RUNTIME_DIR":    inst.code.dir,
		"TZ":                    ":UTC",
		"LANG":                  "en_US.UTF-8",
		"PATH":                  "/usr/local/bin:/usr/bin/:/bin:/opt/bin",
		// Lambda gives each environment its own /tmp; here it is a
		// private directory, removed when the process stops.
		"TMPDIR": inst.tmpDir,
	}
	if cfg.LoggingConfig.LogFormat == "JSON" {
		platform["AWS_LAMBDA_LOG_FORMAT"] = "JSON"
		platform["AWS_LAMBDA_LOG_LEVEL"] = cfg.LoggingConfig.ApplicationLogLevel
	}
	for k, v := range platform {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// wait reaps the process and retires the instance.
func (inst *instance) wait() {
	err := inst.cmd.Wait()
	desc := "exit status 0"
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			desc = ee.String()
		} else {
			desc = err.Error()
		}
	}
	// Children the bootstrap left behind go with it.
	killGroup(inst.pid)
	inst.exitDesc = desc
	close(inst.exited)
	inst.svc.log.Debug("lambda instance exited", "function", inst.fn.name, "instance", inst.id, "pid", inst.pid, "status", desc)
	inst.svc.mu.Lock()
	inst.svc.removeLocked(inst)
	inst.svc.mu.Unlock()
	inst.shutdownServer()
}

func (inst *instance) shutdownServer() {
	if inst.srv != nil {
		_ = inst.srv.Close() // closes the listener and every connection; nothing to report
	}
	if inst.tmpDir != "" {
		if err := os.RemoveAll(inst.tmpDir); err != nil {
			inst.svc.log.Warn("remove instance tmp dir", "dir", inst.tmpDir, "err", err)
		}
	}
}

// kill ends the process at once with SIGKILL (emu.Caller.Kill); the
// invocation in flight fails as a crashed runtime does.
func (inst *instance) kill(reason string) {
	inst.svc.log.Info("lambda instance killed", "function", inst.fn.name, "instance", inst.id, "pid", inst.pid, "reason", reason)
	if inst.pid > 0 {
		killGroup(inst.pid)
	}
}

// freeze stops the process (SIGSTOP) in the middle of its invocation
// (emu.Caller.Freeze). It can neither answer nor notice its deadline, so
// the invocation ends at the function's timeout, as one whose fetch hangs
// past it does on Lambda ("Task timed out after …", then a new execution
// environment). It reports false when no invocation is in flight.
func (inst *instance) freeze(reason string) bool {
	inst.mu.Lock()
	inv := inst.cur
	inst.mu.Unlock()
	if inv == nil || inst.pid <= 0 || !inv.freeze() {
		return false
	}
	inst.svc.log.Info("lambda instance frozen until its timeout", "function", inst.fn.name, "instance", inst.id,
		"pid", inst.pid, "requestId", inv.id, "reason", reason)
	stopGroup(inst.pid)
	return true
}

// removeLocked takes an instance out of its function: it frees its slot,
// drops it from the idle list and marks it dead. Stopping the process is
// separate (stopAsync).
func (s *Service) removeLocked(inst *instance) {
	fn := inst.fn
	if inst.state == stDead {
		return
	}
	if inst.counted {
		inst.counted = false
		fn.busy--
	}
	for i, other := range fn.idle {
		if other == inst {
			fn.idle = append(fn.idle[:i], fn.idle[i+1:]...)
			break
		}
	}
	inst.state = stDead
	delete(fn.instances, inst)
	s.releaseCodeLocked(inst.code)
	fn.notifyLocked()
}

// stopAsync shuts a process down in the background: SIGTERM and a grace
// period when its runtime registered for it, then SIGKILL.
func (s *Service) stopAsync(inst *instance, reason string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		inst.stop(reason)
	}()
}

func (inst *instance) stop(reason string) {
	inst.stopOnce.Do(func() {
		close(inst.stopping)
		if inst.cmd == nil {
			inst.shutdownServer()
			return
		}
		inst.mu.Lock()
		graceful := inst.sigterm
		inst.mu.Unlock()
		inst.svc.log.Debug("lambda instance stopping", "function", inst.fn.name, "instance", inst.id, "reason", reason, "sigterm", graceful)
		if graceful {
			terminate(inst.pid)
			select {
			case <-inst.exited:
				return
			case <-time.After(shutdownGrace):
			}
		}
		killGroup(inst.pid)
		<-inst.exited
	})
}

// sampleMemory records the process's peak resident set (VmHWM), the
// figure REPORT lines quote as Max Memory Used.
func (inst *instance) sampleMemory() {
	inst.mu.Lock()
	pid := inst.pid
	inst.mu.Unlock()
	kb := peakRSSKB(pid)
	if kb <= 0 {
		return
	}
	inst.mu.Lock()
	if kb > inst.maxRSSKB {
		inst.maxRSSKB = kb
	}
	inst.mu.Unlock()
}

func (inst *instance) maxMemoryMB() int64 {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return (inst.maxRSSKB + 1023) / 1024
}
