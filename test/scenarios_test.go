package test

import (
	"runtime/debug"
	"testing"

	test_structure "github.com/gruntwork-io/terratest/modules/test-structure"
)

// validate runs a scenario's body as the "validate" stage. A panic in the
// body fails the scenario instead of ending the process: a panicking test
// ends the binary before TestMain's teardown, leaving the deployment.
func validate(t *testing.T, body func()) {
	t.Helper()
	test_structure.RunTestStage(t, "validate", func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		body()
	})
}

// The ten seed scenarios. Each is one test: it takes the shared deployment
// (applied by the first scenario that runs, destroyed by TestMain) and
// runs its body as the "validate" stage, so SKIP_validate=1 deploys and
// tears down without running anything.
//
// The first five share the deployment and run at the same time; the last
// five change the whole pipeline (faults on every message, a flood of
// tasks, a stopped pipe, a filter edit) and run after them, one at a time
// (sharedScenario, exclusiveScenario).

// TestWorkerFails: the scraper is killed right after its claim; the lease
// expires, SQS delivers the message again after its visibility timeout,
// the task is claimed a second time and finishes (attempts 2).
func TestWorkerFails(t *testing.T) {
	d := sharedScenario(t)
	validate(t, func() { workerFails(t, d) })
}

// TestHappyPath: 200 tasks submitted with taskpipe submit all finish, each
// with the page's extracted summary.
func TestHappyPath(t *testing.T) {
	d := sharedScenario(t)
	validate(t, func() { happyPath(t, d) })
}

// TestDuplicateDelivery: the same task inserted as Pending twice and its
// work message delivered twice give one claim and one result; the second
// delivery is acknowledged and skipped.
func TestDuplicateDelivery(t *testing.T) {
	d := sharedScenario(t)
	validate(t, func() { duplicateDelivery(t, d) })
}

// TestPoisonMessage: an unparseable work message lands in the work DLQ
// with its reason, the DLQ alarm fires, other tasks are unaffected.
func TestPoisonMessage(t *testing.T) {
	d := sharedScenario(t)
	validate(t, func() { poisonMessage(t, d) })
}

// TestFatalAndRetryable: fatal URLs fail at once without a retry;
// retryable sites are retried and end Finished or Failed(exhausted) within
// maxAttempts.
func TestFatalAndRetryable(t *testing.T) {
	d := sharedScenario(t)
	validate(t, func() { fatalAndRetryable(t, d) })
}

// TestTrafficSpike: 3,575 tasks inserted at once all end, and the scraper
// never runs more copies at once than its configured cap.
func TestTrafficSpike(t *testing.T) {
	d := exclusiveScenario(t)
	validate(t, func() { trafficSpike(t, d) })
}

// TestPipeTargetFailure: the pipe cannot deliver, bisects, retries and
// parks pointers in its DLQ; the reconciler re-dispatches the tasks and
// they finish.
func TestPipeTargetFailure(t *testing.T) {
	d := exclusiveScenario(t)
	validate(t, func() { pipeTargetFailure(t, d) })
}

// TestStuckTasks: a Pending task whose dispatch was lost and Running tasks
// whose lease expired long ago are recovered by the reconciler: finished,
// or failed as stuck when no attempt is left.
func TestStuckTasks(t *testing.T) {
	d := exclusiveScenario(t)
	validate(t, func() { stuckTasks(t, d) })
}

// TestFilterEditWithoutCodeDeploy: changing the pipe's filter variable
// updates only the pipe, in place, no function is redeployed, and the new
// filter's behaviour is observed.
func TestFilterEditWithoutCodeDeploy(t *testing.T) {
	d := exclusiveScenario(t)
	validate(t, func() { filterEdit(t, d) })
}

// TestDLQRedrive: after an outage sent work messages to the work DLQ, a
// redrive (StartMessageMoveTask, as taskpipe dlq redrive does it) brings
// them back and their tasks finish.
func TestDLQRedrive(t *testing.T) {
	d := exclusiveScenario(t)
	validate(t, func() { dlqRedrive(t, d) })
}
