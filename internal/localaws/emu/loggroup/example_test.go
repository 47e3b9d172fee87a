package loggroup_test

import (
	"fmt"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/loggroup"
)

// A function's output lands in its log group; the group and the stream are
// created on first use, as the Lambda service creates /aws/lambda/<name>.
func ExampleService_Append() {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	logs := loggroup.New(loggroup.Options{Now: func() time.Time { return at }})
	err := logs.Append("/aws/lambda/scraper", "2026/03/01/[$LATEST]0123",
		loggroup.Event{Timestamp: at, Message: "START RequestId: 42 Version: $LATEST"},
		loggroup.Event{Timestamp: at.Add(time.Millisecond), Message: "scraped https://example.com"})
	if err != nil {
		fmt.Println(err)
		return
	}
	events, _ := logs.Events("/aws/lambda/scraper", "2026/03/01/[$LATEST]0123")
	for _, e := range events {
		fmt.Println(e.Timestamp.Format(time.StampMilli), e.Message)
	}
	// Output:
	// Mar  1 12:00:00.000 START RequestId: 42 Version: $LATEST
	// Mar  1 12:00:00.001 scraped https://example.com
}
