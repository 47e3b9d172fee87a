package function

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// procAttr puts the bootstrap in its own process group, so a timeout or a
// kill ends everything it started, and makes the kernel kill it if the
// local cloud itself dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// peakRSSKB reads VmHWM, the process's peak resident set size in kB, from
// /proc/<pid>/status; 0 when the process is gone.
func peakRSSKB(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0 // the process has exited; the last sample stands
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				return 0
			}
			return kb
		}
	}
	return 0
}
