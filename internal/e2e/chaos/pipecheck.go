package chaos

import (
	"encoding/json"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/task"
)

// The pipe's invariants (only for histories that carry the pipe's
// account, History.Pipe).
const (
	InvPipeOnce   = "pipe handled each dispatch record once (delivered or dead-lettered)"
	InvFilterEdit = "mid-run filter edit applied with records on both sides"
)

// dispatches reports whether a stream record is one the pipe's filter
// selects: "becomes Pending" (docs/design.md §3.5), the default filter and
// EditedFilter alike.
func dispatches(ch Change) bool {
	if ch.New == nil || ch.New.Status != string(task.StatePending) {
		return false
	}
	return ch.Old == nil || ch.Old.Status != string(task.StatePending)
}

// pipeOnce checks the pipe's own account against the stream: every record
// of a run task that becomes Pending was handled exactly once, delivered
// or dead-lettered (never skipped, never replayed, the filter edit
// included); no other record was handled; and the pipe DLQ's pointers
// cover exactly the dead-lettered records. A message the pipe sent again
// while retrying a partly failed execution is the at-least-once the
// scraper absorbs, and is not counted here.
func (c *checker) pipeOnce() []Invariant {
	p := c.h.Pipe
	if p == nil {
		return nil
	}
	var bad examples
	checked, delivered, dead := 0, 0, 0
	for _, ch := range c.h.Stream {
		if !c.submitted[ch.TaskID] {
			continue
		}
		f := p.Fates[ch.Seq]
		n := f.Delivered + f.DeadLettered
		if !dispatches(ch) {
			if n > 0 {
				bad.add(fmt.Sprintf("%s %s record %s (%s): handled %d times, but the filter does not select it", ch.TaskID, ch.Event, ch.Seq, statusOf(ch), n))
			}
			continue
		}
		checked++
		delivered += f.Delivered
		dead += f.DeadLettered
		switch {
		case n == 0:
			bad.add(fmt.Sprintf("%s record %s: skipped (never delivered nor dead-lettered)", ch.TaskID, ch.Seq))
		case n > 1:
			bad.add(fmt.Sprintf("%s record %s: handled %d times (delivered %d, dead-lettered %d)", ch.TaskID, ch.Seq, n, f.Delivered, f.DeadLettered))
		}
	}
	pointed := 0
	for _, m := range c.h.DLQ {
		if m.Queue != QueuePipe {
			continue
		}
		var dl struct {
			Info struct {
				BatchSize int `json:"batchSize"`
			} `json:"DDBStreamBatchInfo"`
		}
		if err := json.Unmarshal([]byte(m.Body), &dl); err != nil || dl.Info.BatchSize <= 0 {
			bad.add(fmt.Sprintf("pipe DLQ message %s: not a batch pointer", m.MessageID))
			continue
		}
		pointed += dl.Info.BatchSize
	}
	if pointed != dead {
		bad.add(fmt.Sprintf("the pipe DLQ points at %d records, the pipe dead-lettered %d", pointed, dead))
	}
	out := []Invariant{{Name: InvPipeOnce, Checked: checked, Violations: bad.n, Examples: bad.list,
		Detail: fmt.Sprintf("%d records became Pending: %d delivered, %d dead-lettered (%d in the pipe DLQ's pointers)", checked, delivered, dead, pointed)}}
	if e := p.FilterEdit; e != nil {
		v := 0
		var ex []string
		if !e.Applied {
			v++
			ex = append(ex, "the pipe did not carry the edited filter")
		}
		if e.HandledBefore == 0 {
			v++
			ex = append(ex, "edited before the pipe handled any record")
		}
		if checked <= e.HandledAtEnd {
			v++
			ex = append(ex, fmt.Sprintf("no record left to handle after the edit (%d of %d handled)", e.HandledAtEnd, checked))
		}
		out = append(out, Invariant{Name: InvFilterEdit, Checked: 1, Violations: v, Examples: ex,
			Detail: fmt.Sprintf("terraform apply of the rewritten filter took %.1fs with the pipe's target down; %d records handled before, %d after",
				e.Seconds, e.HandledBefore, checked-e.HandledAtEnd)})
	}
	return out
}

func statusOf(ch Change) string {
	o, n := "-", "-"
	if ch.Old != nil {
		o = ch.Old.Status
	}
	if ch.New != nil {
		n = ch.New.Status
	}
	return o + " → " + n
}
