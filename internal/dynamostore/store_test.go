package dynamostore_test

import (
	"testing"

	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// TestConformance runs the task.Store suite against the local cloud's
// DynamoDB (internal/localaws/emu/table) through the real SDK over HTTP,
// with no repair layer in between: it is the store's conformance test and
// the emulator's proof that it serves the store as AWS does (top-level
// REMOVE, sparse index maintenance, ReturnValuesOnConditionCheckFailure).
func TestConformance(t *testing.T) {
	t.Parallel()
	tasktest.Run(t, func(t *testing.T) tasktest.Harness {
		l := dynamostoretest.NewLocal(t)
		return tasktest.Harness{Store: l.Store, Seed: l.Seed, Get: l.Store.Get}
	})
}
