package queue

import (
	"fmt"
	"maps"
	"time"
)

// Move-task statuses (ListMessageMoveTasks).
const (
	MoveRunning    = "RUNNING"
	MoveCompleted  = "COMPLETED"
	MoveCancelling = "CANCELLING"
	MoveCancelled  = "CANCELLED"
	MoveFailed     = "FAILED"
)

// maxTaskHistory is how many tasks per source ListMessageMoveTasks can show.
const maxTaskHistory = 10

// MoveTask is one message move task as ListMessageMoveTasks reports it.
// TaskHandle is set only while the task runs, DestinationArn only when the
// task was started with one, MaxNumberOfMessagesPerSecond only when given,
// FailureReason only when FAILED (AWS-recorded, docs/aws-behaviour.md §3.9).
type MoveTask struct {
	TaskHandle                        string
	Status                            string
	SourceArn                         string
	DestinationArn                    string
	MaxNumberOfMessagesPerSecond      int
	ApproximateNumberOfMessagesMoved  int64
	ApproximateNumberOfMessagesToMove int64
	FailureReason                     string
	StartedTimestamp                  int64 // epoch milliseconds
}

type moveTask struct {
	id, handle   string
	source, dest string
	rate         int
	status       string
	moved        int64
	toMove       int64
	failure      string
	started      int64
	cancel       chan struct{}
}

func (t *moveTask) view() MoveTask {
	v := MoveTask{
		Status: t.status, SourceArn: t.source, DestinationArn: t.dest, MaxNumberOfMessagesPerSecond: t.rate,
		ApproximateNumberOfMessagesMoved: t.moved, ApproximateNumberOfMessagesToMove: t.toMove,
		FailureReason: t.failure, StartedTimestamp: t.started / 1e6,
	}
	if t.status == MoveRunning {
		v.TaskHandle = t.handle
	}
	return v
}

func errNoSource() error {
	return errorf(ErrResourceNotFound, "The resource that you specified for the SourceArn parameter doesn't exist.")
}

// isDLQLocked reports whether some queue's RedrivePolicy targets q.
func (s *Service) isDLQLocked(q *queue) bool {
	for _, src := range s.queues {
		if src.attrs.redrive != nil && src.attrs.redrive.DeadLetterTargetArn == q.arn {
			return true
		}
	}
	return false
}

// StartMoveTask starts moving the messages of a dead-letter queue to
// destARN, or, when destARN is "", each back to the queue it was redriven
// from (DeadLetterQueueSourceArn). rate is MaxNumberOfMessagesPerSecond
// (1–500; 0 for the default). Moved messages are sent anew: new message
// ids, receive counts and timestamps; body, message attributes and
// AWSTraceHeader are kept. The task moves the messages visible at its
// start (ApproximateNumberOfMessagesToMove) in the background and returns
// the task handle.
func (s *Service) StartMoveTask(sourceARN, destARN string, rate int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return "", errorf(ErrClosed, "The local SQS service is shut down.")
	}
	src := s.queueByARNLocked(sourceARN)
	if src == nil {
		return "", errNoSource()
	}
	if !s.isDLQLocked(src) {
		return "", errorf(ErrInvalidParameterValue, "Source queue must be configured as a Dead Letter Queue.")
	}
	if destARN != "" && s.queueByARNLocked(destARN) == nil {
		return "", errorf(ErrResourceNotFound, "The resource that you specified for the DestinationArn parameter doesn't exist.")
	}
	if rate < 0 || rate > maxMoveRate {
		return "", errInvalidParam(rate, "MaxNumberOfMessagesPerSecond", "Must be between 1 and 500.")
	}
	for _, t := range s.tasks[sourceARN] {
		if t.status == MoveRunning || t.status == MoveCancelling {
			return "", errorf(ErrInvalidParameterValue,
				"There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	now := s.now()
	s.advanceLocked(src, now)
	t := &moveTask{
		id: s.opts.NewID(), source: sourceARN, dest: destARN, rate: rate, status: MoveRunning,
		toMove: int64(src.ready.Len()), started: now, cancel: make(chan struct{}),
	}
	t.handle = encodeTaskHandle(taskHandle{TaskID: t.id, SourceArn: sourceARN})
	hist := append([]*moveTask{t}, s.tasks[sourceARN]...)
	if len(hist) > maxTaskHistory {
		hist = hist[:maxTaskHistory]
	}
	s.tasks[sourceARN] = hist
	s.workers.Add(1)
	go s.runMoveTask(t)
	return t.handle, nil
}

// runMoveTask moves one message per 1/rate seconds, the first at once.
// Pacing uses real time, like long polling.
func (s *Service) runMoveTask(t *moveTask) {
	defer s.workers.Done()
	rate := t.rate
	if rate == 0 {
		rate = s.opts.DefaultMoveRate
	}
	interval := time.Second / time.Duration(rate)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-s.closed:
			s.finishMove(t, MoveCancelled, "")
			return
		case <-t.cancel:
			s.finishMove(t, MoveCancelled, "")
			return
		case <-timer.C:
		}
		if s.moveOne(t) {
			return
		}
		timer.Reset(interval)
	}
}

func (s *Service) finishMove(t *moveTask, status, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.status, t.failure = status, reason
}

// moveOne moves the next message and reports whether the task ended.
func (s *Service) moveOne(t *moveTask) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := func(status, reason string) bool {
		t.status, t.failure = status, reason
		return true
	}
	switch {
	case t.status != MoveRunning:
		return end(MoveCancelled, "")
	case t.moved >= t.toMove:
		return end(MoveCompleted, "")
	}
	src := s.queueByARNLocked(t.source)
	if src == nil {
		return end(MoveFailed, "AWS.SimpleQueueService.NonExistentQueue")
	}
	now := s.now()
	s.advanceLocked(src, now)
	m := src.ready.peek()
	if m == nil {
		return end(MoveCompleted, "")
	}
	destARN := t.dest
	if destARN == "" {
		destARN = m.dlqSource
	}
	if destARN == "" {
		// A message sent straight to the DLQ has no source to return to
		// (emulator choice; AWS behaviour UNCONFIRMED).
		return end(MoveFailed, fmt.Sprintf("message %s has no DeadLetterQueueSourceArn; start the task with a DestinationArn", m.id))
	}
	dst := s.queueByARNLocked(destARN)
	if dst == nil {
		// AWS-recorded reason when the destination disappears mid-task.
		return end(MoveFailed, "AWS.SimpleQueueService.NonExistentQueue")
	}
	src.removeLocked(m)
	s.advanceLocked(dst, now)
	moved := &message{
		id: s.opts.NewID(), body: m.body, md5Body: m.md5Body, attrs: maps.Clone(m.attrs), md5Attrs: m.md5Attrs,
		traceHeader: m.traceHeader, groupID: m.groupID, senderID: m.senderID,
		sent: now, enqueued: now, idx: [numHeapKinds]int{-1, -1, -1},
	}
	s.enqueueLocked(dst, moved, now, 0)
	t.moved++
	if t.moved >= t.toMove {
		return end(MoveCompleted, "")
	}
	return false
}

// MoveTasks lists the most recent move tasks of a source queue, newest
// first (ListMessageMoveTasks; max 1–10, 0 means 1).
func (s *Service) MoveTasks(sourceARN string, max int) ([]MoveTask, error) {
	if max == 0 {
		max = 1
	}
	if max < 1 || max > maxTaskHistory {
		return nil, errInvalidParam(max, "MaxResults", "Must be between 1 and 10, if provided.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queueByARNLocked(sourceARN) == nil {
		return nil, errNoSource()
	}
	hist := s.tasks[sourceARN]
	out := make([]MoveTask, 0, min(max, len(hist)))
	for _, t := range hist {
		if len(out) == max {
			break
		}
		out = append(out, t.view())
	}
	return out, nil
}

// CancelMoveTask cancels a running move task and returns how many
// messages it moved so far. The task is CANCELLING until its worker stops.
// Errors are the AWS-recorded ones (docs/aws-behaviour.md §3.9).
func (s *Service) CancelMoveTask(handle string) (int64, error) {
	h, ok := decodeTaskHandle(handle)
	if !ok {
		return 0, errorf(ErrInvalidParameterValue, "Value for parameter TaskHandle is invalid.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queueByARNLocked(h.SourceArn) == nil {
		return 0, errNoSource()
	}
	for _, t := range s.tasks[h.SourceArn] {
		if t.id != h.TaskID {
			continue
		}
		if t.status != MoveRunning {
			return 0, errorf(ErrInvalidParameterValue, "Only a task in status RUNNING can be cancelled; this task is %s.", t.status)
		}
		t.status = MoveCancelling
		close(t.cancel)
		return t.moved, nil
	}
	return 0, errorf(ErrResourceNotFound, "Task does not exist.")
}
