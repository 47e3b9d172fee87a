package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/task"
)

// retryWorkers bounds the concurrent UpdateItem calls of a retry.
const retryWorkers = 8

var retryHelp = help{
	name:     "retry",
	synopsis: "RUN [--state Failed|Finished|Failed,Finished] [--kind fatal,exhausted,...] [--dry-run]",
	text: `
Sends RUN's chosen tasks back to Pending (attempts 0; claim, result and
error cleared). The change to Pending is what the Pipe dispatches, so
nothing is deployed and no message is sent by hand.

--state picks the states to retry from (default Failed). --kind keeps only
Failed tasks with one of these error kinds (exhausted, fatal, poison,
retryable, stuck). Each write is conditional on the task still being in a
chosen state, so a task that moved on since the listing is reported and
left alone. --dry-run lists the tasks that would be retried.

Prints how many tasks were retried; every task that could not be is listed
on stderr with the reason, and then the exit status is 1.`,
}

// Retry runs "taskpipe retry".
func (e *Env) Retry(ctx context.Context, args []string) error {
	fs := e.newFlagSet(retryHelp)
	stateFlag := fs.String("state", "Failed", "states to retry from, comma-separated: Failed, Finished")
	kindFlag := fs.String("kind", "", "only Failed tasks with these error kinds, comma-separated")
	dryRun := fs.Bool("dry-run", false, "list the tasks that would be retried; change nothing")
	res := e.addResources(fs, OutputTable)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one RUN, got %q", pos)
	}
	states, err := parseStates("state", *stateFlag)
	if err != nil {
		return err
	}
	if len(states) == 0 {
		return usagef("--state: name at least one state")
	}
	for _, s := range states {
		if !s.Terminal() {
			return usagef("--state %s: only Failed and Finished tasks are retried (a live task is the pipeline's)", s)
		}
	}
	kinds, err := parseKinds(*kindFlag)
	if err != nil {
		return err
	}
	if len(kinds) > 0 && !containsState(states, task.StateFailed) {
		return usagef("--kind filters Failed tasks; add Failed to --state")
	}
	c, err := e.clients(ctx)
	if err != nil {
		return err
	}
	store, err := e.store(ctx, res, c)
	if err != nil {
		return err
	}
	run := pos[0]

	chosen, seen, err := selectTasks(ctx, store, run, states, kinds)
	if err != nil {
		return err
	}
	if seen == 0 {
		return fmt.Errorf("retry: run %s has no tasks (wrong run id?)", run)
	}
	if *dryRun {
		for _, t := range chosen {
			fmt.Fprintf(e.out(), "%s\t%s\t%s\t%s\n", t.ID, t.State, t.ErrorKind, t.URL)
		}
		fmt.Fprintf(e.out(), "would retry %d of %d tasks of run %s\n", len(chosen), seen, run)
		return nil
	}

	failed := e.retryAll(ctx, store, chosen, states)
	fmt.Fprintf(e.out(), "retried %d of %d chosen tasks of run %s\n", len(chosen)-failed, len(chosen), run)
	if failed > 0 {
		return fmt.Errorf("retry: %d tasks not retried (listed above)", failed)
	}
	return nil
}

func parseKinds(v string) ([]task.ErrorKind, error) {
	var out []task.ErrorKind
	for _, part := range strings.Split(v, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		if part == "" {
			continue
		}
		k := task.ErrorKind(part)
		if !k.Valid() {
			names := make([]string, 0, len(task.ErrorKinds()))
			for _, k := range task.ErrorKinds() {
				names = append(names, string(k))
			}
			return nil, usagef("--kind %q: unknown kind %q (want %s)", v, part, strings.Join(names, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

// selectTasks pages through the run and returns the tasks to retry and
// how many tasks the run has.
func selectTasks(ctx context.Context, store *dynamostore.Store, run string, states []task.State, kinds []task.ErrorKind) ([]task.Task, int, error) {
	var chosen []task.Task
	seen, cursor := 0, ""
	for {
		page, err := store.RunTasks(ctx, run, cursor, resultsPage)
		if err != nil {
			return nil, 0, fmt.Errorf("retry: list run %s: %w", run, err)
		}
		seen += len(page.Tasks)
		for _, t := range page.Tasks {
			if !containsState(states, t.State) {
				continue
			}
			if len(kinds) > 0 && (t.State != task.StateFailed || !containsKind(kinds, t.ErrorKind)) {
				continue
			}
			t.Result = nil // not needed; keeps a large run's selection small
			chosen = append(chosen, t)
		}
		if page.NextCursor == "" {
			return chosen, seen, nil
		}
		cursor = page.NextCursor
	}
}

func containsKind(list []task.ErrorKind, k task.ErrorKind) bool {
	for _, v := range list {
		if v == k {
			return true
		}
	}
	return false
}

// retryAll retries every task with a few workers and reports each failure
// on stderr; it returns how many failed.
func (e *Env) retryAll(ctx context.Context, store *dynamostore.Store, tasks []task.Task, from []task.State) int {
	var (
		mu     sync.Mutex
		failed int
		wg     sync.WaitGroup
	)
	work := make(chan task.Task)
	for range min(retryWorkers, max(1, len(tasks))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				err := store.Retry(ctx, dynamostore.RetryParams{TaskID: t.ID, From: from, Now: e.now()})
				if err == nil {
					continue
				}
				why := "error"
				switch {
				case errors.Is(err, dynamostore.ErrWrongState):
					why = "changed since the listing"
				case errors.Is(err, task.ErrNotFound):
					why = "deleted since the listing"
				}
				mu.Lock()
				failed++
				fmt.Fprintf(e.errw(), "retry: task %s not retried (%s): %v\n", t.ID, why, err)
				mu.Unlock()
			}
		}()
	}
	for _, t := range tasks {
		work <- t
	}
	close(work)
	wg.Wait()
	return failed
}
