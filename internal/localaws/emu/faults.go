package emu

import "time"

// Faults is what in-process components (the SQS event source mapping, the
// Pipe runtime) ask the fault injector. Faults that act on API requests
// (DynamoDB throttling, killing the process that just claimed a task) are
// router middleware instead. Every method must be cheap and safe for
// concurrent use; NoFaults injects nothing.
type Faults interface {
	// DuplicateDelivery reports whether a received message should also be
	// delivered a second time (SQS is at-least-once).
	DuplicateDelivery(queueARN string) bool
	// DropAck reports whether a delete (acknowledgement) should be lost:
	// the caller believes it succeeded, the message stays.
	DropAck(queueARN string) bool
	// AckDelay is how long to hold an acknowledgement before sending it.
	AckDelay(queueARN string) time.Duration
	// PipeTargetFails reports whether a Pipe's SendMessage of body to its
	// target should fail this time.
	PipeTargetFails(pipeName string, body []byte) bool
	// PipeEnrichmentFails reports whether a Pipe's enrichment invocation
	// should fail as a function error, after hanging for hang first (a
	// function timeout when hang > 0).
	PipeEnrichmentFails(pipeName string) (fail bool, hang time.Duration)
}

// NoFaults is the Faults that injects nothing.
type NoFaults struct{}

// DuplicateDelivery implements Faults.
func (NoFaults) DuplicateDelivery(string) bool { return false }

// DropAck implements Faults.
func (NoFaults) DropAck(string) bool { return false }

// AckDelay implements Faults.
func (NoFaults) AckDelay(string) time.Duration { return 0 }

// PipeTargetFails implements Faults.
func (NoFaults) PipeTargetFails(string, []byte) bool { return false }

// PipeEnrichmentFails implements Faults.
func (NoFaults) PipeEnrichmentFails(string) (bool, time.Duration) { return false, 0 }
