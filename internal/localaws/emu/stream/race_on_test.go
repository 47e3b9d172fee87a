//go:build race

package stream_test

// raceEnabled scales the heaviest test down under the race detector, which
// slows each SDK round trip about tenfold.
const raceEnabled = true
