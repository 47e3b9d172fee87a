package function

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
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

// cpuTime is the CPU time (user + system) the process has used so far, from
// /proc/<pid>/stat fields 14 and 15 (proc(5)), in clock ticks of USER_HZ,
// which is 100 on Linux (the kernel reports these fields in that unit
// whatever its internal tick rate). ok is false when it cannot be read.
func cpuTime(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is parenthesised and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state), so fields 14 and 15 are f[11] and f[12].
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const userHZ = 100
	return time.Duration(utime+stime) * time.Second / userHZ, true
}
