package chaos_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/e2e/chaos"
)

// A one-task history: submitted, claimed, finished. Every invariant over
// the task holds; the run had no faults, so the table says it proves
// nothing about them.
func ExampleCheck() {
	const id = "run-1/0000001"
	pending := chaos.Image{Status: "Pending", MaxAttempts: 3, UpdatedAt: 1000}
	running := chaos.Image{Status: "Running", ClaimToken: "t1", Attempts: 1, MaxAttempts: 3, LeaseExpiresAt: 46000, UpdatedAt: 1000}
	finished := running
	finished.Status, finished.UpdatedAt, finished.Result = "Finished", 2000, chaos.ResultDigest(`{"title":"Example"}`)
	h := &chaos.History{
		RunID:     "run-1",
		Submitted: []string{id},
		Stream: []chaos.Change{
			{Seq: "1", Event: chaos.EventInsert, TaskID: id, New: &pending},
			{Seq: "2", Event: chaos.EventModify, TaskID: id, Old: &pending, New: &running},
			{Seq: "3", Event: chaos.EventModify, TaskID: id, Old: &running, New: &finished},
		},
		Rows: []chaos.Row{{TaskID: id, Image: finished}},
	}
	r := chaos.Check(h)
	for _, i := range r.Invariants {
		verdict := "PASS"
		if !i.OK() {
			verdict = "FAIL"
		}
		fmt.Println(verdict, i.Name)
	}
	// Output:
	// PASS no task lost
	// PASS table holds only submitted tasks
	// PASS every task terminal or in a DLQ with a reason
	// PASS every Failed task has errorKind and lastError
	// PASS no result written twice
	// PASS every transition legal, continuous and fenced
	// PASS no task re-opened but by an operator's retry
	// PASS attempts never above maxAttempts
	// PASS every poison message in the work DLQ with its reason
	// PASS every DLQ message has a reason and an origin
	// FAIL faults configured
}
