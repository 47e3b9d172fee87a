package eventpattern_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
)

// A Pipe filter that passes DynamoDB stream records whose status changed to
// Pending, checked the way CreatePipe and the Pipe runtime check it.
func Example() {
	p, err := eventpattern.Compile([]byte(`{"dynamodb":{
		"NewImage":{"status":{"S":["Pending"]}},
		"OldImage":{"status":{"S":[{"anything-but":["Pending"]}]}}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := eventpattern.ValidateForPipes(p); err != nil {
		fmt.Println(err)
		return
	}
	for _, rec := range []string{
		`{"eventName":"MODIFY","dynamodb":{"NewImage":{"status":{"S":"Pending"}},"OldImage":{"status":{"S":"Running"}}}}`,
		`{"eventName":"MODIFY","dynamodb":{"NewImage":{"status":{"S":"Pending"}},"OldImage":{"status":{"S":"Pending"}}}}`,
	} {
		ok, err := p.Match([]byte(rec))
		fmt.Println(ok, err)
	}

	_, err = eventpattern.Compile([]byte(`{"status":"Pending"}`))
	fmt.Println(err)
	// Output:
	// true <nil>
	// false <nil>
	// Event pattern is not valid. Reason: "status" must be an object or an array
}
