package function

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

// functionLine handles one line the function printed: console, log
// stream, EMF metrics and the invocation's log tail.
func (inst *instance) functionLine(line string) {
	inst.emit(line, true)
}

// emit writes one log event of the instance. Platform lines (START, END,
// REPORT, errors) are not parsed as EMF.
func (inst *instance) emit(line string, fromFunction bool) {
	s := inst.svc
	now := s.opts.Now()
	for _, l := range strings.Split(line, "\n") {
		s.writeConsole(inst.fn.name, l)
	}
	delivered := true
	if s.opts.Logs != nil {
		if delivered = inst.mayLog(); delivered {
			if err := s.opts.Logs.Append(inst.cfg.LoggingConfig.LogGroup, inst.stream, loggroup.Event{Timestamp: now, Message: line}); err != nil {
				s.log.Warn("append function log event", "function", inst.fn.name, "group", inst.cfg.LoggingConfig.LogGroup, "err", err)
			}
		}
	}
	// CloudWatch extracts EMF metrics from the log events it receives
	// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format.html):
	// a dropped event yields none.
	if fromFunction && delivered && s.opts.Metrics != nil {
		if ms, ok := parseEMF(line); ok && len(ms) > 0 {
			s.opts.Metrics.PutMetrics(ms...)
		}
	}
	inst.mu.Lock()
	cur := inst.cur
	inst.mu.Unlock()
	if cur != nil {
		cur.tail.add(line)
	}
}

// mayLog reports whether the execution role may deliver the
// environment's next log event. Lambda sends a function's logs as its
// role, "provided your function's execution role has the necessary
// permissions" (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html);
// without them the function still runs and its output is lost, so no
// stream appears in the group
// (https://repost.aws/knowledge-center/lambda-cloudwatch-log-streams-error).
// The environment's first event needs logs:CreateLogStream, every event
// logs:PutLogEvents, both on the stream's ARN. The group is the caller's
// (Terraform creates it), so logs:CreateLogGroup is not checked. The
// first denial of an environment is logged by the local cloud, naming the
// action, as AWS reports nothing; again after deliveries were allowed
// in between.
func (inst *instance) mayLog() bool {
	s := inst.svc
	if s.opts.Authorizer == nil {
		return true
	}
	inst.mu.Lock()
	created := inst.logStream
	inst.mu.Unlock()
	group := inst.cfg.LoggingConfig.LogGroup
	res := "arn:aws:logs:" + s.opts.Region + ":" + s.opts.AccountID + ":log-group:" + group + ":log-stream:" + inst.stream
	sess := emu.RoleSession{Service: "lambda.amazonaws.com", Role: inst.cfg.Role, Session: inst.cfg.FunctionName}
	actions := []string{"logs:PutLogEvents"}
	if !created {
		actions = append(actions, "logs:CreateLogStream")
	}
	for _, action := range actions {
		if err := s.opts.Authorizer.Authorize(context.Background(), sess, action, res); err != nil {
			inst.mu.Lock()
			first := !inst.logDenied
			inst.logDenied = true
			inst.mu.Unlock()
			if first {
				s.log.Warn("function logs dropped: the execution role may not deliver them", "function", inst.fn.name, "group", group, "err", err)
			}
			return false
		}
	}
	inst.mu.Lock()
	inst.logStream, inst.logDenied = true, false
	inst.mu.Unlock()
	return true
}

func (inst *instance) jsonLogs() bool { return inst.cfg.LoggingConfig.LogFormat == "JSON" }

// platformRecord is a platform log line in the JSON log format
// ("Configuring JSON and plain text log formats", system log records).
type platformRecord struct {
	Time   string `json:"time"`
	Type   string `json:"type"`
	Record any    `json:"record"`
}

func (inst *instance) emitJSON(typ string, record any) {
	b, err := json.Marshal(platformRecord{Time: inst.svc.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Type: typ, Record: record})
	if err != nil {
		inst.svc.log.Warn("marshal platform record", "type", typ, "err", err)
		return
	}
	inst.emit(string(b), false)
}

// platformInitStart is the first line of a new environment.
func (inst *instance) platformInitStart() {
	rt := inst.cfg.Runtime
	arn := ""
	if inst.cfg.RuntimeVersionConfig != nil {
		arn = inst.cfg.RuntimeVersionConfig.RuntimeVersionArn
	}
	if inst.jsonLogs() {
		inst.emitJSON("platform.initStart", map[string]string{
			"initializationType": "on-demand", "phase": "init", "runtimeVersion": rt,
			"runtimeVersionArn": arn, "functionName": inst.cfg.FunctionName, "functionVersion": "$LATEST",
		})
		return
	}
	inst.emit(fmt.Sprintf("INIT_START Runtime Version: %s\tRuntime Version ARN: %s", rt, arn), false)
}

// platformStart is Lambda's START line.
func (inst *instance) platformStart(inv *invocation) {
	if inst.jsonLogs() {
		inst.emitJSON("platform.start", map[string]string{"requestId": inv.id, "version": "$LATEST"})
		return
	}
	inst.emit("START RequestId: "+inv.id+" Version: $LATEST", false)
}

// platformError logs a failure the platform observed: a timeout ("<time>
// <id> Task timed out after N.NN seconds") or a runtime that could not
// start or exited ("RequestId: <id> Error: …" then the error type).
func (inst *instance) platformError(inv *invocation, out outcome, duration time.Duration) {
	if inst.jsonLogs() {
		return // the JSON format reports these in platform.report
	}
	switch out.status {
	case statusTimeout:
		inst.emit(fmt.Sprintf("%s %s Task timed out after %.2f seconds",
			inst.svc.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z"), inv.id, duration.Seconds()), false)
	case statusCrash:
		inst.emit(fmt.Sprintf("RequestId: %s Error: %s\n%s", inv.id, out.message, out.errorType), false)
	}
}

// platformEnd writes END and REPORT. REPORT quotes the real duration, the
// billed duration (rounded up to the millisecond, init included, as for
// the provided.* runtimes), the configured memory and the measured peak
// resident set of the process (VmHWM).
func (inst *instance) platformEnd(inv *invocation, out outcome, duration, initDuration time.Duration, maxMemMB int64) {
	ms := float64(duration) / float64(time.Millisecond)
	initMS := float64(initDuration) / float64(time.Millisecond)
	billed := int64(math.Ceil(ms + initMS))
	if billed < 1 {
		billed = 1
	}
	if inst.jsonLogs() {
		metrics := map[string]any{
			"durationMs": round2(ms), "billedDurationMs": billed,
			"memorySizeMB": inst.cfg.MemorySize, "maxMemoryUsedMB": maxMemMB,
		}
		if initDuration > 0 {
			metrics["initDurationMs"] = round2(initMS)
		}
		record := map[string]any{"requestId": inv.id, "metrics": metrics, "status": out.reportStatus()}
		if out.status != statusSuccess && out.errorType != "" {
			record["errorType"] = out.errorType
		}
		inst.emitJSON("platform.report", record)
		return
	}
	inst.emit("END RequestId: "+inv.id, false)
	var b strings.Builder
	fmt.Fprintf(&b, "REPORT RequestId: %s\tDuration: %.2f ms\tBilled Duration: %d ms\tMemory Size: %d MB\tMax Memory Used: %d MB\t",
		inv.id, ms, billed, inst.cfg.MemorySize, maxMemMB)
	if initDuration > 0 {
		fmt.Fprintf(&b, "Init Duration: %.2f ms\t", initMS)
	}
	switch out.status {
	case statusTimeout:
		b.WriteString("Status: timeout")
	case statusCrash:
		fmt.Fprintf(&b, "Status: error\tError Type: %s", out.errorType)
	}
	inst.emit(b.String(), false)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// tailBuf keeps the last 4 KB of an invocation's log, for X-Amz-Log-Result
// (Invoke with LogType Tail).
type tailBuf struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4096

func (t *tailBuf) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, line...)
	t.buf = append(t.buf, '\n')
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailBytes:]...)
	}
}

func (t *tailBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
