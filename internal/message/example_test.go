package message_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/message"
)

func ExampleParse() {
	bodies := []string{
		// What lambdas/enrich and the reconciler send.
		`{"v":1,"taskId":"t-1","runId":"r-1","url":"https://example.com/","domain":"example.com"}`,
		// What a Pipe input_template may send.
		`{"taskId":"t-2"}`,
		// The raw stream record a Pipe without enrichment sends.
		`{"eventName":"INSERT","dynamodb":{"Keys":{"taskId":{"S":"t-3"}},"NewImage":{"taskId":{"S":"t-3"},"url":{"S":"example.org"}}}}`,
		// Poison: forwarded to the work DLQ with this reason.
		`{"taskId": t-4}`,
	}
	for _, b := range bodies {
		m, err := message.Parse([]byte(b))
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("task %s run %q url %q\n", m.TaskID, m.RunID, m.URL)
	}
	// Output:
	// task t-1 run "r-1" url "https://example.com/"
	// task t-2 run "" url ""
	// task t-3 run "" url "example.org"
	// error: poison: message: parse: invalid character '-' in literal true (expecting 'r')
}

func ExampleNew() {
	fmt.Println(message.New("t-1", "r-1", "HTTPS://WWW.Example.com:443/shop#top"))
	fmt.Println(message.New("t-2", "r-1", "mailto:someone@example.com"))
	// Output:
	// {1 t-1 r-1 https://www.example.com/shop example.com}
	// {1 t-2 r-1 mailto:someone@example.com }
}
