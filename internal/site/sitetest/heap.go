// Package sitetest holds test support for the scraper's packages: a
// peak-heap probe for the memory bounds of page parsing and extraction.
package sitetest

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// PeakHeap runs fn and returns the highest heap size (live and not yet
// swept objects, from runtime/metrics) seen while it ran, above the heap
// after a forced GC before it. A goroutine samples every 100 µs; the heap
// grows smoothly between collections, so the samples track its peak
// closely. Callers must not run in parallel with other tests.
func PeakHeap(fn func()) uint64 {
	const name = "/memory/classes/heap/objects:bytes"
	read := func(s []metrics.Sample) uint64 {
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	base := read([]metrics.Sample{{Name: name}})
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: name}}
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			if v := read(s); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	<-done
	if v := read([]metrics.Sample{{Name: name}}); v > peak.Load() {
		peak.Store(v)
	}
	if peak.Load() < base {
		return 0
	}
	return peak.Load() - base
}
