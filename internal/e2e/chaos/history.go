package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// maxHistoryBytes bounds LoadHistory's input: a 3,575-task run records
// about 5 MB.
const maxHistoryBytes = 256 << 20

// History is everything a chaos run recorded, in a form that can be saved
// and judged later (Check). It holds only what the pipeline and the local
// cloud wrote down; nothing in it is derived from what the run was meant
// to do.
type History struct {
	RunID string `json:"runId"`
	// Submitted are the ids of the tasks the submit wrote, in input order.
	Submitted []string `json:"submitted"`
	// Rejected are the input lines the submit refused.
	Rejected []Rejected `json:"rejected,omitempty"`
	// Stream is the task table's stream read from TRIM_HORIZON, in order.
	Stream []Change `json:"stream"`
	// Rows are the run's rows in the table at the end.
	Rows []Row `json:"rows"`
	// DLQ are the messages of both DLQs at the end.
	DLQ []DLQMessage `json:"dlq"`
	// Poison are the unparseable messages the run put on the work queue.
	Poison []Poison `json:"poison"`
	// Faults are the fault injector's configuration and counters.
	Faults Faults `json:"faults"`
	// Retried is the number of tasks an operator sent back to Pending
	// during the run (taskpipe retry); a chaos run retries none.
	Retried int `json:"retried,omitempty"`
	// Pipe is what the local Pipe did with each stream record of the run
	// (absent from histories recorded before it was tracked).
	Pipe *PipeHistory `json:"pipe,omitempty"`
}

// PipeHistory is the pipe's own account of the run.
type PipeHistory struct {
	// Fates are, by sequence number, how often each record was delivered
	// (its execution succeeded) and dead-lettered; a record the pipe
	// filtered out has none.
	Fates map[string]PipeFate `json:"fates"`
	// FilterEdit is the mid-run edit, when the plan made one.
	FilterEdit *FilterEdit `json:"filterEdit,omitempty"`
}

// PipeFate is pipe.Fate as the history keeps it.
type PipeFate struct {
	Delivered    int `json:"d,omitempty"`
	DeadLettered int `json:"x,omitempty"`
}

// FilterEdit records the mid-run terraform apply of a changed filter.
type FilterEdit struct {
	// Filter is the edited filter the apply set.
	Filter []string `json:"filter"`
	// Applied is whether DescribePipe returned it afterwards.
	Applied bool `json:"applied"`
	// HandledBefore and HandledAtEnd are the records the pipe had handled
	// when the edit (and the target outage around it) began and ended.
	HandledBefore int `json:"handledBefore"`
	HandledAtEnd  int `json:"handledAtEnd"`
	// Seconds is how long the edit took.
	Seconds float64 `json:"seconds"`
}

// Rejected is an input line the submit refused.
type Rejected struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Image is what the checker reads of a task row: a stream record's old or
// new image, or a final row. Times are epoch milliseconds.
type Image struct {
	Status         string `json:"status"`
	ClaimToken     string `json:"claimToken,omitempty"`
	Attempts       int    `json:"attempts"`
	MaxAttempts    int    `json:"maxAttempts"`
	LeaseExpiresAt int64  `json:"leaseExpiresAt,omitempty"`
	UpdatedAt      int64  `json:"updatedAt,omitempty"`
	ErrorKind      string `json:"errorKind,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	// Result is a digest of the result attribute (ResultDigest), empty when
	// the row has none: two writes of the same result look alike, which is
	// why Check also counts Running → Finished transitions.
	Result string `json:"result,omitempty"`
}

// Change is one stream record.
type Change struct {
	Seq    string `json:"seq"`
	Event  string `json:"event"` // INSERT, MODIFY or REMOVE
	TaskID string `json:"taskId"`
	Old    *Image `json:"old,omitempty"`
	New    *Image `json:"new,omitempty"`
}

// Stream event names.
const (
	EventInsert = "INSERT"
	EventModify = "MODIFY"
	EventRemove = "REMOVE"
)

// Row is a task row at the end of the run.
type Row struct {
	TaskID string `json:"taskId"`
	Image
}

// DLQ names as DLQMessage.Queue has them.
const (
	QueueWork = "work"
	QueuePipe = "pipe"
)

// DLQMessage is one message of a DLQ (taskpipe dlq list --json).
type DLQMessage struct {
	Queue     string `json:"queue"`
	MessageID string `json:"messageId"`
	// Reason is the scraper's reason attribute, the pipe's failure
	// condition, or taskpipe's explanation of an SQS redrive.
	Reason string `json:"reason"`
	// TaskID is set when the body is a work message.
	TaskID       string `json:"taskId,omitempty"`
	Body         string `json:"body"`
	ReceiveCount int    `json:"receiveCount,omitempty"`
	SourceQueue  string `json:"sourceQueueArn,omitempty"`
}

// Poison is a message the run put on the work queue that no scraper can
// process.
type Poison struct {
	MessageID string `json:"messageId"`
	Body      string `json:"body"`
}

// Faults are what the injector was told and what it did, and the fixture
// web's own faults.
type Faults struct {
	Seed uint64 `json:"seed"`
	// PoisonPlanned is the number of poison messages the run meant to
	// send; History.Poison lists those it sent.
	PoisonPlanned int          `json:"poisonPlanned"`
	Config        fault.Config `json:"config"`
	Stats         fault.Stats  `json:"stats"`
	Web           WebFaults    `json:"web"`
	// ScraperTimeouts is the number of the scraper's invocations that
	// ran into its timeout, as the function platform counted them.
	ScraperTimeouts int64 `json:"scraperTimeouts,omitempty"`
}

// WebFaults are the fixture web's failing sites among the run's tasks.
type WebFaults struct {
	// FlakySites are the sites that fail their first requests; Flaky503s
	// counts the failed answers they gave (home-page requests beyond the
	// one that succeeded).
	FlakySites int   `json:"flakySites"`
	Flaky503s  int64 `json:"flaky503s"`
	// FatalSites are the sites whose tasks must fail as fatal (404, not
	// HTML, redirect loop).
	FatalSites int `json:"fatalSites"`
}

// LoadHistory reads a History saved as JSON. Unknown fields are refused,
// so a misspelt fixture fails loudly instead of checking nothing.
func LoadHistory(r io.Reader) (*History, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxHistoryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("chaos: read history: %w", err)
	}
	if len(b) > maxHistoryBytes {
		return nil, fmt.Errorf("chaos: read history: over %d bytes", maxHistoryBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var h History
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("chaos: parse history: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("chaos: parse history: data after the JSON object")
	}
	return &h, nil
}

// LoadHistoryFile reads a History from a file.
func LoadHistoryFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("chaos: %w", err)
	}
	defer f.Close() // read-only
	return LoadHistory(f)
}

// Write saves h as JSON that LoadHistory reads back: one field per line,
// and each element of a list on a line of its own, so a history (a test
// fixture) can be read and edited record by record.
func (h *History) Write(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	v := reflect.ValueOf(*h)
	ty := v.Type()
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		fv := v.Field(i)
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, " %q: ", name)
		if fv.Kind() != reflect.Slice || fv.Len() == 0 {
			if err := writeCompact(&b, fv.Interface()); err != nil {
				return err
			}
			continue
		}
		b.WriteString("[\n")
		for j := range fv.Len() {
			b.WriteString("  ")
			if err := writeCompact(&b, fv.Index(j).Interface()); err != nil {
				return err
			}
			if j < fv.Len()-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(" ]")
	}
	b.WriteString("\n}\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("chaos: write history: %w", err)
	}
	return nil
}

func writeCompact(b *bytes.Buffer, v any) error {
	enc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("chaos: write history: %w", err)
	}
	b.Write(enc)
	return nil
}

// WriteFile saves h to path.
func (h *History) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	if err := h.Write(f); err != nil {
		_ = f.Close() // the write error is the one to report
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	return nil
}
