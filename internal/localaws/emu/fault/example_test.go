package fault_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// Wiring the injector into a router, and asking it about deliveries as the
// SQS event source mapping does.
func Example() {
	router := emu.NewRouter()
	inj, err := fault.New(fault.Config{
		SQS: fault.SQSFaults{DuplicateRate: 0.5, Queues: []string{"tasks"}},
		Kill: []fault.KillRule{{Function: "scraper", Service: emu.ServiceDynamoDB, Operation: "UpdateItem",
			BodyContains: `"Pending"`, Rate: 1, Times: 1}},
	}, 42, fault.WithServices(router.Handler))
	if err != nil {
		fmt.Println(err)
		return
	}
	router.Use(inj.Middleware())

	var faults emu.Faults = inj
	dups := 0
	for range 1000 {
		if faults.DuplicateDelivery("arn:aws:sqs:us-east-1:000000000000:tasks") {
			dups++
		}
	}
	fmt.Println(dups > 400 && dups < 600, faults.DuplicateDelivery("arn:aws:sqs:us-east-1:000000000000:other"))
	// Output: true false
}
