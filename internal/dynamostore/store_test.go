package dynamostore_test

import (
	"testing"

	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// TestConformance runs the task.Store suite against minidyn through the real
// SDK over HTTP.
func TestConformance(t *testing.T) {
	t.Parallel()
	tasktest.Run(t, func(t *testing.T) tasktest.Harness {
		l := dynamostoretest.NewLocal(t)
		return tasktest.Harness{Store: l.Store, Seed: l.Seed, Get: l.Store.Get}
	})
}
