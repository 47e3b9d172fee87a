package handler_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/taskpipe/taskpipe/internal/site"
	"github.com/taskpipe/taskpipe/internal/task"
	"github.com/taskpipe/taskpipe/internal/task/tasktest"
)

// The contract tests feed the scraper SQS events in the shape the Lambda
// event source mapping delivers (testdata/, aws-lambda-go's events.SQSEvent)
// and compare the response JSON Lambda reads back.

func fixtureTask(id, url string) task.Task {
	tk := tasktest.Pending(id)
	tk.RunID, tk.URL = "run-20260101", url
	return tk
}

func TestScraperContract(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		event     string
		scrapeErr error
		wantResp  string
		wantState task.State
		wantDLQ   int
	}{
		{name: "EnrichedMessageFinishes", event: "sqs-scrape-event.json",
			wantResp: `{"batchItemFailures":[]}`, wantState: task.StateFinished},
		{name: "EnrichedMessageRetried", event: "sqs-scrape-event.json", scrapeErr: errors.New("timeout"),
			wantResp: string(readFixture(t, "sqs-scrape-retry-response.json")), wantState: task.StateRunning},
		{name: "RawStreamRecordFinishes", event: "sqs-stream-record-event.json",
			wantResp: `{"batchItemFailures":[]}`, wantState: task.StateFinished},
		{name: "PoisonForwarded", event: "sqs-poison-event.json",
			wantResp: `{"batchItemFailures":[]}`, wantState: task.StatePending, wantDLQ: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupScraper(t)
			b.seed(t, fixtureTask("run-20260101-0001", "https://Example.COM:443/about?b=2&a=1#team"))
			b.pages.answer = func(context.Context, string) (*site.Document, error) {
				return titled("About"), tt.scrapeErr
			}
			var ev events.SQSEvent
			decodeFixture(t, tt.event, &ev)

			resp, err := b.h.Handle(t.Context(), ev)

			require.NoError(t, err)
			got, err := json.Marshal(resp)
			require.NoError(t, err)
			require.JSONEq(t, tt.wantResp, string(got))
			require.Equal(t, tt.wantState, b.get(t, "run-20260101-0001").State)
			require.Len(t, b.dlq.sent, tt.wantDLQ)
			if tt.wantDLQ > 0 {
				require.Equal(t, ev.Records[0].Body, b.dlq.sent[0].Body)
				require.Equal(t, ev.Records[0].MessageId, b.dlq.sent[0].SourceMessageID)
			}
		})
	}
}
