package schedule_test

import (
	"testing"
	"time"

	"github.com/taskpipe/taskpipe/internal/localaws/emu/schedule"
)

// BenchmarkNext measures next-occurrence computations: a dense cron, a
// sparse one that searches years ahead, and a rate.
func BenchmarkNext(b *testing.B) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		b.Fatal(err)
	}
	for _, expr := range []string{"cron(0/5 * * * ? *)", "cron(30 6 29 2 ? *)", "cron(0 17 ? * 6L *)", "rate(5 minutes)"} {
		b.Run(expr, func(b *testing.B) {
			e, err := schedule.ParseExpression(expr)
			if err != nil {
				b.Fatal(err)
			}
			begin := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			t := begin
			for b.Loop() {
				next, ok := e.Next(t, newYork)
				if !ok {
					t = begin // past the year 2199: start over
					continue
				}
				t = next.Add(time.Second)
			}
		})
	}
}
