package pipe

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

// LogSink receives the pipes' log records; *loggroup.Service is one.
type LogSink interface {
	Group(name string) (loggroup.GroupInfo, error)
	Append(group, stream string, events ...loggroup.Event) error
}

// logRecord is a pipe log record in the documented schema
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-logs-schema.html),
// without the execution data (payload, awsRequest, awsResponse).
type logRecord struct {
	ExecutionID string    `json:"executionId"`
	Timestamp   int64     `json:"timestamp"`
	MessageType string    `json:"messageType"`
	ResourceARN string    `json:"resourceArn"`
	LogLevel    string    `json:"logLevel"`
	Error       *logError `json:"error,omitempty"`
}

type logError struct {
	Message string `json:"message"`
}

// logGroupName is the group of a LogGroupArn
// (arn:aws:logs:<region>:<account>:log-group:<name>, optionally ":*").
func logGroupName(arn string) string {
	_, name, ok := strings.Cut(arn, ":log-group:")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(name, ":*")
}

// deliverLog writes one execution step's record to the pipe's log group,
// at the pipe's log level (OFF < ERROR < INFO < TRACE), as the pipe's
// role: the role needs logs:CreateLogStream and logs:PutLogEvents on the
// group's streams
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-permissions.html).
// A record the role may not write is dropped, and the first denial in a
// row is logged by the local cloud, naming the action. Only the
// execution's outcome (ExecutionSucceeded, ExecutionFailed) is recorded;
// the local cloud's own log has the other steps. The stream is named
// after the pipe (AWS does not document its stream names).
func (r *runner) deliverLog(cfg *config, level, messageType string, cause error) {
	s := r.s
	rank := map[string]int{"": 0, "OFF": 0, "ERROR": 1, "INFO": 2, "TRACE": 3}
	if s.opts.Logs == nil || cfg.logGroup == "" || rank[cfg.logLevel] < rank[level] {
		return
	}
	stream := cfg.name
	streamARN := "arn:aws:logs:" + s.opts.Region + ":" + s.opts.AccountID + ":log-group:" + cfg.logGroup + ":log-stream:" + stream
	actions := []string{"logs:PutLogEvents"}
	if created, _ := s.logStreams.Load(streamARN); created == nil {
		actions = append(actions, "logs:CreateLogStream")
	}
	for _, action := range actions {
		if err := s.authorize(r.ctx, cfg, action, streamARN); err != nil {
			if prev, _ := s.logStreams.Swap(streamARN+"#denied", true); prev == nil || prev == false {
				s.log.Warn("pipe logs dropped: the pipe's role may not deliver them", "pipe", cfg.name, "group", cfg.logGroup, "err", err)
			}
			return
		}
	}
	s.logStreams.Store(streamARN, true)
	s.logStreams.Store(streamARN+"#denied", false)
	var id [16]byte
	_, _ = rand.Read(id[:]) // crypto/rand never fails on supported platforms
	rec := logRecord{ExecutionID: hex.EncodeToString(id[:]), Timestamp: s.now().UnixMilli(), MessageType: messageType,
		ResourceARN: cfg.arn, LogLevel: cfg.logLevel}
	if cause != nil {
		rec.Error = &logError{Message: cause.Error()}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		s.log.Warn("marshal pipe log record", "pipe", cfg.name, "err", err)
		return
	}
	if _, err := s.opts.Logs.Group(cfg.logGroup); err != nil {
		// Unlike Lambda, Pipes does not create a missing group (the
		// destination names an existing one), and a group deleted
		// after the pipe (terraform destroy) must stay deleted.
		return
	}
	if err := s.opts.Logs.Append(cfg.logGroup, stream, loggroup.Event{Timestamp: s.now(), Message: string(b)}); err != nil {
		s.log.Warn("append pipe log record", "pipe", cfg.name, "group", cfg.logGroup, "err", err)
	}
}
