package task_test

import (
	"errors"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/task"
)

// A scraper classifies failures with Fatal and Retryable; the decision table
// reads the kind back. Unclassified errors are retried, never dropped.
func ExampleKindOf() {
	errs := []error{
		task.Fatalf("invalid URL %q", "ftp://example.com"),
		task.Retryable(errors.New("connection reset")),
		errors.New("something unexpected"),
	}
	for _, err := range errs {
		fmt.Println(task.KindOf(err))
	}
	// Output:
	// fatal
	// retryable
	// retryable
}

func ExampleState_Terminal() {
	for _, s := range task.States() {
		fmt.Printf("%s terminal=%t\n", s, s.Terminal())
	}
	// Output:
	// Failed terminal=true
	// Finished terminal=true
	// Pending terminal=false
	// Running terminal=false
}
