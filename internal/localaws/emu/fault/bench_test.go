package fault_test

import (
	"testing"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/fault"
)

// BenchmarkDecision measures one emu.Faults decision, which the SQS
// pollers make for every message: it must stay far below a receive's cost.
func BenchmarkDecision(b *testing.B) {
	inj, err := fault.New(fault.Config{SQS: fault.SQSFaults{DuplicateRate: 0.1, Queues: []string{"work"}}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	fired := 0
	b.ReportAllocs()
	for b.Loop() {
		if inj.DuplicateDelivery("arn:aws:sqs:us-east-1:000000000000:work") {
			fired++
		}
	}
	b.ReportMetric(float64(fired)/float64(b.N), "fired/op")
}
