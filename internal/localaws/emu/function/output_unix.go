//go:build unix

package function

import (
	"bytes"
	"os"
	"sync"
	"syscall"
)

// maxLogLine is the largest log event CloudWatch Logs accepts (256 KB);
// longer output without a newline is split, as Lambda splits it.
const maxLogLine = 256 * 1024

// output reads a process's stdout and stderr (one pipe) and turns it into
// lines. Reads happen under mu, either in run's poll loop or in drain, so
// drain can guarantee that everything the process wrote before a point in
// time has been logged: a runtime prints, then posts its response; the
// bytes are in the pipe by the time the response arrives.
type output struct {
	inst *instance
	f    *os.File

	mu      sync.Mutex
	partial []byte
	eof     bool
	buf     []byte
}

func newOutput(inst *instance, f *os.File) *output {
	return &output{inst: inst, f: f, buf: make([]byte, 64*1024)}
}

// run reads until the process and its children close the pipe.
func (o *output) run() {
	defer o.f.Close()
	rc, err := o.f.SyscallConn()
	if err != nil {
		o.inst.svc.log.Warn("function output: raw pipe", "err", err)
		return
	}
	// Read calls the function again whenever the pipe becomes readable
	// until it returns true (end of file).
	if err := rc.Read(func(fd uintptr) bool { return o.readAvailable(int(fd)) }); err != nil {
		o.inst.svc.log.Debug("function output: read", "err", err)
	}
	o.mu.Lock()
	o.flushLocked()
	o.eof = true
	o.mu.Unlock()
}

// readAvailable reads what the pipe holds; it reports true at end of file.
func (o *output) readAvailable(fd int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.eof {
		return true
	}
	for {
		n, err := syscall.Read(fd, o.buf)
		if n > 0 {
			o.consumeLocked(o.buf[:n])
			continue
		}
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		o.flushLocked()
		o.eof = true
		return true
	}
}

// drain logs everything written so far, including a last line without a
// newline.
func (o *output) drain() {
	rc, err := o.f.SyscallConn()
	if err == nil {
		// Control fails only once the pipe is closed, when run has
		// already read everything.
		_ = rc.Control(func(fd uintptr) { o.readAvailable(int(fd)) })
	}
	o.mu.Lock()
	o.flushLocked()
	o.mu.Unlock()
}

func (o *output) consumeLocked(data []byte) {
	o.partial = append(o.partial, data...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		line := o.partial[:i]
		line = bytes.TrimSuffix(line, []byte{'\r'})
		o.inst.functionLine(string(line))
		o.partial = o.partial[i+1:]
	}
	for len(o.partial) >= maxLogLine {
		o.inst.functionLine(string(o.partial[:maxLogLine]))
		o.partial = o.partial[maxLogLine:]
	}
	if len(o.partial) == 0 {
		o.partial = nil
	}
}

func (o *output) flushLocked() {
	if len(o.partial) > 0 {
		o.inst.functionLine(string(o.partial))
		o.partial = nil
	}
}
