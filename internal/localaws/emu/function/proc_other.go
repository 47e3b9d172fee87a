//go:build unix && !linux

package function

import (
	"syscall"
	"time"
)

// procAttr puts the bootstrap in its own process group, so a timeout or a
// kill ends everything it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// peakRSSKB is not measured outside Linux (it needs /proc); REPORT lines
// then say 0 MB.
func peakRSSKB(int) int64 { return 0 }

// cpuTime is not measured outside Linux; the init limit then counts wall
// time.
func cpuTime(int) (time.Duration, bool) { return 0, false }
