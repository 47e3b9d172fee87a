package pricing_test

import (
	"fmt"

	"github.com/taskpipe/taskpipe/internal/e2e/pricing"
)

// A run of 2,000 tasks whose scraper (arm64, 512 MB) was invoked 2,100
// times for 420 s of billed duration, priced per 1,000 tasks.
func ExampleTable_Estimate() {
	usage := pricing.Usage{
		Tasks: 2000,
		Functions: []pricing.FunctionUsage{
			{Name: "scraper", Arch: "arm64", MemoryMB: 512, Invocations: 2100, BilledMS: 420_000},
		},
		SQSRequests:      6_300,
		DynamoWriteUnits: 22_000,
		PipeRequests:     2_000,
	}
	e, err := pricing.Default().Estimate(usage, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range e.Lines {
		if l.Quantity > 0 {
			fmt.Printf("%-42s %8.2f %-20s $%.6f\n", l.Item, l.Quantity, l.Unit, l.USD)
		}
	}
	fmt.Printf("total $%.4f per %d tasks\n", e.Total, e.Tasks)
	// Output:
	// Lambda requests                             1050.00 requests             $0.000210
	// Lambda compute scraper (arm64, 512 MB)       105.00 GB-seconds           $0.001400
	// SQS requests                                3150.00 requests             $0.001260
	// DynamoDB write request units               11000.00 write request units  $0.006875
	// EventBridge Pipes requests                  1000.00 requests             $0.000400
	// total $0.0101 per 1000 tasks
}
