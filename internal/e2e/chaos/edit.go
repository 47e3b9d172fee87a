package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pipes"

	"github.com/taskpipe/taskpipe/internal/e2e/demo"
)

// editPoll is how often the filter edit looks at the pipe's progress
// before it starts.
const editPoll = 10 * time.Millisecond

// filterEdit is the scripted mid-run terraform apply of a changed pipe
// filter, running in its own goroutine from BeforeSubmit to before the
// history is recorded.
type filterEdit struct {
	done chan struct{}
	rec  FilterEdit
	err  error
}

// startFilterEdit waits until the pipe has handled at least after records
// of the run, then takes the pipe's target down, applies the stack with
// EditedFilter, checks that the pipe carries it, and brings the target
// back: the records held up by the outage are the ones the new definition
// must deliver, each once.
func startFilterEdit(ctx context.Context, st *demo.Stage, after int) *filterEdit {
	e := &filterEdit{done: make(chan struct{}), rec: FilterEdit{Filter: EditedFilter()}}
	go func() {
		defer close(e.done)
		e.err = e.run(ctx, st, after)
	}()
	return e
}

func (e *filterEdit) run(ctx context.Context, st *demo.Stage, after int) error {
	name := st.Outputs.PipeName
	svc, inj := st.Cloud.Pipes(), st.Cloud.Faults()
	t := time.NewTicker(editPoll)
	defer t.Stop()
	for len(svc.Deliveries(name)) < after {
		select {
		case <-ctx.Done():
			return fmt.Errorf("chaos: filter edit: the pipe handled %d records, never %d: %w", len(svc.Deliveries(name)), after, ctx.Err())
		case <-t.C:
		}
	}
	start := time.Now()
	inj.SetPipeOutage(name, true)
	e.rec.HandledBefore = len(svc.Deliveries(name))
	filter, err := json.Marshal(e.rec.Filter) // a JSON list of strings is an HCL list of strings
	if err != nil {
		inj.SetPipeOutage(name, false)
		return fmt.Errorf("chaos: filter edit: %w", err)
	}
	err = st.Reapply(ctx, "pipe_filter_patterns="+string(filter))
	if err == nil {
		err = e.verify(ctx, st)
	}
	e.rec.HandledAtEnd = len(svc.Deliveries(name))
	inj.SetPipeOutage(name, false)
	e.rec.Seconds = time.Since(start).Seconds()
	if err != nil {
		return fmt.Errorf("chaos: filter edit: %w", err)
	}
	return nil
}

// verify reads the pipe's filter back, as an operator would.
func (e *filterEdit) verify(ctx context.Context, st *demo.Stage) error {
	out, err := pipes.NewFromConfig(st.AWS).DescribePipe(ctx, &pipes.DescribePipeInput{Name: aws.String(st.Outputs.PipeName)})
	if err != nil {
		return fmt.Errorf("describe pipe: %w", err)
	}
	var got []string
	if sp := out.SourceParameters; sp != nil && sp.FilterCriteria != nil {
		for _, f := range sp.FilterCriteria.Filters {
			got = append(got, aws.ToString(f.Pattern))
		}
	}
	e.rec.Applied = slices.Equal(got, e.rec.Filter)
	if !e.rec.Applied {
		return fmt.Errorf("the pipe's filter after apply is %q, want %q", got, e.rec.Filter)
	}
	return nil
}

// wait waits for the edit to end and returns its record.
func (e *filterEdit) wait(ctx context.Context) (*FilterEdit, error) {
	select {
	case <-e.done:
		return &e.rec, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("chaos: filter edit still running: %w", ctx.Err())
	}
}
