package eventpattern_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/taskpipe/taskpipe/internal/eventpattern"
)

// BenchmarkBecomesPending measures the Pipe filter on a typical MODIFY stream
// record: both filters of docs/aws-behaviour.md §1.3, ORed as a Pipe applies them.
func BenchmarkBecomesPending(b *testing.B) {
	filters := []*eventpattern.Pattern{
		eventpattern.MustCompile(string(readTestdata(b, "filter-becomes-pending-new.json"))),
		eventpattern.MustCompile(string(readTestdata(b, "filter-becomes-pending-changed.json"))),
	}
	rec := readTestdata(b, "ddb-modify-running-to-pending.json")
	var decoded map[string]any
	dec := json.NewDecoder(bytes.NewReader(rec))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		b.Fatal(err)
	}

	b.Run("Bytes", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(rec)))
		for b.Loop() {
			matched := false
			for _, f := range filters {
				ok, err := f.Match(rec)
				if err != nil {
					b.Fatal(err)
				}
				if ok {
					matched = true
					break
				}
			}
			if !matched {
				b.Fatal("record must pass the filter pair")
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
	})
	b.Run("Decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			matched := false
			for _, f := range filters {
				ok, err := f.MatchValue(decoded)
				if err != nil {
					b.Fatal(err)
				}
				if ok {
					matched = true
					break
				}
			}
			if !matched {
				b.Fatal("record must pass the filter pair")
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
	})
}
