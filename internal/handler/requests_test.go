package handler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// DynamoDB requests per task, counted by SDK middleware on the real client
// (after the retry middleware, so retries would count too). The design
// promises (docs/design.md §3): the happy path is one claim and one finish, with
// no read; a duplicate delivery of a finished task is one refused claim.

func TestScraperDynamoDBRequestsPerTask(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		seed      *task.Task
		deliverTo string
		twice     bool
		wantTotal int
		wantState task.State
	}{
		{name: "HappyPathClaimAndFinish", seed: ptr(tasktest.Pending("t1")), deliverTo: "t1",
			wantTotal: 2, wantState: task.StateFinished},
		{name: "DuplicateOfFinishedOneRefusedClaim", seed: ptr(tasktest.Pending("t1")), deliverTo: "t1", twice: true,
			wantTotal: 1, wantState: task.StateFinished},
		{name: "DuplicateWhileClaimedOneRefusedClaim", seed: ptr(running("t1", "other", tasktest.T0.Add(time.Minute), 1)),
			deliverTo: "t1", wantTotal: 1, wantState: task.StateRunning},
		{name: "NotFoundOneRefusedClaim", deliverTo: "missing", wantTotal: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rc dynamostoretest.RequestCounter
			b := setupScraper(t, dynamostoretest.WithClientOptions(rc.ClientOption))
			if tt.seed != nil {
				b.seed(t, *tt.seed)
			}
			if tt.twice {
				require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody(tt.deliverTo))))
			}
			rc.Reset()

			require.Empty(t, b.handle(t, t.Context(), sqsEvent(compactBody(tt.deliverTo))))

			require.Equal(t, tt.wantTotal, rc.Total())
			require.Equal(t, tt.wantTotal, rc.Count("UpdateItem"))
			require.Equal(t, 0, rc.Reads())
			if tt.seed != nil {
				require.Equal(t, tt.wantState, b.get(t, tt.deliverTo).State)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func BenchmarkScraperDynamoDBRequests(b *testing.B) {
	for _, bc := range []struct {
		name      string
		duplicate bool
	}{
		{"HappyPath", false},
		{"DuplicateOfFinished", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var rc dynamostoretest.RequestCounter
			sb := setupScraper(b, dynamostoretest.WithClientOptions(rc.ClientOption))
			ids := make([]string, b.N)
			for i := range ids {
				ids[i] = fmt.Sprintf("t%06d", i)
				sb.seed(b, tasktest.Pending(ids[i]))
				if bc.duplicate {
					sb.handle(b, b.Context(), sqsEvent(compactBody(ids[i])))
				}
			}
			rc.Reset()
			b.ResetTimer()
			for i := range b.N {
				if f := sb.handle(b, b.Context(), sqsEvent(compactBody(ids[i]))); len(f) > 0 {
					b.Fatalf("task %s retried", ids[i])
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(rc.Total())/float64(b.N), "ddb-req/task")
			b.ReportMetric(float64(rc.Reads())/float64(b.N), "ddb-reads/task")
		})
	}
}
