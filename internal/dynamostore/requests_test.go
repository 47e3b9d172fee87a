package dynamostore_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/dynamostore"
	"github.com/taskpipe/taskpipe/internal/dynamostore/dynamostoretest"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

var benchResult = json.RawMessage(`{"title":"Example Domain","links":1}`)

// TestClaimFinishRequests pins the scraper's happy path: one request to
// claim, one to finish, no reads.
func TestClaimFinishRequests(t *testing.T) {
	t.Parallel()
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(t, dynamostoretest.WithClientOptions(rc.ClientOption))
	s := newStore(t, l, l.Client, nil)
	require.NoError(t, s.Create(t.Context(), newTasks("run-1", "t", 1)))
	rc.Reset()

	_, err := s.Claim(t.Context(), task.ClaimParams{TaskID: "t-000", Token: "tok", Now: t0, Lease: tasktest.Lease})
	require.NoError(t, err)
	require.NoError(t, s.Finish(t.Context(), task.FinishParams{TaskID: "t-000", Token: "tok", Now: t0, Result: benchResult}))
	require.Equal(t, 2, rc.Total())
	require.Equal(t, 2, rc.Count("UpdateItem"))
	require.Zero(t, rc.Reads())
}

// BenchmarkClaimFinish measures the scraper's two writes per task through
// the real SDK, HTTP and the local cloud's DynamoDB. ns/op is dominated by the local HTTP round
// trips and the emulator, not by DynamoDB; requests/op and reads/op are the
// numbers that carry over to AWS.
func BenchmarkClaimFinish(b *testing.B) {
	var rc dynamostoretest.RequestCounter
	l := dynamostoretest.NewLocal(b, dynamostoretest.WithClientOptions(rc.ClientOption))
	s, err := dynamostore.New(l.Client, dynamostore.Options{Table: l.Table, Now: func() time.Time { return t0 }})
	require.NoError(b, err)
	tasks := make([]task.Task, b.N)
	for i := range tasks {
		id := fmt.Sprintf("t-%d", i)
		tasks[i] = task.Task{ID: id, RunID: "bench", URL: "https://example.com/" + id}
	}
	require.NoError(b, s.Create(b.Context(), tasks))
	rc.Reset()
	b.ResetTimer()
	for i := range b.N {
		id := tasks[i].ID
		if _, err := s.Claim(b.Context(), task.ClaimParams{TaskID: id, Token: "tok", Now: t0, Lease: time.Minute}); err != nil {
			b.Fatal(err)
		}
		if err := s.Finish(b.Context(), task.FinishParams{TaskID: id, Token: "tok", Now: t0, Result: benchResult}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rc.Total())/float64(b.N), "requests/op")
	b.ReportMetric(float64(rc.Reads())/float64(b.N), "reads/op")
}
