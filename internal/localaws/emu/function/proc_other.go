//go:build unix && !linux

package function

import "syscall"

// procAttr puts the bootstrap in its own process group, so a timeout or a
// kill ends everything it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// peakRSSKB is not measured outside Linux (it needs /proc); REPORT lines
// then say 0 MB.
func peakRSSKB(int) int64 { return 0 }
