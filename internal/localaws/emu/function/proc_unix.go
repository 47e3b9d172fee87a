//go:build unix

package function

import "syscall"

// killGroup sends SIGKILL to the process group of pid.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // ESRCH: already gone
	}
}

// terminate sends SIGTERM to the runtime process itself, as Lambda does at
// shutdown when an extension is registered.
func terminate(pid int) {
	if pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM) // ESRCH: already gone
	}
}

// stopGroup sends SIGSTOP to the process group of pid; the SIGKILL of a
// timeout still ends a stopped process.
func stopGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGSTOP) // ESRCH: already gone
	}
}
