package function

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestInitTimeLeft(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read from /proc")
	}
	self := os.Getpid()
	tests := []struct {
		name           string
		pid            int
		limit, elapsed time.Duration
		wantOK         bool
	}{
		{"CPULeft", self, time.Hour, 10 * time.Second, true},
		{"CPUUsedUp", self, time.Nanosecond, 0, false},
		{"WallStretchUsedUp", self, time.Hour, initStretch * time.Hour, false},
		{"CPUUnreadable", 0, time.Hour, time.Second, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			more, ok := initTimeLeft(tc.pid, tc.limit, tc.elapsed)
			if ok != tc.wantOK {
				t.Fatalf("initTimeLeft(%d, %v, %v) ok = %v, want %v", tc.pid, tc.limit, tc.elapsed, ok, tc.wantOK)
			}
			if ok && (more <= 0 || more > tc.limit || more > initStretch*tc.limit-tc.elapsed) {
				t.Fatalf("initTimeLeft gave %v more, outside (0, min(limit, stretch left)]", more)
			}
		})
	}
}

func TestCPUTimeGrows(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("CPU time is read from /proc")
	}
	before, ok := cpuTime(os.Getpid())
	if !ok {
		t.Fatal("cpuTime of this process is unreadable")
	}
	// Burn CPU until the kernel's accounting (10 ms ticks) moves.
	deadline := time.Now().Add(20 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
		if now, _ := cpuTime(os.Getpid()); now > before {
			return
		}
	}
	t.Fatalf("cpuTime did not grow after busy work (%d, %v)", x, before)
}
